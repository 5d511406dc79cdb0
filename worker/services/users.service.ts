import { eq } from "drizzle-orm";
import { DEFAULT_QUOTA, type Quota, QuotaBody } from "../../contract/api.schema.js";
import { type Db, schema } from "../../durable-objects/ledger/client.js";
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

export async function quotaOf(d: Db, userId: string): Promise<Quota> {
  return quotaFromRow(await d.select().from(schema.quotas).where(eq(schema.quotas.userId, userId)).get());
}

/** A user's quota row as read; none: the default quota. */
export function quotaFromRow(q: typeof schema.quotas.$inferSelect | undefined): Quota {
  if (!q) return DEFAULT_QUOTA;
  return QuotaBody.parse({
    max_gpus: q.maxGpus,
    max_jobs: q.maxJobs,
    daily_gpu_hours: q.dailyGpuHours,
    allowed_profiles: JSON.parse(q.allowedProfiles) as string[],
    priority: q.priority,
  });
}
