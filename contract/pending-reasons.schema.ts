/** Why a queued job is not running yet: a machine-readable list, so the CLI and UI can explain it. */
import { z } from "zod";

export const PENDING_REASON_CODES = [
  /** No node of the requested GPU series is registered in the fleet. */
  "NO_NODE_OF_SERIES",
  /** Nodes of the series exist but not enough GPUs are free right now. */
  "CAPACITY",
  /** A multi-node job needs more nodes of the series than the fleet has free GPUs on. */
  "GANG_INCOMPLETE",
  /** Running it would exceed the user's concurrent GPU quota. */
  "QUOTA_GPUS",
  /** The user's daily GPU-hours are used up. */
  "QUOTA_GPU_HOURS",
  /** No node of the series has a runtime that can run it (an image needs containers, no image a process agent). */
  "NO_AGENT_RUNTIME",
  /** A time window for this series is closed. */
  "WINDOW_CLOSED",
  /** The fleet is draining for maintenance. */
  "FLEET_DRAINING",
  /** Its previous run is still stopping (checkpointing) on its node; the next run resumes from it. */
  "PREVIOUS_RUN_STOPPING",
  /** Dispatched to a cluster (Slurm), which keeps it waiting; `details.reason` is the cluster's words. */
  "RUNTIME_WAITING",
  /**
   * It preempted lower-priority jobs and waits for them to checkpoint and release their GPUs, which are
   * held for it (`details.victims`, comma-separated job ids; `details.deadline`).
   */
  "PREEMPTING",
  /** Its preemption's victims were not gone by the deadline: the GPUs held for it were released. */
  "PREEMPTION_STALLED",
  /**
   * Its team's guarantee for the series is in use and its class may not borrow (a non-preemptible class
   * runs only inside guaranteed quota): `details.team`, `series`, `guaranteed`, `in_use`, `requested`.
   */
  "TEAM_GUARANTEE_FULL",
  /** Its team would use more than its guarantee plus its borrow limit for the series. */
  "TEAM_BORROW_LIMIT",
  /**
   * The idle GPUs of the series belong to other teams' guarantees, and what they lend (their lend limits)
   * is borrowed already: `details.lendable`, `borrowed`, `requested`.
   */
  "TEAM_LEND_LIMIT",
  /**
   * Its team spent its GPU-hour budget for the period (`details.team`, `period`, `used_gpu_hours`,
   * `limit_gpu_hours`, `resets_at`): it waits for the next period (or, under the borrow-free policy, for
   * room within its team's guarantee).
   */
  "BUDGET_EXHAUSTED",
] as const;

export const PendingReason = z.object({
  code: z
    .enum(PENDING_REASON_CODES)
    .describe("What holds it back, a stable code, e.g. `CAPACITY`, `QUOTA_GPUS`, `PREEMPTING`"),
  message: z.string().describe("The same reason in words, for people"),
  /** Flat facts (series, limits, counts, times) for programs; `message` is for people. */
  details: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
    .default({})
    .describe("Flat facts for programs (series, limits, counts, times) by name; which ones depend on `code`"),
});
export type PendingReason = z.infer<typeof PendingReason>;
export type PendingReasonCode = (typeof PENDING_REASON_CODES)[number];
