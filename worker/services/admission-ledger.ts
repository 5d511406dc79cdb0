/**
 * Atomic per-user admission across fleets, in D1. One conditional INSERT reserves a job's row only if the
 * user's active jobs are under `max_jobs` and the Idempotency-Key (unique per user) is free; D1 runs each
 * batch as one transaction, so concurrent submits to different fleets cannot both take the last slot or
 * the same key. The Fleet DO's outbox then keeps the row's state in step with the job.
 */
import { nowIso } from "../../contract/ids.js";

/** A reservation older than this whose job never reached its fleet no longer counts or holds its key. */
export const STALE_RESERVATION_MS = 120_000;

export interface AdmissionRow {
  job_id: string;
  fleet_id: string;
  request_hash: string | null;
  state: "reserved" | "active" | "released";
  created_at: string;
}

export type Reservation =
  | { kind: "reserved" }
  | { kind: "key_taken"; existing: AdmissionRow }
  | { kind: "over_quota"; active: number };

const ACTIVE_COUNT = `(SELECT COUNT(*) FROM admissions WHERE user_id = ?1 AND (state = 'active' OR (state = 'reserved' AND created_at >= ?2)))`;

export async function reserveAdmission(
  d1: D1Database,
  r: {
    jobId: string;
    userId: string;
    fleetId: string;
    key: string | null;
    requestHash: string | null;
    maxJobs: number;
  },
  now = Date.now(),
): Promise<Reservation> {
  const at = nowIso(now);
  const fresh = nowIso(now - STALE_RESERVATION_MS);
  const [, mine, byKey, count] = await d1.batch([
    d1
      .prepare(
        `INSERT OR IGNORE INTO admissions (job_id, user_id, fleet_id, idem_key, request_hash, state, version, created_at)
         SELECT ?3, ?1, ?4, ?5, ?6, 'reserved', 0, ?7 WHERE ${ACTIVE_COUNT} < ?8`,
      )
      .bind(r.userId, fresh, r.jobId, r.fleetId, r.key, r.requestHash, at, r.maxJobs),
    d1.prepare("SELECT job_id FROM admissions WHERE job_id = ?").bind(r.jobId),
    d1
      .prepare(
        "SELECT job_id, fleet_id, request_hash, state, created_at FROM admissions WHERE user_id = ? AND idem_key = ?",
      )
      .bind(r.userId, r.key),
    d1.prepare(`SELECT ${ACTIVE_COUNT} AS n`).bind(r.userId, fresh),
  ]);
  if ((mine?.results.length ?? 0) > 0) return { kind: "reserved" };
  const existing = byKey?.results[0] as AdmissionRow | undefined;
  if (existing) return { kind: "key_taken", existing };
  return { kind: "over_quota", active: (count?.results[0] as { n: number } | undefined)?.n ?? 0 };
}

/** Undoes a reservation whose job was not queued, so a rejected submit leaves nothing behind. */
export async function dropReservation(d1: D1Database, jobId: string): Promise<void> {
  await d1
    .prepare("DELETE FROM admissions WHERE job_id = ? AND state = 'reserved' AND version = 0")
    .bind(jobId)
    .run();
}

/** Hands a stale reservation's key to a new attempt; false if someone else took it first. */
export async function takeOverStale(
  d1: D1Database,
  oldJobId: string,
  r: { jobId: string; fleetId: string },
  now = Date.now(),
) {
  const res = await d1
    .prepare(
      "UPDATE admissions SET job_id = ?, fleet_id = ?, created_at = ? WHERE job_id = ? AND state = 'reserved' AND version = 0 AND created_at < ?",
    )
    .bind(r.jobId, r.fleetId, nowIso(now), oldJobId, nowIso(now - STALE_RESERVATION_MS))
    .run();
  return res.meta.changes === 1;
}

/** Resuming makes a job active again, so it takes a slot like a submit does. */
export async function reserveResume(
  d1: D1Database,
  jobId: string,
  userId: string,
  maxJobs: number,
  now = Date.now(),
) {
  const res = await d1
    .prepare(
      `UPDATE admissions SET state = 'reserved', created_at = ?3 WHERE job_id = ?4 AND state = 'released' AND ${ACTIVE_COUNT} < ?5`,
    )
    .bind(userId, nowIso(now - STALE_RESERVATION_MS), nowIso(now), jobId, maxJobs)
    .run();
  return res.meta.changes === 1;
}

export async function releaseResume(d1: D1Database, jobId: string): Promise<void> {
  await d1
    .prepare("UPDATE admissions SET state = 'released' WHERE job_id = ? AND state = 'reserved'")
    .bind(jobId)
    .run();
}

export async function admissionOf(d1: D1Database, jobId: string): Promise<AdmissionRow | null> {
  return d1
    .prepare("SELECT job_id, fleet_id, request_hash, state, created_at FROM admissions WHERE job_id = ?")
    .bind(jobId)
    .first<AdmissionRow>();
}
