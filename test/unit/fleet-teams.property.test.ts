/**
 * Team quotas under random workloads: 3 teams (and a user in none) sharing 2 fleets, each fleet with its
 * own random quotas per team (guarantee, borrow limit, lend limit, weight).
 *
 * The pure decider (`decide`, scheduler/teams.ts), thousands of random fleets with random running work
 * and a random queue. Its dispatches, replayed in order from the state it saw:
 * - never over capacity (a GPU given twice or beyond its node);
 * - no team over guarantee + borrow limit;
 * - what all borrowers hold stays within what may be lent (the GPUs nobody is guaranteed, plus each
 *   team's idle guarantee up to its lend limit): lent ≤ lend_limit;
 * - a run is marked borrowed exactly when its team goes beyond its guarantee;
 * and its preemptions: a borrowing preemptor's victims all borrowed (a team within its guarantee is never
 * a borrower's victim), a reclaim's victims are other teams' borrowed runs, victims are whole gangs.
 *
 * The Fleet DO's rules (fleet-harness.ts) on both fleets, event after event (submits by every user, runs
 * starting, ending, stopping after a notice, time passing, admins changing quotas): every invariant of the
 * harness (capacity, transitions, queue places kept, GPUs held for a preemptor untouched, a preempted run
 * never FAILED, a reclaim only ever of a borrowed run of another team), and no team's use grows past its
 * guarantee + borrow limit, and no preemption cycle (a run that displaced a job is never displaced by that
 * job for the same cause).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BUILTIN_PRIORITY_CLASSES } from "../../contract/priority-classes.js";
import type { FleetTeams, TeamQuota } from "../../contract/teams.js";
import { decide, type NodeInput, type QueuedJobInput } from "../../durable-objects/fleet/scheduler/policy.js";
import type { VictimInput } from "../../durable-objects/fleet/scheduler/preempt.js";
import { agentMove, Fleet } from "./fleet-harness.js";
import { NOW, placeGangs, pool, user } from "./policy-fixtures.js";

const TEAMS = ["a", "b", "c"] as const;
const ZERO_MIN_RUNTIME = BUILTIN_PRIORITY_CLASSES.map((c) => ({ ...c, min_runtime_seconds: 0 }));
const SERIES = "h200";

const quotaArb: fc.Arbitrary<TeamQuota> = fc
  .record({
    guaranteed: fc.integer({ min: 0, max: 6 }),
    borrow: fc.option(fc.integer({ min: 0, max: 6 }), { nil: null }),
    lend: fc.option(fc.integer({ min: 0, max: 6 }), { nil: null }),
    weight: fc.constantFrom(1, 2, 3),
  })
  .map((q) => ({
    guaranteed: q.guaranteed,
    borrow_limit: q.borrow,
    lend_limit: q.lend === null ? null : Math.min(q.lend, q.guaranteed),
    weight: q.weight,
  }));

/** Per team (or none: the team has no quota in this fleet). */
const quotasArb = fc.tuple(
  fc.option(quotaArb, { nil: undefined }),
  fc.option(quotaArb, { nil: undefined }),
  fc.option(quotaArb, { nil: undefined }),
);

function quotasOf(qs: readonly (TeamQuota | undefined)[]): Record<string, Record<string, TeamQuota>> {
  const out: Record<string, Record<string, TeamQuota>> = {};
  qs.forEach((q, i) => {
    if (q) out[TEAMS[i]!] = { [SERIES]: q };
  });
  return out;
}

/** The accounting the decider must respect, recomputed here from first principles. */
class Ledger {
  readonly used = new Map<string, number>();
  constructor(
    private readonly quotas: Record<string, Record<string, TeamQuota>>,
    private readonly capacity: number,
  ) {}
  q(team: string) {
    return this.quotas[team]?.[SERIES];
  }
  g(team: string) {
    return this.q(team)?.guaranteed ?? 0;
  }
  add(team: string, n: number) {
    this.used.set(team, (this.used.get(team) ?? 0) + n);
  }
  borrowed(): number {
    let b = 0;
    for (const [t, u] of this.used) b += Math.max(0, u - this.g(t));
    return b;
  }
  lendable(): number {
    const guaranteed = Object.values(this.quotas).reduce((s, q) => s + (q[SERIES]?.guaranteed ?? 0), 0);
    let l = Math.max(0, this.capacity - guaranteed);
    for (const t of Object.keys(this.quotas)) {
      const q = this.q(t)!;
      l += Math.min(q.lend_limit ?? q.guaranteed, Math.max(0, q.guaranteed - (this.used.get(t) ?? 0)));
    }
    return l;
  }
}

interface World {
  nodes: NodeInput[];
  quotas: Record<string, Record<string, TeamQuota>>;
  running: VictimInput[];
  queue: QueuedJobInput[];
}

const TEAM_OR_NONE = fc.constantFrom<string | null>("a", "b", "c", null);
const VALUES = [-500, 0, 500];

const worldArb: fc.Arbitrary<World> = fc
  .record({
    sizes: fc.array(fc.constantFrom(2, 4, 8), { minLength: 1, maxLength: 4 }),
    quotas: quotasArb,
    gangs: fc.array(
      fc.record({
        team: TEAM_OR_NONE,
        nodes: fc.integer({ min: 1, max: 2 }),
        gpus: fc.integer({ min: 1, max: 4 }),
        value: fc.constantFrom(...VALUES),
        startedAt: fc.integer({ min: 0, max: 1000 }),
      }),
      { maxLength: 8 },
    ),
    queue: fc.array(
      fc.record({
        team: TEAM_OR_NONE,
        nodes: fc.integer({ min: 1, max: 2 }),
        gpus: fc.integer({ min: 1, max: 4 }),
        value: fc.constantFrom(...VALUES, 1000),
        mayBorrow: fc.integer({ min: 0, max: 5 }).map((n) => n > 0),
      }),
      { minLength: 1, maxLength: 8 },
    ),
  })
  .map(({ sizes, quotas, gangs, queue }) => {
    const q = quotasOf(quotas);
    const capacity = sizes.reduce((s, n) => s + n, 0);
    const ledger = new Ledger(q, capacity);
    const { nodes, placed } = placeGangs(sizes, gangs, SERIES);
    const running: VictimInput[] = placed.map(({ gang: g, index: k, placement }) => {
      const team = g.team ?? "";
      const n = g.nodes * g.gpus;
      const borrowed = (ledger.used.get(team) ?? 0) + n > ledger.g(team);
      ledger.add(team, n);
      return {
        jobId: `r${k}`,
        runId: `run${k}`,
        classValue: g.value,
        placement,
        startedAt: g.startedAt,
        checkpointAt: null,
        borrowed,
        team: g.team,
      };
    });
    return {
      nodes,
      quotas: q,
      running,
      queue: queue.map((j, i) => ({
        id: `q${i}`,
        userId: `u${i % 3}`,
        priority: 10,
        queueSeq: i + 1,
        pools: [pool(SERIES, j.nodes, j.gpus)],
        classValue: j.value,
        team: j.team,
        mayBorrow: j.mayBorrow,
      })),
    };
  });

describe("team quotas: the pure decider", () => {
  it("stays within capacity, guarantee + borrow limit and lend limits; victims as the rules say (5,000 fleets)", () => {
    let borrowedDispatches = 0;
    let reclaims = 0;
    fc.assert(
      fc.property(worldArb, (w) => {
        const capacity = w.nodes.reduce((s, n) => s + n.gpus, 0);
        const used: Record<string, Record<string, number>> = {};
        const ledger = new Ledger(w.quotas, capacity);
        for (const r of w.running) {
          const n = r.placement.reduce((s, p) => s + p.gpu_indices.length, 0);
          const t = r.team ?? "";
          used[t] = { [SERIES]: (used[t]?.[SERIES] ?? 0) + n };
          ledger.add(t, n);
        }
        const d = decide({
          now: NOW,
          draining: null,
          windows: [],
          nodes: w.nodes,
          queue: w.queue,
          users: { u0: user(), u1: user(), u2: user() },
          teams: { quotas: w.quotas, used },
          preemption: { victims: () => w.running, budget: 10, floor: -1000 },
        });
        const governed = Object.keys(w.quotas).length > 0;
        const initial = new Map(ledger.used);
        // Capacity: every dispatched GPU is free and given once.
        const taken = new Set(w.nodes.flatMap((n) => n.used.map((g) => `${n.id}#${g}`)));
        for (const p of d.preempt)
          for (const pl of p.placement) for (const g of pl.gpu_indices) taken.add(`${pl.node_id}#${g}`);
        for (const x of d.dispatch) {
          const job = w.queue.find((j) => j.id === x.jobId)!;
          for (const pl of x.placement)
            for (const g of pl.gpu_indices) {
              const key = `${pl.node_id}#${g}`;
              expect(taken.has(key), `${key} given twice`).toBe(false);
              taken.add(key);
            }
          if (!governed) {
            expect(x.borrowed ?? false).toBe(false);
            continue;
          }
          const t = job.team ?? "";
          const n = job.pools[0]!.nodes * job.pools[0]!.gpus_per_node;
          const before = ledger.used.get(t) ?? 0;
          const borrows = before + n > ledger.g(t);
          expect(x.borrowed ?? false, `${x.jobId} borrowed flag`).toBe(borrows);
          ledger.add(t, n);
          const q = ledger.q(t);
          if (borrows) {
            borrowedDispatches++;
            expect(job.mayBorrow, `${x.jobId} borrowed though its class may not`).not.toBe(false);
            if (q?.borrow_limit != null)
              expect(before + n, `team ${t} over guarantee + borrow limit`).toBeLessThanOrEqual(
                q.guaranteed + q.borrow_limit,
              );
            expect(ledger.borrowed(), "borrowed beyond what may be lent").toBeLessThanOrEqual(
              ledger.lendable(),
            );
          }
        }
        for (const p of d.preempt) {
          const job = w.queue.find((j) => j.id === p.jobId)!;
          const t = job.team ?? "";
          const n = job.pools[0]!.nodes * job.pools[0]!.gpus_per_node;
          // What its team held before this pass: if that alone puts it beyond its guarantee, it borrows
          // (it decided later in the pass, when its team held as much or more).
          const borrowing = governed && (initial.get(t) ?? 0) + n > ledger.g(t);
          for (const id of p.victims) {
            const v = w.running.find((r) => r.jobId === id)!;
            if (borrowing)
              expect(v.borrowed, `${id}, within its guarantee, displaced by a borrower`).toBe(true);
            if (p.reclaimed.includes(id)) {
              reclaims++;
              expect(v.borrowed && v.team !== job.team, `${id} reclaimed`).toBe(true);
            } else
              expect(v.classValue, `${id} displaced by a class not above`).toBeLessThan(job.classValue ?? 0);
            // Whole: every GPU of the victim is free in the held placement's eyes or unused by the preemptor.
          }
        }
      }),
      { numRuns: 5_000 },
    );
    expect(borrowedDispatches).toBeGreaterThan(500);
    expect(reclaims).toBeGreaterThan(50);
  }, 60_000);
});

// The Fleet DO's rules on two fleets ------------------------------------------------------------------

const USERS: Record<string, { teams: string[]; primary: string } | null> = {
  usr_a: { teams: ["a"], primary: "a" },
  usr_b: { teams: ["b"], primary: "b" },
  usr_c: { teams: ["c"], primary: "c" },
  usr_ab: { teams: ["a", "b"], primary: "a" },
  usr_none: null,
};

function doc(quotas: Record<string, Record<string, TeamQuota>>): FleetTeams {
  const members: FleetTeams["members"] = {};
  for (const [u, m] of Object.entries(USERS)) if (m) members[u] = m;
  return { teams: [...TEAMS], members, quotas };
}

type Op =
  | {
      op: "submit";
      fleet: number;
      user: string;
      team: string | null;
      cls: string;
      gpus: number;
      nodes: number;
    }
  | { op: "start"; fleet: number; run: number }
  | { op: "stopped"; fleet: number; run: number }
  | { op: "exit"; fleet: number; run: number }
  | { op: "advance"; ms: number }
  | { op: "quotas"; fleet: number; quotas: readonly (TeamQuota | undefined)[] };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant("submit" as const),
      fleet: fc.integer({ min: 0, max: 1 }),
      user: fc.constantFrom(...Object.keys(USERS)),
      team: fc.constantFrom<string | null>(null, null, "b"),
      cls: fc.constantFrom("low", "normal", "normal", "high", "critical"),
      gpus: fc.integer({ min: 1, max: 4 }),
      nodes: fc.integer({ min: 1, max: 2 }),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant("start" as const),
      fleet: fc.integer({ min: 0, max: 1 }),
      run: fc.nat(),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant("stopped" as const),
      fleet: fc.integer({ min: 0, max: 1 }),
      run: fc.nat(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("exit" as const),
      fleet: fc.integer({ min: 0, max: 1 }),
      run: fc.nat(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("advance" as const),
      ms: fc.constantFrom(5_000, 61_000, 601_000),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("quotas" as const),
      fleet: fc.integer({ min: 0, max: 1 }),
      quotas: quotasArb,
    }),
  },
);

function play(fleets: Fleet[], quotas: Record<string, Record<string, TeamQuota>>[], o: Op): void {
  if (o.op === "advance") {
    for (const f of fleets) f.advance(o.ms);
    return;
  }
  const f = fleets[o.fleet]!;
  switch (o.op) {
    case "submit": {
      // A user names a team they are not in: refused (TEAM_NOT_MEMBER), nothing queued.
      const r = f.trySubmit({
        jobId: f.newId("job"),
        user: o.user,
        gpus: o.gpus,
        nodes: o.nodes,
        python: true,
        priorityClass: o.cls,
        ...(o.team ? { team: o.team } : {}),
      });
      const member = USERS[o.user]?.teams.includes(o.team ?? "") ?? false;
      expect(r.ok, `submit by ${o.user} for team ${o.team}`).toBe(o.team === null || member);
      return;
    }
    case "start":
    case "stopped":
    case "exit":
      agentMove(f, o.op, o.run);
      return;
    case "quotas":
      quotas[o.fleet] = quotasOf(o.quotas);
      f.decide({ type: "set_teams", teams: doc(quotas[o.fleet]!) });
      return;
  }
}

/** GPUs each team's open runs hold in a fleet ("" for none). */
function teamUse(f: Fleet): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of f.s.runRows.values()) {
    if (r.ended_at !== null) continue;
    const t = f.s.job(r.job_id)?.team ?? "";
    out.set(t, (out.get(t) ?? 0) + r.gpus);
  }
  return out;
}

describe("team quotas: the Fleet DO's rules on 3 teams and 2 fleets", () => {
  it("keeps every invariant after every event; reclaims and borrows happen (1,000 sequences)", () => {
    let reclaims = 0;
    let borrowed = 0;
    fc.assert(
      fc.property(
        fc.tuple(quotasArb, quotasArb),
        fc.array(fc.array(fc.integer({ min: 2, max: 4 }), { minLength: 1, maxLength: 3 }), {
          minLength: 2,
          maxLength: 2,
        }),
        fc.array(opArb, { minLength: 10, maxLength: 60 }),
        (initial, sizes, ops) => {
          const fleets = [new Fleet(), new Fleet()];
          const quotas = initial.map(quotasOf);
          fleets.forEach((f, i) => {
            // Minimum runtimes off: preemption is possible from the start.
            f.decide({ type: "set_priority_classes", classes: ZERO_MIN_RUNTIME });
            f.decide({ type: "set_teams", teams: doc(quotas[i]!) });
            for (const [k, g] of sizes[i]!.entries()) f.agent(`gpu-${i}-${k}`, g);
          });
          // (run, job, cause): a preemptor's run that started after it displaced that job for that cause.
          const displaced = new Set<string>();
          const waiting = new Map<string, Array<{ victim: string; cause: string }>>();
          for (const o of ops) {
            const before = fleets.map((f) => ({
              use: teamUse(f),
              runs: new Set(f.s.runRows.keys()),
              mark: f.s.outbox.length,
            }));
            play(fleets, quotas, o);
            fleets.forEach((f, i) => {
              f.checkInvariants();
              const use = teamUse(f);
              const newRuns = [...f.s.runRows.values()].filter((r) => !before[i]!.runs.has(r.id));
              for (const r of newRuns) {
                borrowed += r.borrowed;
                const t = f.s.job(r.job_id)?.team ?? "";
                const q = quotas[i]![t]?.[SERIES];
                if (q?.borrow_limit != null)
                  expect(use.get(t) ?? 0, `team ${t} over guarantee + borrow limit`).toBeLessThanOrEqual(
                    Math.max(before[i]!.use.get(t) ?? 0, q.guaranteed + q.borrow_limit),
                  );
                for (const w of waiting.get(r.job_id) ?? []) displaced.add(`${r.id}|${w.victim}|${w.cause}`);
                waiting.delete(r.job_id);
              }
              for (const e of f.s.outbox.slice(before[i]!.mark)) {
                if (
                  e.kind !== "event" ||
                  e.event.actor !== "system:preempt" ||
                  e.event.to_status !== "PAUSED"
                )
                  continue;
                const d = JSON.parse(e.event.detail) as {
                  cause: string;
                  preempted_by: string;
                  run_id: string;
                };
                if (d.cause === "reclaim") reclaims++;
                // The run it stops displaced its preemptor before, for the same cause: a cycle.
                expect(displaced.has(`${d.run_id}|${d.preempted_by}|${d.cause}`), "preemption cycle").toBe(
                  false,
                );
                const list = waiting.get(d.preempted_by) ?? [];
                list.push({ victim: e.event.job_id, cause: d.cause });
                waiting.set(d.preempted_by, list);
              }
            });
          }
        },
      ),
      { numRuns: 1_000 },
    );
    expect(reclaims).toBeGreaterThan(20);
    expect(borrowed).toBeGreaterThan(100);
  }, 120_000);
});
