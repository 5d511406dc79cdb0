/**
 * Choosing victims, pure (docs/scheduling.md "Preemption"). A queued job that fits nowhere only for want
 * of free GPUs may displace running jobs of a strictly lower class value. The victims are whole gangs
 * (a victim's every GPU is freed, never one rank of it), taken in order of preference, and then as few
 * as possible:
 *
 * 1. candidates in preference order: lowest class value first, then borrowers before in-guarantee work,
 *    then the most recent checkpoint (cheapest to interrupt; none known last), then the newest start;
 * 2. grow: add candidates in that order until the job can be placed on the free GPUs and theirs;
 * 3. prune: drop each chosen victim, the least preferred first, whose GPUs the job turns out not to need.
 *
 * The result is minimal (sparing any one victim would not free enough). What may be a candidate at all
 * (a preemptible class, its minimum runtime met, resumable, not exempt) the Fleet DO decides
 * (rules/preempt.ts); this module only chooses among them.
 */
import type { Placement } from "../../../contract/launch-request.schema.js";
import type { PendingReason } from "../../../contract/pending-reasons.schema.js";
import type { Pool } from "../../../contract/profile-grammar.js";

/** A running job that may be displaced. */
export interface VictimInput {
  jobId: string;
  /** The run it was listed with (the Fleet DO's check that it still runs). */
  runId?: string;
  classValue: number;
  /** Every GPU its run holds. */
  placement: readonly Placement[];
  /** When its run started running (ms). */
  startedAt: number;
  /** When its latest checkpoint was written (ms); null: none known. */
  checkpointAt: number | null;
  /** It runs on GPUs borrowed beyond its team's guarantee. */
  borrowed?: boolean;
  /** The team it runs for. */
  team?: string | null;
  /** When its class's minimum runtime is over (ms); before that it is not displaced. Absent: already. */
  eligibleAt?: number;
}

/** A decided preemption: the victims to stop, and the placement held for the preemptor meanwhile. */
export interface Preemption {
  jobId: string;
  victims: string[];
  /** The victims taken back for the preemptor's team's guarantee (reclaim); the others, for priority. */
  reclaimed: string[];
  placement: Placement[];
}

/** What the planner needs of a placement (scheduler/placer.ts Placer). */
export interface TrialPlacer {
  fork(): TrialPlacer;
  give(placement: readonly Placement[]): void;
  freeOn(nodeId: string): number;
  node(id: string): { series: string; schedulable: boolean } | undefined;
  place(job: PreemptorInput): { placement: Placement[] } | { reasons: PendingReason[] };
}

export interface PreemptorInput {
  id: string;
  pools: readonly Pool[];
  needsImage?: boolean;
  classValue?: number;
  team?: string | null;
  /** It would run beyond its team's guarantee: it may displace borrowed runs only. */
  borrowing?: boolean;
  /** It runs within its team's guarantee: it may take back other teams' borrowed runs of any class. */
  reclaims?: boolean;
}

/** Preference among candidates: the first is displaced first. */
export function victimOrder(a: VictimInput, b: VictimInput): number {
  return (
    a.classValue - b.classValue ||
    Number(b.borrowed ?? false) - Number(a.borrowed ?? false) ||
    (b.checkpointAt ?? -1) - (a.checkpointAt ?? -1) ||
    b.startedAt - a.startedAt ||
    (a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : 0)
  );
}

export class PreemptionPlanner {
  private sorted: readonly VictimInput[] | undefined;
  /** Victims already given to a preemptor in this pass. */
  private readonly taken = new Set<string>();
  /**
   * Shapes (class value, image or not, pools) that found no preemption in this pass. Within a pass the
   * free GPUs and the candidates only ever shrink, so a later job of the same shape would fail too: a long
   * queue of jobs that cannot be helped costs one try per shape, not per job.
   */
  private readonly failed = new Set<string>();

  private budget: number;

  constructor(
    private readonly input: {
      /** The candidates; in `victimOrder` already if `sorted`. */
      victims: () => readonly VictimInput[];
      sorted?: boolean;
      /**
       * Whether a candidate still runs as listed (the list may be older than the pass: see
       * rules/preempt.ts); absent: all do.
       */
      alive?: (v: VictimInput) => boolean;
      budget: number;
      floor: number;
    },
    private readonly now: number,
  ) {
    this.budget = input.budget;
  }

  /**
   * The preemption that lets `job` start, or null: it is not held back by capacity alone, no candidate
   * of a lower class could make room, or this pass may start no more preemptions.
   */
  plan(placer: TrialPlacer, job: PreemptorInput, reasons: readonly PendingReason[]): Preemption | null {
    if (this.budget <= 0) return null;
    if (reasons.length === 0 || !reasons.every((r) => r.code === "CAPACITY")) return null;
    const value = job.classValue ?? 0;
    if (value <= this.input.floor && !job.reclaims) return null;
    const shape = `${value}|${job.needsImage ?? false}|${job.team ?? ""}|${job.borrowing ?? false}|${job.reclaims ?? false}|${job.pools.map((p) => `${p.series}:${p.nodes}x${p.gpus_per_node}`).join(",")}`;
    if (this.failed.has(shape)) return null;
    const plan = this.tryPlan(placer, job, value, reasons);
    if (!plan) this.failed.add(shape);
    return plan;
  }

  private tryPlan(
    placer: TrialPlacer,
    job: PreemptorInput,
    value: number,
    reasons: readonly PendingReason[],
  ): Preemption | null {
    const series = new Set(job.pools.map((p) => p.series));
    this.sorted ??= this.input.sorted ? this.input.victims() : [...this.input.victims()].sort(victimOrder);

    // Grow, in preference order, lowest class first: the scan ends at the first candidate of the job's
    // class or above, and stops as soon as the job fits. A placement over the nodes is tried only once
    // every pool has enough nodes with enough free GPUs, counted as victims are added: a pool the placement
    // did not complain about has enough; one it did says how many nodes fit it (`nodes_available`).
    const need = job.pools.map((p) => ({ series: p.series, gpus: p.gpus_per_node, nodes: p.nodes }));
    const enough = job.pools.map((p) => {
      const r = reasons.find((x) => x.details.pool === p.name && x.details.series === p.series);
      return r ? Number(r.details.nodes_available ?? 0) : p.nodes;
    });
    const freeNow = new Map<string, number>();
    let trial: TrialPlacer | null = null;
    const picked: VictimInput[] = [];
    let fit: Placement[] | null = null;
    const reclaimable = (v: VictimInput) =>
      job.reclaims === true && v.borrowed === true && v.team !== job.team;
    for (const v of this.sorted) {
      if (v.classValue >= value) {
        // Lowest class first: past the job's own class only a reclaim finds more.
        if (!job.reclaims) break;
        if (!reclaimable(v)) continue;
      }
      if (job.borrowing && !v.borrowed) continue;
      if ((v.eligibleAt ?? 0) > this.now || this.taken.has(v.jobId)) continue;
      if (!v.placement.some((p) => series.has(placer.node(p.node_id)?.series ?? ""))) continue;
      if (this.input.alive && !this.input.alive(v)) continue;
      picked.push(v);
      trial ??= placer.fork();
      trial.give(v.placement);
      for (const p of v.placement) {
        const node = placer.node(p.node_id);
        if (!node?.schedulable) continue;
        const before = freeNow.get(p.node_id) ?? placer.freeOn(p.node_id);
        const after = before + p.gpu_indices.length;
        freeNow.set(p.node_id, after);
        need.forEach((n, i) => {
          if (node.series === n.series && before < n.gpus && after >= n.gpus) enough[i]! += 1;
        });
      }
      if (need.some((n, i) => enough[i]! < n.nodes)) continue;
      const placed = trial.place(job);
      if ("placement" in placed) {
        fit = placed.placement;
        break;
      }
    }
    if (!fit) return null;

    // Prune: the least preferred first, each victim the job can do without is spared.
    for (let i = picked.length - 1; i >= 0 && picked.length > 1; i--) {
      const without = picked.filter((_, j) => j !== i);
      const t = placer.fork();
      for (const v of without) t.give(v.placement);
      const placed = t.place(job);
      if ("placement" in placed) {
        picked.splice(i, 1);
        fit = placed.placement;
      }
    }
    this.budget--;
    for (const v of picked) this.taken.add(v.jobId);
    return {
      jobId: job.id,
      victims: picked.map((v) => v.jobId),
      reclaimed: picked.filter(reclaimable).map((v) => v.jobId),
      placement: fit,
    };
  }
}
