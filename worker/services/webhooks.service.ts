/**
 * Webhook endpoints and their deliveries in D1. Creating deliveries for job events is the Fleet DO's
 * outbox (durable-objects/webhook-fanout.ts); sending them is the owner's WebhookDispatcher. This file
 * creates the two kinds a person asks for (redeliver, test) and wakes the dispatcher for them.
 */
import { and, count, desc, eq, lt } from "drizzle-orm";
import { newId, nowIso } from "../../contract/ids.js";
import type { DeliveryView, WebhookView } from "../../contract/responses.schema.js";
import type { TestEventPayload } from "../../contract/webhook-payloads.schema.js";
import { mintWebhookSecret } from "../../contract/webhook-signature.js";
import {
  type CreateWebhookBody,
  type DeliveryAttempt,
  MAX_WEBHOOKS_PER_USER,
  normaliseEvents,
  SUBSCRIBABLE_EVENTS,
  TEST_EVENT_TYPE,
  webhookUrlProblem,
} from "../../contract/webhooks.schema.js";
import { type Db, schema } from "../../d1/client.js";
import { pokeWebhookDispatcher } from "../../durable-objects/webhooks/stub.js";
import type { Principal } from "../auth/principal.js";
import type { AppEnv } from "../env.js";
import { AppError } from "../errors.js";
import { fleetByRef } from "./fleets.service.js";

export type WebhookRow = typeof schema.webhooks.$inferSelect;
type DeliveryRow = typeof schema.webhookDeliveries.$inferSelect;

/** After a rotation the old secret keeps signing (as a second signature) for this long. */
export const ROTATION_GRACE_MS = 24 * 3_600_000;

/** What any read shows: never the secret, only its first characters to tell secrets apart. */
export function webhookView(w: WebhookRow): WebhookView {
  return {
    id: w.id,
    user_id: w.userId,
    url: w.url,
    events: JSON.parse(w.events) as string[],
    fleet_id: w.fleetId,
    description: w.description,
    secret_prefix: w.secret.slice(0, 12),
    previous_secret_expires_at:
      w.previousSecretExpiresAt && Date.parse(w.previousSecretExpiresAt) > Date.now()
        ? w.previousSecretExpiresAt
        : null,
    created_at: w.createdAt,
  };
}

export function deliveryView(d: DeliveryRow): DeliveryView {
  return {
    id: d.eventId,
    webhook_id: d.webhookId,
    type: d.type,
    job_id: d.jobId,
    state: d.state,
    attempts: d.attempts,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    next_attempt_at: d.state === "pending" && d.nextAttemptAt !== null ? nowIso(d.nextAttemptAt) : null,
    created_at: d.createdAt,
    delivered_at: d.deliveredAt,
    attempt_log: JSON.parse(d.attemptLog) as DeliveryAttempt[],
  };
}

/** Checks the URL and events of a new webhook and resolves its fleet filter. */
async function validateWebhook(d: Db, body: CreateWebhookBody) {
  const problem = webhookUrlProblem(body.url);
  if (problem) throw new AppError("INVALID_WEBHOOK_URL", `the webhook URL ${problem}`, { url: body.url });
  const { events, unknown } = normaliseEvents(body.events);
  if (unknown.length > 0) {
    const names = unknown.map((e) => `"${e}"`).join(", ");
    throw new AppError("INVALID_WEBHOOK_EVENT", `unknown event type ${names}; see details.allowed`, {
      unknown,
      allowed: SUBSCRIBABLE_EVENTS,
    });
  }
  const fleetId = body.fleet ? (await fleetByRef(d, body.fleet)).id : null;
  return { events, fleetId };
}

export async function createWebhook(d: Db, userId: string, body: CreateWebhookBody) {
  const { events, fleetId } = await validateWebhook(d, body);
  const owned = await d
    .select({ n: count() })
    .from(schema.webhooks)
    .where(eq(schema.webhooks.userId, userId))
    .get();
  if ((owned?.n ?? 0) >= MAX_WEBHOOKS_PER_USER) {
    throw new AppError("QUOTA_EXCEEDED", `a user may have at most ${MAX_WEBHOOKS_PER_USER} webhooks`, {
      limit: "webhooks",
      value: MAX_WEBHOOKS_PER_USER,
    });
  }
  const secret = mintWebhookSecret();
  const row = {
    id: newId("wh"),
    userId,
    url: body.url,
    events: JSON.stringify(events),
    fleetId,
    description: body.description,
    secret,
    createdAt: nowIso(),
  };
  await d.insert(schema.webhooks).values(row).run();
  return { webhook: webhookView({ ...row, previousSecret: null, previousSecretExpiresAt: null }), secret };
}

export async function listWebhooks(d: Db, userId: string) {
  const rows = await d
    .select()
    .from(schema.webhooks)
    .where(eq(schema.webhooks.userId, userId))
    .orderBy(desc(schema.webhooks.id))
    .all();
  return rows.map(webhookView);
}

/** The webhook if the caller owns it or is an admin; otherwise it does not exist (ids cannot be probed). */
export async function readableWebhook(d: Db, p: Principal, id: string): Promise<WebhookRow> {
  const w = await d.select().from(schema.webhooks).where(eq(schema.webhooks.id, id)).get();
  const mayRead = w && p.kind === "user" && (w.userId === p.userId || p.role === "admin");
  if (!w || !mayRead) throw new AppError("WEBHOOK_NOT_FOUND", `no webhook ${id}`);
  return w;
}

/** Deletes the webhook and its deliveries in one batch, so the dispatcher never finds one half gone. */
export async function deleteWebhook(d: Db, id: string): Promise<void> {
  await d.batch([
    d.delete(schema.webhookDeliveries).where(eq(schema.webhookDeliveries.webhookId, id)),
    d.delete(schema.webhooks).where(eq(schema.webhooks.id, id)),
  ]);
}

export async function rotateSecret(d: Db, w: WebhookRow) {
  const secret = mintWebhookSecret();
  const expires = nowIso(Date.now() + ROTATION_GRACE_MS);
  await d
    .update(schema.webhooks)
    .set({ secret, previousSecret: w.secret, previousSecretExpiresAt: expires })
    .where(eq(schema.webhooks.id, w.id))
    .run();
  const webhook = webhookView({ ...w, secret, previousSecret: w.secret, previousSecretExpiresAt: expires });
  return { webhook, secret };
}

export async function listDeliveries(
  d: Db,
  webhookId: string,
  q: { state?: "pending" | "delivered" | "failed"; limit: number; cursor?: number },
) {
  const t = schema.webhookDeliveries;
  const where = and(
    eq(t.webhookId, webhookId),
    q.state ? eq(t.state, q.state) : undefined,
    q.cursor ? lt(t.seq, q.cursor) : undefined,
  );
  const rows = await d
    .select()
    .from(t)
    .where(where)
    .orderBy(desc(t.seq))
    .limit(q.limit + 1)
    .all();
  const page = rows.slice(0, q.limit);
  return {
    deliveries: page.map(deliveryView),
    next_cursor: rows.length > q.limit ? String(page[page.length - 1]!.seq) : null,
  };
}

async function deliveryRow(d: Db, webhookId: string, eventId: string): Promise<DeliveryRow> {
  const t = schema.webhookDeliveries;
  const row = await d
    .select()
    .from(t)
    .where(and(eq(t.webhookId, webhookId), eq(t.eventId, eventId)))
    .get();
  if (!row) throw new AppError("DELIVERY_NOT_FOUND", `webhook ${webhookId} has no delivery ${eventId}`);
  return row;
}

/** One delivery with the body it sends (parsed; the bytes on the wire are that JSON as stored). */
export async function delivery(d: Db, webhookId: string, eventId: string) {
  const row = await deliveryRow(d, webhookId, eventId);
  return { ...deliveryView(row), payload: JSON.parse(row.payload) as unknown };
}

/** Wakes the owner's dispatcher; its alarm would find the delivery anyway, so a failure is only logged. */
async function wake(env: AppEnv, userId: string): Promise<void> {
  try {
    await pokeWebhookDispatcher(env, userId);
  } catch (err) {
    console.warn(`waking the webhook dispatcher of ${userId} failed`, err);
  }
}

/**
 * Queues a delivery again now, with a fresh retry budget and the same id and body. Clearing the lease
 * makes an attempt still in flight record its result without ending the new cycle.
 */
export async function redeliver(d: Db, env: AppEnv, w: WebhookRow, eventId: string) {
  const t = schema.webhookDeliveries;
  await deliveryRow(d, w.id, eventId);
  await d
    .update(t)
    .set({ state: "pending", cycleAttempts: 0, nextAttemptAt: Date.now(), lease: null })
    .where(and(eq(t.webhookId, w.id), eq(t.eventId, eventId)))
    .run();
  await wake(env, w.userId);
  return deliveryView(await deliveryRow(d, w.id, eventId));
}

/** A `webhook.test` event through the same pipeline as job events: one delivery, sent by the dispatcher. */
export async function sendTest(d: Db, env: AppEnv, w: WebhookRow) {
  const eventId = newId("evt");
  const createdAt = nowIso();
  const body: TestEventPayload = {
    id: eventId,
    type: TEST_EVENT_TYPE,
    created_at: createdAt,
    data: { webhook_id: w.id, message: "a test delivery from StarForge" },
  };
  const payload = JSON.stringify(body);
  await d
    .insert(schema.webhookDeliveries)
    .values({
      webhookId: w.id,
      eventId,
      userId: w.userId,
      jobId: null,
      type: TEST_EVENT_TYPE,
      payload,
      state: "pending",
      nextAttemptAt: Date.now(),
      createdAt,
    })
    .run();
  await wake(env, w.userId);
  return deliveryView(await deliveryRow(d, w.id, eventId));
}
