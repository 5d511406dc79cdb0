/**
 * Several in-memory fleets (fleet-harness.ts) and the messages re-routing sends between them, delivered
 * when a test says so (or lost, or delivered twice): what the Fleet DOs' adapters (fleet/rerouter.ts) do
 * with RPC, as events a test interleaves at will.
 */

import type { JobSpec } from "../../contract/jobspec.schema.js";
import type { FleetCapacity, RerouteTarget } from "../../contract/placement.js";
import { planReroutes } from "../../contract/placement.js";
import { capacitySummary } from "../../durable-objects/fleet/capacity.js";
import type { Handoff } from "../../durable-objects/fleet/rules/handoff-state.js";
import {
  type MoveAnswer,
  type MoveOffer,
  movableJobs,
  pendingOffers,
} from "../../durable-objects/fleet/rules/reroute.js";
import { Fleet } from "./fleet-harness.js";

export interface InFlight {
  offer: MoveOffer;
  /** Set once the receiver answered (the answer travels back). */
  answer?: MoveAnswer;
}

export class FleetNet {
  readonly fleets = new Map<string, Fleet>();
  /** What each fleet last published (capacity), as D1 holds it: read by the others when they plan. */
  readonly published = new Map<string, FleetCapacity | null>();
  readonly inFlight: InFlight[] = [];
  private moves = 0;

  constructor(names: readonly string[]) {
    for (const name of names) {
      this.fleets.set(name, new Fleet({ id: `flt_${name}`, name }));
      this.published.set(name, null);
    }
  }

  fleet(name: string): Fleet {
    return this.fleets.get(name)!;
  }

  /** Fleet `name` publishes its capacity now. */
  publish(name: string): void {
    const f = this.fleet(name);
    this.published.set(name, capacitySummary(f.s, f.now));
  }

  /** Fleet `name` plans from what the others published and freezes what it offers (offers in flight). */
  plan(name: string, siteLost = false): MoveOffer[] {
    const f = this.fleet(name);
    const targets = new Map<string, RerouteTarget>();
    for (const [n] of this.fleets)
      targets.set(n, { id: `flt_${n}`, name: n, draining: false, capacity: this.published.get(n) ?? null });
    const jobs = movableJobs(f.s).map(({ job, fleets }) => ({
      id: job.id,
      fleets,
      needs: (JSON.parse(job.spec) as JobSpec).resources.pools.map((p) => ({
        series: p.series,
        nodes: p.nodes,
        per_node: p.gpus_per_node,
      })),
    }));
    const out: MoveOffer[] = [];
    for (const m of planReroutes(jobs, name, targets, siteLost)) {
      const handoff: Omit<Handoff, "at"> = {
        move_id: `mov_${name}_${++this.moves}`,
        to: m.to,
        why: m.why,
        must_start: m.mustStart,
        basis: m.basis,
      };
      const offer = f.decide({ type: "handoff_out", jobId: m.jobId, handoff }).result;
      if (offer) {
        out.push(offer);
        this.inFlight.push({ offer });
      }
    }
    return out;
  }

  /** Fleet `name` offers again what it froze and never heard back about (its next check). */
  reoffer(name: string): void {
    for (const offer of pendingOffers(this.fleet(name).s))
      if (!this.inFlight.some((m) => m.offer.moveId === offer.moveId)) this.inFlight.push({ offer });
  }

  /** The receiver decides the `i`-th offer in flight (it stays in flight to be answered, or repeated). */
  deliver(i: number): MoveAnswer | null {
    const m = this.inFlight[i];
    if (!m) return null;
    const to = this.byId(m.offer.to.id);
    m.answer = to.decide({ type: "accept_move", offer: m.offer }).result;
    return m.answer;
  }

  /** The `i`-th answered offer's answer reaches its sender (and leaves the wire). */
  answer(i: number): void {
    const m = this.inFlight[i];
    if (!m?.answer) return;
    this.inFlight.splice(i, 1);
    const from = this.byId(m.offer.from.id);
    if (m.answer.kind === "accepted") from.forgetPlace(m.offer.job.id);
    from.decide({ type: "handoff_done", jobId: m.offer.job.id, moveId: m.offer.moveId, answer: m.answer });
  }

  /** The `i`-th message is lost (an offer never delivered, or an answer that never came back). */
  lose(i: number): void {
    this.inFlight.splice(i, 1);
  }

  /** Delivers and answers everything in flight, offering again what was lost, until nothing moves. */
  settle(): void {
    for (let round = 0; round < 10; round++) {
      for (const name of this.fleets.keys()) this.reoffer(name);
      if (this.inFlight.length === 0) return;
      while (this.inFlight.length > 0) {
        this.deliver(0);
        this.answer(0);
      }
    }
  }

  /** The fleets that hold job `id` (its row), and whether each has it frozen in a handoff. */
  holders(id: string): Array<{ name: string; frozen: boolean; status: string }> {
    return [...this.fleets].flatMap(([name, f]) => {
      const job = f.s.job(id);
      return job ? [{ name, frozen: f.s.meta(`handoff:${id}`) !== null, status: job.status }] : [];
    });
  }

  private byId(id: string): Fleet {
    return this.fleet(id.replace(/^flt_/, ""));
  }
}
