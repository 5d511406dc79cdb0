/**
 * The state machine under random event sequences, in memory: submits, actions, reports from agents
 * and runners (with stale epochs and out-of-order frames), acks and refusals, agents that reconnect with
 * a partial journal or go silent, drains, time passing and timers firing. After every event the
 * invariants the tier-2 tests assert through HTTP must hold: no GPU booked twice or beyond its node, legal
 * transitions only, every QUEUED job has a reason, no run lost; and preemption's own where jobs of mixed
 * classes meet (harness `checkPreemption`; fleet-preemption.property.test.ts is the workload that preempts
 * often). Thousands of sequences run in seconds.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Fleet } from "./fleet-harness.js";
import { op, play } from "./fleet-ops.js";

describe("the Fleet engine under random event sequences", () => {
  it("keeps every invariant after every event (10,000 sequences)", () => {
    const started = Date.now();
    let events = 0;
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 3 }),
        fc.array(op, { minLength: 1, maxLength: 25 }),
        (gpus, ops) => {
          const f = new Fleet();
          f.settings.lostGraceMs = 300_000;
          const nodes = gpus.map((g, i) => f.agent(`gpu-${i}`, g));
          for (const o of ops) {
            play(f, nodes, o);
            events += 1;
            f.checkInvariants();
          }
        },
      ),
      { numRuns: 10_000 },
    );
    expect(events).toBeGreaterThan(50_000);
    expect(Date.now() - started).toBeLessThan(60_000);
    // Its own bound above, not vitest's 5 s default: a loaded CI machine runs it slower than a quiet one.
  }, 120_000);
});
