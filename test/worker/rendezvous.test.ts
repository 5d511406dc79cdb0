/**
 * Multi-node rendezvous through ingest, in workerd: each node rank of a run registers where its peers
 * reach it and waits (a long poll on the run's Durable Object) until the world of the run's placement is
 * complete; the world's size and the lease epoch come from the Fleet DO, never from the client. Bad
 * registrations are refused with coded errors and change nothing; a run that is over fails the
 * rendezvous with its reason. Also: a fleet's network settings and an agent's advertise address.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { enroll, inventory, publishTestCapsule, ScriptedAgent } from "./agent-support.js";
import { ADMIN, api, createFleet, createUser, customSpec, registerNode } from "./helpers.js";
import { ingest, type RunFixture, runToken } from "./ingest-helpers.js";

let op = "";

beforeAll(async () => {
  op = await createUser("rdzv-op");
  await api(ADMIN, "PUT", "/v1/users/rdzv-op/quota", { max_gpus: 64, max_jobs: 50, daily_gpu_hours: 1000 });
});

/** A fleet of two 8-GPU nodes and a dispatched 2-node job (16 GPUs): a run whose world is 2 nodes. */
async function twoNodeRun(name: string): Promise<RunFixture> {
  await createFleet(name);
  await registerNode(name, `${name}-a`, 8);
  await registerNode(name, `${name}-b`, 8);
  const r = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: name, gpus: 16 }));
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const detail = await api(op, "GET", `/v1/jobs/${r.body.job.id}`);
  const run = detail.body.runs[0] as { id: string; epoch: number; placement: unknown[] };
  expect(run.placement).toHaveLength(2);
  const c = {
    runId: run.id,
    jobId: r.body.job.id as string,
    fleetId: detail.body.job.fleet_id as string,
    epoch: run.epoch,
  };
  return { op, fleet: name, ...c, token: await runToken(c) };
}

const join = (f: RunFixture, body: Record<string, unknown>) =>
  ingest(f.token, "/rendezvous", { run_id: f.runId, ...body });

describe("rendezvous", () => {
  it("waits for the missing rank, then every rank learns rank 0's address and port and the host list", async () => {
    const f = await twoNodeRun("rdzv-a");
    const first = await join(f, { node_rank: 1, nnodes: 2, addr: "10.0.0.2" });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toEqual({
      state: "waiting",
      nnodes: 2,
      joined: [1],
      missing: [0],
      master: null,
      hosts: null,
      reason: null,
    });
    // A long poll by rank 1 is answered as soon as rank 0 joins, not when its wait runs out.
    const started = Date.now();
    const waiting = join(f, { node_rank: 1, addr: "10.0.0.2", wait_ms: 15_000 });
    await new Promise((r) => setTimeout(r, 300));
    const zero = await join(f, { node_rank: 0, nnodes: 2, addr: "10.0.0.1", port: 29511 });
    const complete = {
      state: "complete",
      nnodes: 2,
      joined: [0, 1],
      missing: [],
      master: { addr: "10.0.0.1", port: 29511 },
      hosts: ["10.0.0.1", "10.0.0.2"],
      reason: null,
    };
    expect(zero.body).toEqual(complete);
    const one = await waiting;
    expect(one.body).toEqual(complete);
    expect(Date.now() - started).toBeLessThan(10_000);
    // A retried registration (same rank, same answer) is harmless.
    expect((await join(f, { node_rank: 1, addr: "10.0.0.2" })).body).toEqual(complete);
  });

  it("a long poll that nobody completes returns `waiting` after its wait", async () => {
    const f = await twoNodeRun("rdzv-wait");
    const started = Date.now();
    const r = await join(f, { node_rank: 0, addr: "10.0.0.1", port: 29500, wait_ms: 600 });
    expect(r.body).toMatchObject({ state: "waiting", missing: [1] });
    expect(Date.now() - started).toBeGreaterThanOrEqual(550);
  });

  it("refuses bad registrations with coded errors and leaves the rendezvous as it was", async () => {
    const f = await twoNodeRun("rdzv-bad");
    const cases: Array<[Record<string, unknown>, number, string, RegExp]> = [
      [{ node_rank: 2, addr: "10.0.0.9" }, 400, "BAD_REQUEST", /outside this run's 2 nodes/],
      [{ node_rank: 1, nnodes: 3, addr: "10.0.0.9" }, 400, "BAD_REQUEST", /has 2 nodes, not 3/],
      [{ node_rank: 0, addr: "10.0.0.9" }, 400, "BAD_REQUEST", /port it listens on/],
      [{ node_rank: 1, addr: "not an address!" }, 400, "BAD_REQUEST", /addr/],
      [{ node_rank: 0, addr: "10.0.0.9", port: 70000 }, 400, "BAD_REQUEST", /port/],
      [{ node_rank: 1, addr: "10.0.0.9", wait_ms: 60_000 }, 400, "BAD_REQUEST", /wait_ms/],
    ];
    for (const [body, status, code, message] of cases) {
      const r = await join(f, body);
      expect([r.status, r.body.error?.code], JSON.stringify(body)).toEqual([status, code]);
      expect(r.body.error.message).toMatch(message);
    }
    // Nothing was registered by any of them.
    expect((await join(f, { node_rank: 1, addr: "10.0.0.2" })).body).toMatchObject({
      joined: [1],
      missing: [0],
    });

    // Another run's token, a stale epoch, no token.
    const other = await twoNodeRun("rdzv-other");
    const foreign = await ingest(other.token, "/rendezvous", { run_id: f.runId, node_rank: 1, addr: "x" });
    expect([foreign.status, foreign.body.error.code]).toEqual([403, "FORBIDDEN"]);
    const stale = await ingest(await runToken({ ...f, epoch: f.epoch + 7 }), "/rendezvous", {
      run_id: f.runId,
      node_rank: 1,
      addr: "10.0.0.2",
    });
    expect([stale.status, stale.body.error.code]).toEqual([409, "CONFLICT"]);
    expect(stale.body.error.message).toMatch(/stale/);
    const anon = await ingest(null, "/rendezvous", { run_id: f.runId, node_rank: 1, addr: "10.0.0.2" });
    expect(anon.status).toBe(401);
  });

  it("a run that is over fails the rendezvous with the run's reason, naming the failed rank", async () => {
    const f = await twoNodeRun("rdzv-over");
    await join(f, { node_rank: 0, addr: "10.0.0.1", port: 29500 });
    // Rank 1 never gets as far as the rendezvous: its runner reports the failure.
    const failed = await ingest(f.token, "/lifecycle", {
      run_id: f.runId,
      rank: 1,
      event: "failed",
      exit_code: 69,
      reason: "RENDEZVOUS_FAILED: rendezvous timed out after 30s: node rank 0 never joined",
      infra: true,
    });
    expect(failed.body).toMatchObject({ outcome: "applied", run_over: true });
    const r = await join(f, { node_rank: 0, addr: "10.0.0.1", port: 29500 });
    expect(r.body.state).toBe("failed");
    expect(r.body.reason).toMatch(
      /^the run is FAILED: rank 1 on rdzv-over-[ab]: RENDEZVOUS_FAILED: .*node rank 0 never joined/,
    );
    // The runner said it was the infrastructure: the job records it, and the retry budget applies.
    const detail = (await api(op, "GET", `/v1/jobs/${f.jobId}`)).body;
    const failedEvent = detail.events.find((e: { to: string }) => e.to === "FAILED");
    expect(failedEvent.detail).toMatchObject({ rank: 1, exit_code: 69, infra: true });
  });
});

describe("fleet network settings and advertise addresses", () => {
  it("are stored, shown, changed only by valid settings, and reach every rank's LaunchRequest", async () => {
    await publishTestCapsule();
    const created = await createFleet("net-a", {
      kind: "process",
      network: { env: { GLOO_SOCKET_IFNAME: "lo", NCCL_IB_HCA: "mlx5_0" }, port_range: [29500, 29509] },
    });
    expect(created).toMatchObject({
      network: {
        env: { GLOO_SOCKET_IFNAME: "lo", NCCL_IB_HCA: "mlx5_0" },
        rendezvous_timeout_seconds: 300,
        port_range: [29500, 29509],
      },
    });
    const bad = await api(ADMIN, "PATCH", "/v1/fleets/net-a", { network: { env: { LD_PRELOAD: "/x.so" } } });
    expect([bad.status, bad.body.error.code]).toEqual([400, "BAD_REQUEST"]);
    expect(JSON.stringify(bad.body.error)).toMatch(/NCCL_\*/);
    const patched = await api(ADMIN, "PATCH", "/v1/fleets/net-a", {
      network: { env: { GLOO_SOCKET_IFNAME: "lo" }, rendezvous_timeout_seconds: 45, port_range: null },
    });
    expect(patched.body.fleet.network).toEqual({
      env: { GLOO_SOCKET_IFNAME: "lo" },
      rendezvous_timeout_seconds: 45,
      port_range: null,
    });

    const { credential } = await enroll("net-a");
    const agent = await ScriptedAgent.connect(credential);
    agent.hello({ ...inventory("net-box", 2), advertise_addr: "10.1.2.3" });
    await agent.next("welcome");
    const live = (await api(ADMIN, "GET", "/v1/fleets/net-a")).body;
    expect(live.nodes).toEqual([expect.objectContaining({ name: "net-box", advertise_addr: "10.1.2.3" })]);
    expect(live.fleet.network.rendezvous_timeout_seconds).toBe(45);

    await api(ADMIN, "PUT", "/v1/users/rdzv-op/quota", { max_gpus: 64, max_jobs: 50, daily_gpu_hours: 1000 });
    const sub = await api(
      op,
      "POST",
      "/v1/jobs",
      await customSpec({ fleet: "net-a", gpus: 1, image: undefined }),
    );
    expect(sub.status, JSON.stringify(sub.body)).toBe(201);
    const launch = await agent.next("launch");
    expect(launch.request.env).toEqual({ GLOO_SOCKET_IFNAME: "lo", SF_RENDEZVOUS_TIMEOUT_SECONDS: "45" });
    agent.close();
  });
});
