/**
 * Priority classes and preemption in the Fleet DO (docs/scheduling.md "Priority classes and preemption").
 * The policy (scheduler/preempt.ts) chooses victims among the candidates these rules offer; these rules
 * make its choice happen along the pause path, so the job states stay the seed's:
 *
 * - a candidate is a RUNNING, resumable job of a preemptible class that ran its class's minimum runtime
 *   and is not exempt (preempted MAX_PREEMPTIONS_WITHOUT_CHECKPOINT times since its last checkpoint);
 * - each victim goes RUNNING → PAUSED (its run stopped: SIGTERM to every rank, its class's grace to write a
 *   checkpoint, then SIGKILL) → QUEUED at once, as the `system:preempt` actor, keeping its job id and queue
 *   place; it waits until its run has released its GPUs and resumes from that checkpoint. A run stopped
 *   this way is PAUSED, never FAILED, and no retry is used;
 * - the preemptor's placement is held (`preemption` meta): no other job is placed on those GPUs, and it
 *   starts there as soon as they are all free (or wherever GPUs free up first: the hold is released). If
 *   its victims are not gone by the longest grace + 60 s, the hold is released and its pending reason
 *   names the victims that stayed, and why;
 * - at most PREEMPTIONS_PER_MINUTE preemptions start per fleet per minute.
 */

import { nowIso } from "../../../contract/ids.js";
import type { Placement } from "../../../contract/launch-request.schema.js";
import type { PendingReason } from "../../../contract/pending-reasons.schema.js";
import type { PriorityClass } from "../../../contract/priority-classes.js";
import {
  checkpointKey,
  PREEMPTED_TOTAL_KEY,
  PREEMPTION_KEY,
  placementKey,
  preemptEventKey,
  preemptedForKey,
  preemptedKey,
} from "../keys.js";
import type { JobRow } from "../rows.js";
import { GONE_RANK_STATES } from "../rows.js";
import { type Decision, preemptingReason, type ReservationInput } from "../scheduler/policy.js";
import { type VictimInput, victimOrder } from "../scheduler/preempt.js";
import type { FleetState, Ledger } from "../state.js";
import { holdTimer } from "../timers.js";
import type { Tx } from "../tx.js";
import { classOf } from "./classes.js";
import { config, setStatus } from "./ledger.js";
import { jobResumable, pauseAtCheckpoint } from "./lifecycle.js";
import { stopRun } from "./runs.js";

/** Preemptions a fleet starts per minute, at most, unless its configuration says otherwise. */
export const PREEMPTIONS_PER_MINUTE = 10;
/** A job preempted this many times is not chosen again until it writes a checkpoint. */
export const MAX_PREEMPTIONS_WITHOUT_CHECKPOINT = 3;
/** How long past its victims' longest grace a preemptor's GPUs stay held for it. */
export const HOLD_SLACK_MS = 60_000;
const MINUTE_MS = 60_000;

/** Why a job was preempted: a higher class needed its GPUs, or a team took back its guarantee. */
export type PreemptionCause = "priority" | "reclaim";

// state --------------------------------------------------------------------------------

/** The GPUs held for one preemptor. */
export interface Hold {
  placement: Placement[];
  /** Each victim and the run that was stopped. */
  victims: Array<{ job: string; run: string }>;
  at: number;
  deadline: number;
}

/** Victims that were not gone when a preemptor's hold ran out, and why. */
interface Stalled {
  victims: Array<{ job: string; why: string }>;
  at: number;
}

interface PreemptionState {
  holds: Record<string, Hold>;
  stalled: Record<string, Stalled>;
  /** When the preemptions of the last minute started (the rate limit). */
  recent: number[];
}

const EMPTY: PreemptionState = { holds: {}, stalled: {}, recent: [] };
let parsedState: { raw: string; state: PreemptionState } | null = null;

/** Read-only: change a copy and `save` it. */
function stateOf(s: FleetState): PreemptionState {
  const raw = s.meta(PREEMPTION_KEY);
  if (!raw) return EMPTY;
  if (parsedState?.raw !== raw) parsedState = { raw, state: JSON.parse(raw) as PreemptionState };
  return parsedState.state;
}

function save(t: Tx, st: PreemptionState): void {
  const empty =
    Object.keys(st.holds).length === 0 && Object.keys(st.stalled).length === 0 && st.recent.length === 0;
  if (empty) t.deleteMeta(PREEMPTION_KEY);
  else t.setMeta(PREEMPTION_KEY, JSON.stringify(st));
}

function copyState(s: FleetState): PreemptionState {
  const st = stateOf(s);
  return { holds: { ...st.holds }, stalled: { ...st.stalled }, recent: [...st.recent] };
}

/** The hold of a job that preempted others and waits for them, or null. */
export function holdOf(s: FleetState, jobId: string): Hold | null {
  return stateOf(s).holds[jobId] ?? null;
}

// a pass -------------------------------------------------------------------------------

/**
 * The holds a scheduling pass keeps free for their preemptors. A hold whose job no longer waits (stopped,
 * paused, gone) is released first.
 */
export function holdsForPass(t: Tx): ReservationInput[] {
  const st = stateOf(t.s);
  const ids = [...Object.keys(st.holds), ...Object.keys(st.stalled)];
  if (ids.length === 0) return [];
  const gone = ids.filter((id) => t.s.job(id)?.status !== "QUEUED");
  if (gone.length > 0) {
    const next = copyState(t.s);
    for (const id of gone) forget(t, next, id);
    save(t, next);
  }
  return Object.entries(stateOf(t.s).holds).map(([jobId, h]) => ({
    jobId,
    placement: h.placement,
    victims: h.victims.map((v) => v.job),
    deadline: h.deadline,
  }));
}

function forget(t: Tx, st: PreemptionState, jobId: string): void {
  if (st.holds[jobId]) t.cancelTimer(holdTimer(jobId));
  delete st.holds[jobId];
  delete st.stalled[jobId];
}

/** The fleet's rate limit: preemptions that may start per minute (its configuration, else the default). */
function perMinute(s: FleetState): number {
  return config(s)?.preemptionsPerMinute ?? PREEMPTIONS_PER_MINUTE;
}

/** Preemptions this pass may start (the fleet's rate limit). */
export function preemptionBudget(t: Tx): number {
  const recent = stateOf(t.s).recent.filter((at) => at > t.now - MINUTE_MS);
  return Math.max(0, perMinute(t.s) - recent.length);
}

/**
 * Running jobs of preemptible classes, in preference order (scheduler/preempt.ts `victimOrder`), each with
 * the time its minimum runtime is over: the order and that time do not depend on the clock, so the list
 * is derived once per change of the running set.
 */
function candidatesOf(s: Ledger): VictimInput[] {
  const out: VictimInput[] = [];
  for (const job of s.jobsByStatus("RUNNING")) {
    const cls = classOf(s, job.priority_class);
    // A job's spec and launch, and a run's placement, never change: read once (fleet/memo.ts `lasting`).
    if (!cls.preemptible || !s.memo.lasting(`resumable:${job.id}`, () => jobResumable(job))) continue;
    const run = job.current_run_id ? s.run(job.current_run_id) : null;
    if (!run || run.started_at === null || run.ended_at !== null) continue;
    const seen = preemptedBefore(s, job.id);
    const ckpt = checkpointOf(s, job.id);
    // Exempt after K preemptions until it writes a checkpoint after the last one: then once per checkpoint.
    if (seen.n >= MAX_PREEMPTIONS_WITHOUT_CHECKPOINT && (ckpt?.at ?? 0) <= seen.at) continue;
    out.push({
      jobId: job.id,
      runId: run.id,
      classValue: cls.value,
      placement: s.memo.lasting(`placement:${run.id}`, () => JSON.parse(run.placement) as Placement[]),
      startedAt: run.started_at,
      checkpointAt: ckpt?.at ?? null,
      borrowed: run.borrowed === 1,
      team: job.team,
      eligibleAt: run.started_at + cls.min_runtime_seconds * 1000,
    });
  }
  return out.sort(victimOrder);
}

/** A job's newest checkpoint as its runner registered it (any run of the job), or null. */
export function checkpointOf(
  s: FleetState,
  jobId: string,
): { run: string; step: number | null; at: number } | null {
  const raw = s.meta(checkpointKey(jobId));
  return raw ? (JSON.parse(raw) as { run: string; step: number | null; at: number }) : null;
}

/**
 * A run's runner registered a stored checkpoint (the Worker tells the fleet after the Run DO has it): the
 * job's newest, which orders victims (the most recent checkpoint is the cheapest to interrupt) and ends an
 * exemption. A run this fleet does not know, or an older checkpoint, changes nothing.
 */
export function checkpointed(t: Tx, runId: string, step: number | null): void {
  const run = t.s.run(runId);
  if (!run) return;
  const prev = checkpointOf(t.s, run.job_id);
  if (prev && prev.at > t.now) return;
  const seen = preemptedBefore(t.s, run.job_id);
  const wasExempt = seen.n >= MAX_PREEMPTIONS_WITHOUT_CHECKPOINT && (prev?.at ?? 0) <= seen.at;
  t.setMeta(checkpointKey(run.job_id), JSON.stringify({ run: runId, step, at: t.now }));
  // Its exemption ends: a job waiting for its GPUs may preempt it now.
  if (wasExempt) t.schedule();
  // Its team's budget is spent and the team pauses at checkpoints: this is the one.
  pauseAtCheckpoint(t, runId);
}

function preemptedBefore(s: FleetState, jobId: string): { n: number; at: number } {
  const raw = s.meta(preemptedKey(jobId));
  return raw ? (JSON.parse(raw) as { n: number; at: number }) : { n: 0, at: 0 };
}

/**
 * The candidates preemption chooses from, in preference order (those still in their minimum runtime
 * too). The list is derived again only when a job starts running (fleet/memo.ts): one that left RUNNING
 * since is skipped as it is met (`stillRunning`), so a preemption does not cost a new list.
 */
export function victimCandidates(t: Tx): readonly VictimInput[] {
  return t.s.memo.get("preemptible", () => candidatesOf(t.s));
}

/** A listed candidate is still RUNNING in the run it was listed with. */
export function stillRunning(s: FleetState, v: VictimInput): boolean {
  const job = s.job(v.jobId);
  return job?.status === "RUNNING" && job.current_run_id === (v.runId ?? job.current_run_id);
}

/**
 * Makes a pass's preemptions happen and settles its holds: a dispatched preemptor's hold is done, a
 * released one goes, each new preemption stops its victims and holds its placement. Answers the pending
 * reasons that change (a new preemptor's, with its deadline; a stalled one's).
 */
export function applyPreemptions(t: Tx, decision: Decision): void {
  const before = stateOf(t.s);
  const touched =
    decision.preempt.length > 0 ||
    decision.released.length > 0 ||
    decision.dispatch.some((d) => before.holds[d.jobId] || before.stalled[d.jobId]);
  if (!touched) return;
  const st = copyState(t.s);
  for (const d of decision.dispatch) forget(t, st, d.jobId);
  for (const id of decision.released) forget(t, st, id);
  st.recent = st.recent.filter((at) => at > t.now - MINUTE_MS);
  const stops: Array<() => void> = [];
  for (const plan of decision.preempt) {
    const preemptor = t.s.job(plan.jobId)!;
    const pcls = classOf(t.s, preemptor.priority_class);
    let grace = 0;
    const victims: Hold["victims"] = [];
    for (const id of plan.victims) {
      const job = t.s.job(id);
      const run = job?.current_run_id ? t.s.run(job.current_run_id) : null;
      if (job?.status !== "RUNNING" || !run) continue;
      const vcls = classOf(t.s, job.priority_class);
      grace = Math.max(grace, vcls.grace_seconds);
      victims.push({ job: id, run: run.id });
      const cause = plan.reclaimed.includes(id) ? "reclaim" : "priority";
      stops.push(() => stopVictim(t, job, run.id, preemptor, pcls, vcls, cause));
    }
    const deadline = t.now + grace * 1000 + HOLD_SLACK_MS;
    // A job placed over several fleets preempts on one of them at most (rules/reroute.ts).
    if (t.s.meta(placementKey(plan.jobId)) !== null) t.setMeta(preemptedForKey(plan.jobId), "1");
    st.holds[plan.jobId] = { placement: plan.placement, victims, at: t.now, deadline };
    delete st.stalled[plan.jobId];
    st.recent.push(t.now);
    t.setTimer(holdTimer(plan.jobId), deadline);
    decision.pending[plan.jobId] = [
      preemptingReason(
        victims.map((v) => v.job),
        deadline,
      ),
    ];
  }
  // The holds are written before any victim stops: a stop that frees GPUs at once runs a pass, which
  // must already keep them for their preemptor.
  save(t, st);
  for (const stop of stops) stop();
}

/** One victim: notice (its run stopped with its class's grace), then queued again in its place. */
function stopVictim(
  t: Tx,
  listed: JobRow,
  runId: string,
  preemptor: JobRow,
  pcls: PriorityClass,
  vcls: PriorityClass,
  cause: PreemptionCause,
): void {
  const job = t.s.job(listed.id);
  const run = t.s.run(runId);
  if (job?.status !== "RUNNING" || !run) return;
  const seen = preemptedBefore(t.s, job.id);
  t.setMeta(preemptedKey(job.id), JSON.stringify({ n: seen.n + 1, at: t.now }));
  const total = JSON.parse(t.s.meta(PREEMPTED_TOTAL_KEY) ?? "{}") as Record<string, number>;
  t.setMeta(PREEMPTED_TOTAL_KEY, JSON.stringify({ ...total, [cause]: (total[cause] ?? 0) + 1 }));
  const deadline = nowIso(t.now + vcls.grace_seconds * 1000);
  const reason =
    cause === "reclaim"
      ? `preempted by ${preemptor.id}: team ${preemptor.team} takes back its guaranteed GPUs, which this job borrowed`
      : `preempted by ${preemptor.id} (priority class ${pcls.name}, value ${pcls.value}, above ${vcls.name}, ${vcls.value})`;
  const ckpt = checkpointOf(t.s, job.id);
  const paused = setStatus(t, job, "PAUSED", "system:preempt", {
    reason,
    preempted: true,
    // Its newest stored checkpoint when the notice came (it writes another on SIGTERM, if it can).
    checkpoint_step: ckpt?.step ?? null,
    cause,
    preempted_by: preemptor.id,
    ...(cause === "reclaim" ? { team: job.team, reclaiming_team: preemptor.team } : {}),
    preemptor_class: pcls.name,
    class: vcls.name,
    grace_seconds: vcls.grace_seconds,
    deadline,
    run_id: run.id,
  });
  // Its webhook goes out when the run has released its GPUs, with what it lost (ledger.ts).
  t.setMeta(preemptEventKey(run.id), JSON.stringify(paused));
  stopRun(t, run, "PAUSED", reason, vcls.grace_seconds, preemptor.id);
  const now = t.s.job(job.id);
  if (now?.status === "PAUSED") {
    // Queued again, waiting for the run it was stopped in (the pass running now listed the queue before).
    now.pending_reasons = JSON.stringify([previousRunStopping(run.id)]);
    setStatus(t, now, "QUEUED", "system:preempt", {
      reason: "preempted: it waits in its place and resumes from the checkpoint it writes now",
    });
  }
}

/** Why a job queued again waits: its last run is still stopping (and writing the checkpoint it resumes from). */
export function previousRunStopping(runId: string): PendingReason {
  return {
    code: "PREVIOUS_RUN_STOPPING",
    message: `waiting for run ${runId} to stop and checkpoint on its node; the next run continues from it`,
    details: { run_id: runId },
  };
}

/** The GPUs held for a preemptor ran out of time: released, and its pending reason says who stayed. */
export function holdExpired(t: Tx, jobId: string): void {
  const hold = stateOf(t.s).holds[jobId];
  if (!hold) return;
  const st = copyState(t.s);
  delete st.holds[jobId];
  const stayed = hold.victims.flatMap((v) => {
    const run = t.s.run(v.run);
    return run && run.ended_at === null ? [{ job: v.job, why: whyStillThere(t.s, v.run) }] : [];
  });
  if (stayed.length > 0) st.stalled[jobId] = { victims: stayed, at: t.now };
  save(t, st);
  t.schedule();
}

/** Why a stopped run still holds its GPUs, in a person's words. */
function whyStillThere(s: FleetState, runId: string): string {
  const left = s.ranks(runId).filter((r) => !GONE_RANK_STATES.has(r.state));
  const parts = left.map((r) => {
    const node = s.node(r.node_id);
    const name = node?.name ?? r.node_id;
    if (node?.lost_since != null) return `rank ${r.rank}: the agent of ${name} is lost`;
    return `rank ${r.rank} on ${name} has not confirmed its stop`;
  });
  return parts.join("; ") || "its GPUs are not released yet";
}

/** A job whose hold ran out says so first, while it waits. */
export function withStalled(s: FleetState, jobId: string, reasons: PendingReason[]): PendingReason[] {
  const stalled = stateOf(s).stalled[jobId];
  if (!stalled || reasons.some((r) => r.code === "PREEMPTING")) return reasons;
  return [
    {
      code: "PREEMPTION_STALLED",
      message: `the jobs it preempted did not leave in time, so the GPUs held for it were released: ${stalled.victims.map((v) => `${v.job} (${v.why})`).join("; ")}`,
      details: { victims: stalled.victims.map((v) => v.job).join(","), since: nowIso(stalled.at) },
    },
    ...reasons,
  ];
}

/**
 * When preemption could next change a waiting job's fate by itself: a candidate's minimum runtime ends,
 * or the rate limit lets another preemption start. Null: no job waits that a preemption could help.
 */
export function preemptionWake(
  t: Tx,
  decision: Decision,
  classValueOf: (jobId: string) => number,
): number | null {
  let top: number | null = null;
  for (const [id, reasons] of Object.entries(decision.pending)) {
    if (reasons.length === 0 || !reasons.every((r) => r.code === "CAPACITY")) continue;
    const v = classValueOf(id);
    if (top === null || v > top) top = v;
  }
  if (top === null) return null;
  const st = stateOf(t.s);
  const recent = st.recent.filter((at) => at > t.now - MINUTE_MS);
  const limit = perMinute(t.s);
  let wake: number | null = limit > 0 && recent.length >= limit ? Math.min(...recent) + MINUTE_MS : null;
  for (const c of victimCandidates(t)) {
    const at = c.eligibleAt ?? 0;
    if (c.classValue < top && at > t.now && (wake === null || at < wake)) wake = at;
  }
  return wake;
}
