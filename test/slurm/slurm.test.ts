/**
 * forgelet's Slurm runtime against a real Slurm cluster (scripts/start-slurm.sh: slurmctld, two slurmd
 * nodes with four fake GPUs each, slurmrestd with JWT on loopback). One forgelet, as on a login node,
 * fronts both nodes; the control plane is the real one (npm start). Slurm executes every capsule: the
 * batch job, its srun step on each node, the time limit, the cancel with its grace, the node failure.
 *
 * Every test ends with nothing left: no StarForge job in squeue, no workload process, 0 GPUs allocated.
 */

import { createHash } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as ck from "../support/checkpoints.js";
import { type ControlPlane, call, startControlPlane } from "../support/control-plane.js";
import { expectDdpTrained, submitDdp } from "../support/ddp.js";
import type { ForgeletProc } from "../support/forgelet.js";
import { waitForStatus } from "../support/jobs.js";
import {
  describeState,
  expectNoOrphans,
  fleetView,
  jobDetail,
  marks,
  newOperator,
  smallNodeProfile,
  stepper,
  submitCustom,
  tickingWorkspace,
  waitFor,
} from "../support/lifecycle.js";
import { newSfHome, sf } from "../support/sf.js";
import {
  endedJobsOfRun,
  expectSqueueEmpty,
  jobsOfRun,
  killNode,
  liveStarforgeJobs,
  nodeState,
  sbatch,
  scancel,
  scontrol,
  slurm,
  startCluster,
  startSlurmFleet,
  stopSlurmrestd,
  waitNodeIdle,
} from "../support/slurm.js";
import { uploadWorkspace } from "../support/workspace.js";

const FLEET = "hpc";
let cp: ControlPlane;
let op = "";
let agent: ForgeletProc;
const jobs = new Set<string>();
const sharedDir = join(slurm.sharedDir, `suite-${process.pid}`);
const scratch = join(sharedDir, "scratch");
const outside: number[] = [];

beforeAll(async () => {
  mkdirSync(scratch, { recursive: true });
  cp = await startControlPlane({
    agent: false,
    vars: { SF_COMMAND_RESEND_SECONDS: 1, SF_RETRY_BACKOFF_SECONDS: 1 },
  });
  op = await newOperator(cp, "hpc-op");
  const q = await call(cp, cp.adminToken, "PUT", "/v1/users/hpc-op/quota", {
    max_gpus: 16,
    max_jobs: 20,
    daily_gpu_hours: 1000,
  });
  expect(q.status, JSON.stringify(q.body)).toBe(200);
  await smallNodeProfile(cp, "h200-1pn", 1);
  agent = await startSlurmFleet(cp, FLEET, "login-1", { sharedDir });
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail") {
    console.error(await describeState(cp, op, [...jobs], [agent]));
    console.error(`--- squeue: ${JSON.stringify(liveStarforgeJobs())}`);
  }
  for (const id of outside.splice(0)) scancel(id);
  await expectSqueueEmpty();
  await expectNoOrphans(cp, FLEET, [agent], jobs);
});

afterAll(async () => {
  for (const j of liveStarforgeJobs()) scancel(j.id);
  await agent?.dispose();
  await cp?.stop();
  rmSync(sharedDir, { recursive: true, force: true });
});

/** The Slurm job a run was submitted as (exactly one). */
function slurmJobOf(runId: string) {
  const found = jobsOfRun(runId);
  expect(
    found.map((j) => j.name),
    `Slurm jobs of run ${runId}`,
  ).toEqual([`sf-${runId}`]);
  return found[0]!;
}

/** The run's one Slurm job, once Slurm has finished it (it may still be completing when the run ends). */
async function endedSlurmJobOf(runId: string) {
  await endedJobsOfRun(runId);
  return slurmJobOf(runId);
}

async function currentRun(id: string, timeoutMs = 60_000): Promise<string> {
  return waitFor(
    `a run for ${id}`,
    async () => (await jobDetail(cp, op, id)).job.current_run_id ?? undefined,
    timeoutMs,
    200,
  );
}

describe("Slurm: the cluster behind one forgelet", () => {
  it("shows the cluster's GPU nodes with the GPUs their GRES declare; the login host offers none", async () => {
    const view = await fleetView(cp, FLEET);
    const byName = Object.fromEntries(view.nodes.map((n) => [n.name, n]));
    expect(byName["sf-n1"]).toMatchObject({ status: "ready", runtime: "slurm", agent_id: agent.nodeId });
    expect(byName["sf-n1"]!.gpus).toHaveLength(4);
    expect(byName["sf-n2"]!.gpus).toHaveLength(4);
    expect(byName["login-1"]).toMatchObject({ runtime: "slurm", agent_id: null });
    expect(byName["login-1"]!.gpus).toHaveLength(0);
  });

  it("closed loop: Slurm runs the capsule; QUEUED → … → SUCCEEDED, the loss falls, logs and the checkpoint read back", async () => {
    const step = stepper("slurm closed loop");
    const id = await ck.submitCharlm(cp, op, { fleet: FLEET, name: "hpc-charlm", maxSteps: 200 });
    jobs.add(id);
    const done = await waitForStatus(cp, op, id, ["SUCCEEDED", "FAILED", "STOPPED"], 180_000);
    step(`job ${done.job.status}`);
    expect(done.job.status, JSON.stringify(done.runs)).toBe("SUCCEEDED");
    expect(done.events.map((e) => e.to)).toEqual(["QUEUED", "SUBMITTED", "PENDING", "RUNNING", "SUCCEEDED"]);
    const run = done.runs[0]!.id;
    // Slurm ran it: one batch job named after the run, COMPLETED, on the node the fleet chose. The runner
    // reports the end before its batch script has exited, so Slurm may still show it RUNNING for a moment.
    const sj = await endedSlurmJobOf(run);
    expect(sj.state).toBe("COMPLETED");
    const placed = (await jobDetail(cp, op, id)).runs[0]!.placement[0]!.node_id;
    expect(placed).toBe(`${agent.nodeId}:${sj.nodes}`);

    const pts = await ck.points(cp, op, id, run);
    expect(pts.length).toBeGreaterThan(5);
    expect(pts.at(-1)!.value).toBeLessThan(pts[0]!.value * 0.8);
    const log = await ck.logText(cp, op, id, run);
    expect(log).toContain("step 200");
    const arts = await call(cp, op, "GET", `/v1/jobs/${id}/artifacts`);
    const ckpts = (
      arts.body.artifacts as Array<{ kind: string; path: string; digest: string; step: number }>
    ).filter((a) => a.kind === "checkpoint");
    expect(ckpts.map((a) => a.step)).toEqual([50, 100, 150, 200]);
    const res = await fetch(
      `${cp.url}/v1/jobs/${id}/artifacts/download?path=${encodeURIComponent(ckpts.at(-1)!.path)}`,
      { headers: { authorization: `Bearer ${op}` } },
    );
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(`sha256:${createHash("sha256").update(bytes).digest("hex")}`).toBe(ckpts.at(-1)!.digest);
  });

  it("runs a 2-node torch/ddp job as ONE Slurm allocation on both slurmd nodes", async () => {
    const id = await submitDdp(cp, op, {
      name: "hpc-ddp",
      fleet: FLEET,
      nodes: 2,
      gpusPerNode: 1,
      profile: "h200-1pn",
      hyperparams: { max_steps: 30, checkpoint_every: 10 },
    });
    jobs.add(id);
    await expectDdpTrained(cp, op, id, 2);
    const run = (await jobDetail(cp, op, id)).runs[0]!.id;
    const sj = slurmJobOf(run);
    expect(sj.state).toBe("COMPLETED");
    expect(sj.nodes).toBe("sf-n[1-2]");
  });
});

/** A custom bash job that ticks (`ticks` × 0.5 s), leaving BEGIN/END marks in a file on the shared dir. */
async function ticker(
  name: string,
  ticks: number,
  o: { maxRetries?: number; maxRuntimeSeconds?: number; nodes?: number } = {},
) {
  const markerFile = join(scratch, `${name}.marks`);
  const workspace = await tickingWorkspace(cp, op, { ticks, tickSeconds: 0.5, markerFile });
  const id = await submitCustom(cp, op, {
    name,
    fleet: FLEET,
    workspace,
    maxRetries: o.maxRetries ?? 0,
    nodes: o.nodes,
    profile: o.nodes ? "h200-1pn" : undefined,
    maxRuntimeSeconds: o.maxRuntimeSeconds,
  });
  jobs.add(id);
  return { id, markerFile };
}

/** Waits until the job's rank wrote BEGIN (it really runs), returning its run and Slurm job. */
async function running(id: string, markerFile: string) {
  const run = await currentRun(id);
  await waitFor(`${id} to begin`, () => marks(markerFile).some((m) => m.kind === "BEGIN"), 90_000, 200);
  return { run, slurmJob: slurmJobOf(run) };
}

describe("Slurm: lifecycle", () => {
  it("stop cancels the Slurm job (SIGTERM first) and frees the GPUs", async () => {
    const { id, markerFile } = await ticker("hpc-stop", 600);
    const { run, slurmJob } = await running(id, markerFile);
    expect((await call(cp, op, "POST", `/v1/jobs/${id}/stop`)).body.job).toMatchObject({ status: "STOPPED" });
    await ck.waitReleased(cp, op, id, run);
    await waitFor("the Slurm job to end", () => jobsOfRun(run)[0]?.state === "CANCELLED", 60_000, 250);
    expect(slurmJob.id).toBe(slurmJobOf(run).id);
    expect((await jobDetail(cp, op, id)).runs.map((r) => r.status)).toEqual(["STOPPED"]);
  });

  it("pause → resume: Slurm's SIGTERM makes the capsule checkpoint; the next allocation continues from it", async () => {
    const id = await ck.submitCharlm(cp, op, { fleet: FLEET, name: "hpc-pause", maxSteps: 600 });
    jobs.add(id);
    const first = await currentRun(id);
    await ck.waitForStep(cp, op, id, first, 100, 90_000);
    expect((await call(cp, op, "POST", `/v1/jobs/${id}/pause`)).body.job).toMatchObject({ status: "PAUSED" });
    await ck.waitReleased(cp, op, id, first);
    const stopStep = await ck.lastCheckpointStep(cp, op, id, first);
    expect(stopStep).toBeGreaterThanOrEqual(100);
    expect(await ck.logText(cp, op, id, first)).toContain(`stopped by signal 15 at step ${stopStep}`);
    const before = await ck.points(cp, op, id, first);

    expect((await call(cp, op, "POST", `/v1/jobs/${id}/resume`)).status).toBe(200);
    const done = await waitForStatus(cp, op, id, ["SUCCEEDED", "FAILED"], 120_000);
    expect(done.job.status, JSON.stringify(done.runs)).toBe("SUCCEEDED");
    expect(done.runs.map((r) => r.attempt)).toEqual([1, 2]);
    const second = done.runs[1]!.id;
    await ck.expectContinued(cp, op, id, second, stopStep, before.at(-1)!.value);
    expect([slurmJobOf(first).state, (await endedSlurmJobOf(second)).state]).toEqual([
      "CANCELLED",
      "COMPLETED",
    ]);
  });

  it("preemption: a high job displaces one low job through scancel's SIGTERM; the victim resumes from its checkpoint", async () => {
    await ck.allowPreemption(cp, "hpc-op");
    // Two low jobs fill both nodes (4 GPUs each).
    const charlm = (name: string, priorityClass: string, maxSteps: number) =>
      ck.submitCharlm(cp, op, { fleet: FLEET, name, gpus: 4, maxSteps, priorityClass });
    const lows = [await charlm("hpc-low-a", "low", 3000), await charlm("hpc-low-b", "low", 3000)];
    const firsts = new Map<string, string>();
    for (const id of lows) {
      jobs.add(id);
      const run = await currentRun(id);
      firsts.set(id, run);
      await ck.waitForStep(cp, op, id, run, 100, 90_000);
    }

    const asked = Date.now();
    const high = await charlm("hpc-high", "high", 100);
    jobs.add(high);
    await waitForStatus(cp, op, high, ["RUNNING", "SUCCEEDED"], 75_000);
    expect(Date.now() - asked, "the high job runs within the victim's grace (60 s) + 15 s").toBeLessThan(
      75_000,
    );
    // One victim (the later start as the fleet saw the cluster start them); the other ran on.
    const paused: string[] = [];
    for (const id of lows) if ((await jobDetail(cp, op, id)).runs[0]!.status === "PAUSED") paused.push(id);
    expect(paused).toHaveLength(1);
    const victim = paused[0]!;
    const first = firsts.get(victim)!;
    await ck.waitReleased(cp, op, victim, first);
    const stopStep = await ck.lastCheckpointStep(cp, op, victim, first);
    expect(stopStep).toBeLessThan(3000);
    expect(await ck.logText(cp, op, victim, first)).toContain(`stopped by signal 15 at step ${stopStep}`);
    const lastLoss = (await ck.points(cp, op, victim, first)).at(-1)!.value;

    for (const id of [high, ...lows]) {
      const done = await waitForStatus(cp, op, id, ["SUCCEEDED", "FAILED"], 180_000);
      expect(done.job.status, JSON.stringify(done.runs)).toBe("SUCCEEDED");
    }
    const done = await jobDetail(cp, op, victim);
    expect(done.runs.map((r) => [r.attempt, r.status])).toEqual([
      [1, "PAUSED"],
      [2, "SUCCEEDED"],
    ]);
    expect((await jobDetail(cp, op, lows.find((id) => id !== victim)!)).runs).toHaveLength(1);
    await ck.expectContinued(cp, op, victim, done.runs[1]!.id, stopStep, lastLoss);
    expect([slurmJobOf(first).state, (await endedSlurmJobOf(done.runs[1]!.id)).state]).toEqual([
      "CANCELLED",
      "COMPLETED",
    ]);
  });

  it("a failing job is the user's failure: FAILED with its exit code, not retried", async () => {
    const workspace = await uploadWorkspace(cp.url, op, [
      { path: "exp/train.sh", content: "#!/usr/bin/env bash\necho 'about to fail'\nexit 3\n", mode: 0o755 },
    ]);
    const id = await submitCustom(cp, op, { name: "hpc-fail", fleet: FLEET, workspace, maxRetries: 2 });
    jobs.add(id);
    const done = await waitForStatus(cp, op, id, ["FAILED", "SUCCEEDED"], 90_000);
    expect(done.job.status).toBe("FAILED");
    await new Promise((r) => setTimeout(r, 2500)); // a retry would have been queued by now (1 s backoff)
    const after = await jobDetail(cp, op, id);
    expect(after.job.status).toBe("FAILED");
    expect(after.runs).toHaveLength(1);
    expect(after.runs[0]).toMatchObject({ status: "FAILED", exit_code: 3 });
    expect(after.runs[0]!.reason).toMatch(/exit(ed with)? code 3/);
    expect((await endedSlurmJobOf(after.runs[0]!.id)).state).toBe("FAILED");
  });

  it("a time limit (max_runtime_seconds) ends the job as TIMEOUT: FAILED, not retried", async () => {
    const { id, markerFile } = await ticker("hpc-timeout", 1000, { maxRetries: 2, maxRuntimeSeconds: 60 });
    const { run } = await running(id, markerFile);
    const done = await waitForStatus(cp, op, id, ["FAILED", "SUCCEEDED"], 240_000);
    expect(done.job.status).toBe("FAILED");
    expect(done.runs.find((r) => r.id === run)!.reason).toMatch(/time limit \(TIMEOUT\)/);
    expect(slurmJobOf(run).state).toBe("TIMEOUT");
    await new Promise((r) => setTimeout(r, 2500));
    expect((await jobDetail(cp, op, id)).runs).toHaveLength(1);
  });
});

describe("Slurm: when the cluster fails", () => {
  it("a node dies mid-run (slurmd and the job killed): NODE_FAIL is an infrastructure failure, retried on the other node", async () => {
    const step = stepper("node fail");
    const { id, markerFile } = await ticker("hpc-nodefail", 30, { maxRetries: 2 });
    const { run, slurmJob } = await running(id, markerFile);
    const node = slurmJob.nodes;
    step(`run ${run} is Slurm job ${slurmJob.id} on ${node}; killing the node`);
    try {
      await killNode(node, slurmJob.id);
      // The fleet shows the node down (the agent re-reads the cluster's nodes).
      await waitFor(
        `${node} down in the fleet`,
        async () => (await fleetView(cp, FLEET)).nodes.find((n) => n.name === node)?.status === "down",
        60_000,
        500,
      );
      step("node down in the fleet");
      const done = await waitForStatus(cp, op, id, ["SUCCEEDED"], 180_000);
      step("retry succeeded");
      expect(done.runs.map((r) => r.status)).toEqual(["FAILED", "SUCCEEDED"]);
      expect(done.runs[0]!.reason).toMatch(/lost a node \(NODE_FAIL\)/);
      expect(done.events.find((e) => e.to === "FAILED")?.detail).toMatchObject({ infra: true });
      expect(slurmJobOf(run).state).toBe("NODE_FAIL");
      expect(slurmJobOf(done.runs[1]!.id).nodes).not.toBe(node);
    } finally {
      startCluster();
      await waitNodeIdle(node);
    }
    await waitFor(
      `${node} ready in the fleet again`,
      async () => (await fleetView(cp, FLEET)).nodes.find((n) => n.name === node)?.status === "ready",
      30_000,
      500,
    );
  });

  it("slurmrestd restarts mid-run: the run is not failed, and ends SUCCEEDED", async () => {
    const { id, markerFile } = await ticker("hpc-restd", 24);
    const { run } = await running(id, markerFile);
    try {
      await stopSlurmrestd();
      await new Promise((r) => setTimeout(r, 8000));
      expect((await jobDetail(cp, op, id)).job.status).toBe("RUNNING");
    } finally {
      startCluster();
    }
    const done = await waitForStatus(cp, op, id, ["SUCCEEDED", "FAILED"], 120_000);
    expect(done.job.status, JSON.stringify(done.runs)).toBe("SUCCEEDED");
    expect(done.runs.map((r) => r.id)).toEqual([run]);
    expect(agent.log()).toMatch(/cannot observe it right now/);
  });

  it("forgelet restarts mid-run: the Slurm job is reattached, never launched twice", async () => {
    const { id, markerFile } = await ticker("hpc-agent", 24);
    const { run, slurmJob } = await running(id, markerFile);
    await agent.kill();
    await new Promise((r) => setTimeout(r, 2000));
    await agent.start();
    const done = await waitForStatus(cp, op, id, ["SUCCEEDED", "FAILED"], 120_000);
    expect(done.job.status, JSON.stringify(done.runs)).toBe("SUCCEEDED");
    expect(done.runs.map((r) => r.id)).toEqual([run]);
    expect(jobsOfRun(run).map((j) => j.id)).toEqual([slurmJob.id]);
    expect(marks(markerFile).filter((m) => m.kind === "BEGIN")).toHaveLength(1);
  });

  it("while Slurm holds the job PENDING, its reason shows in the job's pending reasons", async () => {
    // Someone else's jobs fill every GPU of the cluster: Slurm keeps ours waiting for Resources.
    for (const node of ["sf-n1", "sf-n2"]) {
      outside.push(
        sbatch(["-J", "not-starforge", "-w", node, "--gres=gpu:4", "-o", "/dev/null", "--wrap", "sleep 300"]),
      );
    }
    const { id } = await ticker("hpc-wait", 4);
    const waiting = await waitFor(
      "the job to show Slurm's reason",
      async () => {
        const j = (await jobDetail(cp, op, id)).job as {
          status: string;
          pending_reasons?: Array<{ code: string; details: Record<string, unknown> }>;
        };
        // Until Slurm's scheduler has given one, forgelet shows the placeholder "submitted".
        const slurms = j.pending_reasons?.find(
          (r) => r.code === "RUNTIME_WAITING" && r.details.reason !== "submitted",
        );
        return slurms ? j : undefined;
      },
      60_000,
      250,
    );
    expect(waiting.status).toBe("PENDING");
    // Slurm's own words: Priority right after the submit, Resources once its scheduler looked.
    expect(waiting.pending_reasons![0]!.details).toMatchObject({ rank: 0 });
    expect(["Resources", "Priority"]).toContain(waiting.pending_reasons![0]!.details.reason);
    for (const o of outside.splice(0)) scancel(o);
    const done = await waitForStatus(cp, op, id, ["SUCCEEDED", "FAILED"], 120_000);
    expect(done.job.status).toBe("SUCCEEDED");
    expect((done.job as { pending_reasons?: unknown[] }).pending_reasons ?? []).toEqual([]);
  });

  it("a node Slurm drains is shown so and gets no new runs; resumed, it takes them again", async () => {
    scontrol(["update", "nodename=sf-n2", "state=drain", "reason=bad fan"]);
    try {
      const drained = await waitFor(
        "sf-n2 drained in the fleet",
        async () =>
          (await fleetView(cp, FLEET)).nodes.find((n) => n.name === "sf-n2" && n.status === "drain"),
        30_000,
        250,
      );
      expect((drained as unknown as { status_reason: string }).status_reason).toMatch(/bad fan/);
      // What an admin sees: the node, its state and Slurm's reason.
      const shown = await sf(["admin", "fleet", "show", FLEET], {
        home: newSfHome(),
        server: cp.url,
        env: { SF_TOKEN: cp.adminToken },
      });
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toMatch(
        /^sf-n2\s+h200\s+drain: \S*DRAIN\S*: bad fan\s+connected\s+slurm\s+127\.0\.0\.1\s+0\/4 used$/m,
      );
      expect(shown.stdout).toMatch(/^sf-n1\s+h200\s+ready\s+connected\s+slurm\s+127\.0\.0\.1\s+0\/4 used$/m);
      const { id } = await ticker("hpc-drain", 4, { nodes: 2 });
      await new Promise((r) => setTimeout(r, 3000));
      const held = await jobDetail(cp, op, id);
      expect(held.job.status).toBe("QUEUED");
      expect(liveStarforgeJobs()).toEqual([]);
      scontrol(["update", "nodename=sf-n2", "state=resume"]);
      const done = await waitForStatus(cp, op, id, ["SUCCEEDED", "FAILED"], 120_000);
      expect(done.job.status).toBe("SUCCEEDED");
    } finally {
      // Resumed already on success; after a failure it must not stay drained for the next test.
      if (nodeState("sf-n2").startsWith("drain")) scontrol(["update", "nodename=sf-n2", "state=resume"]);
    }
  });
});
