/**
 * Re-routing a waiting job between fleets (rules/reroute.ts), in memory against the Fleet DO's rules: the
 * handoff's three steps and what each fleet does when an answer is lost, repeated, or a refusal.
 */

import { describe, expect, it } from "vitest";
import { CLUSTER_LIMIT_SLACK_MS } from "../../durable-objects/fleet/rules/runs.js";
import { DIAGNOSIS_SETTLE_MS } from "../../durable-objects/fleet/timers.js";
import { ADA, Fleet } from "./fleet-harness.js";
import { FleetNet } from "./fleet-reroute-net.js";

const FLEETS = ["a", "b"];

/** Fleet a full (its 8 GPUs busy) with job `waiting` queued there, placed over a and b; b with 8 free. */
function scene() {
  const net = new FleetNet(FLEETS);
  const a = net.fleet("a");
  const b = net.fleet("b");
  a.agent("a-node", 8);
  b.agent("b-node", 8);
  a.submit({ jobId: "job_full", gpus: 8 });
  const waiting = a.submit({ jobId: "job_wait", gpus: 8, fleets: FLEETS });
  expect(a.job(waiting).status).toBe("QUEUED");
  net.publish("a");
  net.publish("b");
  return { net, a, b, waiting };
}

describe("re-routing a waiting job", () => {
  it("moves it to the fleet that starts it now: there it starts, here it is gone, its history goes on", () => {
    const { net, a, b, waiting } = scene();
    const before = a.job(waiting);
    const [offer] = net.plan("a");
    expect(offer).toMatchObject({ to: { name: "b" }, why: "starts_sooner", mustStart: true });
    // Frozen at a until b answers: no action on it, and it is in no pass of a's.
    expect(a.act(waiting, "stop")).toMatchObject({ ok: false, code: "CONFLICT" });
    expect(net.deliver(0)).toEqual({ kind: "accepted" });
    expect(b.job(waiting).status).toBe("SUBMITTED");
    expect(b.job(waiting).version).toBeGreaterThan(before.version);
    net.answer(0);
    expect(net.holders(waiting)).toEqual([{ name: "b", frozen: false, status: "SUBMITTED" }]);
    expect(a.s.meta(`moved_to:${waiting}`)).toBe("flt_b");
    // Its events continue at b: one `rerouted` entry after a's, saying from where, to where and why.
    const events = b.s.outbox.flatMap((e) =>
      e.kind === "event" && e.event.job_id === waiting ? [e.event] : [],
    );
    const rerouted = events.find((e) => e.edge === "rerouted")!;
    expect(rerouted.seq).toBe(before.event_seq + 1);
    expect(JSON.parse(rerouted.detail)).toMatchObject({ from: "a", to: "b", why: "starts_sooner" });
    expect(b.transitions(waiting)).toEqual(["QUEUED→QUEUED", "QUEUED→SUBMITTED"]);
    // A retry of its admission at a must not queue it there again.
    expect(a.trySubmit({ jobId: waiting, gpus: 8, fleets: FLEETS })).toMatchObject({
      ok: false,
      code: "ALREADY_EXISTS",
    });
    a.checkInvariants();
    b.checkInvariants();
  });

  it("a repeated offer (its answer was lost) is answered the same, and the job is queued once", () => {
    const { net, a, b, waiting } = scene();
    net.plan("a");
    net.deliver(0);
    net.lose(0);
    net.reoffer("a");
    expect(net.deliver(0)).toEqual({ kind: "accepted" });
    net.answer(0);
    expect(net.holders(waiting).map((h) => h.name)).toEqual(["b"]);
    expect([...b.s.runRows.values()].filter((r) => r.job_id === waiting)).toHaveLength(1);
    a.checkInvariants();
    b.checkInvariants();
  });

  it("a fleet that would not start it now refuses, and the job waits where it was, unfrozen", () => {
    const { net, a, b, waiting } = scene();
    b.submit({ jobId: "job_b_full", gpus: 8 }); // b fills after it published
    net.plan("a");
    const answer = net.deliver(0);
    expect(answer).toMatchObject({ kind: "refused" });
    expect(answer?.kind === "refused" && answer.reason).toMatch(/would not start here now/);
    net.answer(0);
    expect(net.holders(waiting)).toEqual([{ name: "a", frozen: false, status: "QUEUED" }]);
    expect(a.act(waiting, "pause", ADA)).toMatchObject({ ok: true });
    a.checkInvariants();
    b.checkInvariants();
  });

  it("a late copy of a refused offer is refused again, even once the receiver has room", () => {
    const { net, b, waiting } = scene();
    b.submit({ jobId: "job_b_full", gpus: 8 });
    const [offer] = net.plan("a");
    net.deliver(0);
    b.act("job_b_full", "stop");
    b.report("job_b_full", "stopped", { exitCode: 143 });
    expect(b.decide({ type: "accept_move", offer: offer! }).result).toMatchObject({ kind: "refused" });
    net.answer(0);
    expect(net.holders(waiting).map((h) => h.name)).toEqual(["a"]);
  });

  it("a drain that begins during a handoff holds the job if it stays", () => {
    const { net, a, b, waiting } = scene();
    b.submit({ jobId: "job_b_full", gpus: 8 });
    net.plan("a");
    a.decide({ type: "drain", note: "cooling" });
    expect(a.job(waiting).status).toBe("QUEUED");
    net.deliver(0);
    net.answer(0);
    expect(a.job(waiting).status).toBe("PAUSED");
  });

  it("when this fleet's site is lost, the job goes where it can wait, even if it must wait there", () => {
    const { net, b, waiting } = scene();
    b.submit({ jobId: "job_b_full", gpus: 8 });
    net.publish("b");
    expect(net.plan("a")).toEqual([]);
    const [offer] = net.plan("a", true);
    expect(offer).toMatchObject({ to: { name: "b" }, why: "site_lost", mustStart: false });
    expect(net.deliver(0)).toEqual({ kind: "accepted" });
    net.answer(0);
    expect(net.holders(waiting)).toEqual([{ name: "b", frozen: false, status: "QUEUED" }]);
    b.checkInvariants();
  });

  it("a job that named one fleet, or has run, never moves", () => {
    const net = new FleetNet(FLEETS);
    const a = net.fleet("a");
    net.fleet("b").agent("b-node", 8);
    a.agent("a-node", 8);
    a.submit({ jobId: "job_full", gpus: 8 });
    a.submit({ jobId: "job_one", gpus: 8 });
    net.publish("b");
    expect(net.plan("a")).toEqual([]);
  });
});

describe("a placement timeout", () => {
  it("fails a job still waiting at its end with NO_ELIGIBLE_FLEET and every candidate's reason", () => {
    const { net, a, waiting } = (() => {
      const net = new FleetNet(FLEETS);
      const a = net.fleet("a");
      a.agent("a-node", 8);
      a.submit({ jobId: "job_full", gpus: 8 });
      const waiting = a.submit({ jobId: "job_wait", gpus: 8, fleets: FLEETS, placementTimeoutSeconds: 600 });
      return { net, a, waiting };
    })();
    a.advance(599_000);
    expect(a.job(waiting).status).toBe("QUEUED");
    a.decide({
      type: "placement_timeout",
      jobId: waiting,
      others: [
        { fleet: "b", eligible: false, reason: "it has no h200 nodes", estimated_start: null, chosen: false },
      ],
    });
    const failed = a.job(waiting);
    expect(failed.status).toBe("FAILED");
    const event = a.s.outbox.findLast((e) => e.kind === "event" && e.event.job_id === waiting);
    expect(event?.kind === "event" && event.event.edge).toBe("placement_timeout");
    const detail = event?.kind === "event" ? JSON.parse(event.event.detail) : null;
    expect(detail.code).toBe("NO_ELIGIBLE_FLEET");
    expect(detail.candidates.map((c: { fleet: string }) => c.fleet)).toEqual(["a", "b"]);
    expect(detail.reason).toMatch(
      /^no fleet started it within its placement timeout \(600 s\): a: held it: .*; b: it has no h200 nodes$/,
    );
    // Nothing left to move, and its GPUs were never held.
    expect(net.plan("a")).toEqual([]);
    a.checkInvariants();
  });

  it("fires by itself (the rule's timer), and never for a job that started", () => {
    const net = new FleetNet(FLEETS);
    const a = net.fleet("a");
    a.agent("a-node", 8);
    const runs = a.submit({ jobId: "job_runs", gpus: 8, placementTimeoutSeconds: 60 });
    const waits = a.submit({ jobId: "job_waits", gpus: 8, placementTimeoutSeconds: 60 });
    a.advance(61_000);
    expect(a.job(runs).status).toBe("SUBMITTED");
    expect(a.job(waits).status).toBe("FAILED");
    expect(a.transitions(waits)).toEqual(["·→QUEUED", "QUEUED→FAILED"]);
    a.checkInvariants();
  });
});

describe("a job whose site is lost while it runs", () => {
  it("moves only once its run is fenced, and takes its runs and retries along (it resumes from them)", () => {
    const net = new FleetNet(FLEETS);
    const a = net.fleet("a");
    const b = net.fleet("b");
    const nodeA = a.agent("a-node", 8);
    b.agent("b-node", 8);
    const job = a.submit({ jobId: "job_run", gpus: 8, fleets: FLEETS, maxRetries: 3 });
    a.report(job, "started");
    const first = a.currentRun(job).id;
    a.decide({ type: "node_lost", nodeId: nodeA });
    net.publish("b");
    // Running on a lost node: not movable until the grace ends and the run is fenced.
    expect(net.plan("a", true)).toEqual([]);
    a.advance(300_000);
    expect(a.s.run(first)!.ended_at).not.toBeNull();
    a.advance(DIAGNOSIS_SETTLE_MS + 30_000);
    expect(a.job(job).status).toBe("QUEUED");
    const [offer] = net.plan("a", true);
    expect(offer?.runs).toEqual([{ id: first, attempt: 1 }]);
    expect(offer?.retries).toBe(1);
    expect(net.deliver(0)).toEqual({ kind: "accepted" });
    net.answer(0);
    // At b it starts as its second attempt; b knows the first run (its agents may fetch its checkpoint).
    const second = b.currentRun(job);
    expect(second.attempt).toBe(2);
    expect(b.s.meta(`prior_run:${first}`)).toBe(job);
    expect(b.s.meta(`retries:${job}`)).toBe("1");
    a.checkInvariants();
    b.checkInvariants();
  });
});

describe("no collateral damage", () => {
  it("a job placed over several fleets preempts only after its wait, and only where it is queued", () => {
    const net = new FleetNet(FLEETS);
    const a = net.fleet("a");
    const b = net.fleet("b");
    a.agent("a-node", 8);
    b.agent("b-node", 8);
    const victimA = a.submit({ jobId: "job_low_a", gpus: 8, priorityClass: "low", python: true });
    const victimB = b.submit({ jobId: "job_low_b", gpus: 8, priorityClass: "low", python: true });
    a.report(victimA, "started");
    b.report(victimB, "started");
    a.advance(600_000); // past the victims' minimum runtime
    b.advance(600_000);
    const job = a.submit({ jobId: "job_crit", gpus: 8, priorityClass: "critical", fleets: FLEETS });
    // It waits (60 s by default) for a fleet that starts it without preemption: nobody is displaced.
    expect(a.job(victimA).status).toBe("RUNNING");
    expect(JSON.parse(a.job(job).pending_reasons)[0].code).toBe("CAPACITY");
    a.advance(59_000);
    expect(a.job(victimA).status).toBe("RUNNING");
    a.advance(1_000);
    // Its wait is over: it preempts, on this fleet only.
    expect(a.transitions(victimA)).toContain("RUNNING→PAUSED");
    expect(JSON.parse(a.job(job).pending_reasons)[0].code).toBe("PREEMPTING");
    expect(b.job(victimB).status).toBe("RUNNING");
    expect(net.plan("a")).toEqual([]);
    a.checkInvariants();
  });

  it("a wait of 0 preempts at once, as a job that names one fleet does", () => {
    const net = new FleetNet(FLEETS);
    const a = net.fleet("a");
    a.agent("a-node", 8);
    const victim = a.submit({ jobId: "job_low", gpus: 8, priorityClass: "low", python: true });
    a.report(victim, "started");
    a.advance(600_000);
    a.submit({
      jobId: "job_crit",
      gpus: 8,
      priorityClass: "critical",
      fleets: FLEETS,
      preemptionWaitSeconds: 0,
    });
    expect(a.transitions(victim)).toContain("RUNNING→PAUSED");
  });
});

describe("preemption on one fleet at most", () => {
  it("a job that preempted on one fleet and then moved never preempts where it moved", () => {
    const net = new FleetNet(FLEETS);
    const a = net.fleet("a");
    const b = net.fleet("b");
    a.agent("a-node", 8);
    b.agent("b-node", 8);
    const lowA = a.submit({ jobId: "job_low_a", gpus: 8, priorityClass: "low", python: true });
    const lowB = b.submit({ jobId: "job_low_b", gpus: 8, priorityClass: "low", python: true });
    a.report(lowA, "started");
    b.report(lowB, "started");
    const job = a.submit({
      jobId: "job_crit",
      gpus: 8,
      priorityClass: "critical",
      fleets: FLEETS,
      preemptionWaitSeconds: 0,
    });
    a.advance(600_000);
    expect(a.transitions(lowA)).toContain("RUNNING→PAUSED");
    // Its victim never leaves: the hold stalls and is released, and the job waits again at a.
    a.advance(600_000);
    expect(JSON.parse(a.job(job).pending_reasons).map((r: { code: string }) => r.code)).not.toContain(
      "PREEMPTING",
    );
    // Site lost: it moves to b, where it waits, and never displaces b's low job.
    net.publish("b");
    net.plan("a", true);
    net.deliver(0);
    net.answer(0);
    b.advance(600_000);
    expect(b.job(job).status).toBe("QUEUED");
    expect(b.transitions(lowB)).not.toContain("RUNNING→PAUSED");
    b.checkInvariants();
  });
});

describe("max_runtime_seconds, on every runtime", () => {
  it("stops a run at its limit (FAILED, code TIMEOUT, not retried): what placement's estimates count on", () => {
    const net = new FleetNet(FLEETS);
    const a = net.fleet("a");
    a.agent("a-node", 8);
    const job = a.submit({ jobId: "job_limited", gpus: 8, maxRuntimeSeconds: 60, maxRetries: 3 });
    a.advance(30_000);
    a.report(job, "started"); // its limit counts from here
    const run = a.currentRun(job).id;
    a.advance(59_000);
    expect(a.job(job).status).toBe("RUNNING");
    a.advance(1_000);
    expect(a.job(job).status).toBe("FAILED");
    const failed = a.s.outbox.findLast((e) => e.kind === "event" && e.event.job_id === job);
    expect(failed?.kind === "event" && JSON.parse(failed.event.detail)).toMatchObject({
      code: "TIMEOUT",
      reason: "it reached its max_runtime_seconds (60 s)",
    });
    // Its ranks are told to stop; the GPUs go when they confirm.
    expect([...a.s.commandRows.values()].some((c) => c.run_id === run && c.kind === "stop")).toBe(true);
    a.report(job, "stopped", { exitCode: 143 });
    a.advance(600_000);
    expect(a.job(job).status).toBe("FAILED");
    expect(a.s.allocations()).toEqual([]);
    a.checkInvariants();
  });
});

describe("the re-routing check's timer", () => {
  it("is armed where a multi-fleet job waits: queued, queued again, or moved in", () => {
    const { net, a, b, waiting } = scene();
    expect(a.s.timerRows.has("reroute")).toBe(true);
    b.submit({ jobId: "job_b_full", gpus: 8 });
    net.plan("a", true);
    net.deliver(0);
    net.answer(0);
    expect(b.job(waiting).status).toBe("QUEUED");
    expect(b.s.timerRows.has("reroute")).toBe(true);
  });
});

describe("max_runtime_seconds on a cluster fleet", () => {
  it("is the cluster's to enforce first: the control plane stops the run only 2 minutes past the limit", () => {
    const f = new Fleet({ id: "flt_hpc", name: "hpc", kind: "slurm" });
    f.clusterAgent("login", [{ name: "n1", gpus: 8 }]);
    const job = f.submit({ jobId: "job_hpc", gpus: 8, maxRuntimeSeconds: 60 });
    f.report(job, "started");
    f.advance(60_000 + CLUSTER_LIMIT_SLACK_MS - 1);
    expect(f.job(job).status).toBe("RUNNING");
    f.advance(1);
    expect(f.job(job).status).toBe("FAILED");
  });
});
