/**
 * What the fleet remembers about jobs moving between fleets (rules/reroute.ts), as the other rules read
 * it: which queued jobs are being handed away (frozen here: never placed, drained or acted on until the
 * receiving fleet answers), where a job that left went, and when a job's placement timeout ends.
 */

import type { JobSpec } from "../../../contract/jobspec.schema.js";
import { HANDOFFS_KEY, handoffKey, movedToKey, NO_PREEMPT_KEY } from "../keys.js";
import type { JobRow } from "../rows.js";
import type { FleetState } from "../state.js";
import { placementTimer, preemptWaitTimer } from "../timers.js";
import type { Tx } from "../tx.js";

/** Why a queued job moves: another candidate starts it now, or every agent of this fleet is gone. */
export type RerouteReason = "starts_sooner" | "site_lost";

/** A handoff in progress, as the handing fleet keeps it (meta `handoff:<job>`). */
export interface Handoff {
  move_id: string;
  to: { id: string; name: string };
  why: RerouteReason;
  /** The receiver takes it only if it starts it at once (`starts_sooner`); else it may wait there. */
  must_start: boolean;
  /** What the choice rested on, for the `rerouted` event (e.g. "fits now (h200: 8/8 free, 0 queued)"). */
  basis: string;
  at: number;
}

/** The jobs this fleet is handing to others: one cached read (a scheduling pass asks each time). */
export function handoffJobs(s: FleetState): Set<string> {
  const raw = s.meta(HANDOFFS_KEY);
  return raw ? new Set(JSON.parse(raw) as string[]) : new Set();
}

export function handoffOf(s: FleetState, jobId: string): Handoff | null {
  const raw = s.meta(handoffKey(jobId));
  return raw ? (JSON.parse(raw) as Handoff) : null;
}

/** The fleet a job moved to from here, or null (it never left, or was never here). */
export function movedTo(s: FleetState, jobId: string): string | null {
  return s.meta(movedToKey(jobId));
}

/** Arms a job's placement timeout (at queue time, here or where it moved): due its submit + the timeout. */
export function armPlacementTimeout(t: Tx, job: JobRow, spec: JobSpec): void {
  const timeout = spec.lifecycle.placement_timeout_seconds;
  if (timeout !== undefined) t.setTimer(placementTimer(job.id), job.created_at + timeout * 1000);
}

/** How long a job placed over several fleets waits for one to start it before it may preempt (default). */
export const DEFAULT_PREEMPTION_WAIT_SECONDS = 60;

/**
 * Until when a queued job may not preempt (null: no limit): a job placed over several fleets waits its
 * `preemption_wait_seconds` from its submit for one of them to start it without preemption; one that
 * preempted on another fleet before it moved here never preempts here.
 */
export function noPreemptUntil(s: FleetState, job: JobRow, spec: JobSpec): number | null {
  const { fleets, fleet_selector } = spec.resources;
  if (fleets === undefined && fleet_selector === undefined) return null;
  if (s.meta(NO_PREEMPT_KEY)?.includes(`"${job.id}"`)) return Number.MAX_SAFE_INTEGER;
  const wait = spec.lifecycle.preemption_wait_seconds ?? DEFAULT_PREEMPTION_WAIT_SECONDS;
  return job.created_at + wait * 1000;
}

/** A pass when a job's preemption wait ends (it may preempt from then on). */
export function armPreemptWait(t: Tx, job: JobRow, spec: JobSpec): void {
  const until = noPreemptUntil(t.s, job, spec);
  if (until !== null && until > t.now && until < Number.MAX_SAFE_INTEGER)
    t.setTimer(preemptWaitTimer(job.id), until);
}

/** A job that preempted on another fleet before it moved here never preempts here. */
export function neverPreempt(t: Tx, jobId: string): void {
  const raw = t.s.meta(NO_PREEMPT_KEY);
  // Those still waiting here, and this one (the list stays as short as the jobs it names that wait).
  const kept = raw ? (JSON.parse(raw) as string[]).filter((id) => t.s.job(id)?.status === "QUEUED") : [];
  t.setMeta(NO_PREEMPT_KEY, JSON.stringify([...kept, jobId]));
}
