/**
 * Team quotas in one decision, pure (docs/scheduling.md "Teams: guarantees, borrowing and reclaim").
 *
 * A GPU series is governed in a fleet once any team has a quota for it there; elsewhere teams change
 * nothing. In a governed series, with C the fleet's schedulable GPUs of it, G and U a team's guarantee
 * and use (a job without a team: G = 0):
 *
 * - a job whose team would hold more than G is borrowing; its run is marked borrowed;
 * - a borrowing job needs a class that may borrow (TEAM_GUARANTEE_FULL), its team must stay within G +
 *   borrow_limit (TEAM_BORROW_LIMIT), and all borrowing together must stay within what may be lent: the
 *   GPUs nobody is guaranteed (C − ΣG) plus, of each team, the idle part of its guarantee up to its
 *   lend_limit (TEAM_LEND_LIMIT);
 * - jobs within their guarantee go first; then borrowers, the team with the least borrowed per weight
 *   first.
 *
 * A job within its guarantee that cannot be placed may reclaim: preempt borrowed runs of other teams of
 * any class (scheduler/preempt.ts). A borrowing job only ever displaces borrowed runs.
 */
import type { PendingReason } from "../../../contract/pending-reasons.schema.js";
import type { Pool } from "../../../contract/profile-grammar.js";
import type { TeamQuota } from "../../../contract/teams.js";

export interface TeamsInput {
  /** Per team, per GPU series: its quota in this fleet. */
  quotas: Readonly<Record<string, Readonly<Record<string, TeamQuota>>>>;
  /** GPUs each team's runs hold now, per series; key "" for jobs without a team. */
  used: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

export interface TeamJob {
  team?: string | null;
  pools: readonly Pool[];
  /** Its class may use GPUs beyond its team's guarantee (a non-preemptible class may not). Absent: yes. */
  mayBorrow?: boolean;
  /** Why it may not borrow though its class may (its team's budget is spent). */
  noBorrow?: PendingReason;
}

/** What a job would be under the teams' quotas now. */
export interface TeamVerdict {
  reasons: PendingReason[];
  /** It would hold GPUs beyond its team's guarantee. */
  borrowing: boolean;
  /** It stays within a guarantee of its team: it may reclaim borrowed GPUs. */
  reclaims: boolean;
}

const NONE = "";

export class TeamBook {
  private readonly used = new Map<string, Map<string, number>>();
  /** Per governed series: the fleet's schedulable GPUs of it, and the sum of the guarantees. */
  private readonly series = new Map<string, { capacity: number; guaranteed: number }>();
  /** The queue order asks for each group's head at every pick: what a job needs, and each team's share. */
  private readonly needsOf = new WeakMap<TeamJob, Map<string, number>>();
  private readonly shares = new Map<string, number>();

  constructor(
    private readonly input: TeamsInput,
    nodes: readonly { series: string; gpus: number; schedulable: boolean }[],
  ) {
    for (const q of Object.values(input.quotas))
      for (const [s, quota] of Object.entries(q)) {
        const e = this.series.get(s) ?? { capacity: 0, guaranteed: 0 };
        e.guaranteed += quota.guaranteed;
        this.series.set(s, e);
      }
    for (const n of nodes) {
      const e = this.series.get(n.series);
      if (e && n.schedulable) e.capacity += n.gpus;
    }
    for (const [team, bySeries] of Object.entries(input.used))
      this.used.set(team, new Map(Object.entries(bySeries)));
  }

  /** Whether any series is governed (else nothing here changes a decision). */
  get active(): boolean {
    return this.series.size > 0;
  }

  private quota(team: string, s: string): TeamQuota | undefined {
    return team === NONE ? undefined : this.input.quotas[team]?.[s];
  }

  private usedOf(team: string, s: string): number {
    return this.used.get(team)?.get(s) ?? 0;
  }

  private over(team: string, s: string, used = this.usedOf(team, s)): number {
    return Math.max(0, used - (this.quota(team, s)?.guaranteed ?? 0));
  }

  /** GPUs of governed series the job asks for, by series. */
  private needs(job: TeamJob): Map<string, number> {
    let out = this.needsOf.get(job);
    if (out) return out;
    out = new Map<string, number>();
    for (const p of job.pools)
      if (this.series.has(p.series)) out.set(p.series, (out.get(p.series) ?? 0) + p.nodes * p.gpus_per_node);
    this.needsOf.set(job, out);
    return out;
  }

  /** All teams' use beyond their guarantees in a series, and what may be lent (with `team` at `teamUse`). */
  private lending(s: string, team: string, teamUse: number): { borrowed: number; lendable: number } {
    const e = this.series.get(s)!;
    let borrowed = 0;
    let lendable = Math.max(0, e.capacity - e.guaranteed);
    const teams = new Set([...this.used.keys(), ...Object.keys(this.input.quotas), team]);
    for (const t of teams) {
      const u = t === team ? teamUse : this.usedOf(t, s);
      borrowed += this.over(t, s, u);
      const q = this.quota(t, s);
      if (q) lendable += Math.min(q.lend_limit ?? q.guaranteed, Math.max(0, q.guaranteed - u));
    }
    return { borrowed, lendable };
  }

  /** Whether the job would borrow (cheap: the queue order asks for every group's head). */
  borrowing(job: TeamJob): boolean {
    const team = job.team ?? NONE;
    for (const [s, n] of this.needs(job))
      if (this.usedOf(team, s) + n > (this.quota(team, s)?.guaranteed ?? 0)) return true;
    return false;
  }

  /** A team's borrowed GPUs per weight, summed over the governed series: less goes first. */
  share(team: string | null | undefined): number {
    const t = team ?? NONE;
    let share = this.shares.get(t);
    if (share !== undefined) return share;
    share = 0;
    for (const s of this.series.keys()) share += this.over(t, s) / (this.quota(t, s)?.weight ?? 1);
    this.shares.set(t, share);
    return share;
  }

  check(job: TeamJob): TeamVerdict {
    const team = job.team ?? NONE;
    const reasons: PendingReason[] = [];
    let borrowing = false;
    let guaranteed = false;
    for (const [s, n] of this.needs(job)) {
      const q = this.quota(team, s);
      const g = q?.guaranteed ?? 0;
      const u = this.usedOf(team, s);
      const after = u + n;
      if (g > 0) guaranteed = true;
      if (after <= g) continue;
      borrowing = true;
      const facts = { team: team || null, series: s, guaranteed: g, in_use: u, requested: n };
      if (job.noBorrow) {
        reasons.push(job.noBorrow);
        continue;
      }
      if (job.mayBorrow === false) {
        reasons.push({
          code: "TEAM_GUARANTEE_FULL",
          message:
            team === NONE
              ? `its priority class may not borrow, and you are in no team: it runs only inside a team's guaranteed ${s} GPUs`
              : `team ${team}'s guarantee of ${g} ${s} GPUs here is in use (${u} held, this job needs ${n}) and its priority class may not borrow`,
          details: facts,
        });
        continue;
      }
      if (q && q.borrow_limit !== null && after > g + q.borrow_limit) {
        reasons.push({
          code: "TEAM_BORROW_LIMIT",
          message: `team ${team} may use ${g} guaranteed + ${q.borrow_limit} borrowed ${s} GPUs here; it holds ${u} and this job needs ${n}`,
          details: { ...facts, borrow_limit: q.borrow_limit },
        });
        continue;
      }
      const { borrowed, lendable } = this.lending(s, team, after);
      if (borrowed > lendable) {
        const already = borrowed - (this.over(team, s, after) - this.over(team, s, u));
        reasons.push({
          code: "TEAM_LEND_LIMIT",
          message: `this job would borrow ${borrowed - already} ${s} GPUs beyond ${team === NONE ? "any guarantee (you are in no team)" : `team ${team}'s guarantee`}, but what may be lent here now (GPUs nobody is guaranteed, and other teams' idle guarantees up to their lend limits) is ${lendable}, and ${already} of it is borrowed already`,
          details: { series: s, lendable, borrowed: already, requested: n },
        });
      }
    }
    return { reasons, borrowing, reclaims: !borrowing && guaranteed && team !== NONE };
  }

  /** A job starts: its team holds its GPUs. Answers whether it borrowed. */
  take(job: TeamJob): boolean {
    const team = job.team ?? NONE;
    const borrowed = this.borrowing(job);
    let m = this.used.get(team);
    if (!m) {
      m = new Map();
      this.used.set(team, m);
    }
    for (const [s, n] of this.needs(job)) m.set(s, (m.get(s) ?? 0) + n);
    this.shares.delete(team);
    return borrowed;
  }
}
