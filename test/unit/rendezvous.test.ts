/**
 * The pure parts of multi-node rendezvous: where the world stands for a set of registrations, what a
 * fleet's network settings put into every rank's environment, and which address an agent advertises.
 */
import { describe, expect, it } from "vitest";
import { FleetNetwork } from "../../contract/api.schema.js";
import { networkEnv } from "../../contract/launch-request.schema.js";
import { type RendezvousRow, rendezvousView } from "../../durable-objects/run/rendezvous.js";
import { checkAdvertiseAddr, defaultRouteInterface, pickAdvertiseAddr } from "../../forgelet/network.js";

const row = (node_rank: number, addr: string, port: number | null = null): RendezvousRow => ({
  epoch: 1,
  node_rank,
  addr,
  port,
  joined_at: 0,
});

describe("rendezvousView", () => {
  it("waits, naming the missing node ranks, until every rank has joined", () => {
    expect(rendezvousView([], 3)).toEqual({
      state: "waiting",
      nnodes: 3,
      joined: [],
      missing: [0, 1, 2],
      master: null,
      hosts: null,
      reason: null,
    });
    expect(rendezvousView([row(2, "10.0.0.3")], 3)).toMatchObject({ joined: [2], missing: [0, 1] });
  });

  it("is complete with rank 0's address and port and every rank's host, in rank order", () => {
    const view = rendezvousView([row(1, "10.0.0.2"), row(0, "10.0.0.1", 29500), row(2, "gpu-c")], 3);
    expect(view).toMatchObject({
      state: "complete",
      missing: [],
      master: { addr: "10.0.0.1", port: 29500 },
      hosts: ["10.0.0.1", "10.0.0.2", "gpu-c"],
    });
  });

  it("ignores registrations outside the world and is not complete without rank 0's port", () => {
    expect(rendezvousView([row(0, "a", 1234), row(5, "x")], 1)).toMatchObject({
      state: "complete",
      hosts: ["a"],
    });
    expect(rendezvousView([row(0, "a"), row(1, "b")], 2)).toMatchObject({ state: "waiting", master: null });
  });
});

describe("networkEnv", () => {
  it("defaults: the rendezvous timeout only", () => {
    expect(networkEnv(null)).toEqual({ SF_RENDEZVOUS_TIMEOUT_SECONDS: "300" });
  });

  it("passes the fleet's variables, timeout and port range to every rank", () => {
    const n = FleetNetwork.parse({
      env: { NCCL_SOCKET_IFNAME: "ib0", NCCL_IB_HCA: "mlx5_0,mlx5_1" },
      rendezvous_timeout_seconds: 60,
      port_range: [29500, 29599],
    });
    expect(networkEnv(n)).toEqual({
      NCCL_SOCKET_IFNAME: "ib0",
      NCCL_IB_HCA: "mlx5_0,mlx5_1",
      SF_RENDEZVOUS_TIMEOUT_SECONDS: "60",
      SF_RENDEZVOUS_PORTS: "29500-29599",
    });
  });

  it("FleetNetwork refuses what is not a network setting, with the field named", () => {
    for (const bad of [
      { env: { LD_PRELOAD: "/evil.so" } },
      { env: { PATH: "/tmp" } },
      { rendezvous_timeout_seconds: 1 },
      { port_range: [29600, 29500] },
      { port_range: [80, 90] },
      { surprise: true },
    ]) {
      expect(FleetNetwork.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });
});

describe("advertise address", () => {
  const ROUTES = `Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
eth1\t0000000A\t00000000\t0001\t0\t0\t0\t000000FF\t0\t0\t0
eth0\t00000000\t010200C0\t0003\t0\t0\t100\t00000000\t0\t0\t0
wg0\t00000000\t00000000\t0001\t0\t0\t50\t00000000\t0\t0\t0
`;
  const ifaces = {
    lo: [{ address: "127.0.0.1", family: "IPv4", internal: true }],
    eth0: [
      { address: "fe80::1", family: "IPv6", internal: false },
      { address: "192.0.2.7", family: "IPv4", internal: false },
    ],
    eth1: [{ address: "10.0.0.9", family: "IPv4", internal: false }],
    wg0: [{ address: "10.8.0.2", family: "IPv4", internal: false }],
  } as unknown as Parameters<typeof pickAdvertiseAddr>[1];

  it("is the IPv4 address of the default route's interface (the lowest metric)", () => {
    expect(defaultRouteInterface(ROUTES)).toBe("wg0");
    expect(pickAdvertiseAddr(ROUTES, ifaces)).toBe("10.8.0.2");
  });

  it("falls back to a non-loopback IPv4 address, then to loopback", () => {
    expect(pickAdvertiseAddr(null, ifaces)).toBe("192.0.2.7");
    expect(pickAdvertiseAddr("Iface\tDestination\n", { lo: ifaces.lo })).toBe("127.0.0.1");
  });

  it("accepts an IP or a host name, refuses anything else with the flag named", () => {
    for (const ok of ["10.0.4.17", "::1", "gpu-01.cluster.local", "127.0.0.2"])
      expect(checkAdvertiseAddr(ok)).toBeNull();
    for (const bad of ["http://x", "a b", "-gpu", ""])
      expect(checkAdvertiseAddr(bad)).toMatch(/--advertise-addr/);
  });
});
