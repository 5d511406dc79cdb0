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
 * Placement (scheduler/placer.ts `Placer`): every pool of a job is placed or none is (gang,
 * all-or-nothing), best-fit, within one domain.
 */
import type { Quota, TimeWindow } from "../../../contract/api.schema.js";
import type { Placement } from "../../../contract/launch-request.schema.js";
import type { PendingReason } from "../../../contract/pending-reasons.schema.js";
import { type NodeInput, type PlaceableJob, Placer } from "./placer.js";
import { type Preemption, PreemptionPlanner, type VictimInput } from "./preempt.js";
import { TeamBook, type TeamsInput } from "./teams.js";
import { windowStatus } from "./windows.js";

export type { NodeInput, Preemption, TeamsInput, VictimInput };
export { Placer };

export interface QueuedJobInput extends PlaceableJob {
  id: string;
  userId: string;
  priority: number;
  queueSeq: number;
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
  /**
   * Until when it may not preempt (ms): a job placed over several fleets first waits for one of them to
   * start it without displacing anyone (rules/reroute.ts). Absent: it may preempt now.
   */
  noPreemptUntil?: number;
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
      const mayPreempt = !job.unconfirmed && (job.noPreemptUntil ?? 0) <= input.now;
      const plan = mayPreempt ? (planner?.plan(placer, preemptor, placed.reasons) ?? null) : null;
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
