/**
 * Priority classes and preemption in the Fleet DO's rules (docs/scheduling.md "Priority classes and
 * preemption"), in memory: who may displace whom, which victims, what they go through (RUNNING → PAUSED →
 * QUEUED with the same id and queue place, never FAILED, no retry used), the GPUs held for the preemptor,
 * and what happens when victims do not leave.
 */
import { describe, expect, it } from "vitest";
import { BUILTIN_PRIORITY_CLASSES, type PriorityClass } from "../../contract/priority-classes.js";
import { retriesKey } from "../../durable-objects/fleet/keys.js";
import { PREEMPTIONS_PER_MINUTE } from "../../durable-objects/fleet/rules/preempt.js";
import { FLEET_ID, Fleet, type SubmitOptions } from "./fleet-harness.js";

const codes = (f: Fleet, id: string) =>
  (JSON.parse(f.job(id).pending_reasons) as Array<{ code: string }>).map((r) => r.code);
const reasonsOf = (f: Fleet, id: string) =>
  JSON.parse(f.job(id).pending_reasons) as Array<{
    code: string;
    message: string;
    details: Record<string, unknown>;
  }>;

/** The built-ins with every minimum runtime at 0 (unless `change` says otherwise). */
function classes(change: Partial<Record<string, Partial<PriorityClass>>> = {}): PriorityClass[] {
  return BUILTIN_PRIORITY_CLASSES.map((c) => ({ ...c, min_runtime_seconds: 0, ...change[c.name] }));
}

function fleet(change?: Partial<Record<string, Partial<PriorityClass>>>): Fleet {
  const f = new Fleet();
  f.decide({ type: "set_priority_classes", classes: classes(change) });
  return f;
}

/** A resumable job (a python entry module) that is RUNNING. */
function running(f: Fleet, o: SubmitOptions): string {
  const id = f.submit({ python: true, ...o });
  expect(f.job(id).status).toBe("SUBMITTED");
  f.report(id, "started");
  expect(f.job(id).status).toBe("RUNNING");
  return id;
}

function stopCommands(f: Fleet, runId: string) {
  return [...f.s.commandRows.values()].filter((c) => c.run_id === runId && c.kind === "stop");
}

describe("priority classes order the queue", () => {
  it("a higher class goes first whatever its numeric priority; the default class is normal", () => {
    const f = fleet();
    const node = f.agent("gpu-a", 1);
    const blocker = running(f, { gpus: 1, priorityClass: "critical" });
    const normal = f.submit({ gpus: 1, priority: 90 });
    const high = f.submit({ gpus: 1, priority: 1, priorityClass: "high" });
    expect(f.job(normal).priority_class).toBe("normal");
    f.report(blocker, "exited", { exitCode: 0 });
    expect(f.job(high).status).toBe("SUBMITTED");
    expect(f.job(normal).status).toBe("QUEUED");
    expect(f.s.allocatedOn(node)).toEqual([0]);
  });

  it("refuses a class no admin defined, and one above the submitter's quota, with coded errors", () => {
    const f = fleet();
    const unknown = f.trySubmit({ jobId: "job_unknownclass1", gpus: 1, priorityClass: "urgent" });
    expect(unknown).toMatchObject({ ok: false, code: "PRIORITY_CLASS_UNKNOWN" });
    const above = f.trySubmit({
      jobId: "job_aboveclass001",
      gpus: 1,
      priorityClass: "high",
      maxPriorityClass: "normal",
    });
    expect(above).toMatchObject({
      ok: false,
      code: "PRIORITY_CLASS_NOT_ALLOWED",
      details: { priority_class: "high", max_priority_class: "normal" },
    });
    // Nothing was queued by either.
    expect(f.s.jobRows.size).toBe(0);
    expect(
      f.trySubmit({ jobId: "job_lowclass00001", gpus: 1, priorityClass: "low", maxPriorityClass: "normal" })
        .ok,
    ).toBe(true);
  });
});

describe("preemption", () => {
  it("the worked example of docs/scheduling.md: a high job displaces a low one (RUNNING → PAUSED → QUEUED, same id and place, no retry used) and starts on its GPUs", () => {
    const f = fleet();
    const node = f.agent("gpu-a", 2);
    const low = running(f, { gpus: 2, priorityClass: "low" });
    const lowRun = f.currentRun(low);
    const seq = f.job(low).queue_seq;

    const high = f.submit({ gpus: 2, priorityClass: "high" });
    // Notice at once: the victim's run is stopped with its class's grace (low: 60 s).
    expect(f.job(low).status).toBe("QUEUED");
    expect(f.transitions(low).slice(-2)).toEqual(["RUNNING→PAUSED", "PAUSED→QUEUED"]);
    const stops = stopCommands(f, lowRun.id);
    expect(stops).toHaveLength(1);
    expect(JSON.parse(stops[0]!.payload)).toMatchObject({ grace_seconds: 60 });
    const paused = f.s.outbox.find(
      (e) => e.kind === "event" && e.event.job_id === low && e.event.to_status === "PAUSED",
    );
    expect(paused?.kind === "event" && JSON.parse(paused.event.detail)).toMatchObject({
      preempted: true,
      cause: "priority",
      preempted_by: high,
      class: "low",
      grace_seconds: 60,
    });
    expect(f.job(low).queue_seq).toBe(seq);
    // The preemptor says whom it waits for.
    expect(reasonsOf(f, high)).toMatchObject([{ code: "PREEMPTING", details: { victims: low } }]);

    // A job submitted meanwhile does not take the GPUs as they free (no backfill on a hold); of its
    // class, it waits behind the victim, which kept its place.
    const later = f.submit({ gpus: 2, priorityClass: "low" });
    // Its job.preempted webhook waits for the run to be gone, when what it lost is known.
    const preempted = () => f.s.outbox.filter((e) => e.kind === "preempted" && e.event.job_id === low);
    expect(preempted()).toEqual([]);
    f.report(low, "stopped", { exitCode: 143 });
    expect(preempted()).toEqual([
      expect.objectContaining({
        event: paused?.kind === "event" ? paused.event : null,
        job: expect.objectContaining({ run_id: lowRun.id }),
        resume_step: null,
        lost_gpu_seconds: expect.any(Number),
      }),
    ]);
    expect(f.job(high).status).toBe("SUBMITTED");
    expect(JSON.parse(f.currentRun(high).placement)).toEqual([
      { rank: 0, pool: "default", node_id: node, gpu_indices: [0, 1] },
    ]);
    expect(f.s.allocatedOn(node)).toEqual([0, 1]);
    expect(f.job(later).status).toBe("QUEUED");
    // The victim was never FAILED and used no retry; it waits ahead of the later job, in its old place.
    expect(f.transitions(low)).not.toContain("RUNNING→FAILED");
    expect(f.s.meta(retriesKey(low))).toBeNull();
    expect(f.job(low).status).toBe("QUEUED");
    f.report(high, "started");
    f.report(high, "exited", { exitCode: 0 });
    expect(f.job(low).status).toBe("SUBMITTED");
    expect(f.job(low).current_run_id).not.toBe(lowRun.id);
    expect(f.job(later).status).toBe("QUEUED");
    f.checkInvariants();
  });

  it("never displaces the same or a higher class, a non-preemptible class, or a job that cannot resume", () => {
    const f = fleet();
    f.agent("gpu-a", 4);
    const normal = running(f, { gpus: 1 });
    const critical = running(f, { gpus: 1, priorityClass: "critical" });
    const scripted = f.submit({ gpus: 1, priorityClass: "low", launch: "script" });
    f.report(scripted, "started");
    const lowNoResume = running(f, { gpus: 1, priorityClass: "low", resumable: false });
    const waiting = f.submit({ gpus: 1, priorityClass: "normal" });
    const high = f.submit({ gpus: 1, priorityClass: "high" });
    // The normal job could displace only low ones, and neither low one can resume.
    expect(codes(f, waiting)).toEqual(["CAPACITY"]);
    // high may displace normal (a lower value): the one candidate.
    expect(reasonsOf(f, high)).toMatchObject([{ code: "PREEMPTING", details: { victims: normal } }]);
    for (const id of [critical, scripted, lowNoResume]) expect(f.job(id).status).toBe("RUNNING");
    expect(f.job(normal).status).toBe("QUEUED");
    f.checkInvariants();
  });

  it("waits out the victim's minimum runtime, and wakes by itself when it is over", () => {
    const f = fleet({ low: { min_runtime_seconds: 300 } });
    f.agent("gpu-a", 1);
    const low = running(f, { gpus: 1, priorityClass: "low" });
    f.advance(100_000);
    const high = f.submit({ gpus: 1, priorityClass: "high" });
    expect(codes(f, high)).toEqual(["CAPACITY"]);
    expect(f.job(low).status).toBe("RUNNING");
    // The schedule timer fires when the 300 s are over.
    f.advance(199_000);
    expect(f.job(low).status).toBe("RUNNING");
    f.advance(1_000);
    expect(f.job(low).status).toBe("QUEUED");
    expect(codes(f, high)).toEqual(["PREEMPTING"]);
  });

  it("takes whole gangs only, and no more victims than needed", () => {
    const f = fleet();
    const a = f.agent("gpu-a", 2);
    const b = f.agent("gpu-b", 2);
    const gang = running(f, { gpus: 1, nodes: 2, priorityClass: "low" });
    f.advance(1000);
    const one = running(f, { gpus: 1, priorityClass: "low" });
    f.advance(1000);
    const two = running(f, { gpus: 1, priorityClass: "low" });
    const gangRun = f.currentRun(gang);
    // Needs one whole node: the gang and one of the singles must go (both singles would not do).
    const high = f.submit({ gpus: 2, priorityClass: "high" });
    const victims = String(reasonsOf(f, high)[0]!.details.victims).split(",").sort();
    expect(victims).toContain(gang);
    expect(victims).toHaveLength(2);
    // Every rank of the gang got its stop.
    expect(
      stopCommands(f, gangRun.id)
        .map((c) => c.node_id)
        .sort(),
    ).toEqual([a, b].sort());
    const spared = [one, two].find((id) => !victims.includes(id))!;
    expect(f.job(spared).status).toBe("RUNNING");
    f.checkInvariants();
  });

  it("prefers, among equals, the job that checkpointed last (cheapest to interrupt) over the newest start", () => {
    const f = fleet();
    f.agent("gpu-a", 2);
    const older = running(f, { gpus: 1, priorityClass: "low" });
    f.advance(1000);
    const newer = running(f, { gpus: 1, priorityClass: "low" });
    f.advance(1000);
    f.decide({ type: "checkpointed", runId: f.currentRun(older).id, step: 50 });
    const high = f.submit({ gpus: 1, priorityClass: "high" });
    expect(reasonsOf(f, high)[0]!.details.victims).toBe(older);
    expect(f.job(newer).status).toBe("RUNNING");
  });

  it("prefers the lowest class, then the newest start", () => {
    const f = fleet();
    f.agent("gpu-a", 3);
    const scavenger = running(f, { gpus: 1, priorityClass: "scavenger" });
    f.advance(1000);
    const lowOld = running(f, { gpus: 1, priorityClass: "low" });
    f.advance(1000);
    const lowNew = running(f, { gpus: 1, priorityClass: "low" });
    const first = f.submit({ gpus: 1, priorityClass: "high" });
    expect(reasonsOf(f, first)[0]!.details.victims).toBe(scavenger);
    const second = f.submit({ gpus: 1, priorityClass: "high" });
    expect(reasonsOf(f, second)[0]!.details.victims).toBe(lowNew);
    expect(f.job(lowOld).status).toBe("RUNNING");
  });

  it("releases the hold when victims do not leave by grace + 60 s, and says which and why", () => {
    const f = fleet();
    f.agent("gpu-a", 2);
    const low = running(f, { gpus: 1, priorityClass: "low" });
    const high = f.submit({ gpus: 2, priorityClass: "high" });
    expect(codes(f, high)).toEqual(["PREEMPTING"]);
    // The victim's agent never confirms its stop: 60 s of grace + 60 s.
    f.advance(119_000);
    expect(codes(f, high)).toEqual(["PREEMPTING"]);
    f.advance(1_000);
    const r = reasonsOf(f, high);
    expect(r[0]).toMatchObject({ code: "PREEMPTION_STALLED", details: { victims: low } });
    expect(r[0]!.message).toContain("has not confirmed its stop");
    // The GPU that was free and held for it is offered to others again.
    const small = f.submit({ gpus: 1 });
    expect(f.job(small).status).toBe("SUBMITTED");
    f.checkInvariants();
  });

  it("starts the preemptor on GPUs freed elsewhere meanwhile, and lets its victim take its own back", () => {
    const f = fleet();
    const a = f.agent("gpu-a", 1);
    const low = running(f, { gpus: 1, priorityClass: "low" });
    const b = f.agent("gpu-b", 1);
    const other = running(f, { gpus: 1, priorityClass: "high" });
    expect(f.currentRun(other).placement).toContain(b);
    const high = f.submit({ gpus: 1, priorityClass: "high" });
    expect(reasonsOf(f, high)[0]).toMatchObject({ code: "PREEMPTING", details: { victims: low } });
    // The other high job ends before the victim has left: the preemptor starts on gpu-b.
    f.report(other, "exited", { exitCode: 0 });
    expect(f.job(high).status).toBe("SUBMITTED");
    expect(f.currentRun(high).placement).toContain(b);
    // The victim, once stopped, runs again on gpu-a: nothing holds it any more.
    f.report(low, "stopped", { exitCode: 143 });
    expect(f.job(low).status).toBe("SUBMITTED");
    expect(f.currentRun(low).placement).toContain(a);
    f.checkInvariants();
  });

  it("drops the hold when the preemptor is stopped while it waits", () => {
    const f = fleet();
    f.agent("gpu-a", 1);
    const low = running(f, { gpus: 1, priorityClass: "low" });
    const high = f.submit({ gpus: 1, priorityClass: "high" });
    expect(codes(f, high)).toEqual(["PREEMPTING"]);
    f.act(high, "stop");
    f.report(low, "stopped", { exitCode: 143 });
    // The victim, queued in its place, takes its GPU back.
    expect(f.job(low).status).toBe("SUBMITTED");
    f.checkInvariants();
  });

  it(`starts at most ${PREEMPTIONS_PER_MINUTE} preemptions a minute, then the next when the minute is over`, () => {
    const f = fleet();
    f.agent("gpu-a", PREEMPTIONS_PER_MINUTE + 1);
    const lows = Array.from({ length: PREEMPTIONS_PER_MINUTE + 1 }, () =>
      running(f, { gpus: 1, priorityClass: "low" }),
    );
    const highs = lows.map(() => f.submit({ gpus: 1, priorityClass: "high" }));
    const preempting = () => highs.filter((h) => codes(f, h)[0] === "PREEMPTING").length;
    expect(preempting()).toBe(PREEMPTIONS_PER_MINUTE);
    f.advance(60_000);
    expect(preempting()).toBe(PREEMPTIONS_PER_MINUTE + 1);
  });

  it("takes the fleet's own rate limit: 1 a minute, or none at all with 0", () => {
    const f = fleet();
    const limit = (n: number) =>
      f.decide({
        type: "configure",
        config: {
          id: FLEET_ID,
          name: "test",
          kind: "process",
          windows: [],
          draining: false,
          drainNote: null,
          preemptionsPerMinute: n,
        },
      });
    limit(0);
    f.agent("gpu-a", 2);
    const lows = [
      running(f, { gpus: 1, priorityClass: "low" }),
      running(f, { gpus: 1, priorityClass: "low" }),
    ];
    const highs = lows.map(() => f.submit({ gpus: 1, priorityClass: "high" }));
    const preempting = () => highs.filter((h) => codes(f, h)[0] === "PREEMPTING").length;
    expect(preempting()).toBe(0);
    limit(1);
    expect(preempting()).toBe(1);
    f.advance(30_000);
    expect(preempting()).toBe(1);
    f.advance(31_000);
    expect(preempting()).toBe(2);
  });

  it("leaves a job preempted three times alone until it writes a checkpoint; then a waiting job may preempt it", () => {
    const f = fleet();
    f.agent("gpu-a", 1);
    const low = running(f, { gpus: 1, priorityClass: "low" });
    for (let i = 0; i < 3; i++) {
      const high = f.submit({ gpus: 1, priorityClass: "high" });
      expect(f.job(low).status).toBe("QUEUED");
      f.report(low, "stopped", { exitCode: 143 });
      f.report(high, "started");
      f.report(high, "exited", { exitCode: 0 });
      expect(f.job(low).status).toBe("SUBMITTED");
      f.report(low, "started");
      f.advance(61_000);
    }
    const fourth = f.submit({ gpus: 1, priorityClass: "high" });
    expect(codes(f, fourth)).toEqual(["CAPACITY"]);
    expect(f.job(low).status).toBe("RUNNING");
    // A checkpoint after its last preemption ends the exemption, and the waiting job takes the GPU.
    f.advance(1_000);
    f.decide({ type: "checkpointed", runId: f.currentRun(low).id, step: 120 });
    expect(f.job(low).status).toBe("QUEUED");
    expect(codes(f, fourth)).toEqual(["PREEMPTING"]);
    const event = f.s.outbox.findLast(
      (e) => e.kind === "event" && e.event.job_id === low && e.event.to_status === "PAUSED",
    );
    expect(event?.kind === "event" && JSON.parse(event.event.detail)).toMatchObject({ checkpoint_step: 120 });
  });
});
