/**
 * One pass of a user's webhook deliveries: claim what is due (a lease, so an attempt lost with its sender
 * is retried when the lease ends), send each claimed delivery signed (contract/webhook-signature.ts) and
 * with a timeout, and record the attempt (the D1 side is d1/deliveries.ts). The WebhookDispatcher's
 * alarm points at the earliest.
 */
import { nowIso } from "../../contract/ids.js";
import { deliveryHeaders } from "../../contract/webhook-signature.js";
import type { DeliveryAttempt } from "../../contract/webhooks.schema.js";
import {
  type ClaimedDelivery,
  claimDue,
  type Endpoint,
  endpoints,
  nextDue,
  recordAttempt,
  sweepFinished,
  usersWithDueDeliveries,
} from "../../d1/deliveries.js";
import { ATTEMPT_TIMEOUT_MS, attemptOutcome, type RetrySettings } from "./policy.js";

/** Deliveries claimed and sent together; they go out concurrently. */
const BATCH = 10;
/** A claimed delivery is due again after this, should its attempt never be recorded. */
const LEASE_MS = ATTEMPT_TIMEOUT_MS + 50_000;
/** One pass stops claiming after this; the alarm continues at once with what is left. */
const PASS_MS = 30_000;

/** The secrets that sign now: the current one, and the previous one until its rotation grace ends. */
function signingSecrets(e: Endpoint, now: number): string[] {
  const graceEnds = e.previousSecretExpiresAt ? Date.parse(e.previousSecretExpiresAt) : 0;
  return e.previousSecret && graceEnds > now ? [e.secret, e.previousSecret] : [e.secret];
}

/** One HTTP attempt: never throws; a network error or timeout is an attempt without a status code. */
async function send(
  e: Endpoint,
  d: ClaimedDelivery,
): Promise<{ status: number | null; error: string | null }> {
  const now = Date.now();
  const timestamp = Math.floor(now / 1000);
  try {
    const res = await fetch(e.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "StarForge-Webhooks/1",
        // Standard Webhooks headers, plus the StarForge-Webhook-* ones until 0.2.0; the id is the event's.
        ...(await deliveryHeaders(signingSecrets(e, now), d.eventId, timestamp, d.payload)),
      },
      body: d.payload,
      // A redirect could point anywhere; the endpoint's owner fixes the URL instead.
      redirect: "manual",
      signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
    });
    await res.body?.cancel();
    const error = res.status >= 300 && res.status < 400 ? "redirects are not followed" : null;
    return { status: res.status, error };
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
    const message = timedOut
      ? `no response within ${ATTEMPT_TIMEOUT_MS / 1000} s`
      : err instanceof Error
        ? err.message
        : String(err);
    return { status: null, error: message.slice(0, 500) };
  }
}

/** Sends every due delivery of `userId` (for at most one pass); returns how many attempts were made. */
export async function dispatchDue(db: D1Database, userId: string, settings: RetrySettings): Promise<number> {
  const passEnds = Date.now() + PASS_MS;
  let sent = 0;
  for (;;) {
    const lease = crypto.randomUUID();
    const now = Date.now();
    const claimed = await claimDue(db, userId, now, lease, now + LEASE_MS, BATCH);
    if (claimed.length === 0) return sent;
    const hooks = await endpoints(db, [...new Set(claimed.map((d) => d.webhookId))]);
    await Promise.all(
      claimed.map(async (d) => {
        const hook = hooks.get(d.webhookId);
        // Deleting a webhook deletes its deliveries in the same batch; a row claimed just before is dropped.
        if (!hook) return;
        const started = Date.now();
        const r = await send(hook, d);
        const attempt: DeliveryAttempt = {
          n: d.attempts + 1,
          at: nowIso(started),
          status_code: r.status,
          error: r.error,
          duration_ms: Date.now() - started,
        };
        const done = Date.now();
        const outcome = attemptOutcome(attempt.status_code, d.cycleAttempts + 1, settings, done);
        await recordAttempt(db, d.seq, lease, attempt, outcome, nowIso(done));
        sent += 1;
      }),
    );
    if (claimed.length < BATCH || Date.now() > passEnds) return sent;
  }
}

/** Finished deliveries are kept this long (for `GET …/deliveries` and redelivery), then deleted. */
export const DELIVERY_RETENTION_MS = 30 * 86_400_000;

export async function sweepOld(db: D1Database, userId: string, now: number): Promise<void> {
  await sweepFinished(db, userId, nowIso(now - DELIVERY_RETENTION_MS));
}

export { nextDue, usersWithDueDeliveries };
