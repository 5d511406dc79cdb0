/**
 * What admission reads that only admins change (fleets, hardware profiles, recipes, the published
 * capsule), cached by this isolate under the ledger's configuration generation: D1 triggers bump
 * `meta.config_gen` in the same statement as any change to those tables (migrations/0005). Every submit
 * reads the generation in the D1 batch that reserves its slot; if it moved, the cache is dropped and the
 * checks run again on fresh rows before the job goes anywhere. So a cached row is never trusted past the
 * transaction that admits a job. Lookups that fail (not found) are never cached.
 */
export class ConfigCache {
  private gen: string | null = null;
  private readonly entries = new Map<string, Promise<unknown>>();

  /** The cached value of `key`, loaded once per generation; a load that throws or yields null is not kept. */
  get<T>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit) return hit as Promise<T>;
    const forget = () => {
      if (this.entries.get(key) === p) this.entries.delete(key);
    };
    const p: Promise<T> = load().then(
      (v) => {
        if (v === null) forget();
        return v;
      },
      (err: unknown) => {
        forget();
        throw err;
      },
    );
    this.entries.set(key, p);
    return p;
  }

  /** Adopts the generation read from the ledger; true when it moved (everything cached was dropped). */
  sync(gen: string): boolean {
    if (gen === this.gen) return false;
    this.gen = gen;
    this.entries.clear();
    return true;
  }
}

/** This isolate's cache. */
export const configCache = new ConfigCache();
