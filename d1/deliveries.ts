/**
 * Webhook deliveries in D1: created by the Fleet DO's outbox flush (one per subscribed endpoint and job
 * event, in the same batch as the event: durable-objects/fleet/projections.ts), claimed, recorded and swept by the owner's WebhookDispatcher.
 * The pending rows are the timers (`next_attempt_at`); a claim is a lease, so an attempt lost with its
 * sender is retried once the lease ends, and a redelivery that cleared the lease wins over a late result.
 */
import { and, asc, eq, inArray, lt, lte, min, ne, sql } from "drizzle-orm";
import type { DeliveryAttempt } from "../contract/webhooks.schema.js";
import { db, schema } from "./client.js";

const { webhooks, webhookDeliveries: wd } = schema;

export interface ClaimedDelivery {
  seq: number;
  webhookId: string;
  eventId: string;
  payload: string;
  cycleAttempts: number;
  attempts: number;
}

export type Endpoint = Pick<
  typeof webhooks.$inferSelect,
  "id" | "url" | "secret" | "previousSecret" | "previousSecretExpiresAt"
>;

/** Claims up to `limit` due deliveries of a user under `lease` until `leaseUntil`, earliest first. */
export async function claimDue(
  d1: D1Database,
  userId: string,
  now: number,
  lease: string,
  leaseUntil: number,
  limit: number,
): Promise<ClaimedDelivery[]> {
  const d = db(d1);
  const due = d
    .select({ seq: wd.seq })
    .from(wd)
    .where(and(eq(wd.userId, userId), eq(wd.state, "pending"), lte(wd.nextAttemptAt, now)))
    .orderBy(asc(wd.nextAttemptAt), asc(wd.seq))
    .limit(limit);
  return d.update(wd).set({ lease, nextAttemptAt: leaseUntil }).where(inArray(wd.seq, due)).returning({
    seq: wd.seq,
    webhookId: wd.webhookId,
    eventId: wd.eventId,
    payload: wd.payload,
    cycleAttempts: wd.cycleAttempts,
    attempts: wd.attempts,
  });
}

export async function endpoints(d1: D1Database, ids: string[]): Promise<Map<string, Endpoint>> {
  const rows = await db(d1)
    .select({
      id: webhooks.id,
      url: webhooks.url,
      secret: webhooks.secret,
      previousSecret: webhooks.previousSecret,
      previousSecretExpiresAt: webhooks.previousSecretExpiresAt,
    })
    .from(webhooks)
    .where(inArray(webhooks.id, ids));
  return new Map(rows.map((e) => [e.id, e]));
}

/**
 * Records an attempt. The counters and the log always take it; state and next time only while the claim
 * is still ours: a redelivery that re-queued the row meanwhile cleared the lease, and its new cycle wins.
 */
export async function recordAttempt(
  d1: D1Database,
  seq: number,
  lease: string,
  attempt: DeliveryAttempt,
  outcome: { state: "pending" | "delivered" | "failed"; nextAttemptAt: number | null },
  at: string,
): Promise<void> {
  const ours = sql`${wd.lease} = ${lease}`;
  await db(d1)
    .update(wd)
    .set({
      attempts: sql`${wd.attempts} + 1`,
      attemptLog: sql`json_insert(${wd.attemptLog}, '$[#]', json(${JSON.stringify(attempt)}))`,
      lastStatusCode: attempt.status_code,
      lastError: attempt.error,
      state: sql`CASE WHEN ${ours} THEN ${outcome.state} ELSE ${wd.state} END`,
      nextAttemptAt: sql`CASE WHEN ${ours} THEN ${outcome.nextAttemptAt} ELSE ${wd.nextAttemptAt} END`,
      cycleAttempts: sql`CASE WHEN ${ours} THEN ${wd.cycleAttempts} + 1 ELSE ${wd.cycleAttempts} END`,
      deliveredAt: outcome.state === "delivered" ? at : sql`${wd.deliveredAt}`,
      lease: sql`CASE WHEN ${ours} THEN NULL ELSE ${wd.lease} END`,
    })
    .where(eq(wd.seq, seq));
}

/** When the next pending delivery of `userId` is due (epoch ms), or null when none is pending. */
export async function nextDue(d1: D1Database, userId: string): Promise<number | null> {
  const [r] = await db(d1)
    .select({ due: min(wd.nextAttemptAt) })
    .from(wd)
    .where(and(eq(wd.userId, userId), eq(wd.state, "pending")));
  return r?.due ?? null;
}

/** Deletes a user's finished deliveries created before `before` (ISO). */
export async function sweepFinished(d1: D1Database, userId: string, before: string): Promise<void> {
  await db(d1)
    .delete(wd)
    .where(and(eq(wd.userId, userId), ne(wd.state, "pending"), lt(wd.createdAt, before)));
}

/** Users with a delivery due now: the Fleet DO pokes their dispatchers after a flush. */
export async function usersWithDueDeliveries(d1: D1Database, now: number, limit = 100): Promise<string[]> {
  const rows = await db(d1)
    .selectDistinct({ userId: wd.userId })
    .from(wd)
    .where(and(eq(wd.state, "pending"), lte(wd.nextAttemptAt, now)))
    .limit(limit);
  return rows.map((x) => x.userId);
}
