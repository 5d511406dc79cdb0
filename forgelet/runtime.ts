/**
 * One interface for every way forgelet runs a workload (process, docker; kuberay and slurm later).
 * "No silent fallback": the runtime is chosen explicitly and `preflight` fails loudly when it cannot work.
 */

export interface RunSpec {
  runId: string;
  jobId: string;
  epoch: number;
  rank: number;
  /** Host directory holding .starforge/capsule, workspace/ and out/. */
  runDir: string;
  /** The workload's environment (rankEnv + the runtime's own paths). */
  env: Record<string, string>;
  /** Image for container runtimes; ignored by the process runtime. */
  image: string | null;
  /** Exactly the GPU indices the Fleet DO allocated on this node. */
  gpuIndices: number[];
  resources: { cpus?: number; memoryMb?: number };
  /** Identifying labels (starforge.run_id, starforge.job_id, starforge.rank, starforge.epoch). */
  labels: Record<string, string>;
}

/** What the journal keeps to find a workload again after an agent restart. */
export interface RuntimeRef {
  kind: "process" | "docker";
  /** Process group id or container id. */
  id: string;
}

export type RunExit = {
  exitCode: number | null;
  reason: string;
  /** The node or runtime failed (OOM by the host, runtime error), not the workload's own exit. */
  infra: boolean;
};

export interface Runtime {
  readonly kind: "process" | "docker";
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
