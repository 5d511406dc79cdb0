/**
 * Tier 4, multi-node training in containers: a real control plane (npm start), two real forgelet
 * processes with the docker runtime advertising 127.0.0.2 and 127.0.0.3, real dockerd, and the torch
 * image built locally. A torch/ddp job spans both agents; each rank runs in its own container with
 * `--network host`, meets the other through the control plane, and they train as one process group.
 * Only GPU attach is simulated (FORGE_LOCAL_GPU_PASSTHROUGH=0).
 */
import { execFileSync } from "node:child_process";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, call, startControlPlane } from "../support/control-plane.js";
import { expectDdpTrained, runLines, submitDdp } from "../support/ddp.js";
import { enrollForgelet, type ForgeletProc } from "../support/forgelet.js";
import { jobDetail, newOperator, smallNodeProfile, waitNodesReady } from "../support/lifecycle.js";

const FLEET = "docker-multi";
const IMAGE = "starforge/torch-cpu:bookworm";
let cp: ControlPlane;
let op = "";
const agents: ForgeletProc[] = [];

const docker = (...args: string[]) => execFileSync("docker", args, { encoding: "utf8" }).trim();
const containersOf = (label: string) =>
  docker("ps", "-aq", "--filter", `label=${label}`).split("\n").filter(Boolean);

beforeAll(async () => {
  cp = await startControlPlane({ agent: false });
  op = await newOperator(cp, "mn-docker");
  await smallNodeProfile(cp, "h200-1pn", 1);
  const f = await call(cp, cp.adminToken, "POST", "/v1/fleets", {
    name: FLEET,
    kind: "docker",
    image_allowlist: ["starforge/*"],
    network: { env: { GLOO_SOCKET_IFNAME: "lo" }, rendezvous_timeout_seconds: 120 },
  });
  expect(f.status, JSON.stringify(f.body)).toBe(201);
  for (const [name, addr] of [
    ["dock-a", "127.0.0.2"],
    ["dock-b", "127.0.0.3"],
  ] as const) {
    agents.push(
      await enrollForgelet(cp, FLEET, {
        runtime: "docker",
        gpus: 1,
        name,
        args: ["--advertise-addr", addr],
        env: { FORGE_LOCAL_GPU_PASSTHROUGH: "0" },
      }),
    );
  }
  await waitNodesReady(cp, FLEET, 2);
});

afterEach((ctx) => {
  if (ctx.task.result?.state !== "fail") return;
  console.error(`--- control plane (tail)\n${cp.output().split("\n").slice(-60).join("\n")}`);
  for (const a of agents)
    console.error(`--- ${a.nodeId} (tail)\n${a.log().split("\n").slice(-40).join("\n")}`);
  for (const id of containersOf("starforge.managed=true"))
    console.error(`--- container ${id}\n${docker("logs", "--tail", "80", id)}`);
});

afterAll(async () => {
  for (const a of agents) await a.dispose();
  await cp?.stop();
});

describe("multi-node torch/ddp in containers", () => {
  it("2 nodes × 1 GPU in two containers (--network host): one process group, identical falling loss, checkpoint; 0 containers left", async () => {
    const id = await submitDdp(cp, op, {
      name: "ddp-docker",
      fleet: FLEET,
      nodes: 2,
      gpusPerNode: 1,
      profile: "h200-1pn",
      image: IMAGE,
      hyperparams: { max_steps: 60, checkpoint_every: 30 },
    });
    await expectDdpTrained(cp, op, id, 2, 300_000);
    const run = (await jobDetail(cp, op, id)).runs[0]!;
    const lines = await runLines(cp, op, id, run.id);
    const masters = new Set(
      lines
        .map((l) => /master (127\.0\.0\.[23]):\d+$/.exec(l.line)?.[1])
        .filter((m): m is string => Boolean(m)),
    );
    expect(masters.size, "both ranks dialled the same rank 0").toBe(1);
    // Both ranks ran in containers, and every container is gone once the run is over.
    const deadline = Date.now() + 60_000;
    while (containersOf(`starforge.job_id=${id}`).length > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 250));
    expect(containersOf(`starforge.job_id=${id}`)).toEqual([]);
    const totals = (await call(cp, cp.adminToken, "GET", `/v1/fleets/${FLEET}`)).body.totals as {
      allocated: number;
    };
    expect(totals.allocated).toBe(0);
  });
});
