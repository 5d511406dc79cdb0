/**
 * Auto-retry: a failed run's diagnosis decides whether its job goes again (rules/diagnosis.ts,
 * contract/diagnosis-policy.ts); this re-queues it after a backoff. A timer row does it, so the retry
 * survives a restart; each attempt is a new run with its own id, epoch and token.
 */
import { backoffDelay } from "../../../contract/backoff.js";
import { retriesKey } from "../keys.js";
import type { JobRow } from "../rows.js";
import { retryTimer } from "../timers.js";
import type { Tx } from "../tx.js";
import { setStatus } from "./ledger.js";

/** The longest wait before an automatic retry, whatever the backoff has grown to. */
const MAX_RETRY_BACKOFF_MS = 15 * 60_000;

/** Arms the job's next attempt: a backoff that grows with the retries it used (only automatic ones count). */
export function planRetry(t: Tx, job: JobRow): void {
  const used = Number(t.s.meta(retriesKey(job.id)) ?? "0");
  const delay = backoffDelay(used, {
    baseMs: t.ctx.settings.retryBaseMs,
    capMs: MAX_RETRY_BACKOFF_MS,
    jitter: "none",
  });
  t.setMeta(retryTimer(job.id), String(job.attempt));
  t.setTimer(retryTimer(job.id), t.now + delay);
}

/** The retry timer fired: re-queue (FAILED → QUEUED, edge `retry`) unless something else moved the job. */
export function retryDue(t: Tx, jobId: string): void {
  const job = t.s.job(jobId);
  const planned = t.s.meta(retryTimer(jobId));
  if (job?.status !== "FAILED" || planned !== String(job.attempt)) return;
  const used = Number(t.s.meta(retriesKey(jobId)) ?? "0") + 1;
  t.setMeta(retriesKey(jobId), String(used));
  setStatus(t, job, "QUEUED", "system:retry", { attempt: job.attempt + 1, retry: used });
  t.schedule();
}
