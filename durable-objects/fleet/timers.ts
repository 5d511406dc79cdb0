/**
 * Every timer the Fleet DO keeps: one row each (table `timers`), the alarm pointing at the earliest.
 * Rules arm `schedule`, `windows`, `retry:<job>` and `lost:<node>`; the adapter arms `outbox`,
 * `commands` and `liveness` around its I/O.
 */

/** The next scheduling pass (a window opens, a new UTC day starts). */
export const SCHEDULE_TIMER = "schedule";
/** The next time window close or reopen. */
export const WINDOWS_TIMER = "windows";
/** A spent team budget renews (its period ends): what it held back is decided again. */
export const BUDGET_TIMER = "budget";
/** A flush of the outbox to D1 failed: try again. */
export const OUTBOX_TIMER = "outbox";
/** Unacknowledged commands are due a re-send. */
export const COMMANDS_TIMER = "commands";
/** Look for agent sockets that went silent. */
export const LIVENESS_TIMER = "liveness";
/** Admissions left unconfirmed (their submit's isolate went away): ask their users' objects. */
export const UNCONFIRMED_TIMER = "unconfirmed";

/**
 * Look at the capacity the other fleets publish for this fleet's queued multi-fleet jobs (re-routing,
 * rules/reroute.ts; the adapter's fleet/rerouter.ts), and offer jobs another fleet starts sooner.
 */
export const REROUTE_TIMER = "reroute";
/** How often a fleet holding multi-fleet jobs that wait looks for a fleet that would start them now. */
export const REROUTE_CHECK_MS = 2_000;

const RETRY_PREFIX = "retry:";
const PLACEMENT_PREFIX = "placement:";
const RUNTIME_PREFIX = "runtime:";

/** The timer that ends a run at its job's `max_runtime_seconds` (rules/runs.ts maxRuntimeOver). */
export function runtimeTimer(runId: string): string {
  return `${RUNTIME_PREFIX}${runId}`;
}
const PREEMPT_WAIT_PREFIX = "preempt_wait:";

/** The timer that lets a job placed over several fleets preempt once its wait is over (rules/reroute.ts). */
export function preemptWaitTimer(jobId: string): string {
  return `${PREEMPT_WAIT_PREFIX}${jobId}`;
}

/** The timer that fails a job still waiting at the end of its placement timeout (rules/reroute.ts). */
export function placementTimer(jobId: string): string {
  return `${PLACEMENT_PREFIX}${jobId}`;
}
const DIAGNOSE_PREFIX = "diagnose:";

/**
 * The timer that diagnoses a failed run once its ranks' last logs and exits had a moment to arrive
 * (rules/diagnosis.ts; the adapter's fleet/diagnoser.ts reads the logs from the run's Run DO).
 */
export function diagnoseTimer(runId: string): string {
  return `${DIAGNOSE_PREFIX}${runId}`;
}
/** How long after a run failed its diagnosis waits for the other ranks' exits and last log lines. */
export const DIAGNOSIS_SETTLE_MS = 2_000;
const RENEW_PREFIX = "renew:";
const LOST_PREFIX = "lost:";
const HOLD_PREFIX = "hold:";

/** The timer that releases the GPUs held for a preemptor whose victims did not leave in time. */
export function holdTimer(jobId: string): string {
  return `${HOLD_PREFIX}${jobId}`;
}

/** The timer (and its meta row) that re-queues a failed job for another attempt. */
export function retryTimer(jobId: string): string {
  return `${RETRY_PREFIX}${jobId}`;
}

/** The timer that fails a lost node's runs when its grace period ends. */
export function lostTimer(nodeId: string): string {
  return `${LOST_PREFIX}${nodeId}`;
}

/** The timer that sends a connected agent a new credential before its current one expires. */
export function renewTimer(nodeId: string): string {
  return `${RENEW_PREFIX}${nodeId}`;
}

export type TimerTarget =
  | { kind: "schedule" }
  | { kind: "retry"; jobId: string }
  | { kind: "lost"; nodeId: string }
  | { kind: "renew"; nodeId: string }
  | { kind: "hold"; jobId: string }
  | { kind: "placement"; jobId: string }
  | { kind: "runtime"; runId: string }
  | { kind: "diagnose"; runId: string }
  | { kind: "preempt_wait"; jobId: string }
  | { kind: "outbox" | "commands" | "liveness" | "unconfirmed" | "reroute" }
  | { kind: "unknown" };

/** What a due timer row is for. */
export function timerTarget(id: string): TimerTarget {
  if (id === SCHEDULE_TIMER || id === WINDOWS_TIMER || id === BUDGET_TIMER) return { kind: "schedule" };
  if (
    id === OUTBOX_TIMER ||
    id === COMMANDS_TIMER ||
    id === LIVENESS_TIMER ||
    id === UNCONFIRMED_TIMER ||
    id === REROUTE_TIMER
  )
    return { kind: id };
  if (id.startsWith(RETRY_PREFIX)) return { kind: "retry", jobId: id.slice(RETRY_PREFIX.length) };
  if (id.startsWith(LOST_PREFIX)) return { kind: "lost", nodeId: id.slice(LOST_PREFIX.length) };
  if (id.startsWith(HOLD_PREFIX)) return { kind: "hold", jobId: id.slice(HOLD_PREFIX.length) };
  if (id.startsWith(PLACEMENT_PREFIX)) return { kind: "placement", jobId: id.slice(PLACEMENT_PREFIX.length) };
  if (id.startsWith(RUNTIME_PREFIX)) return { kind: "runtime", runId: id.slice(RUNTIME_PREFIX.length) };
  if (id.startsWith(DIAGNOSE_PREFIX)) return { kind: "diagnose", runId: id.slice(DIAGNOSE_PREFIX.length) };
  if (id.startsWith(PREEMPT_WAIT_PREFIX))
    return { kind: "preempt_wait", jobId: id.slice(PREEMPT_WAIT_PREFIX.length) };
  if (id.startsWith(RENEW_PREFIX)) return { kind: "renew", nodeId: id.slice(RENEW_PREFIX.length) };
  return { kind: "unknown" };
}
