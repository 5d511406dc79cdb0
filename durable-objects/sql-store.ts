/**
 * What every Durable Object store shares: a `meta` key/value table and append-only schema steps.
 * Step N brings a store from version N-1 to N; never edit a shipped step, add one. The version lives
 * in meta.schema_version; `migrate()` runs inside blockConcurrencyWhile.
 *
 * Meta values are cached in memory, written through: an object is the only writer of its own SQLite, and
 * the hot paths read the same few keys (a fleet's configuration, a user's quota) on every request. A
 * transaction that rolls back must go through `transaction` so that the cache forgets what it undid.
 */
export class SqlStore {
  private readonly metaCache = new Map<string, string | null>();

  constructor(
    readonly sql: SqlStorage,
    private readonly steps: readonly (readonly string[])[],
  ) {}

  /** Applies the missing schema steps in order. The first step must create `meta`. */
  migrate(): void {
    const hasMeta =
      this.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'meta'").toArray()
        .length > 0;
    let version = hasMeta ? Number(this.getMeta("schema_version") ?? "0") : 0;
    for (; version < this.steps.length; version++) {
      for (const stmt of this.steps[version]!) this.sql.exec(stmt);
      this.setMeta("schema_version", String(version + 1));
    }
  }

  /**
   * One synchronous SQL transaction. Writes a subclass holds back (`beforeCommit`) go in before it commits;
   * a rollback (the callback threw) empties the meta cache and whatever else the subclass keeps
   * (`rolledBack`), since a value read or written inside it may be one it undid.
   */
  transaction<T>(storage: { transactionSync<R>(fn: () => R): R }, fn: () => T): T {
    try {
      return storage.transactionSync(() => {
        this.depth += 1;
        try {
          const result = fn();
          if (this.depth === 1) this.beforeCommit();
          return result;
        } finally {
          this.depth -= 1;
        }
      });
    } catch (err) {
      this.metaCache.clear();
      this.rolledBack();
      throw err;
    }
  }

  private depth = 0;

  /** Inside `transaction`'s callback: a subclass may hold writes back until `beforeCommit`. */
  protected get inTransaction(): boolean {
    return this.depth > 0;
  }

  /** Writes held back during the transaction, written now (still inside it). */
  protected beforeCommit(): void {}

  /** The transaction rolled back: forget what was held back or cached since it began. */
  protected rolledBack(): void {}

  getMeta(key: string): string | null {
    const cached = this.metaCache.get(key);
    if (cached !== undefined) return cached;
    const value = this.readMeta(key);
    this.metaCache.set(key, value);
    return value;
  }

  /**
   * `getMeta` without keeping what it read: for keys asked about once each (one per job), which would
   * otherwise grow the cache with every job the object ever saw.
   */
  peekMeta(key: string): string | null {
    const cached = this.metaCache.get(key);
    return cached !== undefined ? cached : this.readMeta(key);
  }

  private readMeta(key: string): string | null {
    return (
      this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", key).toArray()[0]?.value ??
      null
    );
  }

  /**
   * Every meta row whose key starts with `prefix`, by key: a range of the key's index (a `substr` match
   * read every row, and meta holds rows per job: a fleet's cordoned nodes were found by reading them all on
   * every submit).
   */
  metaByPrefix(prefix: string): Array<{ key: string; value: string }> {
    if (prefix === "")
      return this.sql
        .exec<{ key: string; value: string }>("SELECT key, value FROM meta ORDER BY key")
        .toArray();
    // Keys compare as their UTF-8 bytes, so "starts with prefix" is [prefix, prefix with its last character
    // one higher).
    const end = prefix.slice(0, -1) + String.fromCodePoint(prefix.codePointAt(prefix.length - 1)! + 1);
    return this.sql
      .exec<{ key: string; value: string }>(
        "SELECT key, value FROM meta WHERE key >= ? AND key < ? ORDER BY key",
        prefix,
        end,
      )
      .toArray();
  }

  deleteMeta(key: string): void {
    this.sql.exec("DELETE FROM meta WHERE key = ?", key);
    this.metaCache.set(key, null);
  }

  setMeta(key: string, value: string): void {
    this.sql.exec(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      key,
      value,
    );
    this.metaCache.set(key, value);
  }
}
