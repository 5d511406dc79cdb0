/**
 * One submit, many sites (issue 28), on the real stack: three fleets of one control plane — a process
 * fleet (one simulated GPU), a docker fleet (one GPU, dockerd with the minimal image) and a Slurm fleet
 * (the two 4-GPU nodes of scripts/start-slurm.sh) — and real training (python/charlm). The deployment's
 * default fleet is `*`, so a job that names no fleet is placed over all three.
 *
 * 1. A job with no fleet goes to the one with free GPUs (the process fleet).
 * 2. When all are full, the next waits on the fleet whose running job ends first (the docker fleet's job has
 *    a short max_runtime_seconds) and starts there when it does.
 * 3. The process fleet's agent is killed (and its workload with it): its queued job moves to the Slurm
 *    fleet once the site is lost (SF_SITE_LOST_SECONDS); its running job is fenced (its run fails when the
 *    agent's grace ends), queued again and moves on, waiting; when the Slurm fleet frees up it is
 *    re-routed there and resumes from its checkpoint (stored in R2 by the process fleet's run), with no
 *    step trained twice.
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { JobSpecInput } from "../../contract/jobspec.schema.js";
import * as ck from "../support/checkpoints.js";
import { type ControlPlane, call, startControlPlane } from "../support/control-plane.js";
import { enrollForgelet, type ForgeletProc } from "../support/forgelet.js";
import { baseSpec, jobState, recipeDigest, waitForStatus } from "../support/jobs.js";
import { describeState, fleetView, newOperator, sleep, waitFor } from "../support/lifecycle.js";
import { expectSqueueEmpty, slurm } from "../support/slurm.js";

const IMAGE = "starforge/python:bookworm";
const P = "ms-p";
const D = "ms-d";
const S = "ms-s";
let cp: ControlPlane;
let op = "";
let digest = "";
const agents: Record<string, ForgeletProc> = {};
const ids: string[] = [];
const sharedDir = join(slurm.sharedDir, `ms-${process.pid}`);

beforeAll(async () => {
  mkdirSync(sharedDir, { recursive: true });
  cp = await startControlPlane({
    agent: false,
    vars: {
      SF_DEFAULT_FLEET: "*",
      SF_COMMAND_RESEND_SECONDS: 1,
      SF_SITE_LOST_SECONDS: 4,
      SF_AGENT_LOST_GRACE_SECONDS: 6,
      SF_RETRY_BACKOFF_SECONDS: 1,
    },
  });
  op = await newOperator(cp, "ms-op");
  // The stack's own default fleet has no agent here: out of the way (a draining fleet is no candidate).
  const drained = await call(cp, cp.adminToken, "POST", "/v1/fleets/local/maintenance/drain", {
    note: "not in this scene",
  });
  expect(drained.status, JSON.stringify(drained.body)).toBe(200);
  for (const [name, kind] of [
    [P, "process"],
    [D, "docker"],
    [S, "slurm"],
  ] as const) {
    const f = await call(cp, cp.adminToken, "POST", "/v1/fleets", { name, kind, image_allowlist: [] });
    expect(f.status, JSON.stringify(f.body)).toBe(201);
  }
  agents[P] = await enrollForgelet(cp, P, { name: "ms-proc", gpus: 1 });
  agents[D] = await enrollForgelet(cp, D, {
    name: "ms-dock",
    runtime: "docker",
    gpus: 1,
    env: { FORGE_LOCAL_GPU_PASSTHROUGH: "0" },
    args: ["--default-image", IMAGE],
  });
  agents[S] = await enrollForgelet(cp, S, {
    name: "ms-login",
    runtime: "slurm",
    env: { SLURM_CONF: slurm.conf },
    args: ["--slurmrestd", slurm.restd, "--shared-dir", sharedDir, "--cluster-refresh", "2"],
  });
  for (const name of [P, D, S]) {
    await waitFor(
      `a ready GPU node in ${name}`,
      async () => (await fleetView(cp, name)).nodes.some((n) => n.status === "ready" && n.gpus.length > 0),
      30_000,
      200,
    );
  }
  digest = await recipeDigest(cp, op, "python/charlm");
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail")
    console.error(await describeState(cp, op, ids, Object.values(agents)));
});

afterAll(async () => {
  for (const id of ids) await call(cp, op, "POST", `/v1/jobs/${id}/stop`).catch(() => undefined);
  await expectSqueueEmpty().catch((err: unknown) => console.error(err));
  for (const a of Object.values(agents)) await a.dispose();
  await cp?.stop();
  rmSync(sharedDir, { recursive: true, force: true });
});

/** A charlm job that trains until stopped (checkpoints every 50 steps), on `fleet` or placed (null). */
async function submit(
  name: string,
  where: { fleet?: string; fleets?: string[] },
  o: { gpus?: number; maxRuntimeSeconds?: number; maxRetries?: number } = {},
): Promise<string> {
  const spec: JobSpecInput = baseSpec({
    name,
    fleet: where.fleet ?? "x",
    ...(o.gpus ? { gpus: o.gpus } : {}),
    recipe: { name: "python/charlm", version: "1.0.0", digest },
    framework: { kind: "python", version: "3", runtime_id: "python3-stdlib", image: null },
    hyperparams: { max_steps: 1_000_000, batch_size: 1000, checkpoint_every: 50 },
  });
  const { fleet: _x, ...resources } = spec.resources;
  spec.resources = where.fleet
    ? spec.resources
    : { ...resources, ...(where.fleets ? { fleets: where.fleets } : {}) };
  spec.lifecycle = {
    max_retries: o.maxRetries ?? 3,
    retry_on_user_failure: false,
    ...(o.maxRuntimeSeconds ? { max_runtime_seconds: o.maxRuntimeSeconds } : {}),
  };
  const r = await call(cp, op, "POST", "/v1/jobs", spec);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const id = (r.body.job as { id: string }).id;
  ids.push(id);
  return id;
}

async function fleetOf(id: string): Promise<string> {
  const job = (await call(cp, op, "GET", `/v1/jobs/${id}`)).body.job as { fleet_id: string };
  const fleets = (await call(cp, op, "GET", "/v1/fleets")).body.fleets as Array<{ id: string; name: string }>;
  return fleets.find((f) => f.id === job.fleet_id)?.name ?? job.fleet_id;
}

/** Each fleet's published capacity reaches the Worker within 1.5 s (publish ≤ 0.5 s, its cache ≤ 1 s). */
const published = () => sleep(2_000);

const reroutes = async (id: string) =>
  (await jobState(cp, op, id)).events.filter((e) => e.edge === "rerouted").map((e) => e.detail);

describe("one submit, three sites", () => {
  it("places on free GPUs, waits where a job ends first, and moves off a lost site, resuming from its checkpoint", async () => {
    // The Slurm fleet full (two 4-GPU jobs), the docker fleet busy with a job that ends by its time limit.
    const fillS = [
      await submit("ms-fill-s1", { fleet: S }, { gpus: 4 }),
      await submit("ms-fill-s2", { fleet: S }, { gpus: 4 }),
    ];
    const short = await submit("ms-short-d", { fleet: D }, { maxRuntimeSeconds: 45, maxRetries: 0 });
    for (const id of [...fillS, short]) await waitForStatus(cp, op, id, ["RUNNING"], 120_000);
    await published();

    // 1. No fleet named: the process fleet has the only free GPU.
    const trainer = await submit("ms-trainer", {});
    expect(await fleetOf(trainer)).toBe(P);
    await waitForStatus(cp, op, trainer, ["RUNNING"], 60_000);
    await published();

    // 2. All full: it waits on the docker fleet, whose job ends first, and starts there when it does.
    const next = await submit("ms-next", {});
    expect(await fleetOf(next)).toBe(D);
    const admitted = (await jobState(cp, op, next)).events.find((e) => e.edge === "admitted")!;
    const candidates = admitted.detail.placement as Array<{ fleet: string; chosen: boolean; reason: string }>;
    expect(candidates.find((c) => c.chosen)?.fleet).toBe(D);
    expect(candidates.find((c) => c.fleet === D)?.reason).toMatch(/^full until /);
    await waitForStatus(cp, op, next, ["RUNNING"], 120_000);
    expect((await jobState(cp, op, short)).job.status).toBe("FAILED");
    expect(await fleetOf(next)).toBe(D);

    // 3. A job queued on the process fleet (the first of the two it names), and the trainer checkpointing.
    const queued = await submit("ms-queued", { fleets: [P, S] });
    expect(await fleetOf(queued)).toBe(P);
    const firstRun = (await jobState(cp, op, trainer)).job.current_run_id!;
    await ck.waitForStep(cp, op, trainer, firstRun, 120, 90_000);
    // The site goes dark: its agent and the workload it ran are killed.
    const workloads = agents[P]!.liveWorkloads();
    await agents[P]!.kill();
    for (const pgid of workloads) {
      try {
        process.kill(-pgid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    // Its queued job moves once the site is lost, to the other fleet it names, and waits there.
    await waitFor(
      "the queued job moved off the lost site",
      async () => (await fleetOf(queued)) === S,
      30_000,
      250,
    );
    expect(await reroutes(queued)).toEqual([expect.objectContaining({ from: P, to: S, why: "site_lost" })]);
    // The running one is fenced first: its run fails when the agent's grace ends; only then does it move.
    await waitFor(
      "the trainer's run fenced and the trainer moved on",
      async () => (await fleetOf(trainer)) !== P,
      60_000,
      250,
    );
    const fenced = (await jobState(cp, op, trainer)).runs.find((r) => r.id === firstRun)!;
    expect(fenced.status).toBe("FAILED");
    const checkpoint = await ck.lastCheckpointStep(cp, op, trainer, firstRun);
    expect(checkpoint).toBeGreaterThanOrEqual(100);
    const before = await ck.points(cp, op, trainer, firstRun);
    const lastLoss = before.filter((p) => p.step <= checkpoint).at(-1)!.value;

    // The Slurm fleet frees up: the queued job starts there, and the trainer is re-routed there and resumes.
    await call(cp, op, "POST", `/v1/jobs/${fillS[0]}/stop`);
    await waitForStatus(cp, op, queued, ["RUNNING"], 120_000);
    await waitFor("the trainer on the Slurm fleet", async () => (await fleetOf(trainer)) === S, 60_000, 250);
    const moved = await waitForStatus(cp, op, trainer, ["RUNNING"], 120_000);
    const moves = await reroutes(trainer);
    expect(moves[0]).toMatchObject({ from: P, why: "site_lost" });
    expect(moves.at(-1)).toMatchObject({ to: S });
    const secondRun = moved.job.current_run_id!;
    expect(secondRun).not.toBe(firstRun);
    await ck.waitForStep(cp, op, trainer, secondRun, checkpoint + 20, 90_000);
    // Resumed from the process fleet's checkpoint: its first step is the next one, no step trained twice.
    await ck.expectContinued(cp, op, trainer, secondRun, checkpoint, lastLoss);
  });
});
