/**
 * The isolate's ConfigCache (worker/services/generation-cache.ts) and the ledger's configuration
 * generation it is validated against.
 */
import { eq } from "drizzle-orm";
import { db, schema } from "../../durable-objects/ledger/client.js";
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
