/**
 * What a User DO takes over from D1 the first time it is used: the user's quota and account, the
 * Idempotency-Keys and slots of the admissions the ledger held before this object owned them, and the
 * usage today's GPU-hour quota counts. One D1 batch, once per user; never on a later request's path.
 */
import { and, eq, gte, isNull } from "drizzle-orm";
import type { Quota } from "../../contract/api.schema.js";
import { utcDay } from "../../contract/time.js";
import { db, schema } from "../../d1/client.js";
import { quotaOfRow } from "../../d1/quota-row.js";
import type { Account, KeyRow, SlotState } from "./store.js";

export interface LedgerSnapshot {
  quota: Quota | null;
  account: Account | null;
  keys: KeyRow[];
  slots: Array<{ job_id: string; fleet_id: string; state: SlotState; version: number; at: number }>;
  usage: Array<{ run_id: string; day: string; gpu_seconds: number }>;
  openRuns: Array<{ run_id: string; gpus: number; allocated_at: number }>;
}

export async function loadFromLedger(d1: D1Database, userId: string, now: number): Promise<LedgerSnapshot> {
  const d = db(d1);
  const { users, quotas, admissions: a, runUsage, runs } = schema;
  const [user, quota, admitted, usage, open] = await d.batch([
    d.select({ disabled: users.disabled, role: users.role }).from(users).where(eq(users.id, userId)),
    d.select().from(quotas).where(eq(quotas.userId, userId)),
    d.select().from(a).where(eq(a.userId, userId)),
    d
      .select({ runId: runUsage.runId, day: runUsage.day, gpuSeconds: runUsage.gpuSeconds })
      .from(runUsage)
      .where(and(eq(runUsage.userId, userId), gte(runUsage.day, utcDay(now - 86_400_000)))),
    d
      .select({ id: runs.id, gpus: runs.gpus, allocatedAt: runs.allocatedAt })
      .from(runs)
      .where(and(eq(runs.userId, userId), isNull(runs.endedAt))),
  ]);
  const q = quota[0];
  const u = user[0];
  return {
    quota: q ? quotaOfRow(q) : null,
    account: u ? { disabled: u.disabled, role: u.role } : null,
    keys: admitted.flatMap((r) =>
      r.idemKey !== null && r.requestHash !== null
        ? [
            {
              key: r.idemKey,
              request_hash: r.requestHash,
              fleet_id: r.fleetId,
              job_ids: JSON.stringify([r.jobId]),
              created_at: Date.parse(r.createdAt),
            },
          ]
        : [],
    ),
    slots: admitted.map((r) => ({
      job_id: r.jobId,
      fleet_id: r.fleetId,
      state: r.state,
      version: r.version,
      at: Date.parse(r.createdAt),
    })),
    usage: usage.map((r) => ({ run_id: r.runId, day: r.day, gpu_seconds: r.gpuSeconds })),
    openRuns: open.map((r) => ({ run_id: r.id, gpus: r.gpus, allocated_at: Date.parse(r.allocatedAt) })),
  };
}
