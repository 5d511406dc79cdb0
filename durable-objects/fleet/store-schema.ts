/**
 * The Fleet DO's SQLite schema (its append-only steps) and the statements that write a row whole, shared
 * by the store's applier (store.ts) and its held-back job rows (adapter-store.ts).
 */

/**
 * Append-only schema steps: step N brings a store from version N-1 to N. Never edit a shipped step;
 * add one. The version lives in meta.schema_version.
 */
export const FLEET_MIGRATIONS: string[][] = [
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

export const FLEET_SCHEMA_VERSION = FLEET_MIGRATIONS.length;

export const JOB_COLUMNS = [
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
export const RUN_COLUMNS = [
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
export const RANK_COLUMNS = [
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
export const NODE_COLUMNS = [
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

export const UPSERT = {
  job: upsertSql("jobs", JOB_COLUMNS, ["id"]),
  run: upsertSql("runs", RUN_COLUMNS, ["id"]),
  rank: upsertSql("run_ranks", RANK_COLUMNS, ["run_id", "rank"]),
  node: upsertSql("nodes", NODE_COLUMNS, ["id"], ["created_at"]),
};

export function values<R extends Record<string, unknown>>(
  row: R,
  columns: readonly (keyof R & string)[],
): SqlStorageValue[] {
  return columns.map((c) => row[c] as SqlStorageValue);
}
