/**
 * Authentication is default-deny: every /v1 route needs a valid bearer token unless it is listed in
 * PUBLIC_ROUTES. Each route then declares the least role it needs with `requireRole`.
 */
import { and, eq } from "drizzle-orm";
import type { Context, MiddlewareHandler } from "hono";
import { ROLE_RANK, type Role } from "../../contract/api.schema.js";
import { nowIso } from "../../contract/ids.js";
import { db, schema } from "../../d1/client.js";
import { type AppEnv, config } from "../env.js";
import { AppError } from "../errors.js";
import { waitUntil } from "../execution.js";
import { verifyAgentCredential } from "./agent-credential.js";
import { delegatedPrincipal } from "./delegation.js";
import { countFailedLogin, isFailedLogin, refuseIfLockedOut } from "./login-limiter.js";
import type { AppVars, Principal } from "./principal.js";
import { rememberedUser, rememberUser } from "./principal-cache.js";
import { hashSecret } from "./secrets.js";

export type Env = { Bindings: AppEnv; Variables: AppVars };
export type Ctx = Context<Env>;

const PUBLIC_ROUTES = new Set([
  "GET /v1/health",
  "HEAD /v1/health",
  "GET /v1/openapi.json",
  "HEAD /v1/openapi.json",
  "POST /v1/agents/enroll",
  // The device login: the CLI has no token yet (worker/routes/device.routes.ts).
  "POST /v1/auth/device",
  "POST /v1/auth/device/token",
]);

export function bearer(c: Ctx): string | null {
  const h = c.req.header("authorization");
  if (!h) return null;
  const m = /^Bearer\s+(\S+)$/i.exec(h);
  if (!m) throw new AppError("UNAUTHENTICATED", "Authorization header must be `Bearer <token>`");
  return m[1]!;
}

/**
 * Routes whose atomic step re-checks the caller's token (a submit's reservation in the user's object:
 * not revoked, user enabled, role high enough; worker/submit/submit.ts), so they may start from a user this
 * isolate resolved recently.
 */
const RECHECKED_ROUTES = new Set(["POST /v1/jobs"]);

/** Job-side ingest authenticates with the run's own token instead (auth/ingest-auth.ts), never a user's. */
const INGEST_PREFIX = "/v1/ingest/";

/**
 * Never refused for failed logins (auth/login-limiter.ts): a locked-out office must not look like an outage
 * to its monitors, nor stall its running jobs' reports.
 */
const UNLIMITED_ROUTES = new Set(["GET /v1/health", "HEAD /v1/health"]);

/** Whether a request to `method path` passes the failed-login limiter (it may be refused with 429). */
export function loginLimited(method: string, path: string): boolean {
  return !UNLIMITED_ROUTES.has(`${method} ${path}`) && !path.startsWith(INGEST_PREFIX);
}

export const authenticate: MiddlewareHandler<Env> = async (c, next) => {
  const route = `${c.req.method} ${c.req.path}`;
  if (!loginLimited(c.req.method, c.req.path)) return next();
  // The web console calling in-process for a signed-in session (auth/delegation.ts).
  const onBehalfOf = delegatedPrincipal(c.req.raw);
  if (onBehalfOf) {
    c.set("principal", onBehalfOf);
    return next();
  }
  const presented = c.req.header("authorization") || null;
  // Before any token is looked up: a locked-out address or token is refused, a valid token too.
  await refuseIfLockedOut(c, presented);
  if (PUBLIC_ROUTES.has(route)) return next();
  try {
    const token = bearer(c);
    if (!token) throw new AppError("UNAUTHENTICATED", "missing bearer token; log in with `sf login`");
    c.set("principal", await resolvePrincipal(c, token, RECHECKED_ROUTES.has(route)));
  } catch (err) {
    // Presenting nothing guesses nothing; a wrong credential counts (and may turn this 401 into a 429).
    if (presented !== null && isFailedLogin(err)) await countFailedLogin(c, presented);
    throw err;
  }
  return next();
};

async function resolvePrincipal(c: Ctx, token: string, mayRemember: boolean): Promise<Principal> {
  if (token.startsWith("eyJ")) {
    const agent = await verifyAgentCredential(config(c.env).jwtSecret, token);
    if (!agent) throw new AppError("UNAUTHENTICATED", "invalid agent credential");
    return { kind: "agent", ...agent };
  }
  const hash = await hashSecret(token);
  const known = mayRemember ? rememberedUser(hash) : null;
  if (known) {
    if (touchToken(c, known.user.tokenId, known.lastUsedAt)) known.lastUsedAt = nowIso();
    return known.user;
  }
  const row = await db(c.env.DB)
    .select({ token: schema.tokens, user: schema.users })
    .from(schema.tokens)
    .innerJoin(schema.users, eq(schema.users.id, schema.tokens.userId))
    .where(eq(schema.tokens.hash, hash))
    .get();
  if (!row) throw new AppError("UNAUTHENTICATED", "unknown token");
  if (row.token.revokedAt) throw new AppError("TOKEN_REVOKED", "this token was revoked; create a new one");
  if (row.token.expiresAt && row.token.expiresAt <= nowIso()) {
    throw new AppError("TOKEN_REVOKED", `this token expired at ${row.token.expiresAt}`);
  }
  if (row.user.disabled) throw new AppError("FORBIDDEN", `user ${row.user.name} is disabled`);
  touchToken(c, row.token.id, row.token.lastUsedAt);
  const user = {
    kind: "user" as const,
    userId: row.user.id,
    name: row.user.name,
    role: row.user.role,
    tokenId: row.token.id,
  };
  rememberUser(hash, user, row.token.lastUsedAt, row.token.expiresAt);
  return user;
}

/** Records last use at most once an hour per token, off the request path; true when it did now. */
function touchToken(c: Ctx, tokenId: string, lastUsedAt: string | null): boolean {
  const now = Date.now();
  if (lastUsedAt && now - Date.parse(lastUsedAt) < 3_600_000) return false;
  const write = db(c.env.DB)
    .update(schema.tokens)
    .set({ lastUsedAt: nowIso(now) })
    .where(and(eq(schema.tokens.id, tokenId)))
    .run()
    .catch((err: unknown) => console.warn("token touch failed", err));
  // Without an execution context (app.request in unit tests) the write still proceeds.
  waitUntil(c, write);
  return true;
}

/**
 * Resolves the caller afresh, as a first request would (never a remembered user), and checks its role:
 * throws the precise refusal (unknown, revoked or expired token, disabled user, too low a role).
 */
export async function reauthenticate(c: Ctx, role: Role): Promise<void> {
  const token = bearer(c);
  if (!token) throw new AppError("UNAUTHENTICATED", "missing bearer token; log in with `sf login`");
  const p = await resolvePrincipal(c, token, false);
  if (p.kind === "user" && ROLE_RANK[p.role] < ROLE_RANK[role]) {
    throw new AppError("FORBIDDEN", `this needs the ${role} role; you are ${p.role}`);
  }
}

/** The least role a user route needs. Agents never pass a user role check. */
export function requireRole(role: Role): MiddlewareHandler<Env> {
  return async (c, next) => {
    const p = c.get("principal");
    if (p.kind !== "user") throw new AppError("FORBIDDEN", "this route is for users, not agents");
    if (ROLE_RANK[p.role] < ROLE_RANK[role]) {
      throw new AppError("FORBIDDEN", `this needs the ${role} role; you are ${p.role}`);
    }
    return next();
  };
}

export function requireAgent(): MiddlewareHandler<Env> {
  return async (c, next) => {
    if (c.get("principal").kind !== "agent") throw new AppError("FORBIDDEN", "this route is for agents");
    return next();
  };
}

export function currentUser(c: Ctx): Extract<Principal, { kind: "user" }> {
  const p = c.get("principal");
  if (p.kind !== "user") throw new AppError("FORBIDDEN", "this route is for users, not agents");
  return p;
}

export function isAdmin(p: Principal): boolean {
  return p.kind === "user" && p.role === "admin";
}
