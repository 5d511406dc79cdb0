/**
 * Exactly one placement, always (issue 28): three fleets, in memory against the Fleet DO's rules, and
 * thousands of random interleavings of submits placed over them, capacity changing (runs starting and
 * ending, agents lost), fleets publishing their capacity and planning moves, and the handoff's messages
 * delivered late, twice, out of order or never (then offered again). After every step:
 *
 * - every job is held by one fleet, or by more during a handoff, where the senders have it frozen (never
 *   placeable; two handoffs may cross, each fleet offering it to the other, both frozen until one of the
 *   offers is refused) — never by two that may place it;
 * - a frozen copy is QUEUED and holds nothing; at most one fleet holds a run of it that is not over (it
 *   never runs in two places: a job whose node was lost moves on only once that run is fenced);
 * - every job submitted is somewhere (nothing is lost), and each fleet's own invariants hold;
 * - a job preempts others on one fleet at most (after its wait; never again where it moves);
 * - the holder's version is above every version the other fleets wrote of it (D1 and the user's object
 *   follow the holder).
 *
 * At the end, with every message delivered: each job is in exactly one fleet, frozen nowhere.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { agentMove, pick } from "./fleet-harness.js";
import { FleetNet } from "./fleet-reroute-net.js";

const NAMES = ["a", "b", "c"] as const;

type Op =
  | { op: "submit"; fleet: number; gpus: number; on: number[]; cls: string; wait: number }
  | { op: "start" | "exit"; fleet: number; run: number }
  | { op: "publish"; fleet: number }
  | { op: "plan"; fleet: number; siteLost: boolean }
  | { op: "deliver" | "answer" | "lose"; i: number }
  | { op: "reoffer"; fleet: number }
  | { op: "lost"; fleet: number; node: number }
  | { op: "stop"; fleet: number; job: number }
  | { op: "advance"; ms: number };

const fleetArb = fc.integer({ min: 0, max: 2 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant("submit" as const),
      fleet: fleetArb,
      gpus: fc.constantFrom(1, 2, 4, 8),
      on: fc.subarray([0, 1, 2], { minLength: 1 }),
      cls: fc.constantFrom("low", "normal", "critical"),
      wait: fc.constantFrom(0, 60),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constantFrom("start" as const, "exit" as const),
      fleet: fleetArb,
      run: fc.nat(),
    }),
  },
  { weight: 4, arbitrary: fc.record({ op: fc.constant("publish" as const), fleet: fleetArb }) },
  {
    weight: 5,
    arbitrary: fc.record({ op: fc.constant("plan" as const), fleet: fleetArb, siteLost: fc.boolean() }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constantFrom("deliver" as const, "answer" as const, "lose" as const),
      i: fc.nat(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("reoffer" as const), fleet: fleetArb }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("lost" as const), fleet: fleetArb, node: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("stop" as const), fleet: fleetArb, job: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant("advance" as const), ms: fc.constantFrom(61_000, 301_000) }),
  },
);

function play(net: FleetNet, o: Op, jobs: string[], seq: { n: number }): void {
  const name = "fleet" in o ? NAMES[o.fleet]! : "a";
  const f = net.fleet(name);
  switch (o.op) {
    case "submit": {
      // Placed over the fleets it names (this one among them, as the Worker would have chosen it).
      const fleets = [...new Set([name, ...o.on.map((i) => NAMES[i]!)])];
      const jobId = `job_${String(++seq.n).padStart(4, "0")}`;
      f.submit({
        jobId,
        gpus: o.gpus,
        priorityClass: o.cls,
        python: true,
        preemptionWaitSeconds: o.wait,
        ...(fleets.length > 1 ? { fleets } : {}),
      });
      jobs.push(jobId);
      return;
    }
    case "start":
    case "exit":
      agentMove(f, o.op, o.run);
      return;
    case "publish":
      net.publish(name);
      return;
    case "plan":
      net.plan(name, o.siteLost);
      return;
    case "deliver":
      if (net.inFlight.length > 0) net.deliver(o.i % net.inFlight.length);
      return;
    case "answer":
      if (net.inFlight.length > 0) net.answer(o.i % net.inFlight.length);
      return;
    case "lose":
      if (net.inFlight.length > 0) net.lose(o.i % net.inFlight.length);
      return;
    case "reoffer":
      net.reoffer(name);
      return;
    case "lost": {
      const node = pick(
        f.s.nodes().filter((n) => n.status === "ready"),
        o.node,
      );
      if (node) f.decide({ type: "node_lost", nodeId: node.id });
      return;
    }
    case "stop": {
      const job = pick(
        jobs.filter((id) => f.s.job(id)),
        o.job,
      );
      if (job) f.act(job, "stop");
      return;
    }
    case "advance":
      // Every fleet's clock: lost nodes' runs fail when their grace ends, and their jobs retry.
      for (const n of NAMES) net.fleet(n).advance(o.ms);
      return;
  }
}

function checkPlacement(net: FleetNet, jobs: readonly string[]): void {
  for (const id of jobs) {
    const holders = net.holders(id);
    expect(holders.length, `${id} is nowhere`).toBeGreaterThan(0);
    const live = holders.filter((h) => !h.frozen);
    expect(live.length, `${id} placeable in ${live.map((h) => h.name).join(", ")}`).toBeLessThanOrEqual(1);
    for (const h of holders.filter((x) => x.frozen)) {
      expect(h.status, `${id} frozen at ${h.name}`).toBe("QUEUED");
      const run = net.fleet(h.name).job(id).current_run_id;
      if (run) expect(net.fleet(h.name).s.run(run)?.ended_at, `${id} frozen holding a run`).not.toBeNull();
    }
    // A fleet that gave it a run holds that run's GPUs until it is over: only then may it move on.
    const holding = NAMES.filter((n) =>
      [...net.fleet(n).s.runRows.values()].some((r) => r.job_id === id && r.ended_at === null),
    );
    expect(holding.length, `${id} holds GPUs in ${holding.join(", ")}`).toBeLessThanOrEqual(1);
    const open = NAMES.flatMap((n) =>
      [...net.fleet(n).s.runRows.values()].filter((r) => r.job_id === id && r.ended_at === null),
    );
    expect(open.length, `${id} has ${open.length} open runs`).toBeLessThanOrEqual(1);
    // The one that may place it holds the newest version: the projections follow it.
    if (live[0]) {
      const topVersion = net.fleet(live[0].name).job(id).version;
      for (const h of holders) expect(net.fleet(h.name).job(id).version).toBeLessThanOrEqual(topVersion);
    }
  }
  // A job placed over several fleets displaces others on one fleet at most.
  const preemptedOn = new Map<string, Set<string>>();
  for (const n of NAMES)
    for (const e of net.fleet(n).s.outbox) {
      if (e.kind !== "event" || e.event.to_status !== "PAUSED") continue;
      const by = (JSON.parse(e.event.detail) as { preempted_by?: string }).preempted_by;
      if (by) preemptedOn.set(by, new Set([...(preemptedOn.get(by) ?? []), n]));
    }
  for (const [id, on] of preemptedOn) expect(on.size, `${id} preempted on ${[...on].join(", ")}`).toBe(1);
  for (const n of NAMES) net.fleet(n).checkInvariants();
}

describe("exactly one placement over three fleets, whatever the interleaving", () => {
  it("holds after every step and once every message is delivered", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(2, 4, 8), { minLength: 3, maxLength: 3 }),
        fc.array(opArb, { minLength: 10, maxLength: 80 }),
        (sizes, ops) => {
          const net = new FleetNet(NAMES);
          for (const [i, n] of NAMES.entries()) net.fleet(n).agent(`${n}-node`, sizes[i]!);
          const jobs: string[] = [];
          const seq = { n: 0 };
          for (const o of ops) {
            play(net, o, jobs, seq);
            checkPlacement(net, jobs);
          }
          net.settle();
          checkPlacement(net, jobs);
          for (const id of jobs) {
            const holders = net.holders(id);
            expect(holders.length, `${id} after settling`).toBe(1);
            expect(holders[0]!.frozen).toBe(false);
          }
        },
      ),
      { numRuns: 2_000 },
    );
    // ~20 s alone; a hang detector, not a speed limit (the file shares two cores with the Worker tier in CI).
  }, 120_000);
});
