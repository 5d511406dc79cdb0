/**
 * The one retry/backoff rule of the project: capped exponential delays, `base · 2^attempt` up to `cap`.
 *
 * - **Full jitter** (`jitter: "full"`, the default): the delay is uniform in [0, ceiling]. Many clients
 *   retrying the same server (agents reconnecting after a deploy, CLIs following a log) then spread out
 *   instead of arriving in lockstep. Used by the agent connection and the CLI.
 * - **No jitter** (`jitter: "none"`): exactly the ceiling. Used where one object retries its own work on a
 *   timer row and what users are promised is a minimum spacing ("at least 1 s, then 2 s…"): the Fleet DO's
 *   job retries and outbox flush, and webhook deliveries. Lockstep cannot happen there: each retry is a
 *   separate row with its own time.
 *
 * `attempt` counts from 0 (the first retry waits about `base`). Pure: pass `random` to make it
 * deterministic in tests.
 */
export interface Backoff {
  baseMs: number;
  capMs: number;
  jitter?: "full" | "none";
}

/** The largest delay of this attempt: min(cap, base · 2^attempt). */
export function backoffCeiling(attempt: number, b: Backoff): number {
  return Math.min(b.capMs, b.baseMs * 2 ** Math.max(0, Math.min(attempt, 52)));
}

/** The delay before retry number `attempt` (0-based). */
export function backoffDelay(attempt: number, b: Backoff, random: () => number = Math.random): number {
  const ceiling = backoffCeiling(attempt, b);
  return (b.jitter ?? "full") === "full" ? Math.floor(random() * ceiling) : ceiling;
}

/** Resolves after the delay of retry `attempt`, or at once when `signal` aborts. */
export function sleepBackoff(attempt: number, b: Backoff, signal?: AbortSignal): Promise<void> {
  const ms = backoffDelay(attempt, b);
  return new Promise((ok) => {
    if (signal?.aborted) return ok();
    const t = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      ok();
    }
  });
}
