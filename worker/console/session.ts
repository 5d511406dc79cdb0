/**
 * Web console sessions. Signing in with a personal access token (or approving a device code from a
 * signed-in browser) creates a row here and gives the browser an opaque 256-bit cookie; only its sha256
 * is stored. The session acts as the token that created it: revoking or expiring that token, or disabling
 * its user, ends it at the next request. Expiry is idle (pushed forward as the session is used) and
 * absolute (never moves). The cookie is HttpOnly, SameSite=Lax, Path=/, and on https Secure with the
 * __Host- prefix. State-changing forms carry a CSRF token derived from the cookie (unknowable without it),
 * checked with the Origin header.
 */
import { eq, lt } from "drizzle-orm";
import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { sha256Hex } from "../../contract/digest.js";
import { nowIso } from "../../contract/ids.js";
import { db, schema } from "../../d1/client.js";
import type { Principal } from "../auth/principal.js";
import { hashSecret, randomBase64Url } from "../auth/secrets.js";
import type { AppEnv } from "../env.js";

/** Declared here, not in the ledger's schema: only this module reads or writes it (migrations/0011). */
export const consoleSessions = sqliteTable(
  "console_sessions",
  {
    id: text("id").primaryKey(),
    tokenId: text("token_id").notNull(),
    createdAt: text("created_at").notNull(),
    idleExpiresAt: text("idle_expires_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    userAgent: text("user_agent"),
  },
  (t) => [index("console_sessions_token").on(t.tokenId)],
);

export type UserPrincipal = Extract<Principal, { kind: "user" }>;

export interface Session {
  principal: UserPrincipal;
  /** The value every state-changing form must send back as `_csrf`. */
  csrf: string;
  expiresAt: string;
}

/** Defaults: signed out after 8 hours without a request, and 7 days after signing in whatever happens. */
const DEFAULT_IDLE_SECONDS = 8 * 3600;
const DEFAULT_MAX_SECONDS = 7 * 24 * 3600;
/** The idle expiry is written at most this often per session (a page load is several requests). */
const TOUCH_EVERY_MS = 60_000;

type SessionEnv = Pick<AppEnv, "DB"> & { SF_CONSOLE_IDLE_SECONDS?: string; SF_CONSOLE_MAX_SECONDS?: string };

/**
 * The bindings of a request's context, any of the console's (a page's, the /device page's): taken as a
 * plain Context, not api.ts's ConsoleCtx, so this module and api.ts do not import each other.
 */
function envOf(c: Context): SessionEnv {
  return c.env as SessionEnv;
}

function lifetimes(env: SessionEnv): { idleMs: number; maxMs: number } {
  const seconds = (v: string | undefined, d: number) => {
    const n = Number(v);
    return Number.isFinite(n) && n > 0 ? n : d;
  };
  return {
    idleMs: seconds(env.SF_CONSOLE_IDLE_SECONDS, DEFAULT_IDLE_SECONDS) * 1000,
    maxMs: seconds(env.SF_CONSOLE_MAX_SECONDS, DEFAULT_MAX_SECONDS) * 1000,
  };
}

const COOKIE = "sf_session";

/**
 * Plain `sf_session` on http (localhost); `__Host-sf_session` (Secure, host-only, Path=/) on https. Hono's
 * cookie helpers add the `__Host-` prefix themselves when given `prefix: "host"`.
 */
function prefixOf(c: Context): "host" | undefined {
  return isHttps(c) ? "host" : undefined;
}

function isHttps(c: Context): boolean {
  return new URL(c.req.url).protocol === "https:";
}

/** The session cookie's value as the browser sent it (under the name this scheme uses), if any. */
function cookieValue(c: Context): string | undefined {
  return getCookie(c, COOKIE, prefixOf(c));
}

/** Whether the request carries a session cookie at all (valid or not): a stale one means "expired". */
export function hasSessionCookie(c: Context): boolean {
  return cookieValue(c) !== undefined;
}

/** Tells the browser to forget its session cookie (after sign-out, or once the session is over). */
export function clearSessionCookie(c: Context): void {
  deleteCookie(c, COOKIE, {
    path: "/",
    httpOnly: true,
    sameSite: "Lax",
    secure: isHttps(c),
    prefix: prefixOf(c),
  });
}

export function csrfOf(cookieValue: string): Promise<string> {
  return sha256Hex(`starforge console csrf\n${cookieValue}`);
}

/** Starts a session for the token with id `tokenId` and sets its cookie. */
export async function startSession(c: Context, tokenId: string): Promise<void> {
  const value = randomBase64Url(32);
  const now = Date.now();
  const { idleMs, maxMs } = lifetimes(envOf(c));
  // Sessions past their absolute expiry are refused anyway; a sign-in (rare) clears their rows away.
  await sweepSessions(envOf(c));
  await db(envOf(c).DB)
    .insert(consoleSessions)
    .values({
      id: await hashSecret(value),
      tokenId,
      createdAt: nowIso(now),
      idleExpiresAt: nowIso(Math.min(now + idleMs, now + maxMs)),
      expiresAt: nowIso(now + maxMs),
      userAgent: c.req.header("user-agent")?.slice(0, 200) ?? null,
    })
    .run();
  setCookie(c, COOKIE, value, {
    path: "/",
    httpOnly: true,
    sameSite: "Lax",
    secure: isHttps(c),
    prefix: prefixOf(c),
    maxAge: Math.floor(maxMs / 1000),
  });
}

/**
 * The session the request's cookie names, still valid with its token and user; null otherwise (no
 * cookie, unknown, expired, token revoked or expired, user disabled). Pushes the idle expiry forward.
 */
export async function readSession(c: Context): Promise<Session | null> {
  const value = cookieValue(c);
  if (!value || value.length > 100) return null;
  const id = await hashSecret(value);
  const now = Date.now();
  const nowText = nowIso(now);
  const row = await db(envOf(c).DB)
    .select({ session: consoleSessions, token: schema.tokens, user: schema.users })
    .from(consoleSessions)
    .innerJoin(schema.tokens, eq(schema.tokens.id, consoleSessions.tokenId))
    .innerJoin(schema.users, eq(schema.users.id, schema.tokens.userId))
    .where(eq(consoleSessions.id, id))
    .get();
  if (!row) return null;
  const over =
    row.session.expiresAt <= nowText ||
    row.session.idleExpiresAt <= nowText ||
    row.token.revokedAt !== null ||
    (row.token.expiresAt !== null && row.token.expiresAt <= nowText) ||
    row.user.disabled;
  if (over) {
    await db(envOf(c).DB).delete(consoleSessions).where(eq(consoleSessions.id, id)).run();
    return null;
  }
  const { idleMs } = lifetimes(envOf(c));
  const idleUntil = nowIso(Math.min(now + idleMs, Date.parse(row.session.expiresAt)));
  if (Date.parse(idleUntil) - Date.parse(row.session.idleExpiresAt) >= TOUCH_EVERY_MS) {
    await db(envOf(c).DB)
      .update(consoleSessions)
      .set({ idleExpiresAt: idleUntil })
      .where(eq(consoleSessions.id, id))
      .run();
  }
  return {
    principal: {
      kind: "user",
      userId: row.user.id,
      name: row.user.name,
      role: row.user.role,
      tokenId: row.token.id,
    },
    csrf: await csrfOf(value),
    expiresAt: row.session.expiresAt,
  };
}

/** Signs the browser out: the row is deleted (the cookie alone is worth nothing after) and the cookie cleared. */
export async function endSession(c: Context): Promise<void> {
  const value = cookieValue(c);
  if (value) {
    await db(envOf(c).DB)
      .delete(consoleSessions)
      .where(eq(consoleSessions.id, await hashSecret(value)))
      .run();
  }
  clearSessionCookie(c);
}

/** Deletes sessions past their absolute expiry (at each sign-in; expired ones are refused anyway). */
async function sweepSessions(env: Pick<AppEnv, "DB">): Promise<void> {
  await db(env.DB).delete(consoleSessions).where(lt(consoleSessions.expiresAt, nowIso())).run();
}

/** Constant-time comparison of two strings of hex/base64url characters. */
export function sameSecret(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
