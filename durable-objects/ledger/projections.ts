/**
 * The Fleet DO's outbox entries as D1 statements (fleet/outbox.ts flushes them). Each is idempotent:
 * projections are versioned upserts (an older or repeated snapshot changes nothing), events and blob
 * references insert-or-ignore by key, usage upserts by (run, day). So a flush that is retried, replayed
 * after a restart, or partially repeated is harmless.
 */
import { and, eq, getTableColumns, lt, sql } from "drizzle-orm";
import type { AnySQLiteColumn, SQLiteTable, SQLiteUpdateSetSource } from "drizzle-orm/sqlite-core";
import { ACTIVE_STATES } from "../../contract/job-states.js";
import type { OutboxEntry } from "../fleet/outbox-entry.js";
import { db, excluded, prepared, schema } from "./client.js";
import { fanoutStatement } from "./deliveries.js";

const { jobs, runs, nodes, jobEvents, blobRefs, runUsage, admissions } = schema;
/** D1 allows 100 bound parameters per statement: blob references go in chunks of 49 rows. */
const BLOB_REFS_PER_STATEMENT = 49;

/**
 * Upsert of a projection row that wins only with a higher `version`; only the columns given are set, so a
 * column the snapshot does not carry keeps its value.
 */
function versioned<T extends SQLiteTable>(
  d1: D1Database,
  table: T,
  key: AnySQLiteColumn,
  version: AnySQLiteColumn,
  values: T["$inferInsert"],
) {
  const columns = getTableColumns(table) as Record<string, AnySQLiteColumn>;
  const set = Object.fromEntries(
    Object.keys(values)
      .filter((k) => columns[k] !== key && columns[k] !== undefined)
      .map((k) => [k, excluded(columns[k]!)]),
  );
  return db(d1)
    .insert(table)
    .values(values)
    .onConflictDoUpdate({
      target: key,
      set: set as SQLiteUpdateSetSource<T>,
      setWhere: sql`${excluded(version)} > ${version}`,
    });
}

/** The statements that fan an event out to webhook deliveries (their changes tell whether any was made). */
const fanouts = new WeakSet<D1PreparedStatement>();

export function isFanout(stmt: D1PreparedStatement): boolean {
  return fanouts.has(stmt);
}

function fanout(stmt: D1PreparedStatement): D1PreparedStatement {
  fanouts.add(stmt);
  return stmt;
}

export function projectionStatements(d1: D1Database, e: OutboxEntry): D1PreparedStatement[] {
  const d = db(d1);
  switch (e.kind) {
    case "job": {
      const j = e.job;
      // The per-user admission row follows the job: active while it may hold a slot, else released.
      const state = (ACTIVE_STATES as ReadonlySet<string>).has(j.status) ? "active" : "released";
      return [
        prepared(
          d1,
          versioned(d1, jobs, jobs.id, jobs.version, {
            id: j.id,
            userId: j.user_id,
            fleetId: j.fleet_id,
            name: j.name,
            status: j.status,
            priority: j.priority,
            gpus: j.gpus,
            recipe: j.recipe,
            spec: j.spec,
            pendingReasons: j.pending_reasons,
            currentRunId: j.current_run_id,
            version: j.version,
            createdAt: j.created_at,
            updatedAt: j.updated_at,
          }),
        ),
        prepared(
          d1,
          d
            .update(admissions)
            .set({ state, version: j.version })
            .where(and(eq(admissions.jobId, j.id), lt(admissions.version, j.version))),
        ),
      ];
    }
    case "run": {
      const r = e.run;
      return [
        prepared(
          d1,
          versioned(d1, runs, runs.id, runs.version, {
            id: r.id,
            jobId: r.job_id,
            attempt: r.attempt,
            epoch: r.epoch,
            status: r.status,
            placement: r.placement,
            gpus: r.gpus,
            userId: r.user_id,
            allocatedAt: r.allocated_at,
            endedAt: r.ended_at,
            exitCode: r.exit_code,
            reason: r.reason,
            version: r.version,
            resumedFrom: r.resumed_from,
          }),
        ),
      ];
    }
    case "node": {
      const n = e.node;
      return [
        prepared(
          d1,
          versioned(d1, nodes, nodes.id, nodes.version, {
            id: n.id,
            fleetId: n.fleet_id,
            name: n.name,
            series: n.series,
            gpus: n.gpus,
            gpusAllocated: n.gpus_allocated,
            status: n.status,
            labels: n.labels,
            version: n.version,
            updatedAt: n.updated_at,
          }),
        ),
      ];
    }
    case "event": {
      const v = e.event;
      return [
        prepared(
          d1,
          d
            .insert(jobEvents)
            .values({
              jobId: v.job_id,
              seq: v.seq,
              ts: v.ts,
              fromStatus: v.from_status,
              toStatus: v.to_status,
              edge: v.edge,
              actor: v.actor,
              detail: v.detail,
            })
            .onConflictDoNothing(),
        ),
        // In the same D1 transaction as the event: each subscribed endpoint gets exactly one delivery.
        ...(e.job ? [fanout(prepared(d1, fanoutStatement(v, e.job)))] : []),
      ];
    }
    case "blob_refs": {
      const out: D1PreparedStatement[] = [];
      for (let i = 0; i < e.digests.length; i += BLOB_REFS_PER_STATEMENT) {
        const chunk = e.digests.slice(i, i + BLOB_REFS_PER_STATEMENT);
        out.push(
          prepared(
            d1,
            d
              .insert(blobRefs)
              .values(chunk.map((digest) => ({ digest, jobId: e.job_id })))
              .onConflictDoNothing(),
          ),
        );
      }
      return out;
    }
    case "usage":
      return [
        prepared(
          d1,
          d
            .insert(runUsage)
            .values({
              runId: e.run_id,
              day: e.day,
              userId: e.user_id,
              fleetId: e.fleet_id,
              gpuSeconds: e.gpu_seconds,
            })
            .onConflictDoUpdate({
              target: [runUsage.runId, runUsage.day],
              set: { gpuSeconds: excluded(runUsage.gpuSeconds) },
            }),
        ),
      ];
  }
}
