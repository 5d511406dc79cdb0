/**
 * The isolate's ConfigCache (worker/services/generation-cache.ts) and the ledger's configuration
 * generation it is validated against.
 */
import { eq } from "drizzle-orm";
import { db, schema } from "../../d1/client.js";
import { type PlacementFleet, placementRows } from "../../d1/placement.js";
import { ConfigCache } from "./generation-cache.js";

/** The ledger's configuration generation now (where no batch reads it: a refusal's re-check). */
export async function configGeneration(d1: D1Database): Promise<string> {
  const row = await db(d1)
    .select({ value: schema.meta.value })
    .from(schema.meta)
    .where(eq(schema.meta.key, "config_gen"))
    .get();
  return row?.value ?? "0";
}

/** This isolate's cache. */
export const configCache = new ConfigCache();

/** How stale a warm isolate's configuration may be before a submit refreshes it (after its answer). */
export const CONFIG_REFRESH_MS = 1_000;
let lastSync = 0;
let syncing = false;

/**
 * Keeps this isolate's cache near the ledger without a D1 read on the submit path: a submit that finds the
 * last sync older than CONFIG_REFRESH_MS reads the generation after its answer (`waitUntil`), so the next
 * submit checks against what admins changed since. What must bind at once is re-checked where it lives:
 * the fleet's drain and image allowlist in its Fleet DO, the quota and account in the user's object.
 */
export function refreshConfigSoon(
  d1: D1Database,
  waitUntil: (p: Promise<unknown>) => void,
  now = Date.now(),
): void {
  if (syncing || now - lastSync < CONFIG_REFRESH_MS) return;
  syncing = true;
  waitUntil(
    configGeneration(d1)
      .then((gen) => {
        configCache.sync(gen);
        lastSync = Date.now();
      })
      .catch((err: unknown) => console.warn("refreshing the configuration cache failed", err))
      .finally(() => {
        syncing = false;
      }),
  );
}

/** What admins change that admission caches: fleets, hardware profiles, the catalog, the capsule. */
const CONFIG_PATHS = /^\/v1\/(fleets|profiles|catalog|capsule)(\/|$)/;

/**
 * After a successful change to a route that owns cached configuration: this isolate forgets what it
 * cached, so its next submit reads the change (other isolates within CONFIG_REFRESH_MS of their next submit).
 */
export function noteConfigWrite(method: string, path: string, status: number): void {
  if (method === "GET" || method === "HEAD" || status >= 400 || !CONFIG_PATHS.test(path)) return;
  configCache.forget();
  lastSync = 0;
  placement = null;
}

/**
 * How old the fleets (with the capacity summaries their Fleet DOs publish) this isolate holds for placing a
 * job over several fleets may be before a placement reads them again (worker/submit/placement.ts).
 */
export const CAPACITY_REFRESH_MS = 1_000;
export type { PlacementFleet };

let placement: { at: number; rows: PlacementFleet[] } | null = null;

export async function placementFleets(d: ReturnType<typeof db>, now = Date.now()): Promise<PlacementFleet[]> {
  if (placement && now - placement.at < CAPACITY_REFRESH_MS) return placement.rows;
  const rows = await placementRows(d);
  placement = { at: now, rows };
  return rows;
}
