/**
 * Ledger states of a job and the one transition table (fixed by the architecture doc). Every write
 * of a job status goes through `transition()`; an edge that is not here is a bug.
 */
import { z } from "zod";

export const JOB_STATES = [
  "QUEUED",
  "SUBMITTED",
  "PENDING",
  "RUNNING",
  "SUCCEEDED",
  "FAILED",
  "STOPPED",
  "PAUSED",
] as const;
export const JobState = z.enum(JOB_STATES);
export type JobState = z.infer<typeof JobState>;

export interface Edge {
  from: JobState;
  to: JobState;
  /** Stable name recorded in the job's event log. */
  name: string;
  why: string;
}

export const TRANSITIONS: readonly Edge[] = [
  { from: "QUEUED", to: "SUBMITTED", name: "dispatch", why: "GPUs allocated and a LaunchRequest issued" },
  { from: "QUEUED", to: "STOPPED", name: "stop_queued", why: "stopped before it reached a node" },
  {
    from: "QUEUED",
    to: "PAUSED",
    name: "hold",
    why: "paused while waiting (drain or user); holds no GPUs, resumes in its original place",
  },
  {
    from: "QUEUED",
    to: "FAILED",
    name: "placement_timeout",
    why: "no candidate fleet started it within its placement timeout",
  },
  { from: "SUBMITTED", to: "PENDING", name: "ack", why: "the agent acknowledged the LaunchRequest" },
  {
    from: "SUBMITTED",
    to: "QUEUED",
    name: "dispatch_unacked",
    why: "the agent never acknowledged; GPUs released and the job waits again",
  },
  { from: "SUBMITTED", to: "STOPPED", name: "stop_submitted", why: "stopped before the agent acked" },
  { from: "SUBMITTED", to: "FAILED", name: "launch_rejected", why: "the agent refused the launch" },
  { from: "PENDING", to: "RUNNING", name: "started", why: "the runtime started the workload" },
  { from: "PENDING", to: "FAILED", name: "launch_failed", why: "the runtime failed before the workload ran" },
  { from: "PENDING", to: "STOPPED", name: "stop_pending", why: "stopped while launching" },
  { from: "RUNNING", to: "SUCCEEDED", name: "succeeded", why: "the workload exited 0" },
  { from: "RUNNING", to: "FAILED", name: "failed", why: "the workload or its node failed" },
  { from: "RUNNING", to: "STOPPED", name: "stop_running", why: "stopped by a user or a closing window" },
  {
    from: "RUNNING",
    to: "PAUSED",
    name: "pause",
    why: "checkpointed and released its GPUs (pause or drain)",
  },
  { from: "PAUSED", to: "QUEUED", name: "resume", why: "resumed; waits again at its original priority" },
  { from: "PAUSED", to: "STOPPED", name: "stop_paused", why: "a paused job the user gave up on" },
  { from: "FAILED", to: "QUEUED", name: "retry", why: "auto-retry within the job's budget" },
  { from: "STOPPED", to: "QUEUED", name: "resume_stopped", why: "resumed from its last checkpoint" },
];

const byPair = new Map<string, Edge>(TRANSITIONS.map((e) => [`${e.from}>${e.to}`, e]));

export function findEdge(from: JobState, to: JobState): Edge | undefined {
  return byPair.get(`${from}>${to}`);
}

export class IllegalTransitionError extends Error {
  constructor(
    readonly from: JobState,
    readonly to: JobState,
  ) {
    super(`illegal job transition ${from} -> ${to}`);
    this.name = "IllegalTransitionError";
  }
}

/** Returns the edge for from→to or throws; the only sanctioned way to change a job's status. */
export function transition(from: JobState, to: JobState): Edge {
  const edge = findEdge(from, to);
  if (!edge) throw new IllegalTransitionError(from, to);
  return edge;
}

/** States in which a job holds GPUs. */
export const ALLOCATED_STATES: ReadonlySet<JobState> = new Set(["SUBMITTED", "PENDING", "RUNNING"]);
/** States from which nothing more happens without a user (or retry) acting. */
export const RESTING_STATES: ReadonlySet<JobState> = new Set(["SUCCEEDED", "FAILED", "STOPPED", "PAUSED"]);
/** States that count as "active" for concurrency quotas. */
export const ACTIVE_STATES: ReadonlySet<JobState> = new Set(["QUEUED", "SUBMITTED", "PENDING", "RUNNING"]);

/**
 * Whether a run is over: released (`ended_at` set) or no longer in a state that holds GPUs (stopped,
 * paused, finished). A run's status uses the job states.
 */
export function runIsOver(status: string, endedAt: string | number | null): boolean {
  return endedAt !== null || !(ALLOCATED_STATES as ReadonlySet<string>).has(status);
}

/** The target state of each user action, by current state; absent = not allowed from there. */
export const ACTION_TARGETS: Record<"stop" | "pause" | "resume", Partial<Record<JobState, JobState>>> = {
  stop: {
    QUEUED: "STOPPED",
    SUBMITTED: "STOPPED",
    PENDING: "STOPPED",
    RUNNING: "STOPPED",
    PAUSED: "STOPPED",
  },
  pause: { QUEUED: "PAUSED", RUNNING: "PAUSED" },
  resume: { PAUSED: "QUEUED", STOPPED: "QUEUED", FAILED: "QUEUED" },
};
