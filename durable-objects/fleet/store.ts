/**
 * The Fleet DO's SQLite: its schema, the reads the rules make (`FleetState`) and the one applier of
 * their effects (`apply`). `gpu_alloc`'s primary key (node, index) makes double booking impossible at
 * the storage level, whatever a rule decides: a second booking throws and aborts the transaction.
 * Everything here runs inside the DO's `transactionSync`.
 */

import { SqlStore } from "../sql-store.js";
import { isPerJobKey } from "./keys.js";
import { Memo } from "./memo.js";
import { type OutboxEntry, outboxJobId } from "./outbox-entry.js";
import type { AllocRow, CommandRow, JobRow, NodeRow, RankRow, RunRow, TimerRow } from "./rows.js";
import type { FleetEffect, Ledger, Unconfirmed } from "./state.js";

/**
 * Append-only schema steps: step N brings a store from version N-1 to N. Never edit a shipped step;
 * add one. The version lives in meta.schema_version.
 */
const MIGRATIONS: string[][] = [
  [
    `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
    `CREATE TABLE nodes (
       id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, series TEXT NOT NULL, gpus INTEGER NOT NULL,
       status TEXT NOT NULL, runtime TEXT, labels TEXT NOT NULL DEFAULT '{}', cpus INTEGER, memory_mb INTEGER,
       version INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`,
    `CREATE TABLE gpu_alloc (node_id TEXT NOT NULL, idx INTEGER NOT NULL, run_id TEXT NOT NULL, PRIMARY KEY (node_id, idx))`,
    `CREATE INDEX gpu_alloc_run ON gpu_alloc (run_id)`,
    `CREATE TABLE jobs (
       id TEXT PRIMARY KEY, user_id TEXT NOT NULL, name TEXT NOT NULL, status TEXT NOT NULL,
       priority INTEGER NOT NULL, queue_seq INTEGER NOT NULL, gpus INTEGER NOT NULL, recipe TEXT NOT NULL,
       spec TEXT NOT NULL, pending_reasons TEXT NOT NULL DEFAULT '[]', current_run_id TEXT,
       attempt INTEGER NOT NULL DEFAULT 0, version INTEGER NOT NULL, event_seq INTEGER NOT NULL,
       created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`,
    `CREATE INDEX jobs_status ON jobs (status, priority, queue_seq)`,
    `CREATE TABLE runs (
       id TEXT PRIMARY KEY, job_id TEXT NOT NULL, attempt INTEGER NOT NULL, epoch INTEGER NOT NULL,
       status TEXT NOT NULL, placement TEXT NOT NULL, gpus INTEGER NOT NULL, user_id TEXT NOT NULL,
       allocated_at INTEGER NOT NULL, ended_at INTEGER, exit_code INTEGER, reason TEXT, version INTEGER NOT NULL)`,
    `CREATE INDEX runs_open ON runs (ended_at)`,
    `CREATE TABLE quotas (user_id TEXT PRIMARY KEY, body TEXT NOT NULL)`,
    `CREATE TABLE outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, payload TEXT NOT NULL, created_at INTEGER NOT NULL)`,
    `CREATE TABLE timers (id TEXT PRIMARY KEY, due_at INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0)`,
  ],
  [
    // Agents: nodes that dial in, one row per rank of a run, and commands re-sent until acked.
    `ALTER TABLE nodes ADD COLUMN agent INTEGER NOT NULL DEFAULT 0`,
    `ALTER TABLE nodes ADD COLUMN hostname TEXT`,
    `ALTER TABLE nodes ADD COLUMN lost_since INTEGER`,
    `ALTER TABLE jobs ADD COLUMN capsule TEXT`,
    `ALTER TABLE jobs ADD COLUMN launch TEXT`,
    `CREATE TABLE run_ranks (
       run_id TEXT NOT NULL, rank INTEGER NOT NULL, node_id TEXT NOT NULL, pool TEXT NOT NULL,
       gpu_indices TEXT NOT NULL, state TEXT NOT NULL, exit_code INTEGER, reason TEXT,
       updated_at INTEGER NOT NULL, PRIMARY KEY (run_id, rank))`,
    `CREATE INDEX run_ranks_node ON run_ranks (node_id, state)`,
    `CREATE TABLE commands (
       id TEXT PRIMARY KEY, node_id TEXT NOT NULL, run_id TEXT NOT NULL, rank INTEGER NOT NULL,
       kind TEXT NOT NULL, payload TEXT NOT NULL, created_at INTEGER NOT NULL, sent_at INTEGER,
       acked_at INTEGER)`,
    `CREATE INDEX commands_open ON commands (node_id, acked_at)`,
  ],
  [
    // The checkpoint a run continues from, resolved once when its first launch frame is built ("null":
    // resolved, nothing to resume), so every rank and every re-sent launch carries the same one.
    `CREATE TABLE run_resume (run_id TEXT PRIMARY KEY, body TEXT NOT NULL)`,
  ],
  [
    // Distributed jobs: the address an agent's peers reach its node at.
    `ALTER TABLE nodes ADD COLUMN advertise_addr TEXT`,
  ],
  [
    // Cluster agents (Slurm): one agent fronts many nodes; a node's status says why it takes no runs.
    `ALTER TABLE nodes ADD COLUMN agent_id TEXT`,
    `ALTER TABLE nodes ADD COLUMN status_reason TEXT`,
    // What it runs (JSON ["image","bare"]); null: by its runtime.
    `ALTER TABLE nodes ADD COLUMN workloads TEXT`,
    `CREATE INDEX nodes_agent ON nodes (agent_id)`,
  ],
  [
    // Fleet scale: the unacknowledged commands are found without reading every command ever sent.
    `CREATE INDEX commands_unacked ON commands (acked_at, node_id)`,
  ],
  [
    // A submit reads a job's abandoned mark only once the fleet has any (keys.ts ANY_ABANDONED).
    `INSERT INTO meta (key, value) SELECT 'abandoned_any', '1'
       WHERE EXISTS (SELECT 1 FROM meta WHERE key >= 'abandoned:' AND key < 'abandoned;')`,
  ],
  [
    // The outbox numbers its entries by rowid, not AUTOINCREMENT: that rewrote sqlite_sequence, one more
    // page in every transaction's WAL. A number may come back once the outbox is empty, which is harmless:
    // the one flush at a time acknowledges only entries it read, and every entry written after that read
    // is numbered above them (decision 118).
    `CREATE TABLE outbox_v8 (seq INTEGER PRIMARY KEY, payload TEXT NOT NULL, created_at INTEGER NOT NULL)`,
    `INSERT INTO outbox_v8 (seq, payload, created_at) SELECT seq, payload, created_at FROM outbox`,
    `DROP TABLE outbox`,
    `ALTER TABLE outbox_v8 RENAME TO outbox`,
    `DELETE FROM sqlite_sequence WHERE name = 'outbox'`,
  ],
  [
    // Admissions queued beside their reservation wait for its confirmation (rows.ts JobRow.unconfirmed).
    `ALTER TABLE jobs ADD COLUMN unconfirmed INTEGER NOT NULL DEFAULT 0`,
  ],
  [
    // Priority classes and preemption (rules/preempt.ts): a job's class, and when its run started running.
    `ALTER TABLE jobs ADD COLUMN priority_class TEXT NOT NULL DEFAULT 'normal'`,
    `ALTER TABLE runs ADD COLUMN started_at INTEGER`,
  ],
  [
    // Teams (rules/teams.ts): the team a job runs for, and whether a run borrowed beyond its guarantee.
    `ALTER TABLE jobs ADD COLUMN team TEXT`,
    `ALTER TABLE runs ADD COLUMN borrowed INTEGER NOT NULL DEFAULT 0`,
  ],
];

export const FLEET_SCHEMA_VERSION = MIGRATIONS.length;

/** Meta key: D1 batches the outbox flushes wrote, ever. */
export const D1_BATCHES = "d1_batches";

const JOB_COLUMNS = [
  "id",
  "user_id",
  "name",
  "status",
  "priority",
  "queue_seq",
  "gpus",
  "recipe",
  "spec",
  "pending_reasons",
  "current_run_id",
  "attempt",
  "version",
  "event_seq",
  "created_at",
  "updated_at",
  "capsule",
  "launch",
  "unconfirmed",
  "priority_class",
  "team",
] as const;
const RUN_COLUMNS = [
  "id",
  "job_id",
  "attempt",
  "epoch",
  "status",
  "placement",
  "gpus",
  "user_id",
  "allocated_at",
  "ended_at",
  "exit_code",
  "reason",
  "version",
  "started_at",
  "borrowed",
] as const;
const RANK_COLUMNS = [
  "run_id",
  "rank",
  "node_id",
  "pool",
  "gpu_indices",
  "state",
  "exit_code",
  "reason",
  "updated_at",
] as const;
const NODE_COLUMNS = [
  "id",
  "name",
  "series",
  "gpus",
  "status",
  "runtime",
  "labels",
  "cpus",
  "memory_mb",
  "version",
  "created_at",
  "updated_at",
  "agent",
  "hostname",
  "lost_since",
  "advertise_addr",
  "agent_id",
  "status_reason",
  "workloads",
] as const;

/** `INSERT … ON CONFLICT (key) DO UPDATE SET every other column (but `keep`)`: a whole row written. */
function upsertSql(table: string, columns: readonly string[], key: string[], keep: string[] = []): string {
  const updates = columns
    .filter((c) => !key.includes(c) && !keep.includes(c))
    .map((c) => `${c} = excluded.${c}`);
  return `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})
    ON CONFLICT (${key.join(", ")}) DO UPDATE SET ${updates.join(", ")}`;
}

const UPSERT = {
  job: upsertSql("jobs", JOB_COLUMNS, ["id"]),
  run: upsertSql("runs", RUN_COLUMNS, ["id"]),
  rank: upsertSql("run_ranks", RANK_COLUMNS, ["run_id", "rank"]),
  node: upsertSql("nodes", NODE_COLUMNS, ["id"], ["created_at"]),
};

function values<R extends Record<string, unknown>>(
  row: R,
  columns: readonly (keyof R & string)[],
): SqlStorageValue[] {
  return columns.map((c) => row[c] as SqlStorageValue);
}

/** Rows per multi-row outbox INSERT: two bound parameters each, and a statement binds at most 100. */
const OUTBOX_ROWS_PER_INSERT = 50;

export class FleetStore extends SqlStore implements Ledger {
  steady = false;
  readonly memo = new Memo();
  readonly issued = new Map<string, number>();

  // Inside a transaction, job rows and outbox entries are held back and written once, before it commits:
  // a submit writes its job three times (queued, its event counted, its pending reasons) and its outbox
  // entries one by one, and every read of them goes through here.
  private readonly heldJobs = new Map<string, JobRow>();
  private readonly heldOutbox: SqlStorageValue[] = [];
  /** Each user's quota body as last read or written (one row per user; read twice by every submit). */
  private readonly quotas = new Map<string, string | null>();
  /** The earliest timer (undefined: not known). */
  private nextDue: number | null | undefined = undefined;
  /**
   * The jobs queued unconfirmed (rows.ts JobRow.unconfirmed), with their user and admission time (null:
   * not read since the object started, or since a rollback).
   */
  private unconfirmed: Map<string, Unconfirmed> | null = null;
  /** No command is open (learnt from a read, forgotten when one may have opened). */
  private noOpenCommands = false;

  constructor(sql: SqlStorage) {
    super(sql, MIGRATIONS);
  }

  protected override beforeCommit(): void {
    this.writeHeld();
  }

  protected override rolledBack(): void {
    this.heldJobs.clear();
    this.heldOutbox.length = 0;
    this.quotas.clear();
    this.nextDue = undefined;
    this.noOpenCommands = false;
    this.unconfirmed = null;
    this.memo.clear();
    this.issued.clear();
  }

  /** Writes the held-back job rows and outbox entries (before a read that needs them, and at commit). */
  private writeHeld(): void {
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

  // FleetState: what the rules read ---------------------------------------------------

  meta(key: string): string | null {
    // A job's own keys (its abandoned mark is read on every submit) are not cached: one entry per job.
    return isPerJobKey(key) ? this.peekMeta(key) : this.getMeta(key);
  }

  job(id: string): JobRow | null {
    const held = this.heldJobs.get(id);
    if (held) return { ...held };
    return this.sql.exec<JobRow>("SELECT * FROM jobs WHERE id = ?", id).toArray()[0] ?? null;
  }

  jobExists(id: string): boolean {
    return this.heldJobs.has(id) || this.sql.exec("SELECT 1 FROM jobs WHERE id = ?", id).toArray().length > 0;
  }

  queuedCount(): number {
    this.writeHeld();
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM jobs WHERE status = 'QUEUED'").one().n;
  }

  jobsByStatus(status: string): JobRow[] {
    this.writeHeld();
    return this.sql.exec<JobRow>("SELECT * FROM jobs WHERE status = ? ORDER BY queue_seq", status).toArray();
  }

  run(id: string): RunRow | null {
    return this.sql.exec<RunRow>("SELECT * FROM runs WHERE id = ?", id).toArray()[0] ?? null;
  }

  runResume(runId: string): string | undefined {
    return this.sql.exec<{ body: string }>("SELECT body FROM run_resume WHERE run_id = ?", runId).toArray()[0]
      ?.body;
  }

  runsOfJob(jobId: string): RunRow[] {
    return this.sql.exec<RunRow>("SELECT * FROM runs WHERE job_id = ? ORDER BY attempt", jobId).toArray();
  }

  runsSince(since: number): RunRow[] {
    return this.sql
      .exec<RunRow>("SELECT * FROM runs WHERE ended_at IS NULL OR ended_at > ?", since)
      .toArray();
  }

  ranks(runId: string): RankRow[] {
    return this.sql.exec<RankRow>("SELECT * FROM run_ranks WHERE run_id = ? ORDER BY rank", runId).toArray();
  }

  openRanksOn(nodeId: string): RankRow[] {
    return this.sql
      .exec<RankRow>(
        `SELECT rr.* FROM run_ranks rr JOIN runs r ON r.id = rr.run_id
         WHERE rr.node_id = ? AND r.ended_at IS NULL ORDER BY rr.run_id, rr.rank`,
        nodeId,
      )
      .toArray();
  }

  command(id: string): CommandRow | null {
    return this.sql.exec<CommandRow>("SELECT * FROM commands WHERE id = ?", id).toArray()[0] ?? null;
  }

  openCommands(nodeId: string): CommandRow[] {
    return this.sql
      .exec<CommandRow>(
        "SELECT * FROM commands WHERE node_id = ? AND acked_at IS NULL ORDER BY created_at, id",
        nodeId,
      )
      .toArray();
  }

  node(id: string): NodeRow | null {
    return this.sql.exec<NodeRow>("SELECT * FROM nodes WHERE id = ?", id).toArray()[0] ?? null;
  }

  nodeByName(name: string): NodeRow | null {
    return this.sql.exec<NodeRow>("SELECT * FROM nodes WHERE name = ?", name).toArray()[0] ?? null;
  }

  nodes(): NodeRow[] {
    return this.sql.exec<NodeRow>("SELECT * FROM nodes ORDER BY name").toArray();
  }

  nodesOfAgent(agentId: string): NodeRow[] {
    return this.sql.exec<NodeRow>("SELECT * FROM nodes WHERE agent_id = ? ORDER BY name", agentId).toArray();
  }

  allocations(): AllocRow[] {
    return this.sql
      .exec<AllocRow>("SELECT node_id, idx, run_id FROM gpu_alloc ORDER BY node_id, idx")
      .toArray();
  }

  usedGpus(): Map<string, number[]> {
    // One row per node, grouped by SQLite: a thousand full nodes are a thousand rows, not eight thousand.
    const rows = this.sql
      .exec<{ node_id: string; used: string }>(
        "SELECT node_id, json_group_array(idx) AS used FROM gpu_alloc GROUP BY node_id",
      )
      .toArray();
    return new Map(rows.map((r) => [r.node_id, JSON.parse(r.used) as number[]]));
  }

  allocatedOn(nodeId: string): number[] {
    return this.sql
      .exec<{ idx: number }>("SELECT idx FROM gpu_alloc WHERE node_id = ? ORDER BY idx", nodeId)
      .toArray()
      .map((r) => r.idx);
  }

  quotaBody(userId: string): string | null {
    const known = this.quotas.get(userId);
    if (known !== undefined) return known;
    const body =
      this.sql.exec<{ body: string }>("SELECT body FROM quotas WHERE user_id = ?", userId).toArray()[0]
        ?.body ?? null;
    this.quotas.set(userId, body);
    return body;
  }

  // the one applier ---------------------------------------------------------------------

  apply(e: FleetEffect): void {
    this.memo.changed(e);
    switch (e.kind) {
      case "meta":
        if (e.value === null) this.deleteMeta(e.key);
        else this.setMeta(e.key, e.value);
        return;
      case "job":
        if (e.row.unconfirmed) this.unconfirmed?.set(e.row.id, { user: e.row.user_id, at: e.row.created_at });
        else this.unconfirmed?.delete(e.row.id);
        if (this.inTransaction) this.heldJobs.set(e.row.id, { ...e.row });
        else this.sql.exec(UPSERT.job, ...values(e.row, JOB_COLUMNS));
        return;
      case "run":
        this.sql.exec(UPSERT.run, ...values(e.row, RUN_COLUMNS));
        return;
      case "rank":
        this.sql.exec(UPSERT.rank, ...values(e.row, RANK_COLUMNS));
        return;
      case "node":
        this.sql.exec(UPSERT.node, ...values(e.row, NODE_COLUMNS));
        return;
      case "node_gone":
        this.sql.exec("DELETE FROM nodes WHERE id = ?", e.id);
        return;
      case "confirmed": {
        for (const id of e.ids) {
          this.unconfirmed?.delete(id);
          const held = this.heldJobs.get(id);
          if (held) held.unconfirmed = 0;
        }
        this.sql.exec(
          "UPDATE jobs SET unconfirmed = 0 WHERE id IN (SELECT value FROM json_each(?))",
          JSON.stringify(e.ids),
        );
        return;
      }
      case "job_gone": {
        // With its run (GPUs, ranks, unsent commands) and the entries it left in the outbox, all held back
        // from agents and D1 while it was unconfirmed.
        this.writeHeld();
        this.unconfirmed?.delete(e.id);
        const run = this.sql
          .exec<{ id: string | null }>("SELECT current_run_id AS id FROM jobs WHERE id = ?", e.id)
          .toArray()[0]?.id;
        if (run) {
          for (const table of ["gpu_alloc", "run_ranks", "commands", "run_resume"])
            this.sql.exec(`DELETE FROM ${table} WHERE run_id = ?`, run);
          this.sql.exec("DELETE FROM runs WHERE id = ?", run);
        }
        this.sql.exec("DELETE FROM jobs WHERE id = ?", e.id);
        this.sql.exec(
          `DELETE FROM outbox WHERE json_extract(payload, '$.job.id') = ?1
             OR json_extract(payload, '$.event.job_id') = ?1 OR json_extract(payload, '$.job_id') = ?1
             OR json_extract(payload, '$.run.job_id') = ?1`,
          e.id,
        );
        return;
      }
      case "quota":
        this.sql.exec(
          "INSERT INTO quotas (user_id, body) VALUES (?, ?) ON CONFLICT(user_id) DO UPDATE SET body = excluded.body",
          e.user_id,
          e.body,
        );
        this.quotas.set(e.user_id, e.body);
        return;
      case "alloc":
        // No OR IGNORE: the primary key refuses a double booking and aborts the transaction.
        this.sql.exec(
          "INSERT INTO gpu_alloc (node_id, idx, run_id) VALUES (?, ?, ?)",
          e.alloc.node_id,
          e.alloc.idx,
          e.alloc.run_id,
        );
        return;
      case "free":
        this.sql.exec("DELETE FROM gpu_alloc WHERE run_id = ?", e.run_id);
        return;
      case "command":
        this.noOpenCommands = false;
        this.sql.exec(
          "INSERT INTO commands (id, node_id, run_id, rank, kind, payload, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
          e.row.id,
          e.row.node_id,
          e.row.run_id,
          e.row.rank,
          e.row.kind,
          e.row.payload,
          e.row.created_at,
        );
        return;
      case "settle":
        if (e.rank === null)
          this.sql.exec(
            "UPDATE commands SET acked_at = ? WHERE run_id = ? AND kind = ? AND acked_at IS NULL",
            e.at,
            e.run_id,
            e.command,
          );
        else
          this.sql.exec(
            "UPDATE commands SET acked_at = ? WHERE run_id = ? AND rank = ? AND kind = ? AND acked_at IS NULL",
            e.at,
            e.run_id,
            e.rank,
            e.command,
          );
        return;
      case "ack":
        this.sql.exec("UPDATE commands SET acked_at = ? WHERE id = ? AND acked_at IS NULL", e.at, e.id);
        return;
      case "reopen":
        this.noOpenCommands = false;
        this.sql.exec(
          `UPDATE commands SET acked_at = NULL, sent_at = NULL
           WHERE run_id = ? AND rank = ? AND node_id = ? AND kind = 'launch' AND acked_at IS NOT NULL`,
          e.run_id,
          e.rank,
          e.node_id,
        );
        return;
      case "sent":
        this.sql.exec("UPDATE commands SET sent_at = ? WHERE id = ?", e.at, e.id);
        return;
      case "timer":
        if (e.due === null) this.deleteTimer(e.id);
        else this.setTimer(e.id, e.due);
        return;
      case "outbox":
        if (this.inTransaction) this.heldOutbox.push(JSON.stringify(e.entry), e.at);
        else this.enqueue(e.entry, e.at);
        return;
      case "resume":
        this.sql.exec("INSERT OR IGNORE INTO run_resume (run_id, body) VALUES (?, ?)", e.run_id, e.body);
        return;
    }
  }

  // the adapter's own rows: command sending, the outbox flush, timers --------------------

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

  /** Every entry waiting for D1 is held back (its job's admission is unconfirmed); true when none waits. */
  outboxHeldOnly(): boolean {
    this.writeHeld();
    const unconfirmed = this.unconfirmedJobs();
    if (unconfirmed.size === 0) return this.outboxEmpty();
    for (const r of this.sql.exec<{ payload: string }>("SELECT payload FROM outbox")) {
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
