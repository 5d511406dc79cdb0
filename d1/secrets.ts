/**
 * Job secrets in D1 (schema.ts `secrets`): sealed values by (scope, owner, name). The Worker writes and
 * lists them; the Fleet DO opens the ones a run names into its LaunchRequest. A job sees its submitter's
 * secret of a name, else its fleet's (the more specific one wins).
 */
import { and, asc, eq, inArray, ne, or } from "drizzle-orm";
import { nowIso } from "../contract/ids.js";
import { type Db, schema } from "./client.js";
import { openSecret, type SecretAddress, type SecretKeyring, sealSecret } from "./secret-box.js";

const s = schema.secrets;
export type SecretRow = typeof s.$inferSelect;

/** Seals and stores a value; true when the name was new in that scope. */
export async function putSecret(
  d: Db,
  ring: SecretKeyring,
  at: SecretAddress,
  value: string,
  setBy: string,
): Promise<{ created: boolean; row: SecretRow }> {
  const { keyId, sealed } = await sealSecret(ring, at, value);
  const now = nowIso();
  const before = await d
    .select({ n: s.name })
    .from(s)
    .where(and(eq(s.scope, at.scope), eq(s.ownerId, at.ownerId), eq(s.name, at.name)))
    .get();
  const row = await d
    .insert(s)
    .values({ ...at, keyId, sealed, setBy, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: [s.scope, s.ownerId, s.name],
      set: { keyId, sealed, setBy, updatedAt: now },
    })
    .returning()
    .get();
  return { created: !before, row };
}

export async function listSecrets(
  d: Db,
  scope: SecretAddress["scope"],
  ownerId: string,
): Promise<SecretRow[]> {
  return d
    .select()
    .from(s)
    .where(and(eq(s.scope, scope), eq(s.ownerId, ownerId)))
    .orderBy(asc(s.name))
    .all();
}

/** True when there was such a secret. */
export async function deleteSecret(d: Db, at: SecretAddress): Promise<boolean> {
  const gone = await d
    .delete(s)
    .where(and(eq(s.scope, at.scope), eq(s.ownerId, at.ownerId), eq(s.name, at.name)))
    .returning({ name: s.name })
    .all();
  return gone.length > 0;
}

/** The rows a job of `userId` on `fleetId` sees for `names`: the user's, else the fleet's. */
export async function secretsOfJob(
  d: Db,
  who: { userId: string; fleetId: string },
  names: readonly string[],
): Promise<Map<string, SecretRow>> {
  const found = new Map<string, SecretRow>();
  if (names.length === 0) return found;
  const rows = await d
    .select()
    .from(s)
    .where(
      and(
        inArray(s.name, [...names]),
        or(
          and(eq(s.scope, "user"), eq(s.ownerId, who.userId)),
          and(eq(s.scope, "fleet"), eq(s.ownerId, who.fleetId)),
        ),
      ),
    )
    .all();
  for (const r of rows) {
    const held = found.get(r.name);
    if (!held || r.scope === "user") found.set(r.name, r);
  }
  return found;
}

/** Opens the rows into name → value (throws SecretKeyError when a key is missing or a value altered). */
export async function openSecrets(
  ring: SecretKeyring,
  rows: Iterable<SecretRow>,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const r of rows) {
    out[r.name] = await openSecret(ring, { scope: r.scope, ownerId: r.ownerId, name: r.name }, r);
  }
  return out;
}

/**
 * Seals again, under the current key, every value sealed with another (after SF_SECRETS_KEY rotated):
 * each row is rewritten only if it still holds what was read, so a value set meanwhile is never
 * overwritten. Values whose key is gone are counted, not touched.
 */
export async function rewrapSecrets(
  d: Db,
  ring: SecretKeyring,
): Promise<{
  rewrapped: number;
  unreadable: Array<{ scope: string; owner_id: string; name: string; key_id: string }>;
}> {
  const stale = await d.select().from(s).where(ne(s.keyId, ring.current.id)).all();
  let rewrapped = 0;
  const unreadable: Array<{ scope: string; owner_id: string; name: string; key_id: string }> = [];
  for (const r of stale) {
    const at = { scope: r.scope, ownerId: r.ownerId, name: r.name };
    let value: string;
    try {
      value = await openSecret(ring, at, r);
    } catch {
      unreadable.push({ scope: r.scope, owner_id: r.ownerId, name: r.name, key_id: r.keyId });
      continue;
    }
    const next = await sealSecret(ring, at, value);
    const done = await d
      .update(s)
      .set({ keyId: next.keyId, sealed: next.sealed })
      .where(and(eq(s.scope, r.scope), eq(s.ownerId, r.ownerId), eq(s.name, r.name), eq(s.sealed, r.sealed)))
      .returning({ name: s.name })
      .all();
    rewrapped += done.length;
  }
  return { rewrapped, unreadable };
}
