/**
 * The Run DO's typed row access for logs, metrics, lifecycle events, hparams and artifacts (the schema
 * is run-schema.ts; hardware, environment and validation are run-reports-store.ts). Times are epoch
 * milliseconds here (ISO strings only in views). Every write is keyed so that a replayed request
 * rewrites the same rows: log lines by (rank, stream, seq), metrics by (key, step), lifecycle events by
 * (rank, event), artifacts by path, rendezvous registrations by (epoch, node rank).
 */
import type { RunLogLine } from "../../contract/diagnosis-policy.js";
import type { LogStream } from "../../contract/ingest.schema.js";
import { SqlStore } from "../sql-store.js";
import { LOG_HOLD_LIMITS, planRelease } from "./policy.js";
import type { RendezvousRow } from "./rendezvous.js";
import { RUN_MIGRATIONS } from "./schema.js";

/** A Durable Object statement takes at most 100 bound parameters: 4 per metric point. */
const METRIC_ROWS_PER_STATEMENT = 25;

export type LogStreamName = LogStream;

export interface StreamRow {
  [k: string]: SqlStorageValue;
  rank: number;
  stream: LogStreamName;
  next_seq: number;
  high_seq: number;
  held: number;
  eof_seq: number | null;
}

export interface LineRow {
  [k: string]: SqlStorageValue;
  cursor: number;
  rank: number;
  stream: LogStreamName;
  seq: number;
  ts: number;
  line: string;
}

export interface MetricRow {
  [k: string]: SqlStorageValue;
  key: string;
  step: number;
  value: number;
  ts: number;
}

export interface EventRow {
  [k: string]: SqlStorageValue;
  rank: number;
  event: string;
  ts: number;
  exit_code: number | null;
  reason: string | null;
  received_at: number;
}

export interface ArtifactRow {
  [k: string]: SqlStorageValue;
  path: string;
  kind: string;
  step: number | null;
  size: number | null;
  digest: string | null;
  verified: number;
  r2_key: string | null;
  metrics: string | null;
  registered_at: number;
}

export class RunStore extends SqlStore {
  private cursor: number | null = null;

  constructor(sql: SqlStorage) {
    super(sql, RUN_MIGRATIONS);
  }

  /**
   * Takes the next run-wide log cursor. Within one transaction the counter lives in memory and is
   * written once by `endCursors`, rather than read and written back for every released line.
   */
  takeCursor(): number {
    if (this.cursor === null) this.cursor = Number(this.getMeta("next_cursor") ?? "0");
    const c = this.cursor;
    this.cursor += 1;
    return c;
  }

  /** Ends a transaction's use of cursors: stores the counter, or forgets it when the transaction rolled back. */
  endCursors(commit: boolean): void {
    if (commit && this.cursor !== null) this.setMeta("next_cursor", String(this.cursor));
    this.cursor = null;
  }

  // logs ---------------------------------------------------------------------------

  stream(rank: number, stream: LogStreamName): StreamRow {
    const row = this.sql
      .exec<StreamRow>("SELECT * FROM log_streams WHERE rank = ? AND stream = ?", rank, stream)
      .toArray()[0];
    return row ?? { rank, stream, next_seq: 0, high_seq: 0, held: 0, eof_seq: null };
  }

  streams(): StreamRow[] {
    return this.sql.exec<StreamRow>("SELECT * FROM log_streams ORDER BY rank, stream").toArray();
  }

  streamsHolding(): StreamRow[] {
    return this.sql.exec<StreamRow>("SELECT * FROM log_streams WHERE held > 0").toArray();
  }

  saveStream(s: StreamRow): void {
    this.sql.exec(
      `INSERT INTO log_streams (rank, stream, next_seq, high_seq, held, eof_seq) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (rank, stream) DO UPDATE SET next_seq = excluded.next_seq, high_seq = excluded.high_seq,
         held = excluded.held, eof_seq = excluded.eof_seq`,
      s.rank,
      s.stream,
      s.next_seq,
      s.high_seq,
      s.held,
      s.eof_seq,
    );
  }

  /** Stores a line unless its (rank, stream, seq) exists; true when it was new. The first copy wins. */
  insertLine(s: StreamRow, seq: number, ts: number, line: string): boolean {
    return (
      this.sql.exec(
        "INSERT INTO log_lines (rank, stream, seq, ts, line) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        s.rank,
        s.stream,
        seq,
        ts,
        line,
      ).rowsWritten > 0
    );
  }

  /** Held lines of a stream from `fromSeq` on, ascending. */
  heldLines(s: StreamRow, fromSeq: number, limit: number): Array<{ seq: number; ts: number }> {
    return this.sql
      .exec<{ seq: number; ts: number }>(
        `SELECT seq, ts FROM log_lines WHERE rank = ? AND stream = ? AND seq >= ? AND cursor IS NULL
         ORDER BY seq LIMIT ?`,
        s.rank,
        s.stream,
        fromSeq,
        limit,
      )
      .toArray();
  }

  release(s: StreamRow, seq: number, cursor: number): void {
    this.sql.exec(
      "UPDATE log_lines SET cursor = ? WHERE rank = ? AND stream = ? AND seq = ?",
      cursor,
      s.rank,
      s.stream,
      seq,
    );
  }

  /** Releases what a stream may show now: its next lines in seq order, skipping holes per the policy. */
  releaseStream(s: StreamRow, now: number, force: boolean): boolean {
    let released = false;
    while (s.held > 0) {
      const held = this.heldLines(s, s.next_seq, LOG_HOLD_LIMITS.maxHeldLines + 1).map((h) => ({
        seq: h.seq,
        receivedAt: h.ts,
      }));
      const plan = planRelease({ nextSeq: s.next_seq, held, heldTotal: s.held, now, force });
      if (plan.release.length === 0) break;
      for (const seq of plan.release) this.release(s, seq, this.takeCursor());
      s.next_seq = plan.nextSeq;
      s.held -= plan.release.length;
      released = true;
    }
    return released;
  }

  /** Releases what every holding stream may show now (`force`: skip every hole, the run is over). */
  releaseAll(now: number, force: boolean): void {
    for (const s of this.streamsHolding()) {
      if (this.releaseStream(s, now, force)) this.saveStream(s);
    }
  }

  /** When the longest-waiting held line arrived, or null when nothing is held. */
  oldestHeld(): number | null {
    const row = this.sql
      .exec<{ t: number | null }>("SELECT MIN(ts) AS t FROM log_lines WHERE cursor IS NULL")
      .toArray()[0];
    return row?.t ?? null;
  }

  linesFrom(
    cursor: number,
    limit: number,
    filter: { rank?: number; stream?: LogStreamName } = {},
  ): LineRow[] {
    const where = ["cursor >= ?"];
    const args: Array<number | string> = [cursor];
    if (filter.rank !== undefined) {
      where.push("rank = ?");
      args.push(filter.rank);
    }
    if (filter.stream !== undefined) {
      where.push("stream = ?");
      args.push(filter.stream);
    }
    return this.sql
      .exec<LineRow>(
        `SELECT cursor, rank, stream, seq, ts, line FROM log_lines WHERE ${where.join(" AND ")}
         ORDER BY cursor LIMIT ?`,
        ...args,
        limit,
      )
      .toArray();
  }

  /** A rank's last `limit` stored lines over both streams, oldest first (held ones too: for a diagnosis). */
  lastLines(rank: number, limit: number): RunLogLine[] {
    return this.sql
      .exec<RunLogLine>(
        `SELECT stream, seq, cursor, ts, line FROM
           (SELECT stream, seq, cursor, ts, line FROM log_lines WHERE rank = ? ORDER BY ts DESC, seq DESC LIMIT ?)
         ORDER BY ts, seq`,
        rank,
        limit,
      )
      .toArray();
  }

  // metrics, events, hparams ------------------------------------------------

  /**
   * Many points in a few statements (multi-row VALUES, applied in order; bound as parameters, so every
   * value keeps its exact double, -0 included): a retry or a rewrite of the same (key, step) replaces the
   * point, and within one batch the last one wins.
   */
  upsertMetrics(rows: readonly MetricRow[]): void {
    for (let i = 0; i < rows.length; i += METRIC_ROWS_PER_STATEMENT) {
      const chunk = rows.slice(i, i + METRIC_ROWS_PER_STATEMENT);
      this.sql.exec(
        `INSERT INTO metrics (key, step, value, ts) VALUES ${chunk.map(() => "(?, ?, ?, ?)").join(", ")}
         ON CONFLICT (key, step) DO UPDATE SET value = excluded.value, ts = excluded.ts`,
        ...chunk.flatMap((m) => [m.key, m.step, m.value, m.ts]),
      );
    }
  }

  metricPoints(key: string, afterStep: number, limit: number): MetricRow[] {
    return this.sql
      .exec<MetricRow>(
        "SELECT key, step, value, ts FROM metrics WHERE key = ? AND step > ? ORDER BY step LIMIT ?",
        key,
        afterStep,
        limit,
      )
      .toArray();
  }

  /** Each key with its point count and its point at the highest step. */
  metricKeys(): Array<MetricRow & { count: number }> {
    return this.sql
      .exec<MetricRow & { count: number }>(
        `SELECT m.key, m.step, m.value, m.ts, k.count FROM metrics m
         JOIN (SELECT key, MAX(step) AS step, COUNT(*) AS count FROM metrics GROUP BY key) k
           ON k.key = m.key AND k.step = m.step
         ORDER BY m.key`,
      )
      .toArray();
  }

  /** The first report of an event for a rank is kept; a retry of it changes nothing. */
  insertEvent(e: EventRow): boolean {
    return (
      this.sql.exec(
        `INSERT INTO events (rank, event, ts, exit_code, reason, received_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT DO NOTHING`,
        e.rank,
        e.event,
        e.ts,
        e.exit_code,
        e.reason,
        e.received_at,
      ).rowsWritten > 0
    );
  }

  events(): EventRow[] {
    return this.sql.exec<EventRow>("SELECT * FROM events ORDER BY received_at, rank").toArray();
  }

  setHparam(key: string, valueJson: string, now: number): void {
    this.sql.exec(
      `INSERT INTO hparams (key, value, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      key,
      valueJson,
      now,
    );
  }

  hparams(): Array<{ key: string; value: string; updated_at: number }> {
    return this.sql
      .exec<{ key: string; value: string; updated_at: number }>(
        "SELECT key, value, updated_at FROM hparams ORDER BY key",
      )
      .toArray();
  }

  // artifacts ----------------------------------------------------------------------

  /** Registering a path again (a rewritten checkpoint) replaces its record. */
  upsertArtifact(a: ArtifactRow): void {
    this.sql.exec(
      `INSERT INTO artifacts (path, kind, step, size, digest, verified, r2_key, metrics, registered_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (path) DO UPDATE SET kind = excluded.kind, step = excluded.step, size = excluded.size,
         digest = excluded.digest, verified = excluded.verified, r2_key = excluded.r2_key,
         metrics = excluded.metrics, registered_at = excluded.registered_at`,
      a.path,
      a.kind,
      a.step,
      a.size,
      a.digest,
      a.verified,
      a.r2_key,
      a.metrics,
      a.registered_at,
    );
  }

  artifacts(): ArtifactRow[] {
    return this.sql.exec<ArtifactRow>("SELECT * FROM artifacts ORDER BY step IS NULL, step, path").toArray();
  }

  artifact(path: string): ArtifactRow | null {
    return this.sql.exec<ArtifactRow>("SELECT * FROM artifacts WHERE path = ?", path).toArray()[0] ?? null;
  }

  // rendezvous ------------------------------------------------------------------------------

  /** Registers (or re-registers: a retried request) one node rank; earlier epochs are forgotten. */
  joinRendezvous(row: RendezvousRow): void {
    this.sql.exec("DELETE FROM rendezvous WHERE epoch < ?", row.epoch);
    this.sql.exec(
      `INSERT INTO rendezvous (epoch, node_rank, addr, port, joined_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (epoch, node_rank) DO UPDATE SET addr = excluded.addr, port = excluded.port`,
      row.epoch,
      row.node_rank,
      row.addr,
      row.port,
      row.joined_at,
    );
  }

  rendezvousRows(epoch: number): RendezvousRow[] {
    return this.sql
      .exec<RendezvousRow & Record<string, SqlStorageValue>>(
        "SELECT * FROM rendezvous WHERE epoch = ? ORDER BY node_rank",
        epoch,
      )
      .toArray();
  }
}
