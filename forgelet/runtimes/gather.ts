/**
 * The ranks of a run reach a cluster agent as separate launches (one per rank, in any order, possibly
 * far apart while each prepares its inputs), but a cluster runtime starts them as ONE unit: a Slurm
 * allocation, a RayJob. The gathering holds each rank's launch until the run's last rank arrived, then
 * submits once and answers every rank's launch with the same result.
 */
import { LaunchError, type RunSpec } from "../runtime.js";

/** The cluster's own name of a fleet node (`<agent id>:<node name>`). */
export function clusterNodeOf(nodeId: string): string {
  const i = nodeId.indexOf(":");
  return i < 0 ? nodeId : nodeId.slice(i + 1);
}

export interface NodeSize {
  cpus: number;
  memoryMb: number;
  gpus: number;
}

/**
 * CPUs and memory (MB) in proportion to the GPUs taken, on the smallest of the nodes (4 of 8 GPUs: half
 * the node): a cluster's defaults (Slurm's one CPU, a pod's nothing) would starve a training's data
 * loaders or end in an OOM kill. Null where a node's size is unknown or it has no GPUs.
 */
export function gpuShare(
  sizes: ReadonlyArray<NodeSize | undefined>,
  gpus: number,
): { cpus: number; memoryMb: number } | null {
  if (gpus === 0 || sizes.length === 0 || sizes.some((s) => !s || s.gpus === 0)) return null;
  const part = (v: number, of: number) => Math.floor((v * gpus) / of);
  return {
    cpus: Math.min(...sizes.map((s) => part(s!.cpus, s!.gpus))),
    memoryMb: Math.min(...sizes.map((s) => part(s!.memoryMb, s!.gpus))),
  };
}

interface Gathering<R> {
  specs: Map<number, RunSpec>;
  waiters: Map<number, { ok: (r: R) => void; ko: (err: unknown) => void }>;
  timer: NodeJS.Timeout | null;
}

export class RankGathering<R> {
  private readonly runs = new Map<string, Gathering<R>>();

  /**
   * @param cluster what the run is submitted to, for messages ("Slurm", "Kubernetes")
   * @param timeoutMs how long the ranks wait for each other; the wait restarts with every rank that
   *   arrives (preparing a rank may copy a large checkpoint)
   */
  constructor(
    private readonly cluster: string,
    private readonly timeoutMs: number,
  ) {}

  /** Resolves with `submit`'s answer once every rank of the run (spec.placement) reached this agent. */
  join(spec: RunSpec, submit: (specs: RunSpec[]) => Promise<R>): Promise<R> {
    const key = `${spec.runId}#${spec.epoch}`;
    const world = spec.placement?.length ?? 1;
    return new Promise<R>((ok, ko) => {
      let g = this.runs.get(key);
      if (!g) {
        g = { specs: new Map(), waiters: new Map(), timer: null };
        this.runs.set(key, g);
      }
      const cur = g;
      cur.specs.set(spec.rank, spec);
      cur.waiters.set(spec.rank, { ok, ko });
      if (cur.timer) clearTimeout(cur.timer);
      cur.timer = null;
      if (cur.specs.size < world) {
        cur.timer = setTimeout(() => {
          this.runs.delete(key);
          const err = new LaunchError(
            `only ${cur.specs.size} of ${world} ranks of run ${spec.runId} reached this agent within ${Math.round(this.timeoutMs / 1000)} s of each other; nothing was submitted to ${this.cluster}`,
            true,
          );
          for (const w of cur.waiters.values()) w.ko(err);
        }, this.timeoutMs);
        return;
      }
      this.runs.delete(key);
      const specs = [...cur.specs.values()].sort((a, b) => a.rank - b.rank);
      submit(specs).then(
        (r) => {
          for (const w of cur.waiters.values()) w.ok(r);
        },
        (err: unknown) => {
          for (const w of cur.waiters.values()) w.ko(err);
        },
      );
    });
  }

  /**
   * A rank stopped while it waits for the run's other ranks: it leaves the gathering (nothing of the run
   * was submitted yet), and its launch ends with a LaunchError the agent reports as `stopped`.
   */
  abort(runId: string, rank: number): boolean {
    for (const [key, g] of this.runs) {
      if (!key.startsWith(`${runId}#`) || !g.waiters.has(rank)) continue;
      const w = g.waiters.get(rank)!;
      g.waiters.delete(rank);
      g.specs.delete(rank);
      if (g.specs.size === 0) {
        if (g.timer) clearTimeout(g.timer);
        this.runs.delete(key);
      }
      w.ko(new LaunchError("stopped before the run's ranks were all here; nothing was submitted", false));
      return true;
    }
    return false;
  }
}
