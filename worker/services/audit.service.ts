/**
 * The audit log (docs/api.md "GET /v1/audit"): who did which administrative or security-relevant action to
 * what, when and from where. A route calls `recordAudit` once its action has succeeded, so a refused or
 * failed action leaves no entry. The entry is its own insert after the action: recording never fails an
 * action that already happened (a failed insert is logged and the answer goes out as it would have).
 */
import { and, desc, eq, gte, lt, or, type SQL, sql } from "drizzle-orm";
import type { AuditAction, AuditQuery } from "../../contract/audit.schema.js";
import { nowIso } from "../../contract/ids.js";
import { type Db, db, schema } from "../../d1/client.js";
import { clientAddress } from "../auth/login-limiter.js";
import type { Ctx } from "../auth/middleware.js";
import type { Principal } from "../auth/principal.js";

export type AuditDetails = Record<string, string | number | boolean | null>;

export interface AuditEntryInput {
  /** Stable action name, `<noun>.<verb>`: `user.create`, `secret.set`, … */
  action: AuditAction;
  /** What it acted on, `<kind>:<name>`: `user:alice`, `fleet:gpu-east`, `secret:user:alice/HF_TOKEN`. */
  target: string;
  /** Small facts about the action. Callers must never put a secret, token or secret-bearing URL here. */
  details?: AuditDetails;
}

const USER_AGENT_MAX = 200;
const DETAIL_TEXT_MAX = 200;

/** Who acted: a user (name and id), an agent (`agent:<node id>`), or the server itself. */
export function auditActor(p: Principal | undefined): { actor: string; actorId: string | null } {
  if (!p) return { actor: "system", actorId: null };
  if (p.kind === "agent") return { actor: `agent:${p.nodeId}`, actorId: p.nodeId };
  return { actor: p.name, actorId: p.userId };
}

/**
 * The client's address as the login limiter sees it (auth/login-limiter.ts): Cloudflare's
 * `CF-Connecting-IP`, else the first `X-Forwarded-For` entry (which a client can set itself when nothing
 * in front of the Worker overwrites it), else null.
 */
export function auditAddress(c: Ctx): string | null {
  const a = clientAddress(c.req.raw.headers);
  return a === "unknown" ? null : a;
}

export async function recordAudit(c: Ctx, entry: AuditEntryInput): Promise<void> {
  try {
    // Public routes (agent enrollment) run without a principal unless the route set one.
    const principal: Principal | undefined = c.get("principal");
    const details = Object.fromEntries(
      Object.entries(entry.details ?? {}).map(([k, v]) => [
        k,
        typeof v === "string" ? v.slice(0, DETAIL_TEXT_MAX) : v,
      ]),
    );
    await db(c.env.DB)
      .insert(schema.auditLog)
      .values({
        at: nowIso(),
        ...auditActor(principal),
        action: entry.action,
        target: entry.target,
        ip: auditAddress(c),
        userAgent: c.req.header("user-agent")?.slice(0, USER_AGENT_MAX) ?? null,
        details: JSON.stringify(details),
      })
      .run();
  } catch (err) {
    // The action already happened; a gap in the log is reported here rather than as a failed request.
    console.error(`audit: could not record ${entry.action} on ${entry.target}`, err);
  }
}

type AuditRow = typeof schema.auditLog.$inferSelect;

export function auditView(r: AuditRow) {
  return {
    seq: r.seq,
    at: r.at,
    actor: r.actor,
    actor_id: r.actorId,
    action: r.action,
    target: r.target,
    ip: r.ip,
    user_agent: r.userAgent,
    details: JSON.parse(r.details) as Record<string, unknown>,
  };
}

/** One page of the log, newest first; `next_cursor` continues below the page's last entry. */
export async function listAudit(d: Db, q: AuditQuery) {
  const t = schema.auditLog;
  const where: SQL[] = [];
  if (q.actor) where.push(or(eq(t.actor, q.actor), eq(t.actorId, q.actor))!);
  // A prefix compared as text, so `_` and `%` in a prefix mean themselves (LIKE would treat them as patterns).
  if (q.action) where.push(sql`substr(${t.action}, 1, ${q.action.length}) = ${q.action}`);
  if (q.target) where.push(eq(t.target, q.target));
  if (q.since) where.push(gte(t.at, q.since));
  if (q.until) where.push(lt(t.at, q.until));
  if (q.cursor) where.push(lt(t.seq, q.cursor));
  const rows = await d
    .select()
    .from(t)
    .where(and(...where))
    .orderBy(desc(t.seq))
    .limit(q.limit + 1)
    .all();
  const page = rows.slice(0, q.limit);
  return {
    entries: page.map(auditView),
    next_cursor: rows.length > q.limit ? String(page[page.length - 1]!.seq) : null,
  };
}
