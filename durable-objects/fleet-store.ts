/**
 * The Fleet DO's own SQLite schema and typed row access. Times are epoch milliseconds here (ISO strings
 * only at the D1 boundary). `gpu_alloc`'s primary key (node, index) makes double booking impossible at
 * the storage level, whatever the policy decides.
 */
import { SqlStore } from "./sql-store.js";

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
];

export const FLEET_SCHEMA_VERSION = MIGRATIONS.length;

export interface JobRow {
  [k: string]: SqlStorageValue;
  id: string;
  user_id: string;
  name: string;
  status: string;
  priority: number;
  queue_seq: number;
  gpus: number;
  recipe: string;
  spec: string;
  pending_reasons: string;
  current_run_id: string | null;
  attempt: number;
  version: number;
  event_seq: number;
  created_at: number;
  updated_at: number;
  capsule: string | null;
  launch: string | null;
}

export interface RunRow {
  [k: string]: SqlStorageValue;
  id: string;
  job_id: string;
  attempt: number;
  epoch: number;
  status: string;
  placement: string;
  gpus: number;
  user_id: string;
  allocated_at: number;
  ended_at: number | null;
  exit_code: number | null;
  reason: string | null;
  version: number;
}

export interface RankRow {
  [k: string]: SqlStorageValue;
  run_id: string;
  rank: number;
  node_id: string;
  pool: string;
  gpu_indices: string;
  /** pending (launch not acked) → accepted → launched → exited; `cancelled` if never acked before a stop. */
  state: string;
  exit_code: number | null;
  reason: string | null;
  updated_at: number;
}

export interface CommandRow {
  [k: string]: SqlStorageValue;
  id: string;
  node_id: string;
  run_id: string;
  rank: number;
  kind: string;
  payload: string;
  created_at: number;
  sent_at: number | null;
  acked_at: number | null;
}

export interface NodeRow {
  [k: string]: SqlStorageValue;
  id: string;
  name: string;
  series: string;
  gpus: number;
  status: string;
  runtime: string | null;
  labels: string;
  cpus: number | null;
  memory_mb: number | null;
  version: number;
  created_at: number;
  updated_at: number;
  agent: number;
  hostname: string | null;
  lost_since: number | null;
}

export interface TimerRow {
  [k: string]: SqlStorageValue;
  id: string;
  due_at: number;
  attempts: number;
}

export class FleetStore extends SqlStore {
  constructor(sql: SqlStorage) {
    super(sql, MIGRATIONS);
  }

  /** Monotonic counters kept in meta (queue order, lease epochs). */
  nextCounter(key: string): number {
    const n = Number(this.getMeta(key) ?? "0") + 1;
    this.setMeta(key, String(n));
    return n;
  }

  job(id: string): JobRow | null {
    return this.sql.exec<JobRow>("SELECT * FROM jobs WHERE id = ?", id).toArray()[0] ?? null;
  }

  jobsByStatus(status: string): JobRow[] {
    return this.sql.exec<JobRow>("SELECT * FROM jobs WHERE status = ? ORDER BY queue_seq", status).toArray();
  }

  run(id: string): RunRow | null {
    return this.sql.exec<RunRow>("SELECT * FROM runs WHERE id = ?", id).toArray()[0] ?? null;
  }

  /** The resolved resume checkpoint of a run (JSON, "null" for none), or undefined when not resolved yet. */
  runResume(runId: string): string | undefined {
    return this.sql.exec<{ body: string }>("SELECT body FROM run_resume WHERE run_id = ?", runId).toArray()[0]
      ?.body;
  }

  setRunResume(runId: string, body: string): void {
    this.sql.exec("INSERT OR IGNORE INTO run_resume (run_id, body) VALUES (?, ?)", runId, body);
  }

  runsOfJob(jobId: string): RunRow[] {
    return this.sql.exec<RunRow>("SELECT * FROM runs WHERE job_id = ? ORDER BY attempt", jobId).toArray();
  }

  /** Runs that overlap [since, now]: open ones and those that ended after `since`. */
  runsSince(since: number): RunRow[] {
    return this.sql
      .exec<RunRow>("SELECT * FROM runs WHERE ended_at IS NULL OR ended_at > ?", since)
      .toArray();
  }

  ranks(runId: string): RankRow[] {
    return this.sql.exec<RankRow>("SELECT * FROM run_ranks WHERE run_id = ? ORDER BY rank", runId).toArray();
  }

  /** Ranks on a node whose run still holds GPUs. */
  openRanksOn(nodeId: string): RankRow[] {
    return this.sql
      .exec<RankRow>(
        "SELECT rr.* FROM run_ranks rr JOIN runs r ON r.id = rr.run_id WHERE rr.node_id = ? AND r.ended_at IS NULL ORDER BY rr.run_id, rr.rank",
        nodeId,
      )
      .toArray();
  }

  setRank(
    runId: string,
    rank: number,
    state: string,
    exitCode: number | null,
    reason: string | null,
    now: number,
  ): void {
    this.sql.exec(
      "UPDATE run_ranks SET state = ?, exit_code = ?, reason = ?, updated_at = ? WHERE run_id = ? AND rank = ?",
      state,
      exitCode,
      reason,
      now,
      runId,
      rank,
    );
  }

  addCommand(c: Omit<CommandRow, "sent_at" | "acked_at">): void {
    this.sql.exec(
      "INSERT INTO commands (id, node_id, run_id, rank, kind, payload, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      c.id,
      c.node_id,
      c.run_id,
      c.rank,
      c.kind,
      c.payload,
      c.created_at,
    );
  }

  command(id: string): CommandRow | null {
    return this.sql.exec<CommandRow>("SELECT * FROM commands WHERE id = ?", id).toArray()[0] ?? null;
  }

  /** Unacknowledged commands for a node, oldest first. */
  openCommands(nodeId: string): CommandRow[] {
    return this.sql
      .exec<CommandRow>(
        "SELECT * FROM commands WHERE node_id = ? AND acked_at IS NULL ORDER BY created_at, id",
        nodeId,
      )
      .toArray();
  }

  ackCommand(id: string, now: number): void {
    this.sql.exec("UPDATE commands SET acked_at = ? WHERE id = ? AND acked_at IS NULL", now, id);
  }

  /**
   * Opens a run rank's acknowledged launch again, so it is re-sent: the agent acked it but came back
   * without it (it never journaled it). Returns whether there was one to reopen.
   */
  reopenLaunch(runId: string, rank: number, nodeId: string): boolean {
    const rows = this.sql
      .exec(
        `UPDATE commands SET acked_at = NULL, sent_at = NULL
         WHERE run_id = ? AND rank = ? AND node_id = ? AND kind = 'launch' AND acked_at IS NOT NULL
         RETURNING id`,
        runId,
        rank,
        nodeId,
      )
      .toArray();
    return rows.length > 0;
  }

  /** Closes every open command of a run rank (its run ended or a stop superseded the launch). */
  settleCommands(runId: string, rank: number, kind: string, now: number): void {
    this.sql.exec(
      "UPDATE commands SET acked_at = ? WHERE run_id = ? AND rank = ? AND kind = ? AND acked_at IS NULL",
      now,
      runId,
      rank,
      kind,
    );
  }

  markSent(id: string, now: number): void {
    this.sql.exec("UPDATE commands SET sent_at = ? WHERE id = ?", now, id);
  }

  hasOpenCommands(): boolean {
    return (
      this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM commands WHERE acked_at IS NULL").one().n > 0
    );
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

  allocations(): Array<{ node_id: string; idx: number; run_id: string }> {
    return this.sql
      .exec<{ node_id: string; idx: number; run_id: string }>(
        "SELECT node_id, idx, run_id FROM gpu_alloc ORDER BY node_id, idx",
      )
      .toArray();
  }

  allocatedOn(nodeId: string): number[] {
    return this.sql
      .exec<{ idx: number }>("SELECT idx FROM gpu_alloc WHERE node_id = ? ORDER BY idx", nodeId)
      .toArray()
      .map((r) => r.idx);
  }

  quotaBody(userId: string): string | null {
    return (
      this.sql.exec<{ body: string }>("SELECT body FROM quotas WHERE user_id = ?", userId).toArray()[0]
        ?.body ?? null
    );
  }

  setQuota(userId: string, body: string): void {
    this.sql.exec(
      "INSERT INTO quotas (user_id, body) VALUES (?, ?) ON CONFLICT(user_id) DO UPDATE SET body = excluded.body",
      userId,
      body,
    );
  }

  // outbox ------------------------------------------------------------------

  enqueue(payload: unknown, now: number): void {
    this.sql.exec("INSERT INTO outbox (payload, created_at) VALUES (?, ?)", JSON.stringify(payload), now);
  }

  outboxBatch(limit: number): Array<{ seq: number; payload: string }> {
    return this.sql
      .exec<{ seq: number; payload: string }>("SELECT seq, payload FROM outbox ORDER BY seq LIMIT ?", limit)
      .toArray();
  }

  outboxSize(): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM outbox").one().n;
  }

  ackOutbox(upToSeq: number): void {
    this.sql.exec("DELETE FROM outbox WHERE seq <= ?", upToSeq);
  }

  // timers ------------------------------------------------------------------

  /** Sets a timer to fire at `dueAt`, keeping an earlier due time if one is already set. */
  setTimer(id: string, dueAt: number, attempts = 0): void {
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
    this.sql.exec("DELETE FROM timers WHERE id = ?", id);
  }

  nextTimerDue(): number | null {
    return this.sql.exec<{ due: number | null }>("SELECT MIN(due_at) AS due FROM timers").one().due;
  }
}
