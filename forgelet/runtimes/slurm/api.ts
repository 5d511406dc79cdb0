/**
 * What the Slurm runtime needs from slurmrestd, independent of the REST API version: submit a batch job,
 * read one job or all of ours, signal or cancel a job, list the nodes. Each supported API version is one
 * adapter (v0038.ts, chosen in adapters.ts); the differences between versions live there and nowhere else
 * (docs/runtimes.md).
 */
/**
 * One component of a batch job: the nodes of one pool and what each of them gives it. A run of one pool
 * is a plain job of one component; a run of several pools is one heterogeneous job, a component per pool,
 * which Slurm starts all together (docs/runtimes.md).
 */
export interface SlurmComponent {
  /** The nodes the Fleet DO chose for the pool, in node-rank order; the component gets exactly these. */
  nodelist: string[];
  gpusPerNode: number;
  /** The node's CPUs and memory in proportion to the GPUs taken (null: Slurm's defaults). */
  cpusPerTask: number | null;
  memoryPerNodeMb: number | null;
}

/** A batch job as the runtime asks for it. */
export interface SlurmSubmission {
  script: string;
  name: string;
  comment: string;
  environment: Record<string, string>;
  cwd: string;
  stdout: string;
  stderr: string;
  /** At least one; the batch script runs on the first node of the first. */
  components: SlurmComponent[];
  timeLimitMinutes: number | null;
  partition: string | null;
  account: string | null;
  qos: string | null;
}

/** A job as the runtime reads it. `exitStatus` is the raw wait status (exit 3 → 768). */
export interface SlurmJobInfo {
  id: number;
  name: string;
  comment: string;
  state: string;
  reason: string;
  exitStatus: number | null;
  nodes: string;
  /**
   * A heterogeneous job, read by its leader (component 0): every component in offset order, the leader's
   * own entry included, each with its own state and end. Absent or null: a plain job.
   */
  components?: SlurmComponentInfo[] | null;
}

/** One component of a heterogeneous job as Slurm shows it (`squeue`: `<leader>+<offset>`). */
export interface SlurmComponentInfo {
  id: number;
  offset: number;
  state: string;
  reason: string;
  exitStatus: number | null;
  nodes: string;
}

export type SlurmNodeState = "ready" | "drain" | "down";

export interface SlurmNodeInfo {
  name: string;
  /** Where the node's peers reach it (Slurm's NodeAddr). */
  address: string;
  hostname: string;
  state: SlurmNodeState;
  /** Slurm's own words: the base state and flags (e.g. "idle+DRAIN") and the admin's reason. */
  slurmState: string;
  reason: string;
  gpus: number;
  gpuType: string | null;
  partitions: string[];
  cpus: number;
  memoryMb: number;
}

export interface SlurmApi {
  readonly version: string;
  /** Returns the job's id (a heterogeneous job's: its leader's). */
  submit(sub: SlurmSubmission): Promise<number>;
  /**
   * null: Slurm does not know this job (never submitted, or purged after MinJobAge). A heterogeneous job's
   * leader comes with every component.
   */
  job(id: number): Promise<SlurmJobInfo | null>;
  /** Every job, a heterogeneous one once (its leader, with its components). */
  jobs(): Promise<SlurmJobInfo[]>;
  /** Sends `signal` to the job's processes, or cancels it when none is given (a leader: every component). */
  cancel(id: number, signal?: string): Promise<void>;
  nodes(): Promise<SlurmNodeInfo[]>;
}

/** Slurm's GRES string ("gpu:4", "gpu:a100:8(S:0-1)", "gpu:a100:4,shard:8") → GPU count and type. */
export function parseGres(gres: string): { count: number; type: string | null } {
  let count = 0;
  let type: string | null = null;
  for (const part of gres.split(",")) {
    const m = /^gpu(?::([A-Za-z0-9_.-]+))?:(\d+)/.exec(part.trim());
    if (!m) continue;
    count += Number(m[2]);
    type ??= m[1] ?? null;
  }
  return { count, type };
}

/** Node state as the scheduler needs it: new runs only on `ready` nodes. */
export function nodeState(base: string, flags: readonly string[]): SlurmNodeState {
  const all = [base.toUpperCase(), ...flags.map((f) => f.toUpperCase())];
  if (
    all.some((s) =>
      ["DOWN", "FAIL", "FAILING", "NOT_RESPONDING", "UNKNOWN", "FUTURE", "INVALID_REG"].includes(s),
    )
  )
    return "down";
  if (
    all.some((s) =>
      ["DRAIN", "DRAINING", "DRAINED", "MAINTENANCE", "REBOOT_REQUESTED", "RESERVED"].includes(s),
    )
  )
    return "drain";
  return "ready";
}
