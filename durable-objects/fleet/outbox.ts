/**
 * The Fleet DO's outbox: every change is recorded here in the same SQL transaction, then flushed to the
 * D1 ledger in order. Each entry becomes idempotent D1 statements (ledger/projections.ts: versioned
 * upserts, insert-or-ignore by key), so a flush that is retried, replayed after a restart, or partially
 * repeated is harmless.
 */
import { isFanout, projectionStatements } from "../ledger/projections.js";
import type { OutboxEntry } from "./outbox-entry.js";
import type { FleetStore } from "./store.js";

/** One outbox entry as the D1 statements that apply it. */
export function toStatements(d1: D1Database, entry: OutboxEntry): D1PreparedStatement[] {
  return projectionStatements(d1, [entry]);
}

const BATCH_ENTRIES = 50;

/** The row a snapshot entry projects (a later snapshot of the same row replaces it whole), else null. */
function snapshotKey(e: OutboxEntry): string | null {
  if (e.kind === "job") return `job:${e.job.id}`;
  if (e.kind === "run") return `run:${e.run.id}`;
  if (e.kind === "node") return `node:${e.node.id}`;
  return null;
}

/**
 * The entries of one chunk without the snapshots a later one in the same chunk supersedes: a versioned
 * upsert of an older snapshot would change nothing after the newer one, and before it only costs a
 * statement (a submit alone writes its job twice: queued, then with its pending reasons).
 */
export function latestSnapshots(entries: readonly OutboxEntry[]): OutboxEntry[] {
  const last = new Map<string, number>();
  entries.forEach((e, i) => {
    const k = snapshotKey(e);
    if (k) last.set(k, i);
  });
  return entries.filter((e, i) => {
    const k = snapshotKey(e);
    return k === null || last.get(k) === i;
  });
}

export interface Drained {
  /** Entries written to D1. */
  flushed: number;
  /** Some of them created webhook deliveries (their dispatchers need a poke). */
  deliveries: boolean;
}

/**
 * Drains the outbox into D1 in order, one D1 batch (a transaction) per chunk, acknowledging each chunk
 * only after D1 committed it. Throws on the first failure; what was not acknowledged is retried later.
 */
export async function drainOutbox(store: FleetStore, d1: D1Database): Promise<Drained> {
  const out: Drained = { flushed: 0, deliveries: false };
  for (;;) {
    const rows = store.outboxBatch(BATCH_ENTRIES);
    if (rows.length === 0) return out;
    const entries = latestSnapshots(rows.map((r) => JSON.parse(r.payload) as OutboxEntry));
    const stmts = projectionStatements(d1, entries);
    if (stmts.length > 0) {
      const results = await d1.batch(stmts);
      if (results.some((r, i) => isFanout(stmts[i]!) && (r.meta.changes ?? 0) > 0)) out.deliveries = true;
    }
    store.ackOutbox(rows[rows.length - 1]!.seq);
    out.flushed += rows.length;
  }
}
