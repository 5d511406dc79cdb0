/**
 * Incremental scheduling (rules/schedule.ts `scheduleSubmitted`) decides a job submitted to a steady fleet
 * alone instead of re-planning the queue, on what the fleet derived from its nodes and runs before
 * (fleet/memo.ts). Differential check: the same random event sequences played on
 * a fleet that may take that shortcut and on one forced to make a full pass on every event must end every
 * event in the same state: the same jobs in the same statuses, the same runs on the same GPUs, the same
 * pending reasons for each job just submitted, and the same reason codes for every queued job.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Decision, FleetEvent, FleetResults } from "../../durable-objects/fleet/decide.js";
import { Fleet } from "./fleet-harness.js";
import { type Op, op, play } from "./fleet-ops.js";

/**
 * A fleet that never trusts the steady state, nor anything derived before: every event is decided after a
 * full pass, on nodes and runs read afresh (fleet/memo.ts), so the other fleet's memos are checked too.
 */
class FullPassFleet extends Fleet {
  override decide<E extends FleetEvent>(event: E): Decision<FleetResults[E["type"]]> {
    this.s.steady = false;
    this.s.memo.clear();
    return super.decide(event);
  }
}

function snapshot(f: Fleet, exact: ReadonlySet<string>) {
  const jobs = [...f.s.jobRows.values()]
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .map((j) => ({
      id: j.id,
      status: j.status,
      run: j.current_run_id,
      // A job decided in this event is compared whole; the others by reason code (their details, such as
      // GPU-hours used so far today, are refreshed only by a full pass).
      reasons: exact.has(j.id)
        ? j.pending_reasons
        : (JSON.parse(j.pending_reasons) as Array<{ code: string }>).map((r) => r.code).join(","),
    }));
  const allocs = [...f.s.allocRows.values()].map((a) => `${a.node_id}/${a.idx}=${a.run_id}`).sort();
  return { jobs, allocs };
}

describe("incremental scheduling of a submitted job", () => {
  it("ends every event as a full pass would (3,000 sequences)", () => {
    let shortcuts = 0;
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 3 }),
        fc.array(op, { minLength: 1, maxLength: 30 }),
        (gpus, ops: Op[]) => {
          const fast = new Fleet();
          const full = new FullPassFleet();
          const nodesFast = gpus.map((g, i) => fast.agent(`gpu-${i}`, g));
          const nodesFull = gpus.map((g, i) => full.agent(`gpu-${i}`, g));
          expect(nodesFast).toEqual(nodesFull);
          for (const o of ops) {
            const before = new Set(fast.s.jobRows.keys());
            if (o.op === "submit" && fast.s.steady) shortcuts += 1;
            play(fast, nodesFast, o);
            play(full, nodesFull, o);
            const fresh = new Set([...fast.s.jobRows.keys()].filter((id) => !before.has(id)));
            expect(snapshot(fast, fresh)).toEqual(snapshot(full, fresh));
            fast.checkInvariants();
          }
        },
      ),
      { numRuns: 3_000 },
    );
    // The shortcut must actually have been taken, often, for this to check anything.
    expect(shortcuts).toBeGreaterThan(1_000);
  }, 120_000);
});
