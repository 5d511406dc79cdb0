/**
 * The pure choice of victims (scheduler/preempt.ts through `decide`) over random fleets: nodes of a few
 * sizes, running gangs of random classes placed on them, and one queued job of a random class. Whenever a
 * preemption is decided:
 *
 * - every victim is a candidate of a strictly lower class, and is stopped whole (its job, every GPU);
 * - the placement held for the preemptor uses only GPUs that were free or its victims';
 * - the set is minimal: sparing any one victim, the job would not fit;
 * and whenever none is decided although the job waits for capacity, freeing every lower-class candidate
 * would not make it fit either (preemption is never missed when it can help).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decide, type NodeInput, Placer } from "../../durable-objects/fleet/scheduler/policy.js";
import type { VictimInput } from "../../durable-objects/fleet/scheduler/preempt.js";
import { job, NOW, placeGangs, pool } from "./policy-fixtures.js";

interface World {
  nodes: NodeInput[];
  running: Array<VictimInput & { candidate: boolean }>;
  preemptor: ReturnType<typeof job>;
}

const VALUES = [-1000, -500, 0, 500];

const world: fc.Arbitrary<World> = fc
  .record({
    sizes: fc.array(fc.constantFrom(1, 2, 4, 8), { minLength: 1, maxLength: 5 }),
    gangs: fc.array(
      fc.record({
        nodes: fc.integer({ min: 1, max: 2 }),
        gpus: fc.integer({ min: 1, max: 4 }),
        value: fc.constantFrom(...VALUES),
        candidate: fc.integer({ min: 0, max: 4 }).map((n) => n > 0),
        startedAt: fc.integer({ min: 0, max: 1000 }),
      }),
      { maxLength: 12 },
    ),
    want: fc.record({
      nodes: fc.integer({ min: 1, max: 2 }),
      gpus: fc.integer({ min: 1, max: 8 }),
      value: fc.constantFrom(...VALUES, 1000),
    }),
  })
  .map(({ sizes, gangs, want }) => {
    // First fit, one rank per node: a gang that fits nowhere is not running.
    const { nodes, placed } = placeGangs(sizes, gangs);
    const running: World["running"] = placed.map(({ gang: g, index: k, placement }) => ({
      jobId: `run${k}`,
      classValue: g.value,
      placement,
      startedAt: g.startedAt,
      checkpointAt: null,
      candidate: g.candidate,
    }));
    const preemptor = { ...job("want", [pool("h200", want.nodes, want.gpus)]), classValue: want.value };
    return { nodes, running, preemptor };
  });

function fits(w: World, freed: readonly VictimInput[]): boolean {
  const p = new Placer(w.nodes);
  for (const v of freed) p.give(v.placement);
  return "placement" in p.place(w.preemptor);
}

describe("choosing victims", () => {
  it("is minimal, lower-class only, whole, and never missed when it would help (5,000 fleets)", () => {
    let decided = 0;
    let waited = 0;
    fc.assert(
      fc.property(world, (w) => {
        const candidates = w.running.filter((r) => r.candidate);
        const d = decide({
          now: NOW,
          draining: null,
          windows: [],
          nodes: w.nodes,
          queue: [w.preemptor],
          users: {},
          preemption: { victims: () => candidates, budget: 1, floor: -1000 },
        });
        if (d.dispatch.length > 0) return;
        const lower = candidates.filter((c) => c.classValue < (w.preemptor.classValue ?? 0));
        if (d.preempt.length === 0) {
          const reasons = d.pending.want ?? [];
          if (reasons.every((r) => r.code === "CAPACITY")) expect(fits(w, lower)).toBe(false);
          waited += 1;
          return;
        }
        decided += 1;
        const plan = d.preempt[0]!;
        const victims = plan.victims.map((id) => w.running.find((r) => r.jobId === id)!);
        for (const v of victims) expect(lower).toContain(v);
        // Only free GPUs and the victims' whole placements.
        const usable = new Set([
          ...w.nodes.flatMap((n) =>
            Array.from({ length: n.gpus }, (_, g) => g)
              .filter((g) => !n.used.includes(g))
              .map((g) => `${n.id}#${g}`),
          ),
          ...victims.flatMap((v) =>
            v.placement.flatMap((p) => p.gpu_indices.map((g) => `${p.node_id}#${g}`)),
          ),
        ]);
        for (const p of plan.placement)
          for (const g of p.gpu_indices) expect(usable.has(`${p.node_id}#${g}`)).toBe(true);
        expect(fits(w, victims)).toBe(true);
        // Minimal: each victim is needed.
        for (const v of victims)
          expect(
            fits(
              w,
              victims.filter((x) => x !== v),
            ),
          ).toBe(false);
        expect(d.pending.want?.[0]?.code).toBe("PREEMPTING");
      }),
      { numRuns: 5_000 },
    );
    expect(decided).toBeGreaterThan(200);
    expect(waited).toBeGreaterThan(200);
  });
});
