/**
 * Users resolved from their tokens, remembered by this isolate for a minute. Only routes whose atomic step
 * re-checks the token (RECHECKED_ROUTES in middleware.ts: a submit's reservation in the user's object,
 * which refuses a revoked token and a disabled or demoted user) start from a remembered user, so a token
 * revoked, disabled or demoted meanwhile never gets anything done there; one past its expiry is never
 * served from here; it is forgotten as soon as such a check fails.
 */
import type { Principal } from "./principal.js";

type User = Extract<Principal, { kind: "user" }>;

const TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

interface Entry {
  user: User;
  lastUsedAt: string | null;
  /** The token's own expiry (ISO), if it has one. */
  expiresAt: string | null;
  until: number;
}

const byHash = new Map<string, Entry>();

export function rememberedUser(hash: string, now = Date.now()): Entry | null {
  const e = byHash.get(hash);
  if (!e) return null;
  if (e.until <= now || (e.expiresAt !== null && Date.parse(e.expiresAt) <= now)) {
    byHash.delete(hash);
    return null;
  }
  return e;
}

export function rememberUser(
  hash: string,
  user: User,
  lastUsedAt: string | null,
  expiresAt: string | null = null,
  now = Date.now(),
): void {
  if (byHash.size >= MAX_ENTRIES) byHash.clear();
  byHash.set(hash, { user, lastUsedAt, expiresAt, until: now + TTL_MS });
}

/** Forgets every remembered use of a token (its check failed). */
export function forgetToken(tokenId: string): void {
  for (const [hash, e] of byHash) if (e.user.tokenId === tokenId) byHash.delete(hash);
}
