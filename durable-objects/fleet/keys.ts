/** Meta rows the rules keep per job, by what they remember. */

/** Which system mover (a drain, a window) moved a job, so undoing it touches only those jobs. */
export const MOVED_PREFIX = "moved:";

export function movedKey(jobId: string): string {
  return `${MOVED_PREFIX}${jobId}`;
}

/** Automatic retries a job has used (a person resuming it gives it a fresh budget). */
export function retriesKey(jobId: string): string {
  return `retries:${jobId}`;
}
