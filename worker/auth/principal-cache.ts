/**
 * Users resolved from their tokens, remembered by this isolate for a minute. Only routes whose own D1
 * write re-checks the token in the same statement (RECHECKED_ROUTES in middleware.ts: a submit's
 * reservation) start from a remembered user, so a token revoked, expired, disabled or demoted meanwhile
 * never gets anything done there; it is forgotten as soon as such a check fails.
 */
import type { Principal } from "./principal.js";

type User = Extract<Principal, { kind: "user" }>;

const TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

interface Entry {
  user: User;
  lastUsedAt: string | null;
  until: number;
}

const byHash = new Map<string, Entry>();

export function rememberedUser(hash: string, now = Date.now()): Entry | null {
  const e = byHash.get(hash);
  if (!e) return null;
  if (e.until <= now) {
    byHash.delete(hash);
    return null;
  }
  return e;
}

export function rememberUser(hash: string, user: User, lastUsedAt: string | null, now = Date.now()): void {
  if (byHash.size >= MAX_ENTRIES) byHash.clear();
  byHash.set(hash, { user, lastUsedAt, until: now + TTL_MS });
}

/** Forgets every remembered use of a token (its check failed). */
export function forgetToken(tokenId: string): void {
  for (const [hash, e] of byHash) if (e.user.tokenId === tokenId) byHash.delete(hash);
}
