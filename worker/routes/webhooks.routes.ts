/**
 * /v1/webhooks: endpoints that receive signed job events (docs/api.md "Webhooks"). Owner or admin; a
 * webhook of someone else answers WEBHOOK_NOT_FOUND, exactly like one that does not exist.
 */
import { Hono } from "hono";
import { CreateWebhookBody, DeliveriesQuery } from "../../contract/webhooks.schema.js";
import { db } from "../../d1/client.js";
import { currentUser, type Env, requireRole } from "../auth/middleware.js";
import { AppError } from "../errors.js";
import { parseJson, parseValue } from "../http.js";
import { recordAudit } from "../services/audit.service.js";
import { userByName } from "../services/users.service.js";
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

export const webhooksRoutes = new Hono<Env>()
  // Operators and admins: a webhook makes the server send requests, so viewers cannot create one.
  .post("/webhooks", requireRole("operator"), async (c) => {
    const body = await parseJson(c, CreateWebhookBody);
    const created = await createWebhook(db(c.env.DB), currentUser(c).userId, body);
    // The host only: a webhook URL may carry a credential in its path or query (Slack's do).
    await recordAudit(c, {
      action: "webhook.create",
      target: `webhook:${created.webhook.id}`,
      details: { host: new URL(created.webhook.url).host, events: created.webhook.events.join(",") },
    });
    return c.json(created, 201);
  })
  .get("/webhooks", requireRole("viewer"), async (c) => {
    const me = currentUser(c);
    const d = db(c.env.DB);
    const who = c.req.query("user");
    if (who && who !== me.name && me.role !== "admin")
      throw new AppError("FORBIDDEN", "only admins list other users' webhooks");
    const userId = who ? (await userByName(d, who)).id : me.userId;
    return c.json({ webhooks: await listWebhooks(d, userId) });
  })
  .get("/webhooks/:id", requireRole("viewer"), async (c) => {
    const w = await readableWebhook(db(c.env.DB), c.get("principal"), c.req.param("id"));
    return c.json({ webhook: webhookView(w) });
  })
  .delete("/webhooks/:id", requireRole("operator"), async (c) => {
    const d = db(c.env.DB);
    const w = await readableWebhook(d, c.get("principal"), c.req.param("id"));
    await deleteWebhook(d, w.id);
    await recordAudit(c, {
      action: "webhook.delete",
      target: `webhook:${w.id}`,
      details: { user_id: w.userId },
    });
    return c.json({ id: w.id, deleted: true });
  })
  .post("/webhooks/:id/rotate-secret", requireRole("operator"), async (c) => {
    const d = db(c.env.DB);
    const w = await readableWebhook(d, c.get("principal"), c.req.param("id"));
    const rotated = await rotateSecret(d, w);
    await recordAudit(c, {
      action: "webhook.rotate_secret",
      target: `webhook:${w.id}`,
      details: { user_id: w.userId },
    });
    return c.json(rotated);
  })
  .post("/webhooks/:id/test", requireRole("operator"), async (c) => {
    const d = db(c.env.DB);
    const w = await readableWebhook(d, c.get("principal"), c.req.param("id"));
    return c.json({ delivery: await sendTest(d, c.env, w) }, 202);
  })
  .get("/webhooks/:id/deliveries", requireRole("viewer"), async (c) => {
    const d = db(c.env.DB);
    const w = await readableWebhook(d, c.get("principal"), c.req.param("id"));
    const q = parseValue(DeliveriesQuery, c.req.query());
    return c.json(await listDeliveries(d, w.id, q));
  })
  .get("/webhooks/:id/deliveries/:delivery", requireRole("viewer"), async (c) => {
    const d = db(c.env.DB);
    const w = await readableWebhook(d, c.get("principal"), c.req.param("id"));
    return c.json({ delivery: await delivery(d, w.id, c.req.param("delivery")) });
  })
  .post("/webhooks/:id/deliveries/:delivery/redeliver", requireRole("operator"), async (c) => {
    const d = db(c.env.DB);
    const w = await readableWebhook(d, c.get("principal"), c.req.param("id"));
    return c.json({ delivery: await redeliver(d, c.env, w, c.req.param("delivery")) }, 202);
  });
