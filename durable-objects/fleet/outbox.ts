/**
 * The Fleet DO's outbox: every change is recorded here in the same SQL transaction, then flushed to the
 * D1 ledger in order. Each entry becomes idempotent D1 statements (projections.ts: versioned
 * upserts, insert-or-ignore by key), so a flush that is retried, replayed after a restart, or partially
 * repeated is harmless.
 */

import type { FleetNotes } from "../user/types.js";
import { movedToKey } from "./keys.js";
import { type OutboxEntry, outboxJobId } from "./outbox-entry.js";
import { isFanout, projectionStatements } from "./projections.js";
import type { FleetStore } from "./store.js";

/** One outbox entry as the D1 statements that apply it. */
export function toStatements(d1: D1Database, entry: OutboxEntry): D1PreparedStatement[] {
  return projectionStatements(d1, [entry]);
}

/** Entries per D1 batch: a chunk of coalesced admissions (a job is about four entries). */
const BATCH_ENTRIES = 200;

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

/** Job snapshots with their JobSpec, from the jobs' rows (the outbox does not copy it: see JobSnapshot). */
function withSpecs(store: FleetStore, entries: OutboxEntry[]): OutboxEntry[] {
  const missing = entries.flatMap((e) => (e.kind === "job" && e.job.spec === null ? [e.job.id] : []));
  if (missing.length === 0) return entries;
  const specs = store.specsOf(missing);
  return entries.flatMap((e) => {
    if (e.kind !== "job" || e.job.spec !== null) return [e];
    const spec = specs.get(e.job.id);
    if (spec !== undefined) return [{ ...e, job: { ...e.job, spec } }];
    // A job handed to another fleet (rules/reroute.ts): that fleet projects it, at a newer version.
    if (store.meta(movedToKey(e.job.id)) !== null) return [];
    throw new Error(`job ${e.job.id} has a snapshot in the outbox but no row`);
  });
}

export interface Drained {
  /** Entries written to D1. */
  flushed: number;
  /** Entries left for later: those of jobs whose admission is not confirmed yet. */
  held: number;
  /** Some of them created webhook deliveries (their dispatchers need a poke). */
  deliveries: boolean;
}

/**
 * What each user's object learns from a chunk once D1 holds it: its jobs' states (each one now
 * projected), its runs' GPUs and the usage they recorded. Keyed by user id.
 */
export function userNotes(fleetId: string, entries: readonly OutboxEntry[]): Map<string, FleetNotes> {
  const out = new Map<string, FleetNotes>();
  const of = (userId: string): FleetNotes => {
    let n = out.get(userId);
    if (!n) {
      n = { fleetId, jobs: [], usage: [], runs: [] };
      out.set(userId, n);
    }
    return n;
  };
  for (const e of entries) {
    if (e.kind === "job")
      of(e.job.user_id).jobs.push({ id: e.job.id, status: e.job.status, version: e.job.version });
    else if (e.kind === "usage")
      of(e.user_id).usage.push({ run_id: e.run_id, day: e.day, gpu_seconds: e.gpu_seconds });
    else if (e.kind === "run") {
      of(e.run.user_id).runs.push({
        id: e.run.id,
        gpus: e.run.gpus,
        allocated_at: Date.parse(e.run.allocated_at),
        ended: e.run.ended_at !== null,
      });
    }
  }
  return out;
}

/**
 * Drains the outbox in order, one chunk at a time: into D1 (one batch, a transaction), then to the
 * objects of the users it concerns (`notify`), acknowledging the chunk only after both took it. Throws on
 * the first failure; what was not acknowledged is sent again later (both sides are idempotent).
 */
export async function drainOutbox(
  store: FleetStore,
  d1: D1Database,
  notify: (entries: readonly OutboxEntry[]) => Promise<void>,
  /** Fills what the entries need from elsewhere before they reach D1 (a victim's steps lost). */
  complete: (entries: OutboxEntry[]) => Promise<void> = async () => undefined,
): Promise<Drained> {
  const out: Drained = { flushed: 0, held: 0, deliveries: false };
  let after = 0;
  for (;;) {
    const rows = store.outboxBatch(BATCH_ENTRIES, after);
    if (rows.length === 0) return out;
    const from = after;
    after = rows[rows.length - 1]!.seq;
    // A job whose admission is not confirmed reaches neither D1 nor its user's object yet: its entries stay.
    const unconfirmed = store.unconfirmedJobs();
    const kept: number[] = [];
    const ready: OutboxEntry[] = [];
    for (const r of rows) {
      const entry = JSON.parse(r.payload) as OutboxEntry;
      const job = outboxJobId(entry);
      if (job !== null && unconfirmed.has(job)) kept.push(r.seq);
      else ready.push(entry);
    }
    out.held += kept.length;
    if (ready.length === 0) continue;
    const entries = withSpecs(store, latestSnapshots(ready));
    await complete(entries);
    const stmts = projectionStatements(d1, entries);
    if (stmts.length > 0) {
      const results = await d1.batch(stmts);
      if (results.some((r, i) => isFanout(stmts[i]!) && (r.meta.changes ?? 0) > 0)) out.deliveries = true;
      store.countD1Batch();
    }
    await notify(entries);
    store.ackOutbox(after, kept, from);
    out.flushed += ready.length;
  }
}
