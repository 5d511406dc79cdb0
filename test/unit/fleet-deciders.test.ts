/**
 * The Fleet engine's rules as tables, in memory: each event's result, the effects it produced and the
 * state after. No workerd: the same `decide` the Fleet DO runs, against MemoryFleetState.
 */

import { describe, expect, it } from "vitest";
import { DIAGNOSIS_SETTLE_MS } from "../../durable-objects/fleet/timers.js";
import { ADA, Fleet, inventory, T0 } from "./fleet-harness.js";

const reasons = (f: Fleet, id: string) =>
  (JSON.parse(f.job(id).pending_reasons) as Array<{ code: string }>).map((r) => r.code);

describe("submit and dispatch", () => {
  it("never queues a job id whose admission it abandoned, and queues every other id as before", () => {
    const f = new Fleet();
    const queued = f.submit({ gpus: 1 });
    const settled = f.decide({ type: "settle_admissions", jobIds: [queued, "job_lost0000001"] }).result;
    expect(settled).toEqual({
      [queued]: { status: "QUEUED", version: expect.any(Number) },
      job_lost0000001: null,
    });
    // The request that reserved it arrives late: refused, nothing queued.
    const late = f.trySubmit({ jobId: "job_lost0000001", gpus: 1 });
    expect(late.ok ? "queued" : late.code).toBe("CONFLICT");
    expect(f.s.job("job_lost0000001")).toBeNull();
    // Settling it again changes nothing; fresh ids are queued.
    expect(f.decide({ type: "settle_admissions", jobIds: ["job_lost0000001"] }).result).toEqual({
      job_lost0000001: null,
    });
    expect(f.trySubmit({ jobId: "job_fresh000001", gpus: 1 }).ok).toBe(true);
  });

  it("queues a job no node can take, with its reason, and dispatches it when a node arrives", () => {
    const f = new Fleet();
    const id = f.submit({ gpus: 2 });
    expect(f.job(id).status).toBe("QUEUED");
    expect(reasons(f, id)).toEqual(["NO_NODE_OF_SERIES"]);
    const node = f.agent("gpu-a", 4);
    const job = f.job(id);
    expect(job.status).toBe("SUBMITTED");
    expect(f.s.allocatedOn(node)).toEqual([0, 1]);
    // One launch command per rank, to the agent's node.
    expect(f.s.openCommands(node).map((c) => [c.kind, c.run_id, c.rank])).toEqual([
      ["launch", job.current_run_id, 0],
    ]);
    expect(f.transitions(id)).toEqual(["·→QUEUED", "QUEUED→SUBMITTED"]);
    // Its snapshots in the outbox leave the JobSpec to the flush (read from the job's row: it never changes).
    const snapshots = f.s.outbox.flatMap((e) => (e.kind === "job" && e.job.id === id ? [e.job] : []));
    expect(snapshots.length).toBeGreaterThan(0);
    expect(snapshots.every((j) => j.spec === null)).toBe(true);
    expect(JSON.parse(f.s.job(id)!.spec)).toMatchObject({ resources: expect.any(Object) });
    f.checkInvariants();
  });

  it("places a gang all or nothing: 2×2 GPUs wait for two nodes with 2 free each", () => {
    const f = new Fleet();
    f.agent("a", 2);
    const id = f.submit({ nodes: 2, gpus: 2 });
    expect(f.job(id).status).toBe("QUEUED");
    expect(f.s.allocations()).toEqual([]);
    f.agent("b", 2);
    expect(f.job(id).status).toBe("SUBMITTED");
    expect(f.s.ranks(f.job(id).current_run_id!).map((r) => r.rank)).toEqual([0, 1]);
    expect(f.s.allocations()).toHaveLength(4);
    f.checkInvariants();
  });

  it("refuses a submit while draining, and one it already has", () => {
    const f = new Fleet();
    const id = f.submit();
    expect(f.trySubmit({ jobId: id })).toMatchObject({ ok: false, code: "ALREADY_EXISTS" });
    f.decide({ type: "drain", note: "upgrade" });
    expect(f.trySubmit({ jobId: "job_other" })).toMatchObject({
      ok: false,
      code: "FLEET_DRAINING",
      message: "fleet test is draining: upgrade",
    });
  });
});

describe("run events", () => {
  function running(gpus = 1, opts: Parameters<Fleet["submit"]>[0] = {}) {
    const f = new Fleet();
    const node = f.agent("gpu-a", 4);
    const id = f.submit({ gpus, ...opts });
    f.report(id, "accepted");
    f.report(id, "launched");
    return { f, node, id };
  }

  it("accepted → PENDING, launched → RUNNING (the launch settled), succeeded → SUCCEEDED and GPUs freed", () => {
    const f = new Fleet();
    const node = f.agent("gpu-a", 4);
    const id = f.submit();
    expect(f.report(id, "accepted")).toEqual([{ kind: "applied", stopWorkload: false, runOver: false }]);
    expect(f.job(id).status).toBe("PENDING");
    expect(f.s.openCommands(node)).toEqual([]);
    f.report(id, "launched");
    expect(f.job(id).status).toBe("RUNNING");
    expect(f.report(id, "succeeded")).toEqual([{ kind: "applied", stopWorkload: false, runOver: true }]);
    expect(f.job(id).status).toBe("SUCCEEDED");
    expect(f.currentRun(id)).toMatchObject({ status: "SUCCEEDED", exit_code: 0, ended_at: T0 });
    expect(f.s.allocations()).toEqual([]);
    expect(f.transitions(id)).toEqual([
      "·→QUEUED",
      "QUEUED→SUBMITTED",
      "SUBMITTED→PENDING",
      "PENDING→RUNNING",
      "RUNNING→SUCCEEDED",
    ]);
    f.checkInvariants();
  });

  it("a report that arrives before the ack still passes the job through PENDING and RUNNING", () => {
    const f = new Fleet();
    f.agent("gpu-a", 4);
    const id = f.submit();
    f.report(id, "exited", { exitCode: 0 });
    expect(f.transitions(id).slice(-3)).toEqual([
      "SUBMITTED→PENDING",
      "PENDING→RUNNING",
      "RUNNING→SUCCEEDED",
    ]);
  });

  it("refuses a stale epoch and an unknown run, telling the workload to stop", () => {
    const { f, id } = running();
    const run = f.currentRun(id);
    const stale = f.decide({
      type: "run_event",
      input: {
        runId: run.id,
        epoch: run.epoch + 1,
        rank: 0,
        event: "exited",
        exitCode: 1,
        reason: null,
        infra: false,
        source: "agent",
      },
    });
    expect(stale.result).toEqual({ kind: "stale_epoch", stopWorkload: true, runOver: false });
    expect(stale.effects).toEqual([]);
    const unknown = f.decide({
      type: "run_event",
      input: {
        runId: "run_nope",
        epoch: 1,
        rank: 0,
        event: "started",
        exitCode: null,
        reason: null,
        infra: false,
        source: "runner",
      },
    });
    expect(unknown.result).toEqual({ kind: "unknown_run", stopWorkload: true, runOver: true });
    expect(f.job(id).status).toBe("RUNNING");
  });

  it("one rank failing fails the job, stops the other ranks and keeps the GPUs until they are gone", () => {
    const f = new Fleet();
    const a = f.agent("a", 1);
    const b = f.agent("b", 1);
    const id = f.submit({ nodes: 2, gpus: 1, maxRetries: 0 });
    f.report(id, "launched");
    const run = f.currentRun(id);
    f.decide({
      type: "run_event",
      input: {
        runId: run.id,
        epoch: run.epoch,
        rank: 1,
        event: "exited",
        exitCode: 3,
        reason: null,
        infra: false,
        source: "agent",
      },
    });
    expect(f.job(id).status).toBe("FAILED");
    expect(f.currentRun(id)).toMatchObject({
      status: "FAILED",
      exit_code: 3,
      reason: `rank 1 on ${f.s.node(f.s.ranks(run.id)[1]!.node_id)!.name}: exited with code 3`,
      ended_at: null,
    });
    const stop = f.s.openCommands(a).find((c) => c.kind === "stop");
    expect(JSON.parse(stop!.payload)).toMatchObject({ reason: "rank 1 failed", grace_seconds: 30 });
    expect(f.s.openCommands(b)).toEqual([]);
    expect(f.s.allocations()).toHaveLength(2);
    f.checkInvariants();
    // Rank 0 confirms: now the run is released.
    f.decide({
      type: "run_event",
      input: {
        runId: run.id,
        epoch: run.epoch,
        rank: 0,
        event: "stopped",
        exitCode: 143,
        reason: null,
        infra: false,
        source: "agent",
      },
    });
    expect(f.s.allocations()).toEqual([]);
    expect(f.currentRun(id).ended_at).toBe(T0);
    f.checkInvariants();
  });

  it("an infrastructure failure is retried after its diagnosis and the backoff as a new run; a user failure is not", () => {
    const { f, id } = running(1, { maxRetries: 1 });
    const first = f.currentRun(id);
    f.report(id, "exited", { exitCode: 137, infra: true });
    expect(f.job(id).status).toBe("FAILED");
    // The retry is the diagnosis's to decide (SIGNAL with the agent's infrastructure bit: retried).
    f.advance(DIAGNOSIS_SETTLE_MS + 29_999);
    expect(f.job(id).status).toBe("FAILED");
    f.advance(1);
    expect(f.job(id).status).toBe("SUBMITTED");
    const second = f.currentRun(id);
    expect(second.id).not.toBe(first.id);
    expect([second.attempt, second.epoch > first.epoch]).toEqual([2, true]);
    // The budget (1) is spent: the next infrastructure failure stays FAILED.
    f.report(id, "exited", { exitCode: 137, infra: true });
    f.advance(3_600_000);
    expect(f.job(id).status).toBe("FAILED");
    const user = running(1, { maxRetries: 3 });
    user.f.report(user.id, "failed", { exitCode: 1 });
    user.f.advance(3_600_000);
    expect(user.f.job(user.id).status).toBe("FAILED");
  });

  it("a launch that cannot be built or is refused fails the rank as infrastructure", () => {
    const f = new Fleet();
    const node = f.agent("gpu-a", 4);
    const id = f.submit({ maxRetries: 0 });
    const cmd = f.s.openCommands(node)[0]!;
    f.decide({
      type: "refused",
      nodeId: node,
      commandId: cmd.id,
      code: "BAD_LAUNCH",
      message: "no such image",
    });
    expect(f.job(id).status).toBe("FAILED");
    expect(f.currentRun(id).reason).toBe("agent refused the launch: BAD_LAUNCH: no such image");
    expect(f.s.allocations()).toEqual([]);
    const id2 = f.submit({ maxRetries: 0 });
    f.decide({ type: "launch_failed", runId: f.job(id2).current_run_id!, rank: 0, reason: "no capsule" });
    expect(f.currentRun(id2)).toMatchObject({ status: "FAILED", reason: "no capsule", ended_at: T0 });
    f.checkInvariants();
  });
});

describe("actions", () => {
  it("stop on a running job sends a stop command and frees the GPUs only when the agent confirms", () => {
    const f = new Fleet();
    const node = f.agent("gpu-a", 4);
    const id = f.submit();
    f.report(id, "launched");
    const r = f.act(id, "stop");
    expect(r.ok && r.value.status).toBe("STOPPED");
    expect(f.s.openCommands(node).map((c) => c.kind)).toEqual(["stop"]);
    expect(f.s.allocations()).toHaveLength(1);
    f.report(id, "stopped", { exitCode: 143 });
    expect(f.s.allocations()).toEqual([]);
    expect(f.currentRun(id)).toMatchObject({ status: "STOPPED", reason: "stop by ada" });
    f.checkInvariants();
  });

  it("stop before the launch reached an agent cancels the rank and frees the GPUs at once", () => {
    const f = new Fleet();
    f.agent("gpu-a", 4);
    const id = f.submit();
    f.act(id, "stop");
    expect(f.s.ranks(f.job(id).current_run_id!).map((r) => r.state)).toEqual(["cancelled"]);
    expect(f.s.allocations()).toEqual([]);
  });

  it("pause holds a queued job; resume queues it again; illegal actions and other users are refused", () => {
    const f = new Fleet();
    const id = f.submit();
    expect(f.act(id, "pause")).toMatchObject({ ok: true, value: { status: "PAUSED" } });
    expect(f.act(id, "pause")).toMatchObject({
      ok: false,
      code: "INVALID_TRANSITION",
      details: { status: "PAUSED" },
    });
    expect(f.act(id, "resume", { userId: "usr_bob", name: "bob", admin: false })).toMatchObject({
      ok: false,
      code: "FORBIDDEN",
    });
    expect(f.act(id, "resume")).toMatchObject({ ok: true, value: { status: "QUEUED" } });
    expect(f.act("job_missing", "stop")).toMatchObject({ ok: false, code: "JOB_NOT_FOUND" });
    expect(f.act(id, "stop", { userId: "usr_root", name: "root", admin: true })).toMatchObject({ ok: true });
  });

  it("a resumed job waits for its previous run to stop (PREVIOUS_RUN_STOPPING), then runs again", () => {
    const f = new Fleet();
    f.agent("gpu-a", 1);
    const id = f.submit();
    f.report(id, "launched");
    const first = f.currentRun(id);
    f.act(id, "pause");
    f.act(id, "resume");
    expect(f.job(id).status).toBe("QUEUED");
    expect(reasons(f, id)).toEqual(["PREVIOUS_RUN_STOPPING"]);
    f.decide({
      type: "run_event",
      input: {
        runId: first.id,
        epoch: first.epoch,
        rank: 0,
        event: "stopped",
        exitCode: 143,
        reason: null,
        infra: false,
        source: "agent",
      },
    });
    expect(f.job(id).status).toBe("SUBMITTED");
    expect(f.currentRun(id).attempt).toBe(2);
    f.checkInvariants();
  });
});

describe("agents", () => {
  it("hello reattaches what the journal knows, stops what it should not run, and fails what it lost", () => {
    const f = new Fleet();
    const node = f.agent("gpu-a", 4);
    const kept = f.submit();
    const lost = f.submit();
    f.report(kept, "launched");
    f.report(lost, "launched");
    const keptRun = f.currentRun(kept);
    const welcome = f.decide({
      type: "hello",
      nodeId: node,
      inventory: inventory("gpu-a", 4),
      journal: [
        {
          run_id: keptRun.id,
          epoch: keptRun.epoch,
          rank: 0,
          state: "launched",
          exit_code: null,
          reason: null,
        },
        { run_id: "run_foreign", epoch: 9, rank: 0, state: "launched", exit_code: null, reason: null },
      ],
    }).result;
    expect(welcome.expected).toEqual([{ run_id: keptRun.id, epoch: keptRun.epoch, rank: 0 }]);
    expect(welcome.stop).toEqual([{ run_id: "run_foreign", epoch: 9 }]);
    expect(f.job(kept).status).toBe("RUNNING");
    expect(f.job(lost).status).toBe("FAILED");
    expect(f.currentRun(lost).reason).toBe("the agent came back without this run");
    f.checkInvariants();
  });

  it("a lost node keeps its runs until the grace ends, unless the agent is back in time", () => {
    const f = new Fleet();
    const node = f.agent("gpu-a", 4);
    const id = f.submit({ maxRetries: 0 });
    f.report(id, "launched");
    f.decide({ type: "node_lost", nodeId: node });
    expect(f.s.node(node)).toMatchObject({ status: "lost", lost_since: T0 });
    f.checkInvariants();
    f.advance(200_000);
    const run = f.currentRun(id);
    f.decide({
      type: "hello",
      nodeId: node,
      inventory: inventory("gpu-a", 4),
      journal: [
        { run_id: run.id, epoch: run.epoch, rank: 0, state: "launched", exit_code: null, reason: null },
      ],
    });
    f.advance(200_000);
    expect(f.job(id).status).toBe("RUNNING");
    f.decide({ type: "node_lost", nodeId: node });
    f.advance(300_000);
    expect(f.job(id).status).toBe("FAILED");
    expect(f.currentRun(id).reason).toBe("the agent on gpu-a was silent for more than 300 s");
    expect(f.s.allocations()).toEqual([]);
    f.checkInvariants();
  });

  it("an ack closes the command once; acks for another node are refused", () => {
    const f = new Fleet();
    const node = f.agent("gpu-a", 4);
    f.submit();
    const cmd = f.s.openCommands(node)[0]!;
    expect(f.decide({ type: "ack", nodeId: "nod_other", commandId: cmd.id }).result).toBe(false);
    const first = f.decide({ type: "ack", nodeId: node, commandId: cmd.id });
    expect(first.result).toBe(true);
    expect(first.effects).toEqual([{ kind: "ack", id: cmd.id, at: T0 }]);
    expect(f.decide({ type: "ack", nodeId: node, commandId: cmd.id }).effects).toEqual([]);
  });
});

describe("drain and windows", () => {
  it("drain holds queued jobs, pauses running resumable ones and lists the others as blockers; undrain restores order", () => {
    const f = new Fleet();
    f.agent("gpu-a", 2);
    const resumable = f.submit({ python: true });
    const custom = f.submit();
    const queued1 = f.submit({ gpus: 2 });
    const queued2 = f.submit({ gpus: 2 });
    f.report(resumable, "launched");
    f.report(custom, "launched");
    const report = f.decide({ type: "drain", note: "kernel" }).result;
    expect(report.held).toEqual([queued1, queued2]);
    expect(report.paused).toEqual([resumable]);
    expect(report.blockers.map((b) => [b.job_id, b.status])).toEqual([
      [custom, "RUNNING"],
      [resumable, "PAUSED"],
    ]);
    expect(f.job(custom).status).toBe("RUNNING");
    // Idempotent.
    expect(f.decide({ type: "drain", note: "kernel" }).result.held).toEqual([queued1, queued2]);
    f.checkInvariants();
    const after = f.decide({ type: "undrain" }).result;
    expect(after.resumed).toEqual([resumable, queued1, queued2]);
    expect([resumable, queued1, queued2].map((id) => f.job(id).status)).toEqual([
      "QUEUED",
      "QUEUED",
      "QUEUED",
    ]);
    f.checkInvariants();
  });

  it("a queued job that ran before is held, not paused: the report says where the drain took it", () => {
    const f = new Fleet();
    f.agent("gpu-a", 1);
    const id = f.submit();
    f.report(id, "launched");
    f.act(id, "pause");
    f.act(id, "resume"); // queued again, its earlier run still named
    expect([f.job(id).status, f.job(id).current_run_id]).toEqual(["QUEUED", f.currentRun(id).id]);
    const report = f.decide({ type: "drain", note: "kernel" }).result;
    expect([report.held, report.paused]).toEqual([[id], []]);
    expect(f.decide({ type: "undrain" }).result.resumed).toEqual([id]);
    f.checkInvariants();
  });

  it("a window keeps jobs queued while closed, stops running ones when it closes and resumes them when it reopens", () => {
    // T0 is a Tuesday 10:00 UTC: the window is open 09:00–11:00 on Tuesdays.
    const f = new Fleet({ windows: [{ days: [2], start: "09:00", end: "11:00", tz: "UTC" }] });
    f.agent("gpu-a", 4);
    const id = f.submit();
    f.report(id, "launched");
    f.advance(3_600_000); // 11:00: the window closes
    expect(f.job(id).status).toBe("STOPPED");
    const stopped = f.currentRun(id);
    expect(stopped.reason).toMatch(
      /^the h200 window closed; it resumes when the window opens at 2026-12-08T09:00/,
    );
    f.report(id, "stopped", { exitCode: 143 });
    const later = f.submit();
    expect(reasons(f, later)).toEqual(["WINDOW_CLOSED"]);
    f.advance(7 * 86_400_000 - 2 * 3_600_000); // the next Tuesday 09:00
    expect(f.job(id).status).toBe("SUBMITTED");
    expect(f.job(later).status).toBe("SUBMITTED");
    f.checkInvariants();
  });
});

describe("resume resolution", () => {
  it("keeps the first resolution of a run's checkpoint and versions the run once", () => {
    const f = new Fleet();
    f.agent("gpu-a", 1);
    const id = f.submit();
    const run = f.currentRun(id);
    const first = f.decide({
      type: "resume_resolved",
      runId: run.id,
      body: '{"run_id":"run_a","step":5,"files":[]}',
    });
    expect(first.effects.map((e) => e.kind)).toEqual(["resume", "run", "outbox"]);
    const second = f.decide({ type: "resume_resolved", runId: run.id, body: "null" });
    expect(second.effects).toEqual([]);
    expect(f.s.runResume(run.id)).toBe('{"run_id":"run_a","step":5,"files":[]}');
    expect(ADA.name).toBe("ada");
  });
});
