/**
 * Re-routing's I/O (the rules are rules/reroute.ts): every REROUTE_CHECK_MS while this fleet holds
 * waiting jobs placed over several fleets, read those fleets' published capacity from D1 (one query),
 * plan which jobs another fleet would start now (contract/placement.ts planReroutes) — or, once every
 * agent of this fleet has been gone for SF_SITE_LOST_SECONDS, which fleet starts them soonest — and hand
 * each over: freeze it here, offer it there, and act on the answer. An offer whose answer never came
 * (the other fleet unreachable) is offered again at the next check; the job stays frozen meanwhile.
 */
import { newId } from "../../contract/ids.js";
import type { JobSpec } from "../../contract/jobspec.schema.js";
import {
  estimateStart,
  FleetCapacity,
  neverFits,
  type PlacementCandidate,
  planReroutes,
  type RerouteTarget,
  type SeriesNeed,
} from "../../contract/placement.js";
import { db } from "../../d1/client.js";
import { placementRows } from "../../d1/placement.js";
import { secretsOfJob } from "../../d1/secrets.js";
import { type DoEnv, doSettings } from "../env.js";
import { stubOf } from "../rpc.js";
import type { FleetEvent, FleetResults } from "./decide.js";
import { config } from "./rules/ledger.js";
import {
  type FleetMoves,
  type MoveAnswer,
  type MoveOffer,
  movableJobs,
  pendingOffers,
  placementFleets,
} from "./rules/reroute.js";
import type { FleetStore } from "./store.js";
import { REROUTE_CHECK_MS, REROUTE_TIMER } from "./timers.js";

export class Rerouter {
  constructor(
    private readonly store: FleetStore,
    private readonly env: DoEnv,
    private readonly decide: <E extends FleetEvent>(event: E) => FleetResults[E["type"]],
  ) {}

  /** The check: offers still unanswered first, then the plan. Re-arms itself while jobs may move. */
  async check(now: number): Promise<void> {
    for (const offer of pendingOffers(this.store)) await this.offer(offer);
    const movable = movableJobs(this.store);
    const self = config(this.store);
    if (movable.length === 0 || !self) return;
    this.store.setTimer(REROUTE_TIMER, now + REROUTE_CHECK_MS);
    const names = [...new Set(movable.flatMap((m) => m.fleets))].filter((n) => n !== self.name);
    if (names.length === 0) return;
    const d = db(this.env.DB);
    const targets = await this.targets(names);
    const siteLost = this.siteLost(now);
    // Nothing free anywhere else (the common case of a busy site): no job could move, none is looked at.
    if (!siteLost && ![...targets.values()].some(hasFree)) return;
    const jobs = movable.map(({ job, fleets }) => ({
      id: job.id,
      fleets,
      needs: needsOf(job.spec),
      secrets: (JSON.parse(job.spec) as JobSpec).secrets ?? [],
      userId: job.user_id,
    }));
    const plan = planReroutes(jobs, self.name, targets, siteLost);
    for (const move of plan) {
      const job = jobs.find((j) => j.id === move.jobId)!;
      // A job's secrets are opened where it launches: a fleet that lacks one is no place for it.
      if (job.secrets.length > 0) {
        const found = await secretsOfJob(d, { userId: job.userId, fleetId: move.to.id }, job.secrets);
        if (found.size < new Set(job.secrets).size) continue;
      }
      const offer = this.decide({
        type: "handoff_out",
        jobId: move.jobId,
        handoff: {
          move_id: newId("mov"),
          to: move.to,
          why: move.why,
          must_start: move.mustStart,
          basis: move.basis,
        },
      });
      if (offer) await this.offer(offer);
    }
  }

  /**
   * Job `jobId`'s placement timeout ended: it fails if it still waits, with every candidate's reason — this
   * fleet's pending reasons, and the others' as their published capacity says now.
   */
  async timedOut(jobId: string): Promise<void> {
    const fleets = placementFleets(this.store, jobId) ?? [];
    const self = config(this.store)?.name;
    const others = fleets.filter((n) => n !== self);
    const needs = needsOf(this.store.job(jobId)?.spec);
    const targets = others.length > 0 ? await this.targets(others) : new Map<string, RerouteTarget>();
    const views: PlacementCandidate[] = others.map((name) => {
      const t = targets.get(name);
      const view = (eligible: boolean, reason: string, at: number | null = null): PlacementCandidate => ({
        fleet: name,
        eligible,
        reason,
        estimated_start: at,
        chosen: false,
      });
      if (!t) return view(false, "no such fleet");
      if (t.draining) return view(false, "draining");
      const never = neverFits(t.capacity, needs);
      if (never) return view(false, never);
      const e = estimateStart(t.capacity, needs);
      return view(true, e.basis, e.at);
    });
    this.decide({ type: "placement_timeout", jobId, others: views });
  }

  /** The named fleets as placement reads them from D1 (one query). */
  private async targets(names: readonly string[]): Promise<Map<string, RerouteTarget>> {
    const targets = new Map<string, RerouteTarget>();
    for (const f of await placementRows(db(this.env.DB), names)) {
      targets.set(f.name, {
        id: f.id,
        name: f.name,
        draining: f.draining,
        capacity: f.capacity ? FleetCapacity.parse(JSON.parse(f.capacity)) : null,
      });
    }
    return targets;
  }

  /**
   * Every agent of this fleet has been gone for SF_SITE_LOST_SECONDS: the site is lost, and its waiting
   * jobs go where they can wait instead. A fleet that never had an agent is not lost.
   */
  private siteLost(now: number): boolean {
    const agents = this.store.nodes().filter((n) => n.agent === 1);
    if (agents.length === 0) return false;
    const after = doSettings(this.env).siteLostMs;
    return agents.every((n) => n.lost_since !== null && now - n.lost_since >= after);
  }

  private async offer(o: MoveOffer): Promise<void> {
    let answer: MoveAnswer;
    try {
      answer = await stubOf<FleetMoves>(this.env.FLEET, o.to.id).acceptMove(o);
    } catch (err) {
      // No answer: it stays frozen here, and the next check offers it again (the offer is idempotent).
      console.error(`offering job ${o.job.id} to fleet ${o.to.name} failed; offering again`, err);
      this.store.setTimer(REROUTE_TIMER, Date.now() + REROUTE_CHECK_MS);
      return;
    }
    this.decide({ type: "handoff_done", jobId: o.job.id, moveId: o.moveId, answer });
  }
}

/** What a job (its spec's JSON) needs of each series. */
function needsOf(spec: string | undefined): SeriesNeed[] {
  if (!spec) return [];
  return (JSON.parse(spec) as JobSpec).resources.pools.map((p) => ({
    series: p.series,
    nodes: p.nodes,
    per_node: p.gpus_per_node,
  }));
}

/** Whether a fleet has a free GPU of any series and takes jobs. */
function hasFree(t: RerouteTarget): boolean {
  return !t.draining && Object.values(t.capacity?.series ?? {}).some((s) => s.free > 0);
}
