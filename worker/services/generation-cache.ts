/**
 * What admission reads that only admins change (fleets, hardware profiles, recipes, the published
 * capsule), cached by this isolate under the ledger's configuration generation: D1 triggers bump
 * `meta.config_gen` in the same statement as any change to those tables (migrations/0005). A submit
 * refreshes the generation after its answer once the last sync is a second old (config-cache.ts
 * refreshConfigSoon), and a refused submit re-checks against fresh rows when it moved; what must bind the
 * moment an admin changes it is re-checked by the object that owns it (a fleet's drain and image allowlist
 * by its Fleet DO). A lookup that finds nothing (no capsule published yet) is cached like any other
 * answer: creating the row bumps the generation too. A load that throws is never cached.
 */
export class ConfigCache {
  private gen: string | null = null;
  private readonly entries = new Map<string, unknown>();

  /**
   * The cached value of `key`, else what `load` reads (null too: "none" is an answer the generation
   * covers; a load that throws is not kept). Only settled values are shared between requests: a load still in flight belongs to the
   * request that started it (workerd refuses I/O across requests), so concurrent misses each load.
   */
  async get<T>(key: string, load: () => Promise<T>): Promise<T> {
    if (this.entries.has(key)) return this.entries.get(key) as T;
    const gen = this.gen;
    const v = await load();
    // Kept only if the generation did not move while it loaded (it may predate the change).
    if (gen === this.gen) this.entries.set(key, v);
    return v;
  }

  /** Drops everything cached (this isolate just changed the configuration itself). */
  forget(): void {
    this.gen = null;
    this.entries.clear();
  }

  /** Adopts the generation read from the ledger; true when it moved (everything cached was dropped). */
  sync(gen: string): boolean {
    if (gen === this.gen) return false;
    this.gen = gen;
    this.entries.clear();
    return true;
  }
}
