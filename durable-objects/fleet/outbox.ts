/**
 * Outbox entries: every change the Fleet DO makes is recorded here in the same SQL transaction, then
 * flushed to the D1 ledger. Each entry maps to idempotent D1 statements (versioned upserts, insert-or-
 * ignore by key), so a flush that is retried, replayed after a restart, or partially repeated is harmless.
 */
import { ACTIVE_STATES } from "../../contract/job-states.js";
import { webhookFanout } from "../webhooks/fanout.js";
import type { OutboxEntry } from "./outbox-entry.js";
import type { FleetStore } from "./store.js";

function upsert(
  d1: D1Database,
  table: string,
  row: Record<string, unknown>,
  versioned: boolean,
): D1PreparedStatement {
  const cols = Object.keys(row);
  const updates = cols.filter((c) => c !== "id").map((c) => `${c} = excluded.${c}`);
  const where = versioned ? ` WHERE excluded.version > ${table}.version` : "";
  return d1
    .prepare(
      `INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")}) ON CONFLICT(id) DO UPDATE SET ${updates.join(", ")}${where}`,
    )
    .bind(...cols.map((c) => row[c] ?? null));
}

export function toStatements(d1: D1Database, e: OutboxEntry): D1PreparedStatement[] {
  switch (e.kind) {
    case "job": {
      // The per-user admission row follows the job: active while it may hold a slot, else released.
      const state = (ACTIVE_STATES as ReadonlySet<string>).has(e.job.status) ? "active" : "released";
      return [
        upsert(d1, "jobs", { ...e.job }, true),
        d1
          .prepare("UPDATE admissions SET state = ?, version = ? WHERE job_id = ? AND version < ?")
          .bind(state, e.job.version, e.job.id, e.job.version),
      ];
    }
    case "run":
      return [upsert(d1, "runs", { ...e.run }, true)];
    case "node":
      return [upsert(d1, "nodes", { ...e.node }, true)];
    case "event": {
      const v = e.event;
      return [
        d1
          .prepare(
            "INSERT OR IGNORE INTO job_events (job_id, seq, ts, from_status, to_status, edge, actor, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
          )
          .bind(v.job_id, v.seq, v.ts, v.from_status, v.to_status, v.edge, v.actor, v.detail),
        // In the same D1 transaction as the event: each subscribed endpoint gets exactly one delivery.
        ...webhookFanout(d1, v, e.job),
      ];
    }
    case "blob_refs": {
      // Multi-row inserts of at most 49 rows: D1 allows 100 bound parameters per statement.
      const out: D1PreparedStatement[] = [];
      for (let i = 0; i < e.digests.length; i += 49) {
        const chunk = e.digests.slice(i, i + 49);
        out.push(
          d1
            .prepare(
              `INSERT OR IGNORE INTO blob_refs (digest, job_id) VALUES ${chunk.map(() => "(?, ?)").join(", ")}`,
            )
            .bind(...chunk.flatMap((d) => [d, e.job_id])),
        );
      }
      return out;
    }
    case "usage":
      return [
        d1
          .prepare(
            `INSERT INTO run_usage (run_id, day, user_id, fleet_id, gpu_seconds) VALUES (?, ?, ?, ?, ?)
             ON CONFLICT(run_id, day) DO UPDATE SET gpu_seconds = excluded.gpu_seconds`,
          )
          .bind(e.run_id, e.day, e.user_id, e.fleet_id, e.gpu_seconds),
      ];
  }
}

const BATCH_ENTRIES = 50;

/**
 * Drains the outbox into D1 in order, one D1 batch (a transaction) per chunk, acknowledging each chunk
 * only after D1 committed it. Throws on the first failure; what was not acknowledged is retried later.
 */
export async function drainOutbox(store: FleetStore, d1: D1Database): Promise<number> {
  let flushed = 0;
  for (;;) {
    const rows = store.outboxBatch(BATCH_ENTRIES);
    if (rows.length === 0) return flushed;
    const stmts = rows.flatMap((r) => toStatements(d1, JSON.parse(r.payload) as OutboxEntry));
    if (stmts.length > 0) await d1.batch(stmts);
    store.ackOutbox(rows[rows.length - 1]!.seq);
    flushed += rows.length;
  }
}
