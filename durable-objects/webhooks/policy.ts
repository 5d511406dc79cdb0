import { backoffDelay } from "../../contract/backoff.js";
import { doSettings, type SettingsEnv } from "../settings.js";

/**
 * What happens after a webhook attempt, as pure functions: a 2xx delivers; anything else (another status,
 * a network error, a timeout) is retried after a doubling delay until the retry budget is spent.
 */

/** One attempt may take this long before it counts as failed (docs/operations.md "Webhooks"). */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** No single retry waits longer than this, whatever the base and the attempt. */
export const MAX_RETRY_DELAY_MS = 3_600_000;

export interface RetrySettings {
  /** Delay before the first retry; it doubles per attempt. */
  baseMs: number;
  /** Attempts per (re)delivery, the first one included. */
  maxAttempts: number;
}

/** From SF_WEBHOOK_RETRY_SECONDS (30) and SF_WEBHOOK_MAX_ATTEMPTS (8), read where every object setting is. */
export function retrySettings(env: SettingsEnv): RetrySettings {
  const s = doSettings(env);
  return { baseMs: s.webhookRetryMs, maxAttempts: s.webhookMaxAttempts };
}

/** The wait after the `n`th failed attempt of a cycle (n ≥ 1): base, 2·base, 4·base, … at most an hour. */
export function retryDelayMs(n: number, s: RetrySettings): number {
  return backoffDelay(n - 1, { baseMs: s.baseMs, capMs: MAX_RETRY_DELAY_MS, jitter: "none" });
}

export function isSuccess(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}

export type AttemptOutcome =
  | { state: "delivered"; nextAttemptAt: null }
  | { state: "failed"; nextAttemptAt: null }
  | { state: "pending"; nextAttemptAt: number };

/** `cycleAttempts` counts this attempt too (1 for the first attempt after a (re)queue). */
export function attemptOutcome(
  status: number | null,
  cycleAttempts: number,
  s: RetrySettings,
  now: number,
): AttemptOutcome {
  if (isSuccess(status)) return { state: "delivered", nextAttemptAt: null };
  if (cycleAttempts >= s.maxAttempts) return { state: "failed", nextAttemptAt: null };
  return { state: "pending", nextAttemptAt: now + retryDelayMs(cycleAttempts, s) };
}
