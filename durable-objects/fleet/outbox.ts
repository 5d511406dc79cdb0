/**
 * The Fleet DO's outbox: every change is recorded here in the same SQL transaction, then flushed to the
 * D1 ledger in order. Each entry becomes idempotent D1 statements (ledger/projections.ts: versioned
 * upserts, insert-or-ignore by key), so a flush that is retried, replayed after a restart, or partially
 * repeated is harmless.
 */
import { projectionStatements } from "../ledger/projections.js";
import type { OutboxEntry } from "./outbox-entry.js";
import type { FleetStore } from "./store.js";

/** An outbox entry as the D1 statements that apply it. */
export const toStatements = projectionStatements;

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
