/**
 * Waking WebhookDispatchers. A poke only sets the dispatcher's alarm, so it is cheap and never waits for
 * a delivery; callers on a request or scheduling path fire it without awaiting and only log a failure.
 */
import { type Namespace, type Rpc, stubOf } from "../rpc.js";
import { usersWithDueDeliveries } from "./dispatch.js";
import type { WebhookDispatcher } from "./webhook.do.js";

export function webhookDispatcher(env: { WEBHOOKS: Namespace }, userId: string): Rpc<WebhookDispatcher> {
  return stubOf<WebhookDispatcher>(env.WEBHOOKS, userId);
}

export async function pokeWebhookDispatcher(env: { WEBHOOKS: Namespace }, userId: string): Promise<void> {
  await webhookDispatcher(env, userId).poke(userId);
}

/**
 * After a Fleet DO flush: pokes the dispatcher of every user with a delivery due now. Reading "due now"
 * rather than "created by this flush" also recovers a poke that was lost earlier. Never throws.
 */
export async function pokeDueWebhooks(env: { WEBHOOKS: Namespace; DB: D1Database }): Promise<void> {
  try {
    const users = await usersWithDueDeliveries(env.DB, Date.now());
    await Promise.all(users.map((u) => pokeWebhookDispatcher(env, u)));
  } catch (err) {
    console.warn("waking webhook dispatchers after a flush failed; the next flush retries", err);
  }
}
