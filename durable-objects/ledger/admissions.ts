/**
 * Atomic per-user admission across fleets, in D1. One conditional INSERT reserves a job's row only if the
 * user's active jobs are under `max_jobs` and the Idempotency-Key (unique per user) is free; D1 runs each
 * batch as one transaction, so concurrent submits to different fleets cannot both take the last slot or
 * the same key. The Fleet DO's outbox then keeps the row's state in step with the job
 * (ledger/projections.ts).
 */
import { and, eq, lt, type SQL, sql } from "drizzle-orm";
import { nowIso } from "../../contract/ids.js";
import { col, db, prepared, schema } from "./client.js";

const a = schema.admissions;

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

const ROW = {
  job_id: a.jobId,
  fleet_id: a.fleetId,
  request_hash: a.requestHash,
  state: a.state,
  created_at: a.createdAt,
};

/**
 * The user's jobs that hold a slot: active ones (kept counted in `admission_counts` by triggers), and
 * reservations younger than `fresh` (only submits in flight: an index range, never the user's history).
 */
function activeCount(userId: string, fresh: string): SQL {
  const n = schema.admissionCounts;
  return sql`(COALESCE((SELECT ${n.active} FROM ${n} WHERE ${n.userId} = ${userId}), 0)
    + (SELECT COUNT(*) FROM ${a} WHERE ${a.userId} = ${userId} AND ${a.state} = 'reserved'
       AND ${a.createdAt} >= ${fresh}))`;
}

export interface ReserveInput {
  jobId: string;
  userId: string;
  fleetId: string;
  key: string | null;
  requestHash: string | null;
  /** The user's max_jobs, or SQL that reads it in the same transaction. */
  maxJobs: number | SQL;
  /** A further condition the reservation needs (the caller's token still valid), checked in the INSERT. */
  guard?: SQL;
}

/**
 * Reserves a job's admission row in one D1 batch (one transaction, one round trip). `reads` run first in
 * the same batch, so a caller gets what else it needs to know (its token, quota, usage) in that trip;
 * their results come back in order.
 */
export async function reserveAdmission(
  d1: D1Database,
  r: ReserveInput,
  reads: D1PreparedStatement[] = [],
  now = Date.now(),
): Promise<{ reservation: Reservation; reads: D1Result[] }> {
  const at = nowIso(now);
  const fresh = nowIso(now - STALE_RESERVATION_MS);
  const guard = r.guard ? sql` AND ${r.guard}` : sql``;
  const results = await d1.batch([
    ...reads,
    prepared(
      d1,
      sql`INSERT OR IGNORE INTO ${a}
        (${col(a.jobId)}, ${col(a.userId)}, ${col(a.fleetId)}, ${col(a.idemKey)}, ${col(a.requestHash)},
         ${col(a.state)}, ${col(a.version)}, ${col(a.createdAt)})
        SELECT ${r.jobId}, ${r.userId}, ${r.fleetId}, ${r.key}, ${r.requestHash}, 'reserved', 0, ${at}
        WHERE ${activeCount(r.userId, fresh)} < ${r.maxJobs}${guard}`,
    ),
    // What happened, in one row: our row exists, else the key's holder (a null key matches nothing, as a
    // submit without a key must), else how many slots are taken.
    prepared(
      d1,
      sql`SELECT EXISTS (SELECT 1 FROM ${a} WHERE ${a.jobId} = ${r.jobId}) AS mine,
        (SELECT json_object('job_id', ${a.jobId}, 'fleet_id', ${a.fleetId}, 'request_hash', ${a.requestHash},
           'state', ${a.state}, 'created_at', ${a.createdAt})
         FROM ${a} WHERE ${a.userId} = ${r.userId} AND ${a.idemKey} = ${r.key}) AS existing,
        ${activeCount(r.userId, fresh)} AS n`,
    ),
  ]);
  const outcome = results[reads.length + 1]?.results[0] as
    | { mine: number; existing: string | null; n: number }
    | undefined;
  const reservation: Reservation = outcome?.mine
    ? { kind: "reserved" }
    : outcome?.existing
      ? { kind: "key_taken", existing: JSON.parse(outcome.existing) as AdmissionRow }
      : { kind: "over_quota", active: outcome?.n ?? 0 };
  return { reservation, reads: results.slice(0, reads.length) };
}

/** Undoes a reservation whose job was not queued, so a rejected submit leaves nothing behind. */
export async function dropReservation(d1: D1Database, jobId: string): Promise<void> {
  await prepared(
    d1,
    db(d1)
      .delete(a)
      .where(and(eq(a.jobId, jobId), eq(a.state, "reserved"), eq(a.version, 0))),
  ).run();
}

/** Runs an update of one admission; true when it changed that row (its conditions held). */
async function changedOne(d1: D1Database, q: Parameters<typeof prepared>[1]): Promise<boolean> {
  return (await prepared(d1, q).run()).meta.changes === 1;
}

/** Hands a stale reservation's key to a new attempt; false if someone else took it first. */
export async function takeOverStale(
  d1: D1Database,
  oldJobId: string,
  r: { jobId: string; fleetId: string },
  now = Date.now(),
): Promise<boolean> {
  return changedOne(
    d1,
    db(d1)
      .update(a)
      .set({ jobId: r.jobId, fleetId: r.fleetId, createdAt: nowIso(now) })
      .where(
        and(
          eq(a.jobId, oldJobId),
          eq(a.state, "reserved"),
          eq(a.version, 0),
          lt(a.createdAt, nowIso(now - STALE_RESERVATION_MS)),
        ),
      ),
  );
}

/** Resuming makes a job active again, so it takes a slot like a submit does. */
export async function reserveResume(
  d1: D1Database,
  jobId: string,
  userId: string,
  maxJobs: number,
  now = Date.now(),
): Promise<boolean> {
  return changedOne(
    d1,
    db(d1)
      .update(a)
      .set({ state: "reserved", createdAt: nowIso(now) })
      .where(
        and(
          eq(a.jobId, jobId),
          eq(a.state, "released"),
          sql`${activeCount(userId, nowIso(now - STALE_RESERVATION_MS))} < ${maxJobs}`,
        ),
      ),
  );
}

export async function releaseResume(d1: D1Database, jobId: string): Promise<void> {
  await prepared(
    d1,
    db(d1)
      .update(a)
      .set({ state: "released" })
      .where(and(eq(a.jobId, jobId), eq(a.state, "reserved"))),
  ).run();
}

/** The user's admission that holds Idempotency-Key `key`, if any. */
export async function keyedAdmission(
  d1: D1Database,
  userId: string,
  key: string,
): Promise<AdmissionRow | null> {
  const [row] = await db(d1)
    .select(ROW)
    .from(a)
    .where(and(eq(a.userId, userId), eq(a.idemKey, key)));
  return (row as AdmissionRow | undefined) ?? null;
}

export async function admissionOf(d1: D1Database, jobId: string): Promise<AdmissionRow | null> {
  const [row] = await db(d1).select(ROW).from(a).where(eq(a.jobId, jobId));
  return (row as AdmissionRow | undefined) ?? null;
}
