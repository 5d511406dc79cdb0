/**
 * Placement over one decision's nodes (scheduler/policy.ts `decide` places each job here): every pool of a
 * job is placed or none is (gang, all-or-nothing). Within a pool each rank gets its own node of the pool's
 * GPU series (pools of one job may share a node, but on Slurm, where a run of several pools is one
 * heterogeneous job whose components never share a node); nodes are chosen best-fit (the fewest free GPUs that
 * still fit) to keep whole nodes free for large jobs, and GPUs are the lowest free indices.
 */
import { defaultWorkloads, type WorkloadKind } from "../../../contract/agent-frames.schema.js";
import type { Placement } from "../../../contract/launch-request.schema.js";
import type { PendingReason } from "../../../contract/pending-reasons.schema.js";
import type { Pool } from "../../../contract/profile-grammar.js";

/** A node as scheduling sees it (scheduler/policy.ts re-exports it with the other inputs). */
export interface NodeInput {
  id: string;
  name: string;
  series: string;
  gpus: number;
  /** Only schedulable nodes receive work (a cordoned or lost node keeps its allocations). */
  schedulable: boolean;
  /** GPU indices already allocated. */
  used: readonly number[];
  /** The agent's runtime (process, docker, kuberay, slurm); null/absent = runs anything (admin-registered). */
  runtime?: string | null;
  /** What it runs (image, bare); null/absent: by its runtime. */
  workloads?: readonly WorkloadKind[] | null;
  /**
   * The cluster agent that fronts it (Slurm): a run goes to one agent as one cluster job, so all its
   * ranks stay within one domain. Null/absent: an agent's own host, which mixes with other such hosts.
   */
  domain?: string | null;
}

/** What placement needs of a job (scheduler/policy.ts QueuedJobInput extends it). */
export interface PlaceableJob {
  pools: readonly Pool[];
  /** The job runs an image, so it needs a container runtime; without one, the process runtime. */
  needsImage?: boolean;
}

/**
 * Whether a node can run the job: a job with an image needs a node that runs images (docker, kuberay);
 * an image-less one a node that runs bare workloads (process, Slurm, docker with a default image).
 */
export function runtimeFits(
  node: Pick<NodeInput, "runtime" | "workloads">,
  job: Pick<PlaceableJob, "needsImage">,
): boolean {
  if (!node.runtime) return true;
  const runs = node.workloads ?? defaultWorkloads(node.runtime);
  return runs.includes(job.needsImage ? "image" : "bare");
}

function freeIndices(n: NodeInput): number[] {
  const used = new Set(n.used);
  const out: number[] = [];
  for (let g = 0; g < n.gpus; g++) if (!used.has(g)) out.push(g);
  return out;
}

type Placed = { placement: Placement[] } | { reasons: PendingReason[] };

/** What a pool's placement needs to know of a set of nodes while nothing changed: its free GPUs. */
interface FreeSummary {
  version: number;
  /** Free GPUs on all of them (schedulable or not). */
  freeGpus: number;
  /** The most free GPUs on one schedulable node. */
  maxFree: number;
}

/**
 * Placement over one decision's nodes. The nodes are grouped once (by domain, series and what they run)
 * and each group's free GPUs summarized until the next dispatch, so a job that cannot fit anywhere is
 * answered without looking at every node: a long queue on a full fleet costs O(queue + nodes), not
 * O(queue × nodes). The answers are exactly those of scanning every node.
 */
export class Placer {
  private readonly free: Map<string, number[]>;
  /** Bumped by every dispatch: summaries of an older version are stale. */
  private version = 0;
  private readonly domains: string[];
  private readonly groups: Map<string, readonly NodeInput[]>;
  private readonly summaries = new WeakMap<readonly NodeInput[], FreeSummary>();
  private readonly sized: WeakMap<readonly NodeInput[], Map<number, number>>;
  private byId: Map<string, NodeInput> | undefined;

  /** `holds`: GPUs held for preemptors, which no placement here takes. */
  constructor(
    private readonly nodes: readonly NodeInput[],
    holds: readonly { placement: readonly Placement[] }[] = [],
    from?: Placer,
  ) {
    if (from) {
      // A fork: the same nodes and groups, its own copy of what is free (lists are replaced, never changed).
      this.free = new Map(from.free);
      this.domains = from.domains;
      this.groups = from.groups;
      this.sized = from.sized;
      this.byId = from.byId;
      return;
    }
    this.free = new Map(nodes.map((n) => [n.id, freeIndices(n)]));
    this.domains = [...new Set(nodes.map((n) => n.domain ?? ""))].sort();
    this.groups = new Map();
    this.sized = new WeakMap();
    for (const h of holds) this.take(h.placement);
  }

  /** A copy to try placements on (preemption) without touching this one. */
  fork(): Placer {
    return new Placer(this.nodes, [], this);
  }

  node(id: string): NodeInput | undefined {
    this.byId ??= new Map(this.nodes.map((n) => [n.id, n]));
    return this.byId.get(id);
  }

  /** Books a dispatched job's GPUs. */
  take(placement: readonly Placement[]): void {
    for (const p of placement) {
      const left = (this.free.get(p.node_id) ?? []).filter((g) => !p.gpu_indices.includes(g));
      this.free.set(p.node_id, left);
    }
    this.version++;
  }

  /** Counts GPUs as free again (a victim's, when trying a preemption). */
  give(placement: readonly Placement[]): void {
    for (const p of placement) {
      const had = this.free.get(p.node_id);
      if (!had) continue;
      const back = p.gpu_indices.filter((g) => !had.includes(g));
      if (back.length > 0)
        this.free.set(
          p.node_id,
          [...had, ...back].sort((a, b) => a - b),
        );
    }
    this.version++;
  }

  /** Free GPUs on a node now. */
  freeOn(nodeId: string): number {
    return this.free.get(nodeId)?.length ?? 0;
  }

  /**
   * A hold's GPUs: all free and on schedulable nodes (ready: its job starts there), some still used by its
   * victims (waiting), or a node of it gone or unschedulable (broken).
   */
  holdState(hold: { placement: readonly Placement[] }): "ready" | "waiting" | "broken" {
    let waiting = false;
    for (const p of hold.placement) {
      const n = this.node(p.node_id);
      if (!n?.schedulable || p.gpu_indices.some((g) => g >= n.gpus)) return "broken";
      if (p.gpu_indices.some((g) => n.used.includes(g))) waiting = true;
    }
    return waiting ? "waiting" : "ready";
  }

  /** A released hold: what of it is not used by a run is free again. */
  unhold(hold: { placement: readonly Placement[] }): void {
    this.give(
      hold.placement.map((p) => {
        const used = this.node(p.node_id)?.used ?? [];
        return { ...p, gpu_indices: p.gpu_indices.filter((g) => !used.includes(g)) };
      }),
    );
  }

  /**
   * All-or-nothing placement of every pool, within one domain (one cluster agent's nodes, or the fleet's
   * own hosts): a run split between two agents could never start as one cluster job.
   */
  place(job: PlaceableJob): Placed {
    if (this.domains.length <= 1) return this.placeIn(job, null);
    for (const d of this.domains) {
      const within = this.placeIn(job, d);
      if ("placement" in within) return within;
    }
    const anywhere = this.placeIn(job, null);
    if (!("placement" in anywhere)) return anywhere;
    const nodesNeeded = job.pools.reduce((s, p) => s + p.nodes, 0);
    return {
      reasons: [
        {
          code: "CAPACITY",
          message: `the free GPUs are spread over several clusters; all ${nodesNeeded} node(s) of a run must be in one cluster (one agent's nodes)`,
          details: { nodes_needed: nodesNeeded, domains: this.domains.length },
        },
      ],
    };
  }

  /** The nodes of one domain (null: all) and series, and of those the ones that run the job's kind. */
  private group(domain: string | null, series: string, needsImage?: boolean): readonly NodeInput[] {
    const key = `${domain ?? "\u0001"}\u0000${series}\u0000${needsImage === undefined ? "" : needsImage ? "image" : "bare"}`;
    let g = this.groups.get(key);
    if (!g) {
      g =
        needsImage === undefined
          ? this.nodes.filter((n) => n.series === series && (domain === null || (n.domain ?? "") === domain))
          : this.group(domain, series).filter((n) => runtimeFits(n, { needsImage }));
      this.groups.set(key, g);
    }
    return g;
  }

  private summary(nodes: readonly NodeInput[]): FreeSummary {
    const known = this.summaries.get(nodes);
    if (known?.version === this.version) return known;
    let freeGpus = 0;
    let maxFree = 0;
    for (const n of nodes) {
      const f = this.free.get(n.id)?.length ?? 0;
      freeGpus += f;
      if (n.schedulable && f > maxFree) maxFree = f;
    }
    const fresh = { version: this.version, freeGpus, maxFree };
    this.summaries.set(nodes, fresh);
    return fresh;
  }

  /** How many of the nodes have at least `gpus` GPUs (free or not). */
  private bigEnough(nodes: readonly NodeInput[], gpus: number): number {
    let bySize = this.sized.get(nodes);
    if (!bySize) {
      bySize = new Map();
      this.sized.set(nodes, bySize);
    }
    let n = bySize.get(gpus);
    if (n === undefined) {
      n = nodes.filter((x) => x.gpus >= gpus).length;
      bySize.set(gpus, n);
    }
    return n;
  }

  /**
   * Best fit first. A job of several pools may share nodes between them, and best fit for its first pool
   * can leave too little for the next (a 4-GPU trainer on the 6-free node leaves 2 where its 3-GPU
   * rollouts needed 3): then the pools are tried again on the emptiest nodes first.
   */
  private placeIn(job: PlaceableJob, domain: string | null): Placed {
    const best = this.placeBy(job, domain, "best");
    if ("placement" in best || job.pools.length < 2) return best;
    const spread = this.placeBy(job, domain, "worst");
    return "placement" in spread ? spread : best;
  }

  private placeBy(job: PlaceableJob, domain: string | null, fit: "best" | "worst"): Placed {
    // GPUs this job's earlier pools took (pools of one job may share a node); nothing else is copied.
    const taken = new Map<string, number[]>();
    // Slurm nodes an earlier pool of this job is on: Slurm keeps the components of a heterogeneous job
    // (a pool each) on distinct nodes, so a later pool cannot go there.
    const slurmTaken = new Set<string>();
    const freeOf = (id: string) => taken.get(id) ?? this.free.get(id) ?? [];
    const placement: Placement[] = [];
    const reasons: PendingReason[] = [];
    let rank = 0;
    for (const pool of job.pools) {
      const ofSeries = this.group(domain, pool.series);
      if (ofSeries.length === 0) {
        reasons.push({
          code: "NO_NODE_OF_SERIES",
          message: `no ${pool.series} node is registered in this fleet`,
          details: { series: pool.series, pool: pool.name },
        });
        continue;
      }
      const fitting = this.group(domain, pool.series, job.needsImage ?? false);
      if (fitting.length === 0) {
        const kinds = [...new Set(ofSeries.map((n) => n.runtime ?? "any"))].sort().join(", ");
        reasons.push({
          code: "NO_AGENT_RUNTIME",
          message: job.needsImage
            ? `this job runs an image, but the ${pool.series} nodes here (${kinds}) do not run images; it needs a container runtime (docker or kuberay)`
            : `this job has no image, but the ${pool.series} nodes here (${kinds}) run only images; it needs a process or Slurm agent, a docker agent with --default-image, or an image of its own`,
          details: {
            series: pool.series,
            pool: pool.name,
            needs: job.needsImage ? "container" : "process",
            runtimes: kinds,
          },
        });
        continue;
      }
      // While this job took nothing yet, the group's summary answers "does anything fit?" at once.
      const summary = taken.size === 0 ? this.summary(fitting) : null;
      // Ranks of one pool go to distinct nodes; different pools of a job may share a node.
      const candidates =
        summary && summary.maxFree < pool.gpus_per_node
          ? []
          : fitting
              .filter((n) => n.schedulable && !slurmTaken.has(n.id))
              .map((n) => ({ node: n, free: freeOf(n.id) }))
              .filter((c) => c.free.length >= pool.gpus_per_node)
              .sort(
                (a, b) =>
                  (fit === "best" ? a.free.length - b.free.length : b.free.length - a.free.length) ||
                  (a.node.name < b.node.name ? -1 : 1),
              );
      if (candidates.length < pool.nodes) {
        const bigEnough = this.bigEnough(fitting, pool.gpus_per_node);
        const freeGpus = summary ? summary.freeGpus : fitting.reduce((s, n) => s + freeOf(n.id).length, 0);
        // Nodes this job's earlier pools hold on Slurm can never serve this pool of the same job.
        const apart = fitting.filter((n) => slurmTaken.has(n.id) && n.gpus >= pool.gpus_per_node).length;
        const structural = bigEnough - apart < pool.nodes;
        reasons.push({
          code: structural ? "GANG_INCOMPLETE" : "CAPACITY",
          message: structural
            ? `needs ${pool.nodes} ${pool.series} node(s) with ${pool.gpus_per_node} GPUs each; the fleet has ${bigEnough}${apart > 0 ? `, ${apart} of them taken by this job's other pools (on Slurm, the pools of a job never share a node)` : ""}`
            : `waiting for ${pool.nodes} ${pool.series} node(s) with ${pool.gpus_per_node} free GPUs; ${candidates.length} available now`,
          details: {
            series: pool.series,
            pool: pool.name,
            nodes_needed: pool.nodes,
            gpus_per_node: pool.gpus_per_node,
            nodes_available: candidates.length,
            free_gpus: freeGpus,
          },
        });
        continue;
      }
      for (const c of candidates.slice(0, pool.nodes)) {
        const gpus = c.free.slice(0, pool.gpus_per_node);
        taken.set(c.node.id, c.free.slice(pool.gpus_per_node));
        if (c.node.runtime === "slurm") slurmTaken.add(c.node.id);
        placement.push({ rank: rank++, pool: pool.name, node_id: c.node.id, gpu_indices: gpus });
      }
    }
    return reasons.length > 0 ? { reasons } : { placement };
  }
}
