/**
 * The Fleet DO's outbox entries as D1 statements (fleet/outbox.ts flushes them). Each is idempotent:
 * projections are versioned upserts (an older or repeated snapshot changes nothing), events and blob
 * references insert-or-ignore by key, usage upserts by (run, day). So a flush that is retried, replayed
 * after a restart, or partially repeated is harmless.
 */
import { getTableColumns, getTableName } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { nowIso } from "../../contract/ids.js";
import { ACTIVE_STATES } from "../../contract/job-states.js";
import { jobEventId, PREEMPTED_EVENT_TYPE, transitionEventType } from "../../contract/webhooks.schema.js";
import { schema } from "../../d1/client.js";
import { jobEventPayload } from "../webhooks/payload.js";
import type { EventJob, JobEventRecord, OutboxEntry } from "./outbox-entry.js";

const { jobs, runs, nodes, jobEvents, blobRefs, runUsage, admissions, webhooks, webhookDeliveries } = schema;

/**
 * Rows travel as one JSON array per statement (json_each), not one statement per row: D1 charges per
 * statement, and a flush of many jobs would otherwise be dozens of them. D1 caps one value at 2 MB, so
 * a statement carries at most about 1 MB of rows (one bigger row goes alone).
 */
const MAX_JSON_CHARS = 1_000_000;

type Row = readonly unknown[];

/** `?1` as rows: `json_extract(value, '$[i]')` for each column, in order. */
function fromRows(n: number): string {
  return Array.from({ length: n }, (_, i) => `json_extract(value, '$[${i}]')`).join(", ");
}

function quoted(name: string): string {
  return `"${name}"`;
}

/** A table's SQL name and the SQL names of the given properties of its drizzle schema. */
function names<T extends SQLiteTable>(table: T, props: readonly (keyof T["$inferInsert"] & string)[]) {
  const columns = getTableColumns(table) as Record<string, { name: string }>;
  return { table: quoted(getTableName(table)), columns: props.map((p) => quoted(columns[p]!.name)) };
}

/**
 * Upsert of projection rows that win only with a higher version; only the columns given are set, so a
 * column the snapshot does not carry keeps its value.
 */
function versionedSql<T extends SQLiteTable>(
  table: T,
  props: readonly (keyof T["$inferInsert"] & string)[],
  key: keyof T["$inferInsert"] & string,
  version: keyof T["$inferInsert"] & string,
): string {
  const n = names(table, props);
  const [k, v] = names(table, [key, version]).columns;
  return `INSERT INTO ${n.table} (${n.columns.join(", ")})
    SELECT ${fromRows(props.length)} FROM json_each(?1) WHERE true
    ON CONFLICT (${k}) DO UPDATE SET ${n.columns
      .filter((c) => c !== k)
      .map((c) => `${c} = excluded.${c}`)
      .join(", ")}
    WHERE excluded.${v} > ${n.table}.${v}`;
}

const JOB_PROPS = [
  "id",
  "userId",
  "fleetId",
  "name",
  "status",
  "priority",
  "gpus",
  "recipe",
  "spec",
  "pendingReasons",
  "currentRunId",
  "version",
  "createdAt",
  "updatedAt",
  "priorityClass",
  "team",
] as const;
const RUN_PROPS = [
  "id",
  "jobId",
  "attempt",
  "epoch",
  "status",
  "placement",
  "gpus",
  "userId",
  "allocatedAt",
  "endedAt",
  "exitCode",
  "reason",
  "version",
  "resumedFrom",
  "borrowed",
  "diagnosis",
] as const;
const NODE_PROPS = [
  "id",
  "fleetId",
  "name",
  "series",
  "gpus",
  "gpusAllocated",
  "status",
  "labels",
  "version",
  "updatedAt",
] as const;
const EVENT_PROPS = ["jobId", "seq", "ts", "fromStatus", "toStatus", "edge", "actor", "detail"] as const;

/** Each statement's text, built once from the drizzle schema. */
const SQL_TEXT = (() => {
  const adm = names(admissions, ["jobId", "state", "version"]);
  const admIns = names(admissions, [
    "jobId",
    "userId",
    "fleetId",
    "idemKey",
    "requestHash",
    "state",
    "version",
    "createdAt",
  ]);
  const ev = names(jobEvents, EVENT_PROPS);
  const refs = names(blobRefs, ["digest", "jobId"]);
  const usage = names(runUsage, [
    "runId",
    "day",
    "userId",
    "fleetId",
    "gpuSeconds",
    "team",
    "borrowed",
    "lostGpuSeconds",
  ]);
  const wh = names(webhooks, ["id", "userId", "fleetId", "createdAt", "events"]);
  const wd = names(webhookDeliveries, [
    "webhookId",
    "eventId",
    "userId",
    "jobId",
    "type",
    "payload",
    "state",
    "nextAttemptAt",
    "createdAt",
  ]);
  const [admJob, admState, admVersion] = adm.columns;
  const evDetail = ev.columns[EVENT_PROPS.indexOf("detail")];
  const [whId, whUser, whFleet, whCreated, whEvents] = wh.columns;
  const [, usageDay, , , usageSeconds, , , usageLost] = usage.columns;
  return {
    jobs: versionedSql(jobs, JOB_PROPS, "id", "version"),
    runs: versionedSql(runs, RUN_PROPS, "id", "version"),
    nodes: versionedSql(nodes, NODE_PROPS, "id", "version"),
    // The per-user admission row follows its job: active while it may hold a slot, else released.
    // A job admitted by its fleet: the row its state then follows (one per job; a replay changes nothing).
    admitted: `INSERT OR IGNORE INTO ${admIns.table} (${admIns.columns.join(", ")})
      SELECT ${fromRows(5)}, 'reserved', 0, json_extract(value, '$[5]') FROM json_each(?1)`,
    admissions: `UPDATE ${adm.table} SET ${admState} = j.state, ${admVersion} = j.version
      FROM (SELECT json_extract(value, '$[0]') AS job_id, json_extract(value, '$[1]') AS state,
              json_extract(value, '$[2]') AS version FROM json_each(?1)) AS j
      WHERE ${adm.table}.${admJob} = j.job_id AND ${adm.table}.${admVersion} < j.version`,
    // A diagnosed failure's event comes again with the diagnosis in its detail: the only event rewritten.
    events: `INSERT INTO ${ev.table} (${ev.columns.join(", ")})
      SELECT ${fromRows(EVENT_PROPS.length)} FROM json_each(?1) WHERE true
      ON CONFLICT DO UPDATE SET ${evDetail} = excluded.${evDetail}
      WHERE excluded.${evDetail} <> ${ev.table}.${evDetail} AND ${ev.table}.${evDetail} LIKE '%"diagnosis":"pending"%'`,
    blobRefs: `INSERT INTO ${refs.table} (${refs.columns.join(", ")})
      SELECT ${fromRows(2)} FROM json_each(?1) WHERE true ON CONFLICT DO NOTHING`,
    usage: `INSERT INTO ${usage.table} (${usage.columns.join(", ")})
      SELECT ${fromRows(8)} FROM json_each(?1) WHERE true
      ON CONFLICT (${usage.columns[0]}, ${usageDay})
      DO UPDATE SET ${usageSeconds} = excluded.${usageSeconds}, ${usageLost} = excluded.${usageLost}`,
    // A pending delivery for every endpoint of the job's owner that subscribes to the event (its fleet or
    // all, created before the event). (webhook, event) is unique and the insert ignores conflicts, so a
    // flush that is retried or replayed never creates a delivery twice.
    fanout: `WITH ev (event_id, user_id, fleet_id, job_id, type, payload, ts) AS (
        SELECT ${fromRows(7)} FROM json_each(?1))
      INSERT OR IGNORE INTO ${wd.table} (${wd.columns.join(", ")})
      SELECT w.${whId}, ev.event_id, w.${whUser}, ev.job_id, ev.type, ev.payload, 'pending', ?2, ?3
      FROM ev JOIN ${wh.table} AS w ON w.${whUser} = ev.user_id
      WHERE (w.${whFleet} IS NULL OR w.${whFleet} = ev.fleet_id) AND w.${whCreated} <= ev.ts
        AND EXISTS (SELECT 1 FROM json_each(w.${whEvents}) WHERE json_each.value IN ('*', ev.type))`,
  };
})();

/** The statements that fan events out to webhook deliveries (their changes tell whether any was made). */
/** The delivery row of one job event: its id, owner, fleet, job, type and the exact body endpoints get. */
function fanoutRow(v: JobEventRecord, job: EventJob): Row {
  return [
    jobEventId(v.job_id, v.seq),
    job.user_id,
    job.fleet_id,
    v.job_id,
    transitionEventType(v),
    jobEventPayload(v, job),
    v.ts,
  ];
}

/** A FAILED event whose run's diagnosis is on its way: its webhook goes out with it (rules/diagnosis.ts). */
function awaitsDiagnosis(v: JobEventRecord): boolean {
  return v.to_status === "FAILED" && v.detail.includes('"diagnosis":"pending"');
}

const fanouts = new WeakSet<D1PreparedStatement>();

export function isFanout(stmt: D1PreparedStatement): boolean {
  return fanouts.has(stmt);
}

/** One statement per ~1 MB of rows. */
function bulk(d1: D1Database, text: string, rows: Row[], ...extra: unknown[]): D1PreparedStatement[] {
  const out: D1PreparedStatement[] = [];
  let chunk: string[] = [];
  let size = 0;
  const emit = () => {
    if (chunk.length > 0) out.push(d1.prepare(text).bind(`[${chunk.join(",")}]`, ...extra));
    chunk = [];
    size = 0;
  };
  for (const row of rows) {
    const json = JSON.stringify(row);
    if (size + json.length > MAX_JSON_CHARS) emit();
    chunk.push(json);
    size += json.length + 1;
  }
  emit();
  return out;
}

/**
 * Outbox entries as D1 statements, a few per kind whatever their number. Each is idempotent: projections
 * are versioned upserts (an older or repeated snapshot changes nothing), events and blob references
 * insert-or-ignore by key, usage upserts by (run, day). So a flush that is retried, replayed after a
 * restart, or partially repeated is harmless, and the order of kinds within one batch does not matter
 * (no projection table references another).
 */
export function projectionStatements(d1: D1Database, entries: readonly OutboxEntry[]): D1PreparedStatement[] {
  const rows = {
    jobs: [] as Row[],
    admitted: [] as Row[],
    admissions: [] as Row[],
    runs: [] as Row[],
    nodes: [] as Row[],
    events: [] as Row[],
    fanout: [] as Row[],
    blobRefs: [] as Row[],
    usage: [] as Row[],
  };
  const admissionOf = new Map<string, Row>();
  for (const e of entries) {
    switch (e.kind) {
      case "job": {
        const j = e.job;
        // The flush fills it from the job's row (outbox.ts); a projection without it would blank the column.
        if (j.spec === null)
          throw new Error(`job ${j.id}'s snapshot reached the projection without its spec`);
        rows.jobs.push([
          j.id,
          j.user_id,
          j.fleet_id,
          j.name,
          j.status,
          j.priority,
          j.gpus,
          j.recipe,
          j.spec,
          j.pending_reasons,
          j.current_run_id,
          j.version,
          j.created_at,
          j.updated_at,
          j.priority_class,
          // Entries written before teams existed carry none.
          j.team ?? null,
        ]);
        const state = (ACTIVE_STATES as ReadonlySet<string>).has(j.status) ? "active" : "released";
        // One row per job (an UPDATE … FROM with two would apply either): the newest snapshot's.
        const seen = admissionOf.get(j.id);
        if (!seen || (seen[2] as number) < j.version) admissionOf.set(j.id, [j.id, state, j.version]);
        break;
      }
      case "run": {
        const r = e.run;
        rows.runs.push([
          r.id,
          r.job_id,
          r.attempt,
          r.epoch,
          r.status,
          r.placement,
          r.gpus,
          r.user_id,
          r.allocated_at,
          r.ended_at,
          r.exit_code,
          r.reason,
          r.version,
          r.resumed_from,
          r.borrowed ?? 0,
          r.diagnosis ?? null,
        ]);
        break;
      }
      case "node": {
        const n = e.node;
        rows.nodes.push([
          n.id,
          n.fleet_id,
          n.name,
          n.series,
          n.gpus,
          n.gpus_allocated,
          n.status,
          n.labels,
          n.version,
          n.updated_at,
        ]);
        break;
      }
      case "event": {
        const v = e.event;
        rows.events.push([v.job_id, v.seq, v.ts, v.from_status, v.to_status, v.edge, v.actor, v.detail]);
        // In the same D1 transaction as the event: each subscribed endpoint gets exactly one delivery. A
        // preemption's goes out when its run has released its GPUs ("preempted" below), a failure's with
        // its diagnosis ("diagnosed").
        if (e.job && transitionEventType(v) !== PREEMPTED_EVENT_TYPE && !awaitsDiagnosis(v))
          rows.fanout.push(fanoutRow(v, e.job));
        break;
      }
      case "preempted": {
        const v = e.event;
        const detail = {
          ...(JSON.parse(v.detail) as Record<string, unknown>),
          released_at: e.released_at,
          resume_step: e.resume_step,
          steps_lost: e.steps_lost ?? null,
          lost_gpu_seconds: e.lost_gpu_seconds,
        };
        rows.fanout.push(fanoutRow({ ...v, detail: JSON.stringify(detail) }, e.job));
        break;
      }
      case "diagnosed": {
        const v = e.event;
        rows.events.push([v.job_id, v.seq, v.ts, v.from_status, v.to_status, v.edge, v.actor, v.detail]);
        rows.fanout.push(fanoutRow(v, e.job));
        break;
      }
      case "blob_refs":
        for (const digest of e.digests) rows.blobRefs.push([digest, e.job_id]);
        break;
      case "usage":
        rows.usage.push([
          e.run_id,
          e.day,
          e.user_id,
          e.fleet_id,
          e.gpu_seconds,
          e.team ?? null,
          e.borrowed ?? 0,
          e.lost_gpu_seconds ?? 0,
        ]);
        break;
      case "admission":
        rows.admitted.push([e.job_id, e.user_id, e.fleet_id, e.idem_key, e.request_hash, e.created_at]);
        break;
    }
  }
  rows.admissions = [...admissionOf.values()];
  const fanout = bulk(d1, SQL_TEXT.fanout, rows.fanout, Date.now(), nowIso());
  for (const stmt of fanout) fanouts.add(stmt);
  return [
    ...bulk(d1, SQL_TEXT.jobs, rows.jobs),
    // Inserted before the update that moves them with their jobs' snapshots.
    ...bulk(d1, SQL_TEXT.admitted, rows.admitted),
    ...bulk(d1, SQL_TEXT.admissions, rows.admissions),
    ...bulk(d1, SQL_TEXT.runs, rows.runs),
    ...bulk(d1, SQL_TEXT.nodes, rows.nodes),
    ...bulk(d1, SQL_TEXT.events, rows.events),
    ...fanout,
    ...bulk(d1, SQL_TEXT.blobRefs, rows.blobRefs),
    ...bulk(d1, SQL_TEXT.usage, rows.usage),
  ];
}
