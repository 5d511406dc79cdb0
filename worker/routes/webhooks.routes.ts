/**
 * /v1/webhooks: endpoints that receive signed job events (docs/api.md "Webhooks"). Owner or admin; a
 * webhook of someone else answers WEBHOOK_NOT_FOUND, exactly like one that does not exist.
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  DeletedWebhook,
  DeliveryPage,
  DeliveryView,
  OneDelivery,
  WebhookList,
  WebhookView,
  WithSecret,
} from "../../contract/responses.schema.js";
import {
  BudgetEventPayload,
  JobEventPayload,
  TestEventPayload,
} from "../../contract/webhook-payloads.schema.js";
import { CreateWebhookBody, DeliveriesQuery } from "../../contract/webhooks.schema.js";
import { db } from "../../d1/client.js";
import { currentUser, type Env, requireRole } from "../auth/middleware.js";
import { parseJson, parseValue } from "../http.js";
import { describe } from "../openapi/describe.js";
import { recordAudit } from "../services/audit.service.js";
import { listedUserId } from "../services/users.service.js";
import {
  createWebhook,
  deleteWebhook,
  delivery,
  listDeliveries,
  listWebhooks,
  readableWebhook,
  redeliver,
  rotateSecret,
  sendTest,
  webhookView,
} from "../services/webhooks.service.js";

/** GET /v1/webhooks/:id */
const OneWebhook = z.looseObject({ webhook: WebhookView });

/** GET /v1/webhooks `?user=NAME` (read as is, not parsed by a schema). */
const WebhookListQuery = z.object({
  user: z
    .string()
    .optional()
    .describe("Another user's webhooks (admins only; your own name is always allowed)"),
});

/**
 * GET …/deliveries/:delivery: the delivery with the exact body it sends, one of the document's webhooks
 * (sf reads the payload as it comes: contract/responses.schema.ts OneDelivery).
 */
const DeliveryWithPayload = z.looseObject({
  delivery: DeliveryView.extend({
    payload: z
      .union([JobEventPayload, TestEventPayload, BudgetEventPayload])
      .describe("The exact JSON body each attempt POSTs: a job, test or team budget event"),
  }).describe("The delivery, with the body it sends"),
});

export const webhooksRoutes = new Hono<Env>()
  // Operators and admins: a webhook makes the server send requests, so viewers cannot create one.
  .post(
    "/webhooks",
    describe({
      id: "createWebhook",
      tag: "Webhooks",
      summary: "Create a webhook: an endpoint that receives your job events, signed",
      description:
        "`events` defaults to job.succeeded, job.failed and job.stopped; `*` is every job event. Duplicate " +
        "events are dropped. `secret` signs every delivery and is shown only in this answer. At most 20 " +
        "webhooks per user (QUOTA_EXCEEDED).",
      role: "operator",
      body: CreateWebhookBody,
      ok: { 201: WithSecret },
      errors: ["INVALID_WEBHOOK_URL", "INVALID_WEBHOOK_EVENT", "FLEET_NOT_FOUND", "QUOTA_EXCEEDED"],
    }),
    requireRole("operator"),
    async (c) => {
      const body = await parseJson(c, CreateWebhookBody);
      const created = await createWebhook(db(c.env.DB), currentUser(c).userId, body);
      // The host only: a webhook URL may carry a credential in its path or query (Slack's do).
      await recordAudit(c, {
        action: "webhook.create",
        target: `webhook:${created.webhook.id}`,
        details: { host: new URL(created.webhook.url).host, events: created.webhook.events.join(",") },
      });
      return c.json(created, 201);
    },
  )
  .get(
    "/webhooks",
    describe({
      id: "listWebhooks",
      tag: "Webhooks",
      summary: "List your webhooks, newest first",
      description: "`?user=NAME`: another user's (admins only, unless it is your own name).",
      role: "viewer",
      query: WebhookListQuery,
      ok: { 200: WebhookList },
      errors: ["USER_NOT_FOUND"],
    }),
    requireRole("viewer"),
    async (c) => {
      const me = currentUser(c);
      const d = db(c.env.DB);
      const userId = await listedUserId(d, me, c.req.query("user"), "webhooks");
      return c.json({ webhooks: await listWebhooks(d, userId) });
    },
  )
  .get(
    "/webhooks/:id",
    describe({
      id: "getWebhook",
      tag: "Webhooks",
      summary: "A webhook (never its secret)",
      description: "Owner or admin: anyone else's answers WEBHOOK_NOT_FOUND, like one that does not exist.",
      role: "viewer",
      ok: { 200: OneWebhook },
      errors: ["WEBHOOK_NOT_FOUND"],
    }),
    requireRole("viewer"),
    async (c) => {
      const w = await readableWebhook(db(c.env.DB), c.get("principal"), c.req.param("id"));
      return c.json({ webhook: webhookView(w) });
    },
  )
  .delete(
    "/webhooks/:id",
    describe({
      id: "deleteWebhook",
      tag: "Webhooks",
      summary: "Delete a webhook and all its deliveries",
      description:
        "Owner or admin. Pending deliveries are not sent any more (one in flight still completes).",
      role: "operator",
      ok: { 200: DeletedWebhook },
      errors: ["WEBHOOK_NOT_FOUND"],
    }),
    requireRole("operator"),
    async (c) => {
      const d = db(c.env.DB);
      const w = await readableWebhook(d, c.get("principal"), c.req.param("id"));
      await deleteWebhook(d, w.id);
      await recordAudit(c, {
        action: "webhook.delete",
        target: `webhook:${w.id}`,
        details: { user_id: w.userId },
      });
      return c.json({ id: w.id, deleted: true });
    },
  )
  .post(
    "/webhooks/:id/rotate-secret",
    describe({
      id: "rotateWebhookSecret",
      tag: "Webhooks",
      summary: "Replace a webhook's signing secret",
      description:
        "Owner or admin. No body. The new secret is shown only in this answer; for 24 hours " +
        "(`previous_secret_expires_at`) deliveries carry both signatures, so either secret verifies.",
      role: "operator",
      ok: { 200: WithSecret },
      errors: ["WEBHOOK_NOT_FOUND"],
    }),
    requireRole("operator"),
    async (c) => {
      const d = db(c.env.DB);
      const w = await readableWebhook(d, c.get("principal"), c.req.param("id"));
      const rotated = await rotateSecret(d, w);
      await recordAudit(c, {
        action: "webhook.rotate_secret",
        target: `webhook:${w.id}`,
        details: { user_id: w.userId },
      });
      return c.json(rotated);
    },
  )
  .post(
    "/webhooks/:id/test",
    describe({
      id: "testWebhook",
      tag: "Webhooks",
      summary: "Queue a webhook.test delivery to this webhook",
      description:
        "Owner or admin. No body. Sent, retried and listed like any delivery, whatever the webhook's `events`.",
      role: "operator",
      ok: { 202: { description: "Queued: the delivery, pending", json: OneDelivery } },
      errors: ["WEBHOOK_NOT_FOUND"],
    }),
    requireRole("operator"),
    async (c) => {
      const d = db(c.env.DB);
      const w = await readableWebhook(d, c.get("principal"), c.req.param("id"));
      return c.json({ delivery: await sendTest(d, c.env, w) }, 202);
    },
  )
  .get(
    "/webhooks/:id/deliveries",
    describe({
      id: "listWebhookDeliveries",
      tag: "Webhooks",
      summary: "A webhook's deliveries, newest first",
      description:
        "Owner or admin. Pages by `cursor` (the previous page's `next_cursor`). Finished deliveries are kept " +
        "30 days.",
      role: "viewer",
      query: DeliveriesQuery,
      ok: { 200: DeliveryPage },
      errors: ["WEBHOOK_NOT_FOUND"],
    }),
    requireRole("viewer"),
    async (c) => {
      const d = db(c.env.DB);
      const w = await readableWebhook(d, c.get("principal"), c.req.param("id"));
      const q = parseValue(DeliveriesQuery, c.req.query());
      return c.json(await listDeliveries(d, w.id, q));
    },
  )
  .get(
    "/webhooks/:id/deliveries/:delivery",
    describe({
      id: "getWebhookDelivery",
      tag: "Webhooks",
      summary: "One delivery, with the body every attempt sends",
      description: "Owner or admin. `:delivery` is the delivery's `id` (the event id, `webhook-id`).",
      role: "viewer",
      ok: { 200: DeliveryWithPayload },
      errors: ["WEBHOOK_NOT_FOUND", "DELIVERY_NOT_FOUND"],
    }),
    requireRole("viewer"),
    async (c) => {
      const d = db(c.env.DB);
      const w = await readableWebhook(d, c.get("principal"), c.req.param("id"));
      return c.json({ delivery: await delivery(d, w.id, c.req.param("delivery")) });
    },
  )
  .post(
    "/webhooks/:id/deliveries/:delivery/redeliver",
    describe({
      id: "redeliverWebhookDelivery",
      tag: "Webhooks",
      summary: "Queue a delivery again now, with a fresh retry budget",
      description:
        "Owner or admin. No body. Whatever its state; the same id and body, so a receiver that deduplicates " +
        "on `webhook-id` processes it once.",
      role: "operator",
      ok: { 202: { description: "Queued: the delivery, pending", json: OneDelivery } },
      errors: ["WEBHOOK_NOT_FOUND", "DELIVERY_NOT_FOUND"],
    }),
    requireRole("operator"),
    async (c) => {
      const d = db(c.env.DB);
      const w = await readableWebhook(d, c.get("principal"), c.req.param("id"));
      return c.json({ delivery: await redeliver(d, c.env, w, c.req.param("delivery")) }, 202);
    },
  );
