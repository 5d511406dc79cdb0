/**
 * Waking WebhookDispatchers. A poke only sets the dispatcher's alarm, so it is cheap and never waits for
 * a delivery; callers on a request or scheduling path fire it without awaiting and only log a failure.
 */
import type { AppEnv } from "../worker/env.js";
import { usersWithDueDeliveries } from "./webhook-dispatch.js";

export function webhookDispatcher(env: Pick<AppEnv, "WEBHOOKS">, userId: string) {
  return env.WEBHOOKS.get(env.WEBHOOKS.idFromName(userId));
}

export async function pokeWebhookDispatcher(env: Pick<AppEnv, "WEBHOOKS">, userId: string): Promise<void> {
  await webhookDispatcher(env, userId).poke(userId);
}

/**
 * After a Fleet DO flush: pokes the dispatcher of every user with a delivery due now. Reading "due now"
 * rather than "created by this flush" also recovers a poke that was lost earlier. Never throws.
 */
export async function pokeDueWebhooks(env: Pick<AppEnv, "WEBHOOKS" | "DB">): Promise<void> {
  try {
    const users = await usersWithDueDeliveries(env.DB, Date.now());
    await Promise.all(users.map((u) => pokeWebhookDispatcher(env, u)));
  } catch (err) {
    console.warn("waking webhook dispatchers after a flush failed; the next flush retries", err);
  }
}
