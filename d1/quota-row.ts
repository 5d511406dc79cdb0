/** A user's quota as D1 stores it (one row of `quotas`), read back as the contract's Quota. */
import { type Quota, QuotaBody } from "../contract/api.schema.js";
import type { quotas } from "./schema.js";

export function quotaOfRow(q: typeof quotas.$inferSelect): Quota {
  return QuotaBody.parse({
    max_gpus: q.maxGpus,
    max_jobs: q.maxJobs,
    daily_gpu_hours: q.dailyGpuHours,
    allowed_profiles: JSON.parse(q.allowedProfiles) as string[],
    priority: q.priority,
    max_priority_class: q.maxPriorityClass,
  });
}
