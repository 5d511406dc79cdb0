/**
 * What GET /v1/admin/metrics asks a fleet: read-only counts of its own SQLite, each one indexed query
 * or a count over a small table (nodes, the GPU bookings, the outbox), so a scrape costs the object
 * little whatever its history. Sockets are counted by the caller, which holds them.
 */
import { ACTIVE_STATES } from "../../contract/job-states.js";
import { FAILURES_KEY, PREEMPTED_TOTAL_KEY, PREEMPTION_LOST_KEY, REROUTED_IN_KEY } from "./keys.js";

/** Statuses reported per fleet: the active ones and PAUSED (the rest only grow, and D1 has them). */
export const REPORTED_STATUSES = [...ACTIVE_STATES, "PAUSED"] as const;

export interface FleetStats {
  /** Jobs by status, every REPORTED_STATUSES entry present (0 when none). */
  jobs: Record<string, number>;
  /** Agents enrolled in the fleet, with an open socket now, and marked lost (socket gone, in grace or past it). */
  agents: { enrolled: number; connected: number; lost: number };
  gpus: { total: number; allocated: number };
  /**
   * State changes not yet written to D1, how old the oldest is (0 when there is none), and the D1
   * transactions the flushes wrote so far (each carries many admissions: changes are coalesced).
   */
  outbox: { entries: number; oldest_age_seconds: number; d1_batches: number };
  /** Jobs this fleet preempted, ever, by cause (`priority`: a higher class displaced them; `reclaim`). */
  preempted: Record<string, number>;
  /** GPU-seconds preempted runs had used since their last checkpoint, ever: work lost to preemption. */
  preemption_lost_gpu_seconds: number;
  /** Waiting jobs that moved here from another of their fleets, ever, by why (`starts_sooner`, `site_lost`). */
  rerouted_in: Record<string, number>;
  /** Failed runs diagnosed here, ever, by class (docs/operations.md "Failure diagnosis"). */
  failures: Record<string, number>;
}

export function fleetStats(sql: SqlStorage, connectedAgents: number, now: number): FleetStats {
  const jobs: Record<string, number> = Object.fromEntries(REPORTED_STATUSES.map((s) => [s, 0]));
  const marks = REPORTED_STATUSES.map(() => "?").join(", ");
  for (const r of sql
    .exec<{ status: string; n: number }>(
      `SELECT status, COUNT(*) AS n FROM jobs WHERE status IN (${marks}) GROUP BY status`,
      ...REPORTED_STATUSES,
    )
    .toArray()) {
    jobs[r.status] = r.n;
  }
  const nodes = sql
    .exec<{ enrolled: number; lost: number; gpus: number }>(
      `SELECT COALESCE(SUM(agent = 1), 0) AS enrolled, COALESCE(SUM(agent = 1 AND status = 'lost'), 0) AS lost,
              COALESCE(SUM(gpus), 0) AS gpus FROM nodes`,
    )
    .one();
  const allocated = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM gpu_alloc").one().n;
  const outbox = sql
    .exec<{ n: number; oldest: number | null }>("SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM outbox")
    .one();
  const meta = (key: string) =>
    sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", key).toArray()[0]?.value ?? null;
  return {
    jobs,
    agents: { enrolled: nodes.enrolled, connected: connectedAgents, lost: nodes.lost },
    gpus: { total: nodes.gpus, allocated },
    outbox: {
      entries: outbox.n,
      oldest_age_seconds: outbox.oldest === null ? 0 : Math.max(0, now - outbox.oldest) / 1000,
      d1_batches: Number(meta("d1_batches") ?? 0),
    },
    preempted: {
      priority: 0,
      reclaim: 0,
      ...(JSON.parse(meta(PREEMPTED_TOTAL_KEY) ?? "{}") as Record<string, number>),
    },
    preemption_lost_gpu_seconds: Number(meta(PREEMPTION_LOST_KEY) ?? 0),
    rerouted_in: {
      starts_sooner: 0,
      site_lost: 0,
      ...(JSON.parse(meta(REROUTED_IN_KEY) ?? "{}") as Record<string, number>),
    },
    failures: JSON.parse(meta(FAILURES_KEY) ?? "{}") as Record<string, number>,
  };
}
