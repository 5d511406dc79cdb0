/**
 * Tier 3: pause/resume, maintenance drain and time windows against the real control plane and a real
 * forgelet (process runtime), with the stdlib char-LM really training. What a user would check: the step
 * counter continues where the checkpoint left it (no step is trained twice, none is skipped), the loss
 * curve continues instead of restarting at ln(vocab), GPUs are released, nothing is left running.
 *
 * Its own control plane, not the project's shared one: it runs with deployment-wide timers other files must
 * not get (SF_AGENT_LOST_GRACE_SECONDS=3, SF_RETRY_BACKOFF_SECONDS=1).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as ck from "../support/checkpoints.js";
import { type ControlPlane, call, startControlPlane } from "../support/control-plane.js";
import { enrollForgelet, type ForgeletProc } from "../support/forgelet.js";
import { baseSpec, jobState, recipeDigest, waitForStatus } from "../support/jobs.js";
import { submitCustom, tickingWorkspace } from "../support/lifecycle.js";
import { startReceiver } from "../support/webhook-receiver.js";
import { uploadWorkspace } from "../support/workspace.js";

let cp: ControlPlane;
let op = "";
const scratch = mkdtempSync(join(tmpdir(), "sf-ck-"));
const agents: ForgeletProc[] = [];

beforeAll(async () => {
  // A short lost-agent grace and retry backoff, so "agent gone past its grace" fits in a test.
  cp = await startControlPlane({
    agent: false,
    vars: { SF_AGENT_LOST_GRACE_SECONDS: 3, SF_RETRY_BACKOFF_SECONDS: 1 },
  });
  op = String(
    (await call(cp, cp.adminToken, "POST", "/v1/users", { name: "ck-op", role: "operator" })).body.token,
  );
});

afterEach(async () => {
  for (const agent of agents.splice(0)) {
    const deadline = Date.now() + 15_000;
    while (agent.liveWorkloads().length > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(agent.liveWorkloads(), "workload processes left behind").toEqual([]);
    await agent.dispose();
  }
});

afterAll(async () => {
  await cp?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function fleetWithAgent(name: string, gpus: number): Promise<ForgeletProc> {
  expect((await call(cp, cp.adminToken, "POST", "/v1/fleets", { name, kind: "process" })).status).toBe(201);
  const agent = await enrollForgelet(cp, name, { name: `${name}-1`, gpus });
  agents.push(agent);
  return agent;
}

/** A custom bash job: not resumable (custom scripts are not, unless the spec says so). */
async function submitTicker(fleet: string, name: string, ticks: number): Promise<string> {
  const markerFile = join(scratch, `${name}.marks`);
  const workspace = await tickingWorkspace(cp, op, { ticks, tickSeconds: 0.25, markerFile });
  return submitCustom(cp, op, { name, fleet, workspace, maxRetries: 2 });
}

// The shared readers, bound to this suite's control plane and operator.
const submitCharlm = (fleet: string, name: string, maxSteps = 600) =>
  ck.submitCharlm(cp, op, { fleet, name, maxSteps });
const points = (id: string, run: string, key?: string) => ck.points(cp, op, id, run, key);
const waitForStep = (id: string, run: string, step: number, timeoutMs?: number) =>
  ck.waitForStep(cp, op, id, run, step, timeoutMs);
const logText = (id: string, run: string) => ck.logText(cp, op, id, run);
const waitReleased = (id: string, run: string, timeoutMs?: number) =>
  ck.waitReleased(cp, op, id, run, timeoutMs);
const lastCheckpointStep = (id: string, run: string) => ck.lastCheckpointStep(cp, op, id, run);
const expectContinued = (id: string, run: string, fromStep: number, prevLoss: number) =>
  ck.expectContinued(cp, op, id, run, fromStep, prevLoss);

async function allocated(fleet: string): Promise<number> {
  return ((await call(cp, cp.adminToken, "GET", `/v1/fleets/${fleet}`)).body.totals as { allocated: number })
    .allocated;
}

describe("checkpoints across pause, drain and windows (process runtime, real charlm)", () => {
  it("pause → resume: the second run starts at checkpoint step S+1 (0 steps repeated) and the loss curve continues", async () => {
    await fleetWithAgent("ck-pause", 2);
    const id = await submitCharlm("ck-pause", "ck-pause");
    const first = (await waitForStatus(cp, op, id, ["RUNNING"], 60_000)).job.current_run_id!;
    await waitForStep(id, first, 100);
    expect((await call(cp, op, "POST", `/v1/jobs/${id}/pause`)).body.job).toMatchObject({ status: "PAUSED" });
    await waitReleased(id, first);
    expect(await allocated("ck-pause")).toBe(0);
    // SIGTERM made the training checkpoint the step it was on (not only the last multiple of 50).
    const stopStep = await lastCheckpointStep(id, first);
    expect(stopStep).toBeGreaterThanOrEqual(100);
    expect(await logText(id, first)).toContain(`stopped by signal 15 at step ${stopStep}`);
    const before = await points(id, first);
    const lastLoss = before[before.length - 1]!.value;

    expect((await call(cp, op, "POST", `/v1/jobs/${id}/resume`)).status).toBe(200);
    const done = await waitForStatus(cp, op, id, ["SUCCEEDED", "FAILED"], 90_000);
    expect(done.job.status).toBe("SUCCEEDED");
    expect(done.runs.map((r) => r.attempt)).toEqual([1, 2]);
    const second = done.runs[1]!.id;
    await expectContinued(id, second, stopStep, lastLoss);
    // The ledger says so too (GET /v1/jobs/:id, `sf job status`).
    const runs = (await call(cp, op, "GET", `/v1/jobs/${id}`)).body.runs as Array<{ resumed_from: unknown }>;
    expect(runs.map((r) => r.resumed_from)).toEqual([null, { run_id: first, step: stopStep }]);
    const after = await points(id, second);
    expect(after[after.length - 1]!.step).toBe(600);
    // Together the two runs cover steps 1..600 once: run 1 ends at S, run 2 begins right after it.
    expect(Math.max(...before.map((p) => p.step))).toBeLessThanOrEqual(stopStep);
    expect(await allocated("ck-pause")).toBe(0);
  }, 180_000);

  it("stop → resume: a STOPPED job resumed later continues from the checkpoint its stop wrote", async () => {
    await fleetWithAgent("ck-stop", 1);
    const id = await submitCharlm("ck-stop", "ck-stop", 300);
    const first = (await waitForStatus(cp, op, id, ["RUNNING"], 60_000)).job.current_run_id!;
    await waitForStep(id, first, 70);
    expect((await call(cp, op, "POST", `/v1/jobs/${id}/stop`)).body.job).toMatchObject({ status: "STOPPED" });
    await waitReleased(id, first);
    const stopStep = await lastCheckpointStep(id, first);
    expect(stopStep).toBeGreaterThanOrEqual(70);
    const lastLoss = (await points(id, first)).at(-1)!.value;
    expect((await call(cp, op, "POST", `/v1/jobs/${id}/resume`)).status).toBe(200);
    const done = await waitForStatus(cp, op, id, ["SUCCEEDED", "FAILED"], 90_000);
    expect(done.job.status).toBe("SUCCEEDED");
    await expectContinued(id, done.runs.at(-1)!.id, stopStep, lastLoss);
    expect((await points(id, done.runs.at(-1)!.id)).at(-1)!.step).toBe(300);
  }, 180_000);

  it("drain: pauses 1 resumable job, holds 2 queued, lists 1 non-resumable blocker; idempotent; resume re-queues 3 in original order and they continue", async () => {
    await fleetWithAgent("ck-drain", 2);
    const a = await submitCharlm("ck-drain", "ck-drain-a");
    const b = await submitTicker("ck-drain", "ck-drain-b", 400); // ~100 s, not resumable
    const runA = (await waitForStatus(cp, op, a, ["RUNNING"], 60_000)).job.current_run_id!;
    await waitForStatus(cp, op, b, ["RUNNING"], 60_000);
    const c = await submitCharlm("ck-drain", "ck-drain-c", 200);
    const d = await submitCharlm("ck-drain", "ck-drain-d", 200);
    await waitForStep(a, runA, 60);

    const drain = async () => {
      const r = await call(cp, cp.adminToken, "POST", "/v1/fleets/ck-drain/maintenance/drain", {
        note: "swapping PSUs",
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body as {
        paused: string[];
        held: string[];
        blockers: Array<{ job_id: string; reason: string }>;
      };
    };
    const first = await drain();
    expect(first.paused).toEqual([a]);
    expect(first.held).toEqual([c, d]);
    expect(first.blockers.map((x) => x.job_id)).toContain(b);
    expect(first.blockers.find((x) => x.job_id === b)!.reason).toMatch(/cannot resume/);
    expect((await jobState(cp, op, a)).job.status).toBe("PAUSED");
    expect((await jobState(cp, op, b)).job.status).toBe("RUNNING");
    const eventsAfterFirst = (await jobState(cp, op, a)).events.length;

    // Idempotent: the same report, no job moved twice.
    const again = await drain();
    expect(again.paused).toEqual([a]);
    expect(again.held).toEqual([c, d]);
    expect((await jobState(cp, op, a)).events.length).toBe(eventsAfterFirst);
    // New submits are refused with the note.
    const refused = await call(
      cp,
      op,
      "POST",
      "/v1/jobs",
      baseSpec({
        name: "late",
        fleet: "ck-drain",
        recipe: {
          name: "python/charlm",
          version: "1.0.0",
          digest: await recipeDigest(cp, op, "python/charlm"),
        },
        framework: { kind: "python", version: "3", runtime_id: "python3-stdlib", image: null },
      }),
    );
    expect(refused.status).toBe(409);
    expect(JSON.stringify(refused.body)).toContain("swapping PSUs");

    // Once A checkpointed and stopped, only the non-resumable job blocks maintenance.
    await waitReleased(a, runA);
    const status = (await call(cp, cp.adminToken, "GET", "/v1/fleets/ck-drain/maintenance")).body as {
      blockers: Array<{ job_id: string }>;
    };
    expect(status.blockers.map((x) => x.job_id)).toEqual([b]);
    const stopStep = await lastCheckpointStep(a, runA);
    const lossA = (await points(a, runA)).at(-1)!.value;
    expect((await call(cp, op, "POST", `/v1/jobs/${b}/stop`)).status).toBe(200);
    await waitForStatus(cp, op, b, ["STOPPED"], 30_000);

    const resumed = await call(cp, cp.adminToken, "POST", "/v1/fleets/ck-drain/maintenance/resume");
    expect(resumed.status).toBe(200);
    expect(resumed.body.resumed).toEqual([a, c, d]);
    for (const id of [a, c, d]) {
      const s = await waitForStatus(cp, op, id, ["SUCCEEDED", "FAILED"], 120_000);
      expect(s.job.status, id).toBe("SUCCEEDED");
    }
    // Original order: with 2 GPUs, A and C were dispatched in the resume pass; D only after one finished.
    const dispatchedAt = async (id: string) =>
      Date.parse(
        ((await call(cp, op, "GET", `/v1/jobs/${id}`)).body.events as Array<{ edge: string; ts: string }>)
          .filter((e) => e.edge === "dispatch")
          .at(-1)!.ts,
      );
    expect(await dispatchedAt(d)).toBeGreaterThan(await dispatchedAt(c));
    const aState = await jobState(cp, op, a);
    await expectContinued(a, aState.runs.at(-1)!.id, stopStep, lossA);
    expect(await allocated("ck-drain")).toBe(0);
  }, 300_000);

  it("a window that closes stops the running job with a checkpoint; when it reopens the job resumes from it", async () => {
    await fleetWithAgent("ck-window", 1);
    const id = await submitCharlm("ck-window", "ck-window");
    const first = (await waitForStatus(cp, op, id, ["RUNNING"], 60_000)).job.current_run_id!;
    await waitForStep(id, first, 60);
    // Close: the fleet's only window is on another weekday than today (UTC).
    const otherDay = (new Date().getUTCDay() + 3) % 7;
    const closed = await call(cp, cp.adminToken, "PATCH", "/v1/fleets/ck-window", {
      windows: [{ days: [otherDay], start: "00:00", end: "23:59", tz: "UTC" }],
    });
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);
    const stopped = await waitForStatus(cp, op, id, ["STOPPED"], 30_000);
    const edge = stopped.events.at(-1)!;
    expect(edge).toMatchObject({ to: "STOPPED", edge: "stop_running" });
    expect(String(edge.detail.reason)).toMatch(/window closed/);
    await waitReleased(id, first);
    const stopStep = await lastCheckpointStep(id, first);
    expect(stopStep).toBeGreaterThanOrEqual(60);
    const lastLoss = (await points(id, first)).at(-1)!.value;

    // Reopen: the window now covers every day and hour.
    const open = await call(cp, cp.adminToken, "PATCH", "/v1/fleets/ck-window", {
      windows: [{ days: [0, 1, 2, 3, 4, 5, 6], start: "00:00", end: "00:00", tz: "UTC" }],
    });
    expect(open.status).toBe(200);
    const done = await waitForStatus(cp, op, id, ["SUCCEEDED", "FAILED"], 90_000);
    expect(done.job.status).toBe("SUCCEEDED");
    const reopened = done.events.find((e) => e.from === "STOPPED" && e.to === "QUEUED");
    expect(reopened?.detail.reason).toBe("its window reopened");
    await expectContinued(id, done.runs.at(-1)!.id, stopStep, lastLoss);
    expect(await allocated("ck-window")).toBe(0);
  }, 180_000);

  it("agent gone past its grace (3 s): the run FAILS as infrastructure, is retried (1 of budget 2) and continues from its checkpoint", async () => {
    const agent = await fleetWithAgent("ck-lost", 1);
    const id = await submitCharlm("ck-lost", "ck-lost");
    const first = (await waitForStatus(cp, op, id, ["RUNNING"], 60_000)).job.current_run_id!;
    await waitForStep(id, first, 60);
    await agent.kill(); // the socket drops; the workload keeps running in its own process group
    const failed = await waitForStatus(cp, op, id, ["FAILED", "QUEUED"], 30_000);
    const failure = failed.events.find((e) => e.to === "FAILED")!;
    expect(failure.detail.infra).toBe(true);
    expect(String(failure.detail.reason)).toMatch(/lost|grace/i);
    // The agent comes back: it is told to stop the old workload, and gets the retry (attempt 2).
    await agent.start();
    const done = await waitForStatus(cp, op, id, ["SUCCEEDED"], 120_000);
    expect(done.runs.map((r) => r.attempt)).toEqual([1, 2]);
    expect(done.events.filter((e) => e.edge === "retry")).toHaveLength(1);
    const second = done.runs[1]!.id;
    const log = await logText(id, second);
    // charlm's own line: "resumed from <SF_RESUME_FROM> at step N".
    const from = Number(/resumed from \S+ at step (\d+)/.exec(log)?.[1] ?? "-1");
    expect(from, log.slice(0, 2000)).toBeGreaterThanOrEqual(50);
    const firstPoints = await points(id, first);
    const lossAt = firstPoints.filter((p) => p.step <= from).at(-1)!.value;
    await expectContinued(id, second, from, lossAt);
    expect(await allocated("ck-lost")).toBe(0);
  }, 180_000);

  it("never two workloads on one GPU: a retry waits until the lost run's workload (4 s to stop) released its GPU — 0 ms of overlap", async () => {
    const agent = await fleetWithAgent("ck-overlap", 1);
    const marks = join(scratch, "overlap.marks");
    const trainSh = [
      "#!/usr/bin/env bash",
      `M=${marks}`,
      'echo "BEGIN $STARFORGE_RUN_ID $(date +%s%N)" >> "$M"',
      // A workload that needs 4 s to stop cleanly (flushing, checkpointing).
      'trap \'sleep 4; echo "END $STARFORGE_RUN_ID $(date +%s%N)" >> "$M"; exit 143\' TERM',
      "for i in $(seq 1 80); do sleep 0.25; done",
      'echo "END $STARFORGE_RUN_ID $(date +%s%N)" >> "$M"',
      "",
    ].join("\n");
    const workspace = await uploadWorkspace(cp.url, op, [
      { path: "exp/train.sh", content: trainSh, mode: 0o755 },
    ]);
    const id = await submitCustom(cp, op, {
      name: "ck-overlap",
      fleet: "ck-overlap",
      workspace,
      maxRetries: 2,
    });
    const run1 = (await waitForStatus(cp, op, id, ["RUNNING"], 60_000)).job.current_run_id!;
    await agent.kill();
    // Past the grace the run fails and the retry is queued for the only GPU of the fleet.
    await waitForStatus(cp, op, id, ["QUEUED"], 30_000);
    await agent.start();
    const done = await waitForStatus(cp, op, id, ["SUCCEEDED", "FAILED"], 120_000);
    expect(done.job.status).toBe("SUCCEEDED");
    const run2 = done.runs.at(-1)!.id;
    const lines = readFileSync(marks, "utf8").trim().split("\n");
    const at = (kind: string, run: string) =>
      BigInt(lines.find((l) => l.startsWith(`${kind} ${run} `))!.split(" ")[2]!);
    const overlapMs = Number(at("END", run1) - at("BEGIN", run2)) / 1e6;
    expect(overlapMs, lines.join("\n")).toBeLessThanOrEqual(0);
    expect(agent.log()).toContain(`waiting for ${run1} rank 0 to release GPUs 0`);
  }, 180_000);
  it("preemption: a low job filling the fleet yields to a high one, which runs within grace + 15 s; the low job resumes from its checkpoint (0 steps repeated), succeeds, and used no retry", async () => {
    await ck.allowPreemption(cp, "ck-op");
    await fleetWithAgent("ck-preempt", 2);
    // The victim's owner follows preemptions by a signed webhook to a receiver on loopback.
    const rx = await startReceiver(() => 204);
    const hook = await call(cp, op, "POST", "/v1/webhooks", { url: rx.url, events: ["job.preempted"] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const low = await ck.submitCharlm(cp, op, {
      fleet: "ck-preempt",
      name: "ck-low",
      gpus: 2,
      maxSteps: 500,
      priorityClass: "low",
    });
    const first = (await waitForStatus(cp, op, low, ["RUNNING"], 60_000)).job.current_run_id!;
    await waitForStep(low, first, 100);

    const asked = Date.now();
    const high = await ck.submitCharlm(cp, op, {
      fleet: "ck-preempt",
      name: "ck-high",
      gpus: 2,
      maxSteps: 150,
      priorityClass: "high",
    });
    await waitForStatus(cp, op, high, ["RUNNING"], 75_000);
    expect(Date.now() - asked, "the high job runs within the victim's grace (60 s) + 15 s").toBeLessThan(
      75_000,
    );
    // The low job checkpointed the step it was on when the notice came.
    await waitReleased(low, first);
    const stopStep = await lastCheckpointStep(low, first);
    expect(stopStep).toBeGreaterThanOrEqual(100);
    const lowLog = await logText(low, first);
    expect(lowLog).toContain(`stopped by signal 15 at step ${stopStep}`);
    // Its runner learnt why and by when (GET /v1/ingest/notice) and left it for the training to read.
    expect(lowLog).toMatch(new RegExp(`stop notice: preempted by ${high}, SIGKILL after \\d{4}-`));
    const lastLoss = (await points(low, first)).at(-1)!.value;
    // Once it was gone, its job.preempted webhook came: by whom, why, where it resumes, what it lost.
    const [delivery] = await rx.waitFor(1, 30_000);
    expect(JSON.parse(delivery!.body.toString("utf8"))).toMatchObject({
      type: "job.preempted",
      data: {
        job: { id: low, status: "PAUSED" },
        run_id: first,
        detail: { cause: "priority", preempted_by: high, resume_step: stopStep, steps_lost: 0 },
      },
    });
    await call(cp, op, "DELETE", `/v1/webhooks/${(hook.body.webhook as { id: string }).id}`);
    await rx.close();

    expect((await waitForStatus(cp, op, high, ["SUCCEEDED", "FAILED"], 90_000)).job.status).toBe("SUCCEEDED");
    const done = await waitForStatus(cp, op, low, ["SUCCEEDED", "FAILED"], 120_000);
    expect(done.job.status).toBe("SUCCEEDED");
    // Same job, two runs: the first PAUSED by the preemption, the second resumed from its checkpoint.
    expect(done.runs.map((r) => [r.attempt, r.status])).toEqual([
      [1, "PAUSED"],
      [2, "SUCCEEDED"],
    ]);
    await expectContinued(low, done.runs[1]!.id, stopStep, lastLoss);
    expect((await points(low, done.runs[1]!.id)).at(-1)!.step).toBe(500);
    // It checkpointed the step it stopped at: the preemption cost it no step.
    const read = (await call(cp, op, "GET", `/v1/jobs/${low}`)).body.runs as Array<{
      steps_lost?: number | null;
    }>;
    expect(read[0]!.steps_lost).toBe(0);
    // Preempted, never FAILED, no retry: RUNNING → PAUSED → QUEUED by system:preempt, then again to the end.
    const events = (await call(cp, op, "GET", `/v1/jobs/${low}`)).body.events as Array<{
      to: string;
      actor: string;
      detail: Record<string, unknown>;
    }>;
    expect(events.some((e) => e.to === "FAILED" || e.actor === "system:retry")).toBe(false);
    const preempted = events.find((e) => e.to === "PAUSED");
    expect(preempted).toMatchObject({
      actor: "system:preempt",
      detail: { preempted: true, cause: "priority", preempted_by: high, class: "low", grace_seconds: 60 },
    });
    expect(await allocated("ck-preempt")).toBe(0);
  }, 300_000);

  it("reclaim: team B borrows team A's idle GPU; A submits and runs within B's grace + 15 s; only B's borrowed job is touched, and it resumes from its checkpoint", async () => {
    await ck.allowPreemption(cp, "ck-op");
    await fleetWithAgent("ck-reclaim", 2);
    const a = String(
      (await call(cp, cp.adminToken, "POST", "/v1/users", { name: "ck-a", role: "operator" })).body.token,
    );
    for (const [team, user] of [
      ["ck-team-a", "ck-a"],
      ["ck-team-b", "ck-op"],
    ]) {
      expect((await call(cp, cp.adminToken, "PUT", `/v1/teams/${team}`, {})).status).toBe(201);
      expect((await call(cp, cp.adminToken, "PUT", `/v1/teams/${team}/members/${user}`, {})).status).toBe(
        201,
      );
      const q = await call(cp, cp.adminToken, "PUT", `/v1/teams/${team}/quotas/ck-reclaim/h200`, {
        guaranteed: 1,
      });
      expect(q.status, JSON.stringify(q.body)).toBe(201);
    }
    // B fills the fleet: one GPU of its own, one borrowed from A (low: preemptible at once).
    const b1 = await ck.submitCharlm(cp, op, {
      fleet: "ck-reclaim",
      name: "ck-b1",
      maxSteps: 2500,
      priorityClass: "low",
    });
    const b2 = await ck.submitCharlm(cp, op, {
      fleet: "ck-reclaim",
      name: "ck-b2",
      maxSteps: 500,
      priorityClass: "low",
    });
    const run = async (id: string) => (await waitForStatus(cp, op, id, ["RUNNING"], 60_000)).runs.at(-1)!;
    const [r1, r2] = [await run(b1), await run(b2)];
    expect([r1.borrowed, r2.borrowed].sort()).toEqual([false, true]);
    const [own, borrowed] = r1.borrowed ? [b2, b1] : [b1, b2];
    const borrowedRun = (r1.borrowed ? r1 : r2).id;
    await waitForStep(borrowed, borrowedRun, 100);

    const asked = Date.now();
    const mine = await ck.submitCharlm(cp, a, { fleet: "ck-reclaim", name: "ck-a1", maxSteps: 150 });
    await waitForStatus(cp, a, mine, ["RUNNING"], 75_000);
    expect(Date.now() - asked, "A runs within B's grace (60 s) + 15 s").toBeLessThan(75_000);
    await waitReleased(borrowed, borrowedRun);
    const stopStep = await lastCheckpointStep(borrowed, borrowedRun);
    expect(stopStep).toBeGreaterThanOrEqual(100);
    const lastLoss = (await points(borrowed, borrowedRun)).at(-1)!.value;
    // B's job within its guarantee ran on, untouched.
    const ownNow = (await call(cp, op, "GET", `/v1/jobs/${own}`)).body as {
      job: { status: string };
      events: Array<{ to: string }>;
    };
    expect(["RUNNING", "SUCCEEDED"]).toContain(ownNow.job.status);
    expect(ownNow.events.some((e) => e.to === "PAUSED")).toBe(false);

    const done = await waitForStatus(cp, op, borrowed, ["SUCCEEDED", "FAILED"], 180_000);
    expect(done.job.status).toBe("SUCCEEDED");
    expect(done.runs.map((r) => [r.attempt, r.status])).toEqual([
      [1, "PAUSED"],
      [2, "SUCCEEDED"],
    ]);
    await expectContinued(borrowed, done.runs[1]!.id, stopStep, lastLoss);
    const lostSteps = (await call(cp, op, "GET", `/v1/jobs/${borrowed}`)).body.runs as Array<{
      steps_lost?: number | null;
    }>;
    expect(lostSteps[0]!.steps_lost).toBe(0);
    const events = (await call(cp, op, "GET", `/v1/jobs/${borrowed}`)).body.events as Array<{
      to: string;
      actor: string;
      detail: Record<string, unknown>;
    }>;
    expect(events.some((e) => e.to === "FAILED" || e.actor === "system:retry")).toBe(false);
    expect(events.find((e) => e.to === "PAUSED")).toMatchObject({
      actor: "system:preempt",
      detail: {
        preempted: true,
        cause: "reclaim",
        preempted_by: mine,
        team: "ck-team-b",
        reclaiming_team: "ck-team-a",
      },
    });
    expect((await waitForStatus(cp, a, mine, ["SUCCEEDED", "FAILED"], 60_000)).job.status).toBe("SUCCEEDED");
    await waitForStatus(cp, op, own, ["SUCCEEDED"], 120_000);
    expect(await allocated("ck-reclaim")).toBe(0);
  }, 360_000);
});
