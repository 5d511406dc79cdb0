/**
 * How long a webhook's deliveries stay listed (docs/api.md "GET /v1/webhooks/:id/deliveries"): the sweep
 * deletes a finished delivery once it was created over 30 days ago, and never one still pending.
 */
import { describe, expect, it } from "vitest";
import { DELIVERY_RETENTION_MS, sweepOld } from "../../durable-objects/webhooks/dispatch.js";
import { testEnv } from "./test-env.js";

const DAY = 86_400_000;

async function delivery(eventId: string, userId: string, state: string, createdAt: number): Promise<void> {
  await testEnv.DB.prepare(
    `INSERT INTO webhook_deliveries (webhook_id, event_id, user_id, type, payload, state, created_at)
     VALUES ('wh_ret', ?, ?, 'job.succeeded', '{}', ?, ?)`,
  )
    .bind(eventId, userId, state, new Date(createdAt).toISOString())
    .run();
}

describe("webhook delivery retention", () => {
  it("deletes a user's finished deliveries created over 30 days ago, keeps newer and pending ones", async () => {
    expect(DELIVERY_RETENTION_MS).toBe(30 * DAY);
    const now = Date.parse("2026-12-06T12:00:00.000Z");
    await delivery("evt_old_delivered", "usr_ret", "delivered", now - 31 * DAY);
    await delivery("evt_old_failed", "usr_ret", "failed", now - 30 * DAY - 1000);
    await delivery("evt_old_pending", "usr_ret", "pending", now - 40 * DAY);
    await delivery("evt_recent", "usr_ret", "delivered", now - 29 * DAY);
    await delivery("evt_other_user", "usr_other", "delivered", now - 31 * DAY);
    await sweepOld(testEnv.DB, "usr_ret", now);
    const { results } = await testEnv.DB.prepare(
      "SELECT event_id FROM webhook_deliveries WHERE webhook_id = 'wh_ret' ORDER BY event_id",
    ).all<{ event_id: string }>();
    expect(results.map((r) => r.event_id)).toEqual(["evt_old_pending", "evt_other_user", "evt_recent"]);
  });
});
