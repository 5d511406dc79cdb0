/**
 * One interface for every way forgelet runs a workload (process, docker, slurm; kuberay later).
 * "No silent fallback": the runtime is chosen explicitly and `preflight` fails loudly when it cannot work.
 * A cluster runtime (slurm) fronts many nodes: it lists them (`cluster`), may keep a submitted workload
 * waiting in the cluster's own queue (`waitStarted`), and runs all ranks of a run as one allocation.
 */
import type { ClusterNode } from "../contract/agent-frames.schema.js";

export type RuntimeKind = "process" | "docker" | "slurm" | "kuberay";
export const RUNTIME_KINDS = [
  "process",
  "docker",
  "slurm",
  "kuberay",
] as const satisfies readonly RuntimeKind[];

/**
 * A file of the run directory and where it comes from, for a runtime whose workloads fetch their own
 * inputs (pull mode): a blob by digest, or a checkpoint of an earlier run of the job.
 */
export type RunInput = { path: string; digest: string; mode: number } & (
  | { from: "blob" }
  | { from: "checkpoint"; run: string; artifact: string }
);

/** One rank of the run, as placed by the Fleet DO. */
export interface RankPlacement {
  rank: number;
  /** The fleet node id (`<agent id>:<cluster node name>` for a cluster node). */
  nodeId: string;
  gpus: number;
  /** The pool it belongs to (a cluster runtime makes one component of each); absent in older journals. */
  pool?: string;
}

export interface RunSpec {
  runId: string;
  jobId: string;
  epoch: number;
  rank: number;
  /** Host directory holding .starforge/capsule, workspace/ and out/. */
  runDir: string;
  /** The workload's environment (rankEnv + the runtime's own paths). */
  env: Record<string, string>;
  /**
   * The job's secrets, added to the environment by the runtime in a way that never writes them to the
   * run directory or the agent's disk (docs/security.md "Secrets").
   */
  secrets?: Record<string, string>;
  /** Image for container runtimes; ignored by the process runtime. */
  image: string | null;
  /** Exactly the GPU indices the Fleet DO allocated on this node. */
  gpuIndices: number[];
  resources: { cpus?: number; memoryMb?: number };
  /** Identifying labels (starforge.run_id, starforge.job_id, starforge.rank, starforge.epoch). */
  labels: Record<string, string>;
  /** Every rank of the run (a cluster runtime starts them as one allocation); set by materialize. */
  placement?: RankPlacement[];
  attempt?: number;
  /** The job's `lifecycle.max_runtime_seconds` (a cluster's time limit), if any. */
  maxRuntimeSeconds?: number | null;
  /** Every file materialize placed (but capsule.json, written here): what pull mode fetches itself. */
  inputs?: RunInput[];
}

/** What the journal keeps to find a workload again after an agent restart. */
export interface RuntimeRef {
  kind: RuntimeKind;
  /** Process group id, container id or Slurm job id. */
  id: string;
}

export type RunExit = {
  exitCode: number | null;
  reason: string;
  /** The node or runtime failed (OOM by the host, runtime error), not the workload's own exit. */
  infra: boolean;
};

export interface Runtime {
  readonly kind: RuntimeKind;
  /** A cluster runtime: the nodes it fronts, as they are now (the agent re-reads them periodically). */
  readonly cluster?: { nodes(): Promise<ClusterNode[]> };
  /**
   * A cluster may hold a submitted workload in its queue: resolves once it left it (runs, or ended),
   * telling `onWaiting` the cluster's reason whenever it changes. Absent: launched means running.
   */
  waitStarted?(ref: RuntimeRef, spec: RunSpec, onWaiting: (reason: string) => void): Promise<void>;
  /**
   * Where a rank's run directory is seen by its workload, when not at the agent's own path (pull mode:
   * on the compute node's disk). The rank's environment (FORGE_RUN_ROOT, SF_RESUME_FROM) uses it.
   */
  runRootOf?(runId: string, rank: number): string | undefined;
  /** A rank stopped while its launch still waits inside the runtime (for the run's other ranks): end that wait. */
  abort?(runId: string, rank: number): boolean;
  /** Checks the runtime can work here (docker daemon reachable, …); throws a clear error if not. */
  preflight(): Promise<void>;
  /** Starts the workload; resolves once it is running. Throws LaunchError if it could not start. */
  launch(spec: RunSpec): Promise<RuntimeRef>;
  /** Resolves when the workload ends (also for a workload started by an earlier agent process). */
  wait(ref: RuntimeRef, spec: RunSpec): Promise<RunExit>;
  /** Is it still running? */
  alive(ref: RuntimeRef): Promise<boolean>;
  /** SIGTERM, then SIGKILL after the grace period. */
  stop(ref: RuntimeRef, graceMs: number): Promise<void>;
  /** Removes what the run left (container, process group leftovers, run directory unless kept). */
  cleanup(ref: RuntimeRef | null, spec: RunSpec): Promise<void>;
  /** Every workload this runtime holds that carries starforge labels (leak checks, reconciliation). */
  list(): Promise<Array<{ ref: RuntimeRef; labels: Record<string, string> }>>;
}

export class LaunchError extends Error {
  constructor(
    message: string,
    readonly infra: boolean,
  ) {
    super(message);
    this.name = "LaunchError";
  }
}

export function runLabels(spec: Pick<RunSpec, "runId" | "jobId" | "rank" | "epoch">): Record<string, string> {
  return {
    "starforge.run_id": spec.runId,
    "starforge.job_id": spec.jobId,
    "starforge.rank": String(spec.rank),
    "starforge.epoch": String(spec.epoch),
  };
}
