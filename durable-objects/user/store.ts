/**
 * The User DO's rows: the user's job slots (one per job it ever admitted, `reserved` while an admission
 * or a resume is in flight, `active` while the job may hold GPUs, `released` at rest), its
 * Idempotency-Keys, the tokens fenced off by a revoke, and the usage its daily GPU-hour quota counts.
 * Times are epoch milliseconds. Every count the admission path takes is an index range over what is held
 * now (at most about max_jobs rows), never over the user's history, and the held count itself is kept in
 * memory (counted once per object start, then moved by every slot write).
 */
import type { Quota } from "../../contract/api.schema.js";
import { gpuHoursToday, quotaFromJson } from "../../contract/quota.js";
import { utcDay } from "../../contract/time.js";
import { SqlStore } from "../sql-store.js";

/** What keeps `held` equal to the reserved + active slots (schema steps 2 and 3). */
const HELD_TRIGGERS = [
  `CREATE TRIGGER slots_held_insert AFTER INSERT ON slots WHEN NEW.state IN ('reserved', 'active')
      BEGIN UPDATE held SET n = n + 1 WHERE id = 1; END`,
  `CREATE TRIGGER slots_held_delete AFTER DELETE ON slots WHEN OLD.state IN ('reserved', 'active')
      BEGIN UPDATE held SET n = n - 1 WHERE id = 1; END`,
  `CREATE TRIGGER slots_held_update AFTER UPDATE OF state ON slots
      WHEN (NEW.state IN ('reserved', 'active')) <> (OLD.state IN ('reserved', 'active'))
      BEGIN UPDATE held SET n = n + (CASE WHEN NEW.state IN ('reserved', 'active') THEN 1 ELSE -1 END) WHERE id = 1; END`,
];

export const USER_MIGRATIONS: readonly (readonly string[])[] = [
  [
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    `CREATE TABLE slots (
      job_id TEXT PRIMARY KEY,
      fleet_id TEXT NOT NULL,
      state TEXT NOT NULL,
      job_version INTEGER NOT NULL DEFAULT 0,
      reserved_at INTEGER NOT NULL,
      projected INTEGER NOT NULL DEFAULT 0
    )`,
    "CREATE INDEX slots_state ON slots (state, reserved_at)",
    "CREATE INDEX slots_unprojected ON slots (projected, reserved_at)",
    `CREATE TABLE idem_keys (
      key TEXT PRIMARY KEY,
      request_hash TEXT NOT NULL,
      fleet_id TEXT NOT NULL,
      job_ids TEXT NOT NULL,
      created_at INTEGER NOT NULL
    )`,
    "CREATE TABLE fenced_tokens (token_id TEXT PRIMARY KEY, at INTEGER NOT NULL)",
    `CREATE TABLE usage (
      run_id TEXT NOT NULL,
      day TEXT NOT NULL,
      gpu_seconds REAL NOT NULL,
      PRIMARY KEY (run_id, day)
    )`,
    "CREATE INDEX usage_day ON usage (day)",
    "CREATE TABLE open_runs (run_id TEXT PRIMARY KEY, gpus INTEGER NOT NULL, allocated_at INTEGER NOT NULL)",
  ],
  // The held count (reserved + active slots) kept by triggers, so max_jobs costs one row read however
  // many jobs the user holds (a user with 10,000 queued jobs counted them on every submit).
  [
    "CREATE TABLE held (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL)",
    "INSERT INTO held (id, n) SELECT 1, COUNT(*) FROM slots WHERE state IN ('reserved', 'active')",
    ...HELD_TRIGGERS,
  ],
  // Slots and keys clustered on their own keys (WITHOUT ROWID): a reservation wrote each row into a rowid
  // table and into the index of its TEXT key, two pages per table in every transaction's WAL. Rebuilt with
  // their rows; dropping `slots` dropped its indexes and triggers, made again as they were (the held count
  // is untouched: copying rows into the new table fires none of them).
  [
    `CREATE TABLE slots_v3 (
      job_id TEXT PRIMARY KEY,
      fleet_id TEXT NOT NULL,
      state TEXT NOT NULL,
      job_version INTEGER NOT NULL DEFAULT 0,
      reserved_at INTEGER NOT NULL,
      projected INTEGER NOT NULL DEFAULT 0
    ) WITHOUT ROWID`,
    "INSERT INTO slots_v3 SELECT job_id, fleet_id, state, job_version, reserved_at, projected FROM slots",
    "DROP TABLE slots",
    "ALTER TABLE slots_v3 RENAME TO slots",
    "CREATE INDEX slots_state ON slots (state, reserved_at)",
    "CREATE INDEX slots_unprojected ON slots (projected, reserved_at)",
    ...HELD_TRIGGERS,
    `CREATE TABLE idem_keys_v3 (
      key TEXT PRIMARY KEY,
      request_hash TEXT NOT NULL,
      fleet_id TEXT NOT NULL,
      job_ids TEXT NOT NULL,
      created_at INTEGER NOT NULL
    ) WITHOUT ROWID`,
    "INSERT INTO idem_keys_v3 SELECT key, request_hash, fleet_id, job_ids, created_at FROM idem_keys",
    "DROP TABLE idem_keys",
    "ALTER TABLE idem_keys_v3 RENAME TO idem_keys",
  ],
  // Fewer pages per reservation: every B-tree a transaction touches is a page in its WAL (and in the
  // checkpoint after it). The held count moves in memory instead of a row its triggers rewrote on every
  // slot change; the two slot indexes become one, led by `projected`, which the queries name as IN (0, 1)
  // where they do not care (decision 118).
  [
    "DROP TRIGGER slots_held_insert",
    "DROP TRIGGER slots_held_delete",
    "DROP TRIGGER slots_held_update",
    "DROP TABLE held",
    "DROP INDEX slots_state",
    "DROP INDEX slots_unprojected",
    "CREATE INDEX slots_by_state ON slots (projected, state, reserved_at)",
  ],
];

const HELD_STATES: ReadonlySet<string> = new Set<SlotState>(["reserved", "active"]);
/** 1 for a state that holds a slot against max_jobs, else 0 (a missing slot holds none). */
const holds = (state: string | undefined): number => (state !== undefined && HELD_STATES.has(state) ? 1 : 0);

/** Job moves as one statement's JSON rows, each job once: its newest version (the first of equal ones). */
function newestOf(moves: ReadonlyArray<JobMove>): JobMove[] {
  const out = new Map<string, JobMove>();
  for (const m of moves) {
    const seen = out.get(m.jobId);
    if (!seen || m.version > seen.version) out.set(m.jobId, m);
  }
  return [...out.values()];
}

export type SlotState = "reserved" | "active" | "released";

/** A job's state at a version, as a fleet reported or answered it. */
export interface JobMove {
  jobId: string;
  state: SlotState;
  version: number;
}

export interface SlotRow {
  [k: string]: SqlStorageValue;
  job_id: string;
  fleet_id: string;
  state: SlotState;
  job_version: number;
  reserved_at: number;
  projected: number;
}

export interface KeyRow {
  [k: string]: SqlStorageValue;
  key: string;
  request_hash: string;
  fleet_id: string;
  /** JSON array of the job ids the keyed request admitted (one, or a job array's). */
  job_ids: string;
  created_at: number;
}

/** Who the user is as far as submitting goes; kept in step by the routes that change it. */
export interface Account {
  disabled: boolean;
  role: string;
}

const QUOTA = "quota";
/** Meta keys: a job id a fleet gave up (`given_up:<job>`), and whether any was. */
const GIVEN_UP_PREFIX = "given_up:";
const ANY_GIVEN_UP = "given_up_any";
const ACCOUNT = "account";
const LOADED = "loaded";

export class UserStore extends SqlStore {
  // What every reservation reads and only this object writes, kept in memory once read (written through;
  // forgotten when a transaction rolls back).
  /** The fenced tokens (null: not read yet). */
  private fencedTokens: Set<string> | null = null;
  /** Today's finished GPU-seconds and the open runs (null: not read yet). */
  private usageToday: {
    day: string;
    done: number;
    open: Array<{ gpus: number; allocatedAt: number }>;
  } | null = null;
  /**
   * The held count (reserved + active slots): counted when first asked (null: not yet, or a transaction
   * rolled back), then moved by every write to slots, each of which reads what it replaces.
   */
  private held: number | null = null;

  constructor(sql: SqlStorage) {
    super(sql, USER_MIGRATIONS);
  }

  protected override rolledBack(): void {
    this.fencedTokens = null;
    this.usageToday = null;
    this.held = null;
  }

  loaded(): boolean {
    return this.getMeta(LOADED) === "1";
  }

  markLoaded(): void {
    this.setMeta(LOADED, "1");
  }

  quota(): Quota | null {
    const raw = this.getMeta(QUOTA);
    return raw ? quotaFromJson(raw) : null;
  }

  setQuota(q: Quota): void {
    this.setMeta(QUOTA, JSON.stringify(q));
  }

  account(): Account | null {
    const raw = this.getMeta(ACCOUNT);
    return raw ? (JSON.parse(raw) as Account) : null;
  }

  setAccount(a: Account): void {
    this.setMeta(ACCOUNT, JSON.stringify(a));
  }

  // slots -------------------------------------------------------------------------

  slot(jobId: string): SlotRow | null {
    return this.sql.exec<SlotRow>("SELECT * FROM slots WHERE job_id = ?", jobId).toArray()[0] ?? null;
  }

  /** Jobs holding a slot now: reserved (in flight) or active. */
  heldCount(): number {
    this.held ??= this.sql
      .exec<{ n: number }>(
        "SELECT COUNT(*) AS n FROM slots WHERE projected IN (0, 1) AND state IN ('reserved', 'active')",
      )
      .one().n;
    return this.held;
  }

  /** The held count once slot `jobId`, now in `before` (undefined: none), is in `after`. */
  private moveHeld(before: string | undefined, after: string | undefined): void {
    if (this.held !== null) this.held += holds(after) - holds(before);
  }

  /** The state of a slot before a write replaces it, when the held count needs it. */
  private stateBefore(jobId: string): string | undefined {
    if (this.held === null) return undefined;
    return this.sql.exec<{ state: string }>("SELECT state FROM slots WHERE job_id = ?", jobId).toArray()[0]
      ?.state;
  }

  /**
   * The held count after `moves` apply: a move changes a slot only with a newer version than it holds;
   * a job without a slot gets one when `inserts` (a report), else stays without (an answer).
   */
  private moveHeldBy(moves: readonly JobMove[], ids: string, inserts: boolean): void {
    if (this.held === null) return;
    const before = new Map(
      this.sql
        .exec<{ job_id: string; state: string; job_version: number }>(
          "SELECT job_id, state, job_version FROM slots WHERE job_id IN (SELECT value FROM json_each(?))",
          ids,
        )
        .toArray()
        .map((r) => [r.job_id, r]),
    );
    for (const m of moves) {
      const slot = before.get(m.jobId);
      if (slot ? m.version > slot.job_version : inserts) this.moveHeld(slot?.state, m.state);
    }
  }

  reserve(jobId: string, fleetId: string, now: number): void {
    this.moveHeld(undefined, "reserved");
    this.sql.exec(
      "INSERT INTO slots (job_id, fleet_id, state, job_version, reserved_at, projected) VALUES (?, ?, 'reserved', 0, ?, 0)",
      jobId,
      fleetId,
      now,
    );
  }

  setSlotState(jobId: string, state: SlotState, reservedAt?: number): void {
    const before = this.stateBefore(jobId);
    if (before !== undefined) this.moveHeld(before, state);
    if (reservedAt === undefined) this.sql.exec("UPDATE slots SET state = ? WHERE job_id = ?", state, jobId);
    else
      this.sql.exec("UPDATE slots SET state = ?, reserved_at = ? WHERE job_id = ?", state, reservedAt, jobId);
  }

  /**
   * What a fleet reported about one of its jobs (after the change reached D1): a newer version than the
   * slot saw moves it to `state` (and to that fleet: a job re-routed to another fleet continues there at a
   * newer version); a job this object never reserved (admitted before it existed) is added.
   */
  applyJobNote(
    jobId: string,
    fleetId: string,
    state: SlotState,
    version: number,
    now: number,
    projected = true,
  ): void {
    this.applyJobNotes(fleetId, [{ jobId, state, version }], now, projected);
  }

  /**
   * `applyJobNote` for many jobs of one fleet, in one statement (a flush reports dozens at once).
   * `projected`: the fleet wrote these versions to D1 (a flush's report). A fleet's answer to a settle
   * is not that: D1 may be refusing its writes, and a read must still wait for them.
   */
  applyJobNotes(fleetId: string, notes: ReadonlyArray<JobMove>, now: number, projected = true): void {
    if (notes.length === 0) return;
    const moves = newestOf(notes);
    const rows = JSON.stringify(moves.map((n) => [n.jobId, n.state, n.version]));
    this.moveHeldBy(moves, JSON.stringify(moves.map((n) => n.jobId)), true);
    this.sql.exec(
      `INSERT INTO slots (job_id, fleet_id, state, job_version, reserved_at, projected)
       SELECT json_extract(value, '$[0]'), ?2, json_extract(value, '$[1]'), json_extract(value, '$[2]'), ?3, ?4
       FROM json_each(?1) WHERE true
       ON CONFLICT (job_id) DO UPDATE SET
         state = CASE WHEN excluded.job_version > slots.job_version THEN excluded.state ELSE slots.state END,
         fleet_id = CASE WHEN excluded.job_version > slots.job_version THEN excluded.fleet_id ELSE slots.fleet_id END,
         job_version = MAX(slots.job_version, excluded.job_version),
         projected = MAX(slots.projected, excluded.projected)`,
      rows,
      fleetId,
      now,
      projected ? 1 : 0,
    );
  }

  /**
   * What a fleet answered about its jobs right now, in one statement (a refresh asks about every active
   * slot): a newer version moves the slot, `projected` unchanged.
   */
  applyJobStates(states: ReadonlyArray<JobMove>): void {
    if (states.length === 0) return;
    const moves = newestOf(states);
    this.moveHeldBy(moves, JSON.stringify(moves.map((m) => m.jobId)), false);
    this.sql.exec(
      `UPDATE slots SET state = j.state, job_version = j.version
       FROM (SELECT json_extract(value, '$[0]') AS job_id, json_extract(value, '$[1]') AS state,
               json_extract(value, '$[2]') AS version FROM json_each(?)) AS j
       WHERE slots.job_id = j.job_id AND slots.job_version < j.version`,
      JSON.stringify(moves.map((m) => [m.jobId, m.state, m.version])),
    );
  }

  /** The slots of jobs believed active (not in-flight reservations). */
  activeSlots(): SlotRow[] {
    return this.sql
      .exec<SlotRow>("SELECT * FROM slots WHERE projected IN (0, 1) AND state = 'active'")
      .toArray();
  }

  dropSlot(jobId: string): void {
    this.moveHeld(this.stateBefore(jobId), undefined);
    this.sql.exec("DELETE FROM slots WHERE job_id = ?", jobId);
  }

  /** Reservations made before `before` that no fleet report settled yet. */
  staleReservations(before: number): SlotRow[] {
    return this.sql
      .exec<SlotRow>(
        "SELECT * FROM slots WHERE projected IN (0, 1) AND state = 'reserved' AND reserved_at < ?",
        before,
      )
      .toArray();
  }

  oldestReservation(): number | null {
    return (
      this.sql
        .exec<{ at: number | null }>(
          "SELECT MIN(reserved_at) AS at FROM slots WHERE projected IN (0, 1) AND state = 'reserved'",
        )
        .one().at ?? null
    );
  }

  /** Jobs admitted since `since` whose change no fleet has reported as written to D1 yet. */
  unprojected(since: number): Array<{ job_id: string; fleet_id: string }> {
    return this.sql
      .exec<{ job_id: string; fleet_id: string }>(
        `SELECT job_id, fleet_id FROM slots
         WHERE projected = 0 AND state IN ('reserved', 'active', 'released') AND reserved_at >= ?`,
        since,
      )
      .toArray();
  }

  // job ids a fleet gave up -----------------------------------------------------------

  /** A fleet withdrew job `jobId` (queued unconfirmed, never reserved here): never reserve it from now on. */
  giveUp(jobId: string, now: number): void {
    this.setMeta(`${GIVEN_UP_PREFIX}${jobId}`, String(now));
    if (this.getMeta(ANY_GIVEN_UP) === null) this.setMeta(ANY_GIVEN_UP, "1");
  }

  /** Whether a fleet gave job `jobId` up (one cached read while none was ever given up). */
  givenUp(jobId: string): boolean {
    return this.getMeta(ANY_GIVEN_UP) !== null && this.peekMeta(`${GIVEN_UP_PREFIX}${jobId}`) !== null;
  }

  // Idempotency-Keys ------------------------------------------------------------------

  key(key: string): KeyRow | null {
    return this.sql.exec<KeyRow>("SELECT * FROM idem_keys WHERE key = ?", key).toArray()[0] ?? null;
  }

  putKey(row: KeyRow): void {
    this.sql.exec(
      "INSERT INTO idem_keys (key, request_hash, fleet_id, job_ids, created_at) VALUES (?, ?, ?, ?, ?)",
      row.key,
      row.request_hash,
      row.fleet_id,
      row.job_ids,
      row.created_at,
    );
  }

  /** Takes `row.key` for its request: false (nothing written) when the key is already taken. */
  claimKey(row: KeyRow): boolean {
    // Its rows written tell (RETURNING would have SQLite gather them in a table of their own first).
    return (
      this.sql.exec(
        `INSERT INTO idem_keys (key, request_hash, fleet_id, job_ids, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (key) DO NOTHING`,
        row.key,
        row.request_hash,
        row.fleet_id,
        row.job_ids,
        row.created_at,
      ).rowsWritten > 0
    );
  }

  /** Frees the keys whose jobs were all abandoned (never queued): a retry may use them again. */
  dropKeysOf(jobIds: readonly string[]): void {
    if (jobIds.length === 0) return;
    for (const id of jobIds) {
      this.sql.exec(
        "DELETE FROM idem_keys WHERE key IN (SELECT k.key FROM idem_keys k, json_each(k.job_ids) j WHERE j.value = ?)",
        id,
      );
    }
  }

  // fences ------------------------------------------------------------------------------

  fenced(tokenId: string): boolean {
    this.fencedTokens ??= new Set(
      this.sql
        .exec<{ token_id: string }>("SELECT token_id FROM fenced_tokens")
        .toArray()
        .map((r) => r.token_id),
    );
    return this.fencedTokens.has(tokenId);
  }

  fence(tokenId: string, now: number): void {
    this.sql.exec("INSERT OR IGNORE INTO fenced_tokens (token_id, at) VALUES (?, ?)", tokenId, now);
    this.fencedTokens?.add(tokenId);
  }

  // usage --------------------------------------------------------------------------------

  putUsage(runId: string, day: string, gpuSeconds: number): void {
    this.usageToday = null;
    this.sql.exec(
      "INSERT INTO usage (run_id, day, gpu_seconds) VALUES (?, ?, ?) ON CONFLICT (run_id, day) DO UPDATE SET gpu_seconds = excluded.gpu_seconds",
      runId,
      day,
      gpuSeconds,
    );
  }

  putRun(runId: string, gpus: number, allocatedAt: number, ended: boolean): void {
    this.usageToday = null;
    if (ended) this.sql.exec("DELETE FROM open_runs WHERE run_id = ?", runId);
    else
      this.sql.exec(
        "INSERT INTO open_runs (run_id, gpus, allocated_at) VALUES (?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET gpus = excluded.gpus, allocated_at = excluded.allocated_at",
        runId,
        gpus,
        allocatedAt,
      );
  }

  /** GPU-hours used today (UTC): finished runs' seconds recorded for today, plus the open runs up to now. */
  gpuHoursToday(now: number): number {
    const day = utcDay(now);
    if (this.usageToday?.day !== day) {
      const done = this.sql
        .exec<{ s: number | null }>("SELECT SUM(gpu_seconds) AS s FROM usage WHERE day = ?", day)
        .one().s;
      const open = this.sql
        .exec<{ gpus: number; allocated_at: number }>("SELECT gpus, allocated_at FROM open_runs")
        .toArray()
        .map((r) => ({ gpus: r.gpus, allocatedAt: r.allocated_at }));
      this.usageToday = { day, done: done ?? 0, open };
    }
    return gpuHoursToday(this.usageToday.done, this.usageToday.open, now);
  }

  /** Usage of days before yesterday no longer counts toward anything here. */
  pruneUsage(now: number): void {
    this.usageToday = null;
    this.sql.exec("DELETE FROM usage WHERE day < ?", utcDay(now - 86_400_000));
  }
}
