import { and, desc, eq } from "drizzle-orm";
import { newId, nowIso } from "../../contract/ids.js";
import type { TokenView } from "../../contract/responses.schema.js";
import { type Db, schema } from "../../d1/client.js";
import { mintSecret } from "../auth/secrets.js";

export type { TokenView };

function view(t: typeof schema.tokens.$inferSelect): TokenView {
  return {
    id: t.id,
    name: t.name,
    prefix: t.prefix,
    created_at: t.createdAt,
    expires_at: t.expiresAt,
    revoked_at: t.revokedAt,
    last_used_at: t.lastUsedAt,
  };
}

/** Builds the insert for a new personal access token; the secret is returned once and never stored. */
export async function prepareToken(userId: string, name: string, expiresInDays?: number) {
  const minted = await mintSecret("sfp");
  const row = {
    id: newId("tok"),
    userId,
    name,
    hash: minted.hash,
    prefix: minted.prefix,
    expiresAt: expiresInDays ? nowIso(Date.now() + expiresInDays * 86_400_000) : null,
  };
  return { row, secret: minted.secret };
}

export async function createToken(d: Db, userId: string, name: string, expiresInDays?: number) {
  const { row, secret } = await prepareToken(userId, name, expiresInDays);
  await d.insert(schema.tokens).values(row).run();
  const stored = await d.select().from(schema.tokens).where(eq(schema.tokens.id, row.id)).get();
  return { token: secret, ...view(stored!) };
}

export async function listTokens(d: Db, userId: string): Promise<TokenView[]> {
  const rows = await d
    .select()
    .from(schema.tokens)
    .where(eq(schema.tokens.userId, userId))
    .orderBy(desc(schema.tokens.id))
    .all();
  return rows.map(view);
}

export async function findToken(d: Db, id: string) {
  return d.select().from(schema.tokens).where(eq(schema.tokens.id, id)).get();
}

export async function revokeToken(d: Db, id: string): Promise<void> {
  await d
    .update(schema.tokens)
    .set({ revokedAt: nowIso() })
    .where(and(eq(schema.tokens.id, id)))
    .run();
}
