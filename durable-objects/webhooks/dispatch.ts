/**
 * One pass of a user's webhook deliveries against D1: claim what is due (a lease, so an attempt lost with
 * its sender is retried when the lease ends), send each claimed delivery signed and with a timeout, and
 * record the attempt. The pending rows are the timers; the WebhookDispatcher's alarm points at the earliest.
 */
import { nowIso } from "../../contract/ids.js";
import { type DeliveryAttempt, signatureHeader, WEBHOOK_HEADERS } from "../../contract/webhooks.schema.js";
import { ATTEMPT_TIMEOUT_MS, attemptOutcome, type RetrySettings } from "./policy.js";

/** Deliveries claimed and sent together; they go out concurrently. */
const BATCH = 10;
/** A claimed delivery is due again after this, should its attempt never be recorded. */
const LEASE_MS = ATTEMPT_TIMEOUT_MS + 50_000;
/** One pass stops claiming after this; the alarm continues at once with what is left. */
const PASS_MS = 30_000;

interface ClaimedRow {
  seq: number;
  webhook_id: string;
  event_id: string;
  payload: string;
  cycle_attempts: number;
  attempts: number;
}

interface EndpointRow {
  id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
}

async function claimDue(db: D1Database, userId: string, now: number, lease: string): Promise<ClaimedRow[]> {
  const r = await db
    .prepare(
      `UPDATE webhook_deliveries SET lease = ?1, next_attempt_at = ?2
       WHERE seq IN (SELECT seq FROM webhook_deliveries
                     WHERE user_id = ?3 AND state = 'pending' AND next_attempt_at <= ?4
                     ORDER BY next_attempt_at, seq LIMIT ?5)
       RETURNING seq, webhook_id, event_id, payload, cycle_attempts, attempts`,
    )
    .bind(lease, now + LEASE_MS, userId, now, BATCH)
    .all<ClaimedRow>();
  return r.results;
}

async function endpoints(db: D1Database, ids: string[]): Promise<Map<string, EndpointRow>> {
  const r = await db
    .prepare(
      `SELECT id, url, secret, previous_secret, previous_secret_expires_at FROM webhooks
       WHERE id IN (${ids.map(() => "?").join(", ")})`,
    )
    .bind(...ids)
    .all<EndpointRow>();
  return new Map(r.results.map((e) => [e.id, e]));
}

/** The secrets that sign now: the current one, and the previous one until its rotation grace ends. */
function signingSecrets(e: EndpointRow, now: number): string[] {
  const graceEnds = e.previous_secret_expires_at ? Date.parse(e.previous_secret_expires_at) : 0;
  return e.previous_secret && graceEnds > now ? [e.secret, e.previous_secret] : [e.secret];
}

/** One HTTP attempt: never throws; a network error or timeout is an attempt without a status code. */
async function send(e: EndpointRow, d: ClaimedRow): Promise<{ status: number | null; error: string | null }> {
  const now = Date.now();
  const timestamp = Math.floor(now / 1000);
  try {
    const res = await fetch(e.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "StarForge-Webhooks/1",
        [WEBHOOK_HEADERS.id]: d.event_id,
        [WEBHOOK_HEADERS.timestamp]: String(timestamp),
        [WEBHOOK_HEADERS.signature]: await signatureHeader(signingSecrets(e, now), timestamp, d.payload),
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

/**
 * Records an attempt. The counters and the log always take it; state and next time only while the claim
 * is still ours: a redelivery that re-queued the row meanwhile cleared the lease, and its new cycle wins.
 */
async function record(
  db: D1Database,
  d: ClaimedRow,
  lease: string,
  attempt: DeliveryAttempt,
  settings: RetrySettings,
): Promise<void> {
  const done = Date.now();
  const outcome = attemptOutcome(attempt.status_code, d.cycle_attempts + 1, settings, done);
  const delivered = outcome.state === "delivered";
  await db
    .prepare(
      `UPDATE webhook_deliveries SET
         attempts = attempts + 1,
         attempt_log = json_insert(attempt_log, '$[#]', json(?1)),
         last_status_code = ?2,
         last_error = ?3,
         state = CASE WHEN lease = ?4 THEN ?5 ELSE state END,
         next_attempt_at = CASE WHEN lease = ?4 THEN ?6 ELSE next_attempt_at END,
         cycle_attempts = CASE WHEN lease = ?4 THEN cycle_attempts + 1 ELSE cycle_attempts END,
         delivered_at = CASE WHEN ?7 THEN ?8 ELSE delivered_at END,
         lease = CASE WHEN lease = ?4 THEN NULL ELSE lease END
       WHERE seq = ?9`,
    )
    .bind(
      JSON.stringify(attempt),
      attempt.status_code,
      attempt.error,
      lease,
      outcome.state,
      outcome.nextAttemptAt,
      delivered ? 1 : 0,
      nowIso(done),
      d.seq,
    )
    .run();
}

/** Sends every due delivery of `userId` (for at most one pass); returns how many attempts were made. */
export async function dispatchDue(db: D1Database, userId: string, settings: RetrySettings): Promise<number> {
  const passEnds = Date.now() + PASS_MS;
  let sent = 0;
  for (;;) {
    const lease = crypto.randomUUID();
    const claimed = await claimDue(db, userId, Date.now(), lease);
    if (claimed.length === 0) return sent;
    const hooks = await endpoints(db, [...new Set(claimed.map((d) => d.webhook_id))]);
    await Promise.all(
      claimed.map(async (d) => {
        const hook = hooks.get(d.webhook_id);
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
        await record(db, d, lease, attempt, settings);
        sent += 1;
      }),
    );
    if (claimed.length < BATCH || Date.now() > passEnds) return sent;
  }
}

/** When the next pending delivery of `userId` is due (epoch ms), or null when none is pending. */
export async function nextDue(db: D1Database, userId: string): Promise<number | null> {
  const r = await db
    .prepare(
      "SELECT MIN(next_attempt_at) AS due FROM webhook_deliveries WHERE user_id = ? AND state = 'pending'",
    )
    .bind(userId)
    .first<{ due: number | null }>();
  return r?.due ?? null;
}

/** Finished deliveries are kept this long (for `GET …/deliveries` and redelivery), then deleted. */
export const DELIVERY_RETENTION_MS = 30 * 86_400_000;

export async function sweepFinished(db: D1Database, userId: string, now: number): Promise<void> {
  await db
    .prepare("DELETE FROM webhook_deliveries WHERE user_id = ? AND state != 'pending' AND created_at < ?")
    .bind(userId, nowIso(now - DELIVERY_RETENTION_MS))
    .run();
}

/** Users with a delivery due now: the Fleet DO pokes their dispatchers after a flush. */
export async function usersWithDueDeliveries(db: D1Database, now: number, limit = 100): Promise<string[]> {
  const r = await db
    .prepare(
      "SELECT DISTINCT user_id FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= ? LIMIT ?",
    )
    .bind(now, limit)
    .all<{ user_id: string }>();
  return r.results.map((x) => x.user_id);
}
