/**
 * Every Slurm job state, mapped to what the agent reports (pure). Slurm keeps a job PENDING with a reason
 * (Resources, Priority, ReqNodeNotAvail, …) that the job's pending reasons show; RUNNING and its
 * transitional states mean the workload runs; the rest are ends, each with Slurm's words, the exit code
 * and whether the node or cluster failed (NODE_FAIL, BOOT_FAIL, PREEMPTED, OUT_OF_MEMORY: retried by the
 * job's budget) or the job itself (FAILED, TIMEOUT, DEADLINE: not retried).
 */
import type { SlurmJobInfo } from "./api.js";

export type SlurmPhase = "waiting" | "running" | "ended";

export interface SlurmObservation {
  phase: SlurmPhase;
  /** Slurm's state, e.g. PENDING or NODE_FAIL. */
  state: string;
  /** Waiting: Slurm's pending reason; ended: why, in words. */
  reason: string;
  /** Ended: the exit code as a shell shows it (128+N for signal N), when Slurm says. */
  exitCode: number | null;
  infra: boolean;
}

const WAITING = new Set([
  "PENDING",
  "CONFIGURING",
  "REQUEUED",
  "REQUEUE_HOLD",
  "REQUEUE_FED",
  "RESV_DEL_HOLD",
  "POWER_UP_NODE",
]);
const RUNNING = new Set([
  "RUNNING",
  "COMPLETING",
  "SUSPENDED",
  "STOPPED",
  "SIGNALING",
  "STAGE_OUT",
  "RESIZING",
  "UPDATE_DB",
]);

/** What each terminal state means: the cluster's fault (infra) or the job's, and how to say it. */
const ENDS: Record<string, { infra: boolean; says: string }> = {
  COMPLETED: { infra: false, says: "completed" },
  FAILED: { infra: false, says: "failed" },
  TIMEOUT: { infra: false, says: "reached its time limit (TIMEOUT)" },
  DEADLINE: { infra: false, says: "missed its deadline (DEADLINE)" },
  CANCELLED: { infra: true, says: "was cancelled in Slurm (CANCELLED)" },
  NODE_FAIL: { infra: true, says: "lost a node (NODE_FAIL)" },
  BOOT_FAIL: { infra: true, says: "could not boot a node (BOOT_FAIL)" },
  PREEMPTED: { infra: true, says: "was preempted (PREEMPTED)" },
  OUT_OF_MEMORY: { infra: true, says: "ran out of memory (OUT_OF_MEMORY)" },
  REVOKED: { infra: true, says: "was revoked by its federation (REVOKED)" },
  SPECIAL_EXIT: { infra: false, says: "ended with a special exit (SPECIAL_EXIT)" },
};

/** A raw wait status (what Slurm's exit_code is) as a shell's exit code: exit 3 → 3, signal 9 → 137. */
export function exitCodeOf(status: number | null): number | null {
  if (status === null || status < 0) return null;
  const signal = status & 0x7f;
  return signal === 0 ? (status >> 8) & 0xff : 128 + signal;
}

export function observe(job: SlurmJobInfo): SlurmObservation {
  // 22.05 reports one state string; newer versions a list whose first entry is the base state and
  // whose flags (COMPLETING, CONFIGURING) take precedence; the adapters hand over the effective one.
  const state = job.state.split(/[+,\s]/)[0]!.toUpperCase();
  const slurmReason = job.reason && job.reason !== "None" ? job.reason : "";
  if (WAITING.has(state)) {
    return { phase: "waiting", state, reason: slurmReason || "submitted", exitCode: null, infra: false };
  }
  if (RUNNING.has(state)) return { phase: "running", state, reason: "", exitCode: null, infra: false };
  const end = ENDS[state] ?? { infra: true, says: `ended in a state forgelet does not know (${state})` };
  const exitCode = exitCodeOf(job.exitStatus);
  const tail = [
    exitCode !== null && state !== "COMPLETED" ? `exit code ${exitCode}` : null,
    slurmReason && slurmReason !== "NonZeroExitCode" ? slurmReason : null,
  ].filter(Boolean);
  return {
    phase: "ended",
    state,
    reason: `Slurm job ${job.id} ${end.says}${tail.length ? ` (${tail.join("; ")})` : ""}`,
    exitCode,
    infra: end.infra,
  };
}
