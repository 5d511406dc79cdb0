/**
 * Preemption under random workloads, in memory against the Fleet DO's rules: jobs of every class
 * submitted to a small fleet, started, finished, stopped by their agents after a notice (or not), time
 * passing and minimum runtimes changing. After every event the fleet's invariants hold (Fleet
 * `checkInvariants`: never over capacity, legal transitions, every queued job says why) and preemption's
 * own: GPUs held for a preemptor are used by nobody but its victims, whole gangs stop, a preempted run
 * is PAUSED and never FAILED, only a strictly higher class preempts (no cycle), queue places never move.
 * Each decided preemption is also checked against the moment it was made: its victims were RUNNING and
 * of a preemptible class. (Which victims, and that they are as few as can be, is the pure policy's
 * property: scheduler-preempt.property.test.ts.)
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BUILTIN_PRIORITY_CLASSES } from "../../contract/priority-classes.js";
import { agentMove, Fleet, pick } from "./fleet-harness.js";

type Op =
  | { op: "submit"; cls: string; gpus: number; nodes: number; python: boolean }
  | { op: "start"; run: number }
  | { op: "stopped"; run: number }
  | { op: "exit"; run: number; code: number }
  | { op: "advance"; ms: number }
  /** A running job's runner registered a checkpoint (it moves in victim order; it may end an exemption). */
  | { op: "checkpoint"; run: number }
  | { op: "classes"; zero: boolean };

const CLASSES = ["scavenger", "low", "normal", "high", "critical"];

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant("submit" as const),
      cls: fc.constantFrom(...CLASSES),
      gpus: fc.integer({ min: 1, max: 4 }),
      nodes: fc.integer({ min: 1, max: 2 }),
      python: fc.integer({ min: 0, max: 9 }).map((n) => n > 0),
    }),
  },
  { weight: 5, arbitrary: fc.record({ op: fc.constant("start" as const), run: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("stopped" as const), run: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant("exit" as const), run: fc.nat(), code: fc.constantFrom(0, 0, 1) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("advance" as const),
      ms: fc.constantFrom(5_000, 61_000, 301_000, 601_000),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("classes" as const), zero: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("checkpoint" as const), run: fc.nat() }) },
);

function play(f: Fleet, o: Op): void {
  const open = [...f.s.runRows.values()].filter((r) => r.ended_at === null);
  switch (o.op) {
    case "submit":
      f.submit({ gpus: o.gpus, nodes: o.nodes, python: o.python, priorityClass: o.cls });
      return;
    case "start":
    case "stopped":
    case "exit":
      agentMove(f, o.op, o.run, o.op === "exit" ? o.code : 0);
      return;
    case "advance":
      f.advance(o.ms);
      return;
    case "checkpoint": {
      const run = pick(
        open.filter((r) => r.status === "RUNNING"),
        o.run,
      );
      if (run) f.decide({ type: "checkpointed", runId: run.id, step: null });
      return;
    }
    case "classes":
      f.decide({
        type: "set_priority_classes",
        classes: BUILTIN_PRIORITY_CLASSES.map((c) => ({
          ...c,
          min_runtime_seconds: o.zero ? 0 : c.min_runtime_seconds,
        })),
      });
      return;
  }
}

/** What each preemption decided in the event just played: its victims as they were before it. */
function checkNewPreemptions(f: Fleet, before: Fleet["s"], outboxFrom: number): number {
  let n = 0;
  const classes = new Map(BUILTIN_PRIORITY_CLASSES.map((c) => [c.name, c]));
  for (const e of f.s.outbox.slice(outboxFrom)) {
    if (e.kind !== "event" || e.event.actor !== "system:preempt" || e.event.to_status !== "PAUSED") continue;
    n += 1;
    const victim = before.job(e.event.job_id)!;
    expect(victim.status, "a victim was RUNNING").toBe("RUNNING");
    expect(classes.get(victim.priority_class)?.preemptible, "a victim's class is preemptible").toBe(true);
  }
  return n;
}

describe("preemption under random workloads", () => {
  it("keeps every invariant after every event, and preempts (2,000 sequences)", () => {
    let preemptions = 0;
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        fc.array(opArb, { minLength: 10, maxLength: 60 }),
        (gpus, zero, ops) => {
          const f = new Fleet();
          if (zero) play(f, { op: "classes", zero: true });
          for (const [i, g] of gpus.entries()) f.agent(`gpu-${i}`, g);
          for (const o of ops) {
            const mark = f.s.outbox.length;
            const jobsBefore = new Map([...f.s.jobRows].map(([id, j]) => [id, { ...j }]));
            play(f, o);
            f.checkInvariants();
            preemptions += checkNewPreemptions(
              f,
              { job: (id: string) => jobsBefore.get(id) ?? null } as unknown as Fleet["s"],
              mark,
            );
          }
        },
      ),
      { numRuns: 2_000 },
    );
    // About 400 on a typical seed: the workloads do reach preemption, often.
    expect(preemptions).toBeGreaterThan(150);
  }, 120_000);
});
