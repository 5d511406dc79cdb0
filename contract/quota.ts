/**
 * What a user's quota allows one more job to take, as a pure decision: the per-user object (UserDO)
 * applies it atomically with the slot it reserves, and the result names the limit a refusal rests on.
 */
import { type Quota, QuotaBody } from "./api.schema.js";
import type { ErrorCode } from "./errors.js";
import { utcDay } from "./time.js";

export interface QuotaRefusal {
  code: Extract<ErrorCode, "QUOTA_EXCEEDED" | "PROFILE_NOT_ALLOWED">;
  message: string;
  details?: Record<string, unknown>;
}

/** One job as the quota sees it: its GPUs (all pools) and the profiles of its pools. */
export interface QuotaAsk {
  gpus: number;
  profiles: string[];
}

/**
 * Why `quota` refuses a job with `ask`, given the GPU-hours its user used today (UTC) and the jobs that
 * already hold a slot (`held`, reserved or active) plus how many this request adds; null: allowed.
 */
export function quotaRefusal(
  ask: QuotaAsk,
  quota: Quota,
  usedToday: number,
  slots?: { held: number; adding: number },
): QuotaRefusal | null {
  const denied = [...new Set(ask.profiles)].filter(
    (p) => quota.allowed_profiles.length > 0 && !quota.allowed_profiles.includes(p),
  );
  if (denied.length > 0) {
    return {
      code: "PROFILE_NOT_ALLOWED",
      message: `your quota does not allow profile ${denied.join(", ")}; allowed: ${quota.allowed_profiles.join(", ")}`,
    };
  }
  if (ask.gpus > quota.max_gpus) {
    return {
      code: "QUOTA_EXCEEDED",
      message: `this job needs ${ask.gpus} GPUs; your quota allows ${quota.max_gpus} at once`,
      details: { limit: "max_gpus", value: quota.max_gpus, requested: ask.gpus },
    };
  }
  if (usedToday >= quota.daily_gpu_hours) {
    return {
      code: "QUOTA_EXCEEDED",
      message: `you used ${usedToday.toFixed(1)} of your ${quota.daily_gpu_hours} GPU-hours today (UTC); try again tomorrow`,
      details: { limit: "daily_gpu_hours", value: quota.daily_gpu_hours, used: usedToday },
    };
  }
  if (slots && slots.held + slots.adding > quota.max_jobs) {
    return {
      code: "QUOTA_EXCEEDED",
      message:
        slots.adding > 1
          ? `these ${slots.adding} jobs would make ${slots.held + slots.adding} active; your limit is ${quota.max_jobs} (you have ${slots.held})`
          : `you have ${slots.held} active jobs; your limit is ${quota.max_jobs}`,
      details: { limit: "max_jobs", value: quota.max_jobs },
    };
  }
  return null;
}

/** A run's GPUs as the daily figure counts them: from allocation (or today's start) to its end or now. */
export interface OpenRun {
  gpus: number;
  allocatedAt: number;
}

/** GPU-hours today (UTC) from the GPU-seconds finished runs recorded for today and the runs still open. */
export function gpuHoursToday(finishedSeconds: number, open: readonly OpenRun[], now: number): number {
  const dayStart = Date.parse(`${utcDay(now)}T00:00:00.000Z`);
  const live = open.reduce(
    (s, r) => s + (Math.max(0, now - Math.max(r.allocatedAt, dayStart)) / 1000) * r.gpus,
    0,
  );
  return (finishedSeconds + live) / 3600;
}

/** Quotas parsed from their stored JSON, by that JSON: the objects read the same few on every submit. */
const parsedQuotas = new Map<string, Quota>();

/** A quota as stored (its JSON), parsed and checked once per distinct text; shared, so frozen. */
export function quotaFromJson(raw: string): Quota {
  let q = parsedQuotas.get(raw);
  if (!q) {
    q = QuotaBody.parse(JSON.parse(raw));
    for (const v of Object.values(q)) if (Array.isArray(v)) Object.freeze(v);
    Object.freeze(q);
    // Bounded: a stored quota changes rarely, so a full cache means many users; start again.
    if (parsedQuotas.size >= 1_000) parsedQuotas.clear();
    parsedQuotas.set(raw, q);
  }
  return q;
}

/** A job's queue priority: what its spec asks for, at most its submitter's quota priority (the default). */
export function jobPriority(requested: number | undefined, quota: Pick<Quota, "priority">): number {
  return Math.min(requested ?? quota.priority, quota.priority);
}
