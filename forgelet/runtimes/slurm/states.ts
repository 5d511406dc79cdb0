/**
 * Every Slurm job state, mapped to what the agent reports (pure). Slurm keeps a job PENDING with a reason
 * (Resources, Priority, ReqNodeNotAvail, …) that the job's pending reasons show; RUNNING and its
 * transitional states mean the workload runs; the rest are ends, each with Slurm's words, the exit code
 * and whether the node or cluster failed (NODE_FAIL, BOOT_FAIL, PREEMPTED, OUT_OF_MEMORY: retried by the
 * job's budget) or the job itself (FAILED, TIMEOUT, DEADLINE: not retried). A heterogeneous job (a run
 * of several pools) is read from every component: one that ends otherwise than COMPLETED ends the run.
 */
import type { SlurmComponentInfo, SlurmJobInfo } from "./api.js";

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

type Part = Pick<SlurmComponentInfo, "state" | "reason" | "exitStatus">;

/** Slurm's state without its flags (22.05 reports one string; newer versions a list, base first). */
const baseState = (state: string) => state.split(/[+,\s]/)[0]!.toUpperCase();

function phaseOf(state: string): SlurmPhase {
  const s = baseState(state);
  return WAITING.has(s) ? "waiting" : RUNNING.has(s) ? "running" : "ended";
}

/** One job or component, `label` naming it in the reason ("Slurm job 42", "Slurm job 42+1"). */
function observeOne(label: string, job: Part): SlurmObservation {
  const state = baseState(job.state);
  const slurmReason = job.reason && job.reason !== "None" ? job.reason : "";
  const phase = phaseOf(state);
  if (phase === "waiting") {
    return { phase, state, reason: slurmReason || "submitted", exitCode: null, infra: false };
  }
  if (phase === "running") return { phase, state, reason: "", exitCode: null, infra: false };
  const end = ENDS[state] ?? { infra: true, says: `ended in a state forgelet does not know (${state})` };
  const exitCode = exitCodeOf(job.exitStatus);
  const tail = [
    exitCode !== null && state !== "COMPLETED" ? `exit code ${exitCode}` : null,
    slurmReason && slurmReason !== "NonZeroExitCode" ? slurmReason : null,
  ].filter(Boolean);
  return {
    phase: "ended",
    state,
    reason: `Slurm job ${label} ${end.says}${tail.length ? ` (${tail.join("; ")})` : ""}`,
    exitCode,
    infra: end.infra,
  };
}

/** The components of a heterogeneous job, or null for a plain job. */
function componentsOf(job: SlurmJobInfo): readonly SlurmComponentInfo[] | null {
  return job.components && job.components.length > 1 ? job.components : null;
}

export function observe(job: SlurmJobInfo): SlurmObservation {
  const parts = componentsOf(job);
  if (!parts) return observeOne(String(job.id), job);
  const seen = parts.map((c) => observeOne(`${job.id}+${c.offset}`, c));
  // A component that ended otherwise than COMPLETED ends the run, whatever the others still do (Slurm
  // ends them too, and the runtime cancels what is left). A cluster's end (a component cancelled, its node
  // lost) is the cause and the siblings' FAILED its consequence (their step was killed): it is reported.
  const failed = seen.filter((o) => o.phase === "ended" && o.state !== "COMPLETED");
  if (failed.length > 0) return failed.find((o) => o.infra) ?? failed[0]!;
  if (seen.every((o) => o.phase === "ended")) return observeOne(String(job.id), parts[0]!);
  return seen.find((o) => o.phase === "waiting") ?? seen.find((o) => o.phase === "running")!;
}

/** Whether anything of the job still runs or waits in Slurm (of a heterogeneous job: any component). */
export function live(job: SlurmJobInfo): boolean {
  return (componentsOf(job) ?? [job]).some((c) => phaseOf(c.state) !== "ended");
}
