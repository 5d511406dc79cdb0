/**
 * A queued job placed over several fleets moves to another of its fleets while it waits (docs/scheduling.md
 * "Re-routing"), by a handoff in three steps, each one decision of one fleet:
 *
 *   1. `handoffOut` (the holding fleet): the job is frozen here — never placed, drained or acted on — and
 *      the offer is built: the job's row, its user's quota, the fleets it may run on;
 *   2. `acceptMove` (the receiving fleet): it queues the job under the same id, or refuses (it is draining,
 *      or, for a job it must start at once, it would not). A repeated offer of a job it took answers
 *      "accepted" again; a late copy of an offer it refused is refused again;
 *   3. `handoffDone` (the holding fleet): accepted, the job is forgotten here (a tombstone says where it
 *      went); refused, it is unfrozen and waits here as before.
 *
 * The holder freezes before it offers and forgets only after an acceptance, so the job is never placeable
 * in two fleets: at any moment exactly one fleet may start it. An offer whose answer was lost is offered
 * again (step 2 is idempotent) until one comes.
 */
import type { Quota } from "../../../contract/api.schema.js";
import { DEFAULT_QUOTA } from "../../../contract/api.schema.js";
import type { JobSpec } from "../../../contract/jobspec.schema.js";
import type { PlacementCandidate } from "../../../contract/placement.js";
import { quotaFromJson } from "../../../contract/quota.js";
import {
  ANY_MOVED,
  HANDOFFS_KEY,
  handoffKey,
  movedToKey,
  moveKey,
  PLACEMENT_PREFIX,
  placementKey,
  preemptedForKey,
  priorRunKey,
  priorRunsKey,
  REROUTED_IN_KEY,
  retriesKey,
} from "../keys.js";
import type { JobRow } from "../rows.js";
import type { FleetState } from "../state.js";
import { placementTimer, preemptWaitTimer, REROUTE_CHECK_MS, REROUTE_TIMER } from "../timers.js";
import type { Tx } from "../tx.js";
import { type QueueCheck, queueRefusal, teamOfJob } from "./admission.js";
import {
  armPlacementTimeout,
  armPreemptWait,
  type Handoff,
  handoffJobs,
  handoffOf,
  neverPreempt,
  type RerouteReason,
} from "./handoff-state.js";
import { config, emit, emitJob, putJob, setStatus } from "./ledger.js";
import { move } from "./lifecycle.js";
import { wouldWait } from "./schedule.js";

/** What the holding fleet offers the receiving one. */
export interface MoveOffer {
  moveId: string;
  from: { id: string; name: string };
  to: { id: string; name: string };
  why: RerouteReason;
  mustStart: boolean;
  basis: string;
  /** The job's row as the holder has it (frozen: unchanged until the answer). */
  job: JobRow;
  /** The job's user's quota as the holder has it (null: the default). */
  quota: string | null;
  /** The fleets the job may run on (meta `placement:<job>`). */
  fleets: string[];
  /** Its runs so far, in every fleet it ran in (all over): its next run resumes from their checkpoints. */
  runs: PriorRun[];
  /** The automatic retries it used (its budget goes with it). */
  retries: number;
  /** It preempted others in a fleet before: it never preempts again, anywhere. */
  preempted: boolean;
}

export interface PriorRun {
  id: string;
  attempt: number;
}

/** The runs job `jobId` had before it moved here (none if it never moved). */
export function priorRuns(s: FleetState, jobId: string): PriorRun[] {
  const raw = s.meta(priorRunsKey(jobId));
  return raw ? (JSON.parse(raw) as PriorRun[]) : [];
}

export type MoveAnswer = { kind: "accepted" } | { kind: "refused"; reason: string };

/** How one Fleet DO offers another a job (FleetDO.acceptMove). */
export interface FleetMoves {
  acceptMove(offer: MoveOffer): Promise<MoveAnswer>;
}

/** The fleets a queued job may move between (null: it named one fleet, or is not placed over several). */
export function placementFleets(s: FleetState, jobId: string): string[] | null {
  const raw = s.meta(placementKey(jobId));
  return raw ? (JSON.parse(raw) as string[]) : null;
}

/**
 * The jobs that may move: queued, confirmed, placed over several fleets, not already moving, not holding
 * GPUs for a preemption of theirs, and with no run that may still hold GPUs here (a run on a lost node is
 * fenced first: it fails when its grace ends, and its job, queued again to retry, may then move and
 * resume elsewhere from its checkpoint).
 */
export function movableJobs(s: FleetState): Array<{ job: JobRow; fleets: string[] }> {
  const leaving = handoffJobs(s);
  const out: Array<{ job: JobRow; fleets: string[] }> = [];
  for (const { id, value } of s.queuedWithMeta(PLACEMENT_PREFIX)) {
    const fleets = JSON.parse(value) as string[];
    if (fleets.length < 2 || leaving.has(id)) continue;
    const job = s.job(id)!;
    if (job.unconfirmed || job.pending_reasons.includes('"PREEMPTING"')) continue;
    if (job.current_run_id && s.run(job.current_run_id)?.ended_at === null) continue;
    out.push({ job, fleets });
  }
  return out;
}

/** Step 1: freezes `jobId` here and builds the offer, or null when it may not move (any more). */
export function handoffOut(t: Tx, jobId: string, h: Omit<Handoff, "at">): MoveOffer | null {
  const cfg = config(t.s);
  const job = t.s.job(jobId);
  if (!cfg || !job) return null;
  if (!movableJobs(t.s).some((m) => m.job.id === jobId)) return null;
  const handoff: Handoff = { ...h, at: t.now };
  t.setMeta(handoffKey(jobId), JSON.stringify(handoff));
  t.setMeta(HANDOFFS_KEY, JSON.stringify([...handoffJobs(t.s), jobId]));
  return offerOf(t.s, job, handoff);
}

/** The offer of a job frozen here (a handoff whose answer was lost is offered again). */
export function pendingOffers(s: FleetState): MoveOffer[] {
  return [...handoffJobs(s)].flatMap((id) => {
    const job = s.job(id);
    const h = handoffOf(s, id);
    return job && h ? [offerOf(s, job, h)] : [];
  });
}

function offerOf(s: FleetState, job: JobRow, h: Handoff): MoveOffer {
  const cfg = config(s)!;
  return {
    moveId: h.move_id,
    from: { id: cfg.id, name: cfg.name },
    to: h.to,
    why: h.why,
    mustStart: h.must_start,
    basis: h.basis,
    job: { ...job },
    quota: s.quotaBody(job.user_id),
    fleets: placementFleets(s, job.id) ?? [],
    runs: [...priorRuns(s, job.id), ...s.runsOfJob(job.id).map((r) => ({ id: r.id, attempt: r.attempt }))],
    retries: Number(s.meta(retriesKey(job.id)) ?? "0"),
    preempted: s.meta(preemptedForKey(job.id)) !== null,
  };
}

/** Step 2: the receiving fleet queues the offered job, or says why not. */
export function acceptMove(t: Tx, m: MoveOffer): MoveAnswer {
  const cfg = config(t.s);
  if (!cfg) return { kind: "refused", reason: "this fleet is not configured" };
  // A repeat of an offer answered before (its answer was lost, or this is a late copy): the same answer,
  // whatever happened since (the job may have started here, or moved on).
  const before = t.s.meta(moveKey(m.moveId));
  if (before !== null) return JSON.parse(before) as MoveAnswer;
  const answer = (a: MoveAnswer): MoveAnswer => {
    t.setMeta(moveKey(m.moveId), JSON.stringify(a));
    return a;
  };
  const refuse = (reason: string) => answer({ kind: "refused", reason });
  // Here already, by another way: it is leaving this fleet for the offerer (both handoffs crossed), or
  // this fleet holds it still. Either way it is not this offer's to place here.
  if (t.s.job(m.job.id))
    return refuse("the job is held here already (a handoff of it from here is under way)");
  const spec = JSON.parse(m.job.spec) as JobSpec;
  const quota: Quota = m.quota ? quotaFromJson(m.quota) : DEFAULT_QUOTA;
  const input = checkOf(m, spec, quota);
  const refused = queueRefusal(t, cfg, input);
  if (refused && !refused.ok) return refuse(`${refused.message} (${refused.code})`);
  if (m.quota !== null && t.s.quotaBody(m.job.user_id) !== m.quota)
    t.put({ kind: "quota", user_id: m.job.user_id, body: m.quota });
  const row: JobRow = {
    ...m.job,
    // Its earlier runs are the other fleets' (prior runs, below): none of them is current here.
    current_run_id: null,
    queue_seq: t.counter("queue_seq"),
    team: teamOfJob(t, input),
    pending_reasons: "[]",
    // Newer than anything the holder wrote of it: D1's row and the user's object follow this fleet.
    version: m.job.version + 1,
    updated_at: t.now,
    unconfirmed: 0,
  };
  if (m.mustStart) {
    // Decided as a full pass would, with what waits here ahead of it.
    if (!t.steady) t.schedule();
    const waits = wouldWait(t, row);
    if (waits) {
      const why = waits.map((r) => r.message).join("; ") || "it would wait here";
      return refuse(`it would not start here now: ${why}`);
    }
  }
  putJob(t, row);
  t.queuedSpecs.set(row.id, spec);
  t.setMeta(placementKey(row.id), JSON.stringify(m.fleets));
  // Waiting here (it may), it may move on again: this fleet's check looks at it too.
  t.setTimer(REROUTE_TIMER, t.now + REROUTE_CHECK_MS);
  t.deleteMeta(movedToKey(row.id));
  if (m.runs.length > 0) {
    t.setMeta(priorRunsKey(row.id), JSON.stringify(m.runs));
    for (const r of m.runs) t.setMeta(priorRunKey(r.id), row.id);
  }
  if (m.retries > 0) t.setMeta(retriesKey(row.id), String(m.retries));
  // It preempted on another fleet: never here (at most one fleet is disturbed for it).
  if (m.preempted) {
    t.setMeta(preemptedForKey(row.id), "1");
    neverPreempt(t, row.id);
  }
  // Its history continues here: the same event sequence, one `rerouted` entry more (no webhook: its
  // status did not change).
  row.event_seq += 1;
  putJob(t, row);
  emit(t, {
    kind: "event",
    event: {
      job_id: row.id,
      seq: row.event_seq,
      ts: new Date(t.now).toISOString(),
      from_status: "QUEUED",
      to_status: "QUEUED",
      edge: "rerouted",
      actor: "system:placement",
      detail: JSON.stringify({ from: m.from.name, to: cfg.name, why: m.why, basis: m.basis }),
    },
  });
  const moved = JSON.parse(t.s.meta(REROUTED_IN_KEY) ?? "{}") as Record<string, number>;
  t.setMeta(REROUTED_IN_KEY, JSON.stringify({ ...moved, [m.why]: (moved[m.why] ?? 0) + 1 }));
  armPlacementTimeout(t, row, spec);
  if (!m.preempted) armPreemptWait(t, row, spec);
  t.scheduleSubmitted(t.s.job(row.id)!);
  if (!t.emittedJobs.has(row.id)) emitJob(t, t.s.job(row.id)!);
  return answer({ kind: "accepted" });
}

function checkOf(m: MoveOffer, spec: JobSpec, quota: Quota): QueueCheck {
  const launch = JSON.parse(m.job.launch ?? "null") as { image?: string | null } | null;
  return {
    jobId: m.job.id,
    userId: m.job.user_id,
    spec,
    quota,
    launch: { image: launch?.image ?? null },
    // Its image passed every candidate's allowlist when the Worker placed it.
    imageFromCatalog: true,
  };
}

/** Step 3: the receiving fleet answered the offer of `moveId`. */
export function handoffDone(t: Tx, jobId: string, moveId: string, answer: MoveAnswer): void {
  const h = handoffOf(t.s, jobId);
  if (!h || h.move_id !== moveId) return;
  t.deleteMeta(handoffKey(jobId));
  const rest = [...handoffJobs(t.s)].filter((id) => id !== jobId);
  t.setMeta(HANDOFFS_KEY, JSON.stringify(rest));
  const job = t.s.job(jobId);
  if (!job) return;
  if (answer.kind === "accepted") {
    t.put({ kind: "job_gone", id: jobId, moved: true });
    t.cancelTimer(placementTimer(jobId));
    t.cancelTimer(preemptWaitTimer(jobId));
    t.deleteMeta(placementKey(jobId));
    t.setMeta(movedToKey(jobId), h.to.id);
    if (t.s.meta(ANY_MOVED) === null) t.setMeta(ANY_MOVED, "1");
    t.schedule();
    return;
  }
  // It stays: as any queued job here (a drain that began meanwhile holds it too).
  const cfg = config(t.s);
  if (cfg?.draining)
    move(t, job, "PAUSED", "drain", `fleet ${cfg.name} is draining: ${cfg.drainNote || "maintenance"}`);
  t.schedule();
}

/**
 * The job's placement timeout ended: still waiting, never started, it fails with NO_ELIGIBLE_FLEET and
 * each candidate's reason (this fleet's: its pending reasons; the others', as the adapter read them).
 * Frozen in a handoff, it is decided again a moment later, wherever it is by then.
 */
export function placementTimedOut(t: Tx, jobId: string, others: readonly PlacementCandidate[]): void {
  const job = t.s.job(jobId);
  if (job?.status !== "QUEUED" || job.attempt > 0 || job.current_run_id) return;
  if (handoffJobs(t.s).has(jobId)) {
    t.setTimer(placementTimer(jobId), t.now + REROUTE_CHECK_MS);
    return;
  }
  const cfg = config(t.s)!;
  const waits = (JSON.parse(job.pending_reasons) as Array<{ message: string }>).map((r) => r.message);
  const here: PlacementCandidate = {
    fleet: cfg.name,
    eligible: true,
    reason: `held it: ${waits.join("; ") || "waiting"}`,
    estimated_start: null,
    chosen: true,
  };
  const candidates = [here, ...others.filter((c) => c.fleet !== cfg.name)];
  const timeout = (JSON.parse(job.spec) as JobSpec).lifecycle.placement_timeout_seconds ?? 0;
  setStatus(t, job, "FAILED", "system:placement", {
    code: "NO_ELIGIBLE_FLEET",
    reason: `no fleet started it within its placement timeout (${timeout} s): ${candidates.map((c) => `${c.fleet}: ${c.reason}`).join("; ")}`,
    candidates,
  });
  t.deleteMeta(placementKey(jobId));
  t.schedule();
}
