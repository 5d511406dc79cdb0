import { and, eq, sql } from "drizzle-orm";
import { DEFAULT_QUOTA, type Quota } from "../../contract/api.schema.js";
import { gpuHoursToday } from "../../contract/quota.js";
import { utcDay } from "../../contract/time.js";
import { type Db, schema } from "../../d1/client.js";
import { quotaOfRow } from "../../d1/quota-row.js";
import { AppError } from "../errors.js";

export type UserRow = typeof schema.users.$inferSelect;

export function userView(u: UserRow) {
  return {
    id: u.id,
    name: u.name,
    email: u.email,
    role: u.role,
    disabled: u.disabled,
    created_at: u.createdAt,
  };
}

export async function userByName(d: Db, name: string): Promise<UserRow> {
  const u = await d.select().from(schema.users).where(eq(schema.users.name, name)).get();
  if (!u) throw new AppError("USER_NOT_FOUND", `no user named ${name}`);
  return u;
}

/**
 * Whose list a `?user=NAME` read is for: the caller's own without it (or with their own name), another
 * user's for an admin; anyone else is refused (`what` names the list).
 */
export async function listedUserId(
  d: Db,
  me: { userId: string; name: string; role: string },
  who: string | undefined,
  what: string,
): Promise<string> {
  if (who && who !== me.name && me.role !== "admin") {
    throw new AppError("FORBIDDEN", `only admins list other users' ${what}`);
  }
  return who ? (await userByName(d, who)).id : me.userId;
}

export async function quotaOf(d: Db, userId: string): Promise<Quota> {
  return quotaFromRow(await d.select().from(schema.quotas).where(eq(schema.quotas.userId, userId)).get());
}

/** A user's quota row as read; none: the default quota. */
export function quotaFromRow(q: typeof schema.quotas.$inferSelect | undefined): Quota {
  if (!q) return DEFAULT_QUOTA;
  return quotaOfRow(q);
}

/** GET /v1/usage's figure: GPU-hours today (UTC) from the D1 ledger (finished runs plus the open ones). */
export async function gpuHoursTodayInLedger(
  d: Db,
  userId: string,
  now: number = Date.now(),
): Promise<number> {
  const done = await d
    .select({ s: sql<number>`coalesce(sum(${schema.runUsage.gpuSeconds}), 0)` })
    .from(schema.runUsage)
    .where(and(eq(schema.runUsage.userId, userId), eq(schema.runUsage.day, utcDay(now))))
    .get();
  const open = await d
    .select({ gpus: schema.runs.gpus, at: schema.runs.allocatedAt })
    .from(schema.runs)
    .where(and(eq(schema.runs.userId, userId), sql`${schema.runs.endedAt} IS NULL`))
    .all();
  return gpuHoursToday(
    done?.s ?? 0,
    open.map((r) => ({ gpus: r.gpus, allocatedAt: Date.parse(r.at) })),
    now,
  );
}
