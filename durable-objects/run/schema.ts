/**
 * The Run DO's SQLite schema. One object holds one run, so no table carries a run id. Times are epoch
 * milliseconds. Every write is keyed so that a replayed request rewrites the same rows.
 */
/**
 * Append-only schema steps: step N brings a store from version N-1 to N. Never edit a shipped step;
 * add one. The version lives in meta.schema_version.
 */
export const RUN_MIGRATIONS: string[][] = [
  [
    `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
    // next_seq: every seq below it is released or skipped; high_seq: one past the highest seq stored
    // (where a batch without seq continues); held: lines stored but not yet released.
    `CREATE TABLE log_streams (
       rank INTEGER NOT NULL, stream TEXT NOT NULL, next_seq INTEGER NOT NULL, high_seq INTEGER NOT NULL,
       held INTEGER NOT NULL, eof_seq INTEGER, PRIMARY KEY (rank, stream))`,
    // cursor is NULL while a line is held back; released lines number 0, 1, 2, … run-wide.
    `CREATE TABLE log_lines (
       rank INTEGER NOT NULL, stream TEXT NOT NULL, seq INTEGER NOT NULL, ts INTEGER NOT NULL,
       line TEXT NOT NULL, cursor INTEGER UNIQUE, PRIMARY KEY (rank, stream, seq))`,
    `CREATE TABLE metrics (
       key TEXT NOT NULL, step INTEGER NOT NULL, value REAL NOT NULL, ts INTEGER NOT NULL,
       PRIMARY KEY (key, step))`,
    `CREATE TABLE events (
       rank INTEGER NOT NULL, event TEXT NOT NULL, ts INTEGER NOT NULL, exit_code INTEGER, reason TEXT,
       received_at INTEGER NOT NULL, PRIMARY KEY (rank, event))`,
    `CREATE TABLE hparams (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at INTEGER NOT NULL)`,
    `CREATE TABLE hardware (
       key TEXT NOT NULL, node_id TEXT NOT NULL, gpu_idx INTEGER NOT NULL, ts INTEGER NOT NULL,
       value REAL NOT NULL, PRIMARY KEY (key, node_id, gpu_idx, ts))`,
    `CREATE TABLE artifacts (
       path TEXT PRIMARY KEY, kind TEXT NOT NULL, step INTEGER, size INTEGER, digest TEXT,
       verified INTEGER NOT NULL, r2_key TEXT, metrics TEXT, registered_at INTEGER NOT NULL)`,
  ],
  [
    // Hardware series are (key, node, worker, gpu): samples of two hosts never collapse onto one series.
    // Absent ids are '' and -1 in keys (NULLs would never conflict, so retries would duplicate).
    `CREATE TABLE hardware_samples (
       key TEXT NOT NULL, node_id TEXT NOT NULL, worker_id TEXT NOT NULL, gpu_idx INTEGER NOT NULL,
       ts INTEGER NOT NULL, value REAL NOT NULL, gpu_uuid TEXT,
       PRIMARY KEY (key, node_id, worker_id, gpu_idx, ts))`,
    `INSERT INTO hardware_samples (key, node_id, worker_id, gpu_idx, ts, value)
       SELECT key, node_id, '', gpu_idx, ts, value FROM hardware`,
    `DROP TABLE hardware`,
    // Environment probes are kept whole, once per distinct content (a re-sent probe is the same row).
    `CREATE TABLE env_probes (
       digest TEXT PRIMARY KEY, hostname TEXT, body TEXT NOT NULL, received_at INTEGER NOT NULL)`,
    `CREATE TABLE env_nodes (hostname TEXT PRIMARY KEY, body TEXT NOT NULL, updated_at INTEGER NOT NULL)`,
    // Validation samples arrive in chunks; a step is complete when every chunk and sample is here.
    `CREATE TABLE validation_steps (
       step INTEGER PRIMARY KEY, total_chunks INTEGER NOT NULL, total_samples INTEGER NOT NULL,
       avg_reward REAL, dist TEXT, updated_at INTEGER NOT NULL)`,
    `CREATE TABLE validation_chunks (
       step INTEGER NOT NULL, chunk_index INTEGER NOT NULL, PRIMARY KEY (step, chunk_index))`,
    `CREATE TABLE validation_samples (
       step INTEGER NOT NULL, idx INTEGER NOT NULL, reward REAL, body TEXT NOT NULL,
       PRIMARY KEY (step, idx))`,
  ],
  [
    // The ranks of a distributed run meet here: one row per node rank per lease epoch (rendezvous.ts).
    `CREATE TABLE rendezvous (
       epoch INTEGER NOT NULL, node_rank INTEGER NOT NULL, addr TEXT NOT NULL, port INTEGER,
       joined_at INTEGER NOT NULL, PRIMARY KEY (epoch, node_rank))`,
  ],
];

export const RUN_SCHEMA_VERSION = RUN_MIGRATIONS.length;
