/**
 * The Fleet DO store's adapter side (store.ts `FleetStore` extends it): the rows the object itself reads
 * and writes around the rules' decisions (command sending, the outbox flush to D1, timers, the admissions
 * queued unconfirmed), and the job rows and outbox entries a transaction holds back until it commits.
 */

import { SqlStore } from "../sql-store.js";
import { type OutboxEntry, outboxJobId } from "./outbox-entry.js";
import type { JobRow, TimerRow } from "./rows.js";
import type { Unconfirmed } from "./state.js";
import { FLEET_MIGRATIONS, JOB_COLUMNS, UPSERT, values } from "./store-schema.js";

/** Meta key: D1 batches the outbox flushes wrote, ever. */
export const D1_BATCHES = "d1_batches";

/** Rows per multi-row outbox INSERT: two bound parameters each, and a statement binds at most 100. */
const OUTBOX_ROWS_PER_INSERT = 50;

export abstract class FleetAdapterStore extends SqlStore {
  // Inside a transaction, job rows and outbox entries are held back and written once, before it commits:
  // a submit writes its job three times (queued, its event counted, its pending reasons) and its outbox
  // entries one by one, and every read of them goes through here.
  protected readonly heldJobs = new Map<string, JobRow>();
  protected readonly heldOutbox: SqlStorageValue[] = [];
  /** The earliest timer (undefined: not known). */
  private nextDue: number | null | undefined = undefined;
  /**
   * The jobs queued unconfirmed (rows.ts JobRow.unconfirmed), with their user and admission time (null:
   * not read since the object started, or since a rollback).
   */
  protected unconfirmed: Map<string, Unconfirmed> | null = null;
  /** No command is open (learnt from a read, forgotten when one may have opened). */
  protected noOpenCommands = false;

  constructor(sql: SqlStorage) {
    super(sql, FLEET_MIGRATIONS);
  }

  protected override beforeCommit(): void {
    this.writeHeld();
  }

  protected override rolledBack(): void {
    this.heldJobs.clear();
    this.heldOutbox.length = 0;
    this.nextDue = undefined;
    this.noOpenCommands = false;
    this.unconfirmed = null;
  }

  /** Writes the held-back job rows and outbox entries (before a read that needs them, and at commit). */
  protected writeHeld(): void {
    for (const row of this.heldJobs.values()) this.sql.exec(UPSERT.job, ...values(row, JOB_COLUMNS));
    this.heldJobs.clear();
    const rows = this.heldOutbox;
    for (let i = 0; i < rows.length; i += 2 * OUTBOX_ROWS_PER_INSERT) {
      const chunk = rows.slice(i, i + 2 * OUTBOX_ROWS_PER_INSERT);
      const marks = Array.from({ length: chunk.length / 2 }, () => "(?, ?)").join(", ");
      this.sql.exec(`INSERT INTO outbox (payload, created_at) VALUES ${marks}`, ...chunk);
    }
    rows.length = 0;
  }

  /** Every job id with its status, in queue order (tests and reconciliation). */
  jobStatuses(): Array<{ id: string; status: string }> {
    this.writeHeld();
    return this.sql
      .exec<{ id: string; status: string }>("SELECT id, status FROM jobs ORDER BY queue_seq")
      .toArray();
  }

  hasOpenCommands(): boolean {
    if (this.noOpenCommands) return false;
    return this.sql.exec("SELECT 1 FROM commands WHERE acked_at IS NULL LIMIT 1").toArray().length > 0;
  }

  /** Nodes with unacknowledged commands. */
  openCommandNodes(): string[] {
    if (this.noOpenCommands) return [];
    const nodes = this.sql
      .exec<{ node_id: string }>("SELECT DISTINCT node_id FROM commands WHERE acked_at IS NULL")
      .toArray()
      .map((r) => r.node_id);
    // Outside a transaction only: inside one, a rollback could undo the acks this rests on.
    if (nodes.length === 0 && !this.inTransaction) this.noOpenCommands = true;
    return nodes;
  }

  enqueue(payload: OutboxEntry, now: number): void {
    this.sql.exec("INSERT INTO outbox (payload, created_at) VALUES (?, ?)", JSON.stringify(payload), now);
  }

  /**
   * Of the jobs named with a version, those held here at a newer one: status and version by job id. One
   * statement, no JobSpec read.
   */
  jobsMoved(
    known: ReadonlyArray<readonly [string, number]>,
  ): Map<string, { status: string; version: number }> {
    this.writeHeld();
    const rows = this.sql
      .exec<{ id: string; status: string; version: number }>(
        `SELECT j.id, j.status, j.version FROM json_each(?) AS k
         JOIN jobs AS j ON j.id = json_extract(k.value, '$[0]')
         WHERE j.version > json_extract(k.value, '$[1]')`,
        JSON.stringify(known),
      )
      .toArray();
    return new Map(rows.map((r) => [r.id, { status: r.status, version: r.version }]));
  }

  /** The JobSpecs (JSON) of the given jobs, by job id. */
  specsOf(jobIds: readonly string[]): Map<string, string> {
    this.writeHeld();
    const rows = this.sql
      .exec<{ id: string; spec: string }>(
        "SELECT id, spec FROM jobs WHERE id IN (SELECT value FROM json_each(?))",
        JSON.stringify(jobIds),
      )
      .toArray();
    return new Map(rows.map((r) => [r.id, r.spec]));
  }

  /** Up to `limit` outbox entries numbered above `after`, in order. */
  outboxBatch(limit: number, after = 0): Array<{ seq: number; payload: string }> {
    this.writeHeld();
    return this.sql
      .exec<{ seq: number; payload: string }>(
        "SELECT seq, payload FROM outbox WHERE seq > ? ORDER BY seq LIMIT ?",
        after,
        limit,
      )
      .toArray();
  }

  /**
   * The jobs queued unconfirmed: their outbox entries and commands wait for the confirmation. An
   * unconfirmed job is QUEUED, SUBMITTED (placed, its launch held back) or PAUSED by a drain or window (no
   * action applies to it), so the queue index finds them all.
   */
  unconfirmedJobs(): ReadonlyMap<string, Unconfirmed> {
    if (!this.unconfirmed) {
      this.writeHeld();
      this.unconfirmed = new Map(
        this.sql
          .exec<{ id: string; user_id: string; created_at: number }>(
            "SELECT id, user_id, created_at FROM jobs WHERE status IN ('QUEUED', 'SUBMITTED', 'PAUSED') AND unconfirmed = 1",
          )
          .toArray()
          .map((r) => [r.id, { user: r.user_id, at: r.created_at }]),
      );
    }
    return this.unconfirmed;
  }

  unconfirmedJob(id: string): Unconfirmed | null {
    return this.unconfirmedJobs().get(id) ?? null;
  }

  /** Nothing waits for D1 (one row read, where counting them reads them all). */
  outboxEmpty(): boolean {
    this.writeHeld();
    return this.sql.exec("SELECT 1 FROM outbox LIMIT 1").toArray().length === 0;
  }

  /**
   * Every entry waiting for D1 is held back (its job's admission is unconfirmed); true when none waits.
   * With `madeBy` (a time), only the entries made by then count: those of the changes before a read.
   * (Entry numbers cannot say it: they start again at 1 once the outbox is empty.)
   */
  outboxHeldOnly(madeBy = Number.MAX_SAFE_INTEGER): boolean {
    this.writeHeld();
    const unconfirmed = this.unconfirmedJobs();
    if (unconfirmed.size === 0)
      return (
        this.sql.exec("SELECT 1 FROM outbox WHERE created_at <= ? LIMIT 1", madeBy).toArray().length === 0
      );
    const rows = this.sql.exec<{ payload: string }>(
      "SELECT payload FROM outbox WHERE created_at <= ?",
      madeBy,
    );
    for (const r of rows) {
      const job = outboxJobId(JSON.parse(r.payload) as OutboxEntry);
      if (job === null || !unconfirmed.has(job)) return false;
    }
    return true;
  }

  outboxSize(): number {
    this.writeHeld();
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM outbox").one().n;
  }

  /** One more D1 transaction written by the flush (GET /v1/admin/metrics: D1 writes per admission). */
  countD1Batch(): void {
    this.setMeta(D1_BATCHES, String(Number(this.getMeta(D1_BATCHES) ?? "0") + 1));
  }

  /**
   * The entries numbered above `after` and up to `upToSeq` (one batch of a drain) reached D1, except those
   * numbered in `kept` (held back; an earlier batch's held-back entries lie below `after`, untouched).
   */
  ackOutbox(upToSeq: number, kept: readonly number[] = [], after = 0): void {
    if (kept.length === 0) this.sql.exec("DELETE FROM outbox WHERE seq > ? AND seq <= ?", after, upToSeq);
    else
      this.sql.exec(
        "DELETE FROM outbox WHERE seq > ? AND seq <= ? AND seq NOT IN (SELECT value FROM json_each(?))",
        after,
        upToSeq,
        JSON.stringify(kept),
      );
  }

  /** Sets a timer to fire at `dueAt`, keeping an earlier due time if one is already set. */
  setTimer(id: string, dueAt: number, attempts = 0): void {
    if (this.nextDue !== undefined)
      this.nextDue = this.nextDue === null ? dueAt : Math.min(this.nextDue, dueAt);
    this.sql.exec(
      `INSERT INTO timers (id, due_at, attempts) VALUES (?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET due_at = MIN(due_at, excluded.due_at), attempts = excluded.attempts`,
      id,
      dueAt,
      attempts,
    );
  }

  dueTimers(now: number): TimerRow[] {
    return this.sql.exec<TimerRow>("SELECT * FROM timers WHERE due_at <= ? ORDER BY due_at", now).toArray();
  }

  deleteTimer(id: string): void {
    this.nextDue = undefined;
    this.sql.exec("DELETE FROM timers WHERE id = ?", id);
  }

  nextTimerDue(): number | null {
    if (this.nextDue === undefined)
      this.nextDue = this.sql.exec<{ due: number | null }>("SELECT MIN(due_at) AS due FROM timers").one().due;
    return this.nextDue;
  }
}
