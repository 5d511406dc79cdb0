/**
 * A job of several pools on a Slurm fleet, as ONE heterogeneous Slurm job, against the real daemons
 * (scripts/start-slurm.sh: two slurmd nodes with four fake GPUs each, slurmrestd v0.0.38 of Slurm 22.05).
 * The job has a trainer pool of 1 node × 2 GPUs and a rollout pool of 1 node × 1 GPU: Slurm gets a
 * component per pool, each with its own GRES on its own node, and starts them together; the ranks of
 * both pools train torch/ddp as one process group of three (one process per GPU).
 *
 * Every test ends with nothing left: no StarForge job (nor component) in squeue, no workload process,
 * 0 GPUs allocated.
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { slurmApi } from "../../forgelet/runtimes/slurm/adapters.js";
import type { SlurmComponent } from "../../forgelet/runtimes/slurm/api.js";
import { SlurmRejected, SlurmRest } from "../../forgelet/runtimes/slurm/rest.js";
import { SlurmToken } from "../../forgelet/runtimes/slurm/token.js";
import { type ControlPlane, call, startControlPlane } from "../support/control-plane.js";
import {
  continuesThenStop,
  type DdpPool,
  expectDdpTrained,
  gangStopStep,
  submitDdp,
  untilStep,
} from "../support/ddp.js";
import type { ForgeletProc } from "../support/forgelet.js";
import { waitForStatus } from "../support/jobs.js";
import {
  describeState,
  expectNoOrphans,
  jobDetail,
  newOperator,
  smallNodeProfile,
  waitFor,
} from "../support/lifecycle.js";
import {
  endedJobsOfRun,
  expectSqueueEmpty,
  jobsOfRun,
  liveStarforgeJobs,
  type SlurmJobRow,
  scancel,
  scontrol,
  slurm,
  startSlurmFleet,
} from "../support/slurm.js";

const FLEET = "hpc-het";
let cp: ControlPlane;
let op = "";
let agent: ForgeletProc;
const jobs = new Set<string>();
const sharedDir = join(slurm.sharedDir, `het-${process.pid}`);

/** Two pools of different shapes: a pool per heterogeneous component. */
const POOLS: DdpPool[] = [
  { name: "trainer", nodes: 1, gpusPerNode: 2, profile: "h200-2pn" },
  { name: "rollout", nodes: 1, gpusPerNode: 1, profile: "h200-1pn" },
];
/** The pool of each process rank: the trainer node's two processes first (node rank 0), then the rollout's. */
const RANK_POOLS = ["trainer", "trainer", "rollout"];

beforeAll(async () => {
  mkdirSync(sharedDir, { recursive: true });
  cp = await startControlPlane({
    agent: false,
    vars: { SF_COMMAND_RESEND_SECONDS: 1, SF_RETRY_BACKOFF_SECONDS: 1 },
  });
  op = await newOperator(cp, "het-op");
  await smallNodeProfile(cp, "h200-1pn", 1);
  await smallNodeProfile(cp, "h200-2pn", 2);
  agent = await startSlurmFleet(cp, FLEET, "login-het", { sharedDir });
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail") {
    console.error(await describeState(cp, op, [...jobs], [agent]));
    console.error(`--- squeue: ${JSON.stringify(liveStarforgeJobs())}`);
  }
  await expectSqueueEmpty(120_000);
  await expectNoOrphans(cp, FLEET, [agent], jobs);
});

afterAll(async () => {
  for (const j of liveStarforgeJobs()) scancel(j.id);
  await agent?.dispose();
  await cp?.stop();
  rmSync(sharedDir, { recursive: true, force: true });
});

/** A long two-pool ddp job that passed `step`: its id and its first run's. */
async function longHetJob(name: string, step: number): Promise<{ id: string; run: string }> {
  const id = await submitDdp(cp, op, {
    name,
    fleet: FLEET,
    pools: POOLS,
    hyperparams: { max_steps: 1_000_000, checkpoint_every: 100_000 },
  });
  jobs.add(id);
  const run = await firstRun(id);
  await untilStep(cp, op, id, run, step);
  return { id, run };
}

/** The run's first run id, once it has one. */
async function firstRun(id: string): Promise<string> {
  return (await waitFor("a run", async () => (await jobDetail(cp, op, id)).runs[0], 60_000)).id;
}

/**
 * The run is one heterogeneous Slurm job: a component per pool (leader first), on the node the fleet
 * placed that pool on, asking for that pool's GPUs per node.
 */
async function expectOneHetJob(id: string, runId: string, rows: SlurmJobRow[]): Promise<void> {
  const run = (await jobDetail(cp, op, id)).runs.find((r) => r.id === runId)!;
  const nodeOf = (pool: string) => {
    const p = run.placement.find((x) => x.pool === pool)!;
    return p.node_id.slice(p.node_id.indexOf(":") + 1);
  };
  expect(new Set(rows.map((r) => r.id)).size, JSON.stringify(rows)).toBe(1);
  expect(
    [...rows].sort((a, b) => a.component! - b.component!).map((r) => [r.component, r.nodes, r.tres]),
  ).toEqual([
    [0, nodeOf("trainer"), "gres:gpu:2"],
    [1, nodeOf("rollout"), "gres:gpu:1"],
  ]);
  expect(nodeOf("trainer")).not.toBe(nodeOf("rollout"));
}

describe("Slurm: a job of several pools is one heterogeneous job", () => {
  it("two pools of different shapes: SUCCEEDED, every rank logs its pool and the world of 3, the loss falls", async () => {
    const id = await submitDdp(cp, op, {
      name: "het-ddp",
      fleet: FLEET,
      pools: POOLS,
      hyperparams: { max_steps: 30, checkpoint_every: 10 },
    });
    jobs.add(id);
    await expectDdpTrained(cp, op, id, 3, 240_000, RANK_POOLS);
    const run = await firstRun(id);
    const rows = await endedJobsOfRun(run);
    expect(rows.map((r) => r.state)).toEqual(["COMPLETED", "COMPLETED"]);
    await expectOneHetJob(id, run, rows);
    // One step over both components, from one batch script.
    const script = scontrol(["write", "batch_script", String(rows[0]!.id), "-"]);
    expect(script).toContain("srun --het-group=0-1 --ntasks-per-node=1 --kill-on-bad-exit=1");
    expect(script).toContain("component 0 = pool trainer (1 node(s) × 2 GPU(s)), component 1 = pool rollout");
    // Started by the backfill scheduler, as every heterogeneous job here (docs/runtimes.md: bf_interval).
    expect(scontrol(["show", "job", String(rows[0]!.id)])).toContain("Scheduler=Backfill");
  });

  it("a component cancelled mid-run fails the job with the component's end as its reason; no Slurm job is left", async () => {
    const { id, run } = await longHetJob("het-kill", 10);
    const rows = jobsOfRun(run);
    await expectOneHetJob(id, run, rows);
    // The rollout component goes (an administrator's scancel of <leader>+1): the trainer's ranks lose
    // their peer, and the run is over.
    scancel(`${rows[0]!.id}+1`);
    const done = await waitForStatus(cp, op, id, ["FAILED", "SUCCEEDED", "STOPPED"], 120_000);
    expect(done.job.status, JSON.stringify(done.runs)).toBe("FAILED");
    expect(done.runs).toHaveLength(1);
    expect(done.runs[0]!.reason).toMatch(/Slurm job \d+\+1 was cancelled in Slurm \(CANCELLED\)/);
    // The leader may stay COMPLETING a while: on this one-host cluster its slurmd's last message is
    // sometimes lost once srun is gone, and slurmctld asks again after a minute.
    const ended = await endedJobsOfRun(run, 120_000);
    expect(ended.find((r) => r.component === 1)!.state).toBe("CANCELLED");
  });

  it("pause → resume: the ranks of both pools stop at one checkpoint, and the next heterogeneous job continues from it", async () => {
    const { id, run: run1 } = await longHetJob("het-pause", 20);
    expect((await call(cp, op, "POST", `/v1/jobs/${id}/pause`)).status).toBe(200);
    await waitFor(
      "run 1 to be released",
      async () => (await jobDetail(cp, op, id)).runs[0]!.ended_at !== null,
      90_000,
    );
    expect((await jobDetail(cp, op, id)).job.status).toBe("PAUSED");
    expect((await endedJobsOfRun(run1)).map((r) => r.state)).toEqual(["CANCELLED", "CANCELLED"]);
    const stopStep = await gangStopStep(cp, op, id, run1, [0, 1, 2]);
    expect(stopStep).toBeGreaterThanOrEqual(20);

    expect((await call(cp, op, "POST", `/v1/jobs/${id}/resume`)).status).toBe(200);
    const run2 = await continuesThenStop(cp, op, id, stopStep, [0, 1, 2]);
    await expectOneHetJob(id, run2, await endedJobsOfRun(run2));
  });

  it("Slurm refuses two components pinned to one node: why a job's pools never share a Slurm node", async () => {
    const env = { ...process.env, SLURM_CONF: slurm.conf };
    const api = slurmApi(
      "v0.0.38",
      new SlurmRest({ url: slurm.restd, user: "root", token: new SlurmToken({ env, lifespanSeconds: 600 }) }),
    );
    const on = (node: string): SlurmComponent => ({
      nodelist: [node],
      gpusPerNode: 1,
      cpusPerTask: null,
      memoryPerNodeMb: null,
    });
    const err = await api
      .submit({
        script: "#!/bin/bash\ntrue\n",
        name: "sf-probe-shared-node",
        comment: "",
        environment: { PATH: "/usr/bin:/bin" },
        cwd: "/tmp",
        stdout: "/dev/null",
        stderr: "/dev/null",
        components: [on("sf-n1"), on("sf-n1")],
        timeLimitMinutes: 1,
        partition: null,
        account: null,
        qos: null,
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SlurmRejected);
    expect((err as SlurmRejected).errorNumber).toBe(2018);
    expect((err as Error).message).toMatch(/Invalid node name specified/);
  });
});
