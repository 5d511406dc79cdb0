/**
 * The scheduling policy: a pure function from a snapshot of one fleet to a decision. No I/O, no clock,
 * no randomness, so it is unit- and property-tested without workerd; the Fleet DO applies its output
 * inside one synchronous SQL transaction.
 *
 * Order: priority class (its value, high first), then priority (high first), then fair share (the user
 * with the least recent GPU usage, counting what this pass already gave them), then FIFO. A job that does
 * not fit does not block smaller jobs behind it (backfill); see docs/scheduling.md for the starvation
 * trade-off.
 *
 * Preemption (scheduler/preempt.ts): a job that fits nowhere only for want of free GPUs may displace
 * running jobs of a lower class; the GPUs it will start on are then held for it (no backfill takes them)
 * until its victims have left, and it starts there.
 *
 * Placement: every pool of a job is placed or none is (gang, all-or-nothing). Within a pool each rank gets
 * its own node of the pool's GPU series (pools of one job may share a node); nodes are chosen best-fit (the fewest free GPUs that still fit)
 * to keep whole nodes free for large jobs, and GPUs are the lowest free indices.
 */
import { defaultWorkloads, type WorkloadKind } from "../../../contract/agent-frames.schema.js";
import type { Quota, TimeWindow } from "../../../contract/api.schema.js";
import type { Placement } from "../../../contract/launch-request.schema.js";
import type { PendingReason } from "../../../contract/pending-reasons.schema.js";
import type { Pool } from "../../../contract/profile-grammar.js";
import { type Preemption, PreemptionPlanner, type VictimInput } from "./preempt.js";
import { TeamBook, type TeamsInput } from "./teams.js";
import { windowStatus } from "./windows.js";

export type { Preemption, TeamsInput, VictimInput };

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

export interface QueuedJobInput {
  id: string;
  userId: string;
  priority: number;
  queueSeq: number;
  pools: readonly Pool[];
  /** The job runs an image, so it needs a container runtime; without one, the process runtime. */
  needsImage?: boolean;
  /** Its priority class's value: orders before `priority`; a higher value may preempt a lower. Absent: 0. */
  classValue?: number;
  /** Its admission awaits confirmation (rows.ts JobRow.unconfirmed): it may be placed, never preempt. */
  unconfirmed?: boolean;
  /** The team it runs for (scheduler/teams.ts); absent or null: none. */
  team?: string | null;
  /** Its class may use GPUs beyond its team's guarantee. Absent: yes. */
  mayBorrow?: boolean;
  /** Why it may not borrow now, when not its class (its team's budget is spent: BUDGET_EXHAUSTED). */
  noBorrow?: PendingReason;
  /** A reason it waits whatever else holds (its team's budget is spent). */
  hold?: PendingReason;
}

/** GPUs held for a job that preempted others, while its victims leave (rules/preempt.ts). */
export interface ReservationInput {
  jobId: string;
  /** Where it starts: the GPUs that were free then and its victims' GPUs. */
  placement: readonly Placement[];
  victims: readonly string[];
  /** When the hold ends if the victims are not gone (ms). */
  deadline: number;
}

/**
 * Whether a node can run the job: a job with an image needs a node that runs images (docker, kuberay);
 * an image-less one a node that runs bare workloads (process, Slurm, docker with a default image).
 */
export function runtimeFits(
  node: Pick<NodeInput, "runtime" | "workloads">,
  job: Pick<QueuedJobInput, "needsImage">,
): boolean {
  if (!node.runtime) return true;
  const runs = node.workloads ?? defaultWorkloads(node.runtime);
  return runs.includes(job.needsImage ? "image" : "bare");
}

export interface UserInput {
  quota: Quota;
  /** GPUs the user holds in this fleet right now. */
  runningGpus: number;
  /** GPU-seconds used in the fair-share horizon (last 24 h). */
  recentGpuSeconds: number;
  /** GPU-seconds used today (UTC) in this fleet. */
  gpuSecondsToday: number;
}

export interface PolicyInput {
  now: number;
  draining: { note: string } | null;
  windows: readonly TimeWindow[];
  nodes: readonly NodeInput[];
  queue: readonly QueuedJobInput[];
  users: Readonly<Record<string, UserInput>>;
  /** GPUs held for preemptors: no other job is placed on them. */
  reservations?: readonly ReservationInput[];
  /** Team quotas and what each team holds (scheduler/teams.ts). Absent: no team quotas here. */
  teams?: TeamsInput;
  /**
   * Preemption: the running jobs that may be displaced now (asked only when a job could use them) and how
   * many preemptions this pass may start (the fleet's rate limit). Absent: no preemption.
   */
  preemption?: {
    /** Candidates; `sorted`: already in preference order (scheduler/preempt.ts `victimOrder`). */
    victims: () => readonly VictimInput[];
    sorted?: boolean;
    /** Whether a listed candidate still runs as listed; absent: all do. */
    alive?: (v: VictimInput) => boolean;
    budget: number;
    /** The lowest value of a preemptible class: a job of that value or lower can preempt nobody. */
    floor: number;
  };
}

export interface Dispatch {
  jobId: string;
  placement: Placement[];
  /** It runs beyond its team's guarantee (scheduler/teams.ts): a reclaiming team may preempt it. */
  borrowed?: boolean;
}

export interface Decision {
  dispatch: Dispatch[];
  /** Every queued job that was not dispatched, with at least one reason. */
  pending: Record<string, PendingReason[]>;
  /** Jobs that displace running ones: each victim is stopped with a checkpoint, the placement held. */
  preempt: Preemption[];
  /** Reservations that can no longer hold (a node of theirs is gone or cordoned): released. */
  released: string[];
}

/** Weight of one GPU currently held, in fair-share GPU-seconds: holding a GPU counts as an hour of use. */
const HELD_GPU_WEIGHT = 3600;

export function jobGpus(job: Pick<QueuedJobInput, "pools">): number {
  return job.pools.reduce((n, p) => n + p.nodes * p.gpus_per_node, 0);
}

export function decide(input: PolicyInput): Decision {
  // Built when a job first gets past its blockers (a job held by its quota needs no view of the nodes).
  let placer: Placer | undefined;
  const users = new Map(Object.entries(input.users).map(([id, u]) => [id, { ...u }]));
  const decision: Decision = { dispatch: [], pending: {}, preempt: [], released: [] };
  const book = input.teams ? new TeamBook(input.teams, input.nodes) : null;
  const teams = book?.active ? book : null;
  const order = new QueueOrder(input.queue, users, teams);
  const held = new Map((input.reservations ?? []).map((r) => [r.jobId, r]));
  const planner = input.preemption ? new PreemptionPlanner(input.preemption, input.now) : null;
  const started = (job: QueuedJobInput, placement: Placement[]) => {
    const u = users.get(job.userId);
    if (u) u.runningGpus += jobGpus(job);
    const borrowed = teams?.take(job) ?? false;
    decision.dispatch.push({ jobId: job.id, placement, ...(borrowed ? { borrowed } : {}) });
  };

  for (let job = order.next(); job; job = order.next()) {
    const reasons = blockers(input, job, users.get(job.userId));
    const verdict = teams?.check(job);
    if (verdict) reasons.push(...verdict.reasons);
    if (reasons.length > 0) {
      decision.pending[job.id] = reasons;
      continue;
    }
    placer ??= new Placer(input.nodes, input.reservations ?? []);
    const hold = held.get(job.id);
    if (hold) {
      const state = placer.holdState(hold);
      if (state === "ready") {
        started(job, [...hold.placement]);
        continue;
      }
      if (state === "waiting") {
        // GPUs freed elsewhere meanwhile: it starts there, and the hold goes (its victims may take it back).
        const elsewhere = placer.place(job);
        if ("placement" in elsewhere) {
          placer.take(elsewhere.placement);
          placer.unhold(hold);
          decision.released.push(job.id);
          started(job, elsewhere.placement);
        } else decision.pending[job.id] = [preemptingReason(hold.victims, hold.deadline)];
        continue;
      }
      // A node of the hold can take no run now: the hold goes, and the job is placed as any other.
      placer.unhold(hold);
      decision.released.push(job.id);
    }
    const placed = placer.place(job);
    if ("reasons" in placed) {
      const preemptor = verdict ? { ...job, borrowing: verdict.borrowing, reclaims: verdict.reclaims } : job;
      const plan = job.unconfirmed ? null : (planner?.plan(placer, preemptor, placed.reasons) ?? null);
      if (plan) {
        placer.take(plan.placement);
        decision.preempt.push(plan);
        decision.pending[job.id] = [preemptingReason(plan.victims, null)];
      } else decision.pending[job.id] = placed.reasons;
      continue;
    }
    placer.take(placed.placement);
    started(job, placed.placement);
  }
  return decision;
}

/** A preemptor's pending reason while its victims leave (deadline: when its hold ends). */
export function preemptingReason(victims: readonly string[], deadline: number | null): PendingReason {
  return {
    code: "PREEMPTING",
    message: `preempting ${victims.length} lower-priority job(s) (${victims.join(", ")}): they checkpoint and leave, and their GPUs are held for this job`,
    details: {
      victims: victims.join(","),
      deadline: deadline === null ? null : new Date(deadline).toISOString(),
    },
  };
}

function shareOf(u: UserInput | undefined): number {
  return u ? u.recentGpuSeconds + u.runningGpus * HELD_GPU_WEIGHT : 0;
}

interface Group {
  value: number;
  priority: number;
  userId: string;
  team: string | null;
  jobs: QueuedJobInput[];
  at: number;
}

/**
 * The order jobs are considered in: class value, then priority (high first), then (where team quotas
 * govern) jobs within their team's guarantee before borrowers, and borrowers of the team with the least
 * borrowed per weight first, then the least-served user (share, which changes as this pass dispatches),
 * then FIFO. Jobs are grouped by (class value, priority, team, user), each group in FIFO order; the next
 * job is the head of the best group. O(Q log Q + picks × groups), not O(Q²): groups are few (users ×
 * priorities) where queues are long.
 */
class QueueOrder {
  private readonly groups: Group[];

  constructor(
    queue: readonly QueuedJobInput[],
    private readonly users: Map<string, UserInput>,
    private readonly teams: TeamBook | null,
  ) {
    const byKey = new Map<string, Group>();
    for (const j of queue) {
      const value = j.classValue ?? 0;
      const team = teams ? (j.team ?? null) : null;
      const key = `${value}\u0000${j.priority}\u0000${team ?? ""}\u0000${j.userId}`;
      let g = byKey.get(key);
      if (!g) {
        g = { value, priority: j.priority, userId: j.userId, team, jobs: [], at: 0 };
        byKey.set(key, g);
      }
      g.jobs.push(j);
    }
    this.groups = [...byKey.values()];
    for (const g of this.groups) g.jobs.sort((a, b) => a.queueSeq - b.queueSeq);
  }

  next(): QueuedJobInput | undefined {
    let best: Group | undefined;
    let bestShare = 0;
    let bestTeam = [0, 0];
    for (const g of this.groups) {
      if (g.at >= g.jobs.length) continue;
      if (best && (g.value < best.value || (g.value === best.value && g.priority < best.priority))) continue;
      const head = g.jobs[g.at]!;
      // Within its guarantee first (0), then borrowers by their team's borrowed GPUs per weight.
      const team = this.teams ? [this.teams.borrowing(head) ? 1 : 0, this.teams.share(g.team)] : [0, 0];
      const share = shareOf(this.users.get(g.userId));
      if (
        !best ||
        g.value > best.value ||
        g.priority > best.priority ||
        team[0]! < bestTeam[0]! ||
        (team[0] === bestTeam[0] &&
          (team[1]! < bestTeam[1]! ||
            (team[1] === bestTeam[1] &&
              (share < bestShare || (share === bestShare && head.queueSeq < best.jobs[best.at]!.queueSeq)))))
      ) {
        best = g;
        bestShare = share;
        bestTeam = team;
      }
    }
    return best ? best.jobs[best.at++] : undefined;
  }
}

/** Reasons that hold a job back before placement is even tried. */
function blockers(input: PolicyInput, job: QueuedJobInput, user: UserInput | undefined): PendingReason[] {
  const reasons: PendingReason[] = job.hold ? [job.hold] : [];
  if (input.draining) {
    reasons.push({
      code: "FLEET_DRAINING",
      message: `the fleet is draining for maintenance: ${input.draining.note || "no note"}`,
      details: { note: input.draining.note },
    });
  }
  for (const series of new Set(job.pools.map((p) => p.series))) {
    const w = windowStatus(input.windows, series, input.now);
    if (!w.open) {
      reasons.push({
        code: "WINDOW_CLOSED",
        message: `the ${series} window is closed; it opens at ${w.opensAt}`,
        details: { series, opens_at: w.opensAt },
      });
    }
  }
  if (user) {
    const want = jobGpus(job);
    if (user.runningGpus + want > user.quota.max_gpus) {
      reasons.push({
        code: "QUOTA_GPUS",
        message: `your GPU quota is ${user.quota.max_gpus}; you hold ${user.runningGpus} and this job needs ${want}`,
        details: { limit: user.quota.max_gpus, in_use: user.runningGpus, requested: want },
      });
    }
    const todayHours = user.gpuSecondsToday / 3600;
    if (todayHours >= user.quota.daily_gpu_hours) {
      reasons.push({
        code: "QUOTA_GPU_HOURS",
        message: `you used ${todayHours.toFixed(1)} of ${user.quota.daily_gpu_hours} GPU-hours today (UTC)`,
        details: { limit: user.quota.daily_gpu_hours, used: todayHours },
      });
    }
  }
  return reasons;
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
  place(job: QueuedJobInput): Placed {
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
  private placeIn(job: QueuedJobInput, domain: string | null): Placed {
    const best = this.placeBy(job, domain, "best");
    if ("placement" in best || job.pools.length < 2) return best;
    const spread = this.placeBy(job, domain, "worst");
    return "placement" in spread ? spread : best;
  }

  private placeBy(job: QueuedJobInput, domain: string | null, fit: "best" | "worst"): Placed {
    // GPUs this job's earlier pools took (pools of one job may share a node); nothing else is copied.
    const taken = new Map<string, number[]>();
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
              .filter((n) => n.schedulable)
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
        const structural = bigEnough < pool.nodes;
        reasons.push({
          code: structural ? "GANG_INCOMPLETE" : "CAPACITY",
          message: structural
            ? `needs ${pool.nodes} ${pool.series} node(s) with ${pool.gpus_per_node} GPUs each; the fleet has ${bigEnough}`
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
        placement.push({ rank: rank++, pool: pool.name, node_id: c.node.id, gpu_indices: gpus });
      }
    }
    return reasons.length > 0 ? { reasons } : { placement };
  }
}
