/**
 * The counters GET /v1/admin/metrics reports that no other row records: admission outcomes (a refused
 * submit leaves no row, by design) and ingested items (they live in each run's own Durable Object). Worker
 * isolates share no memory, so counts are stored, in D1's `metric_counters` (migrations/0009), one row per
 * (metric, label) that only ever grows.
 *
 * Never on the request path: a request adds to this isolate's pending counts and, after it answered,
 * flushes them (`waitUntil`) in one D1 batch. The flush waits FLUSH_DELAY_MS first, so a busy isolate
 * writes about twice a second whatever its request rate, and ingest stays off D1's hot path. A failed
 * write puts its counts back for the next flush; counts still pending when an isolate is evicted are lost.
 */
import { sql } from "drizzle-orm";
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { db, excluded, prepared } from "../../d1/client.js";
import { errorFields, log } from "./log.js";

/** Declared here, not in the ledger's schema: only this module and the metrics route read or write it. */
export const metricCounters = sqliteTable(
  "metric_counters",
  {
    metric: text("metric").notNull(),
    label: text("label").notNull(),
    value: integer("value").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.metric, t.label] })],
);

export type CounterMetric =
  /** Submits answered 201, labelled by fleet id. */
  | "admissions"
  /** Refused submits, labelled by error code. */
  | "admission_rejections"
  /** Items job-side ingest accepted, labelled by kind (logs, metrics, …). */
  | "ingested_items"
  /** Calls submits made to a fleet's object, labelled by fleet id: fewer than its admissions under group commit. */
  | "fleet_submit_calls"
  /** Jobs placed over several fleets at submit (resources.fleets or fleet_selector), labelled by the fleet chosen. */
  | "placements";

export interface CounterRow {
  metric: string;
  label: string;
  value: number;
}

const FLUSH_DELAY_MS = 500;
/** D1 binds at most 100 parameters per statement; a row binds three. */
const ROWS_PER_STATEMENT = 30;

const pending = new Map<string, CounterRow>();

export function addToCounter(metric: CounterMetric, label: string, n = 1): void {
  if (!(n > 0)) return;
  const key = `${metric}\u0000${label}`;
  const row = pending.get(key);
  if (row) row.value += n;
  else pending.set(key, { metric, label, value: n });
}

function takePending(): CounterRow[] {
  const rows = [...pending.values()];
  pending.clear();
  return rows;
}

function giveBack(rows: CounterRow[]): void {
  for (const r of rows) addToCounter(r.metric as CounterMetric, r.label, r.value);
}

function upsert(d1: D1Database, rows: CounterRow[]): D1PreparedStatement {
  const t = metricCounters;
  return prepared(
    d1,
    db(d1)
      .insert(t)
      .values(rows)
      .onConflictDoUpdate({
        target: [t.metric, t.label],
        set: { value: sql`${t.value} + ${excluded(t.value)}` },
      }),
  );
}

/** A flush is waiting to gather counts: later counts go with it. */
let scheduled = false;

/**
 * Writes every count this isolate has pending, after a short wait that gathers more, kept alive by the
 * `waitUntil` of the request that scheduled it. One flush waits at a time: a request that counts meanwhile
 * only adds to what it will write (a flush per request was a timer and a D1 batch per admission, most of
 * them finding nothing). A count added after the wait schedules the next flush.
 */
export function flushCountersSoon(d1: D1Database, waitUntil: (p: Promise<void>) => void): void {
  if (scheduled) return;
  scheduled = true;
  waitUntil(flushCounters(d1));
}

async function flushCounters(d1: D1Database): Promise<void> {
  try {
    await scheduler.wait(FLUSH_DELAY_MS);
  } finally {
    scheduled = false;
  }
  const rows = takePending();
  if (rows.length === 0) return;
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    statements.push(upsert(d1, rows.slice(i, i + ROWS_PER_STATEMENT)));
  }
  try {
    // One batch is one transaction: either every count landed or none did.
    await d1.batch(statements);
  } catch (err) {
    giveBack(rows);
    log("warn", "metric counters not written; the next flush retries", errorFields(err));
  }
}

export function counterRowsQuery(d1: D1Database) {
  return db(d1)
    .select({ metric: metricCounters.metric, label: metricCounters.label, value: metricCounters.value })
    .from(metricCounters);
}
