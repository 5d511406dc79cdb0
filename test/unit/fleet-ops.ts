/**
 * Random Fleet events for the property tests (fleet-deciders.property.test.ts,
 * fleet-incremental.property.test.ts): the operations, their weights, and how each is played on a Fleet.
 */
import fc from "fast-check";
import { expect } from "vitest";
import type { JournalEntry } from "../../contract/agent-frames.schema.js";
import type { JobAction, RunEventInput } from "../../contract/fleet.schema.js";
import { BUILTIN_PRIORITY_CLASSES } from "../../contract/priority-classes.js";
import { ADA, type Fleet, inventory } from "./fleet-harness.js";

export type Op =
  | {
      op: "submit";
      gpus: number;
      nodes: number;
      retries: number;
      python: boolean;
      retryUser: boolean;
      maxGpus: number;
      /** Queued beside its reservation, for a later `settle` to confirm or withdraw. */
      unconfirmed: boolean;
      /** Its priority class: higher ones preempt lower ones (rules/preempt.ts). */
      cls: string;
    }
  /** Every rank of an open run reports that its workload started (the job goes RUNNING). */
  | { op: "start"; run: number }
  /** An admin changes the classes' minimum runtimes (none, or the built-ins'), their values kept. */
  | { op: "classes"; minRuntime: boolean }
  /** The reservation of an unconfirmed admission was taken (confirm) or refused (withdraw). */
  | { op: "settle"; job: number; confirm: boolean; priority: number }
  | { op: "action"; job: number; action: JobAction }
  | {
      op: "report";
      run: number;
      rank: number;
      event: RunEventInput["event"];
      code: number;
      stale: boolean;
      infra: boolean;
    }
  | { op: "ack"; node: number; cmd: number }
  | { op: "refuse"; node: number; cmd: number }
  | { op: "hello"; node: number; keep: number; foreign: boolean }
  | { op: "lost"; node: number }
  | { op: "drain"; on: boolean }
  /** An admin cordons a node (no new runs) or uncordons it. */
  | { op: "cordon"; node: number; on: boolean }
  | { op: "advance"; ms: number };

const EVENTS: RunEventInput["event"][] = [
  "accepted",
  "launched",
  "started",
  "exited",
  "stopped",
  "launch_failed",
  "succeeded",
  "failed",
];

export const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant("submit" as const),
      gpus: fc.integer({ min: 1, max: 4 }),
      nodes: fc.integer({ min: 1, max: 2 }),
      retries: fc.integer({ min: 0, max: 2 }),
      python: fc.boolean(),
      retryUser: fc.boolean(),
      // Mostly no quota to speak of; sometimes a GPU quota the user's running jobs reach.
      maxGpus: fc.oneof(
        { weight: 4, arbitrary: fc.constant(10_000) },
        { weight: 1, arbitrary: fc.integer({ min: 1, max: 6 }) },
      ),
      unconfirmed: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
      cls: fc.constantFrom("scavenger", "low", "normal", "normal", "high", "critical"),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("classes" as const),
      minRuntime: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
    }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("start" as const), run: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("settle" as const),
      job: fc.nat(),
      confirm: fc.boolean(),
      priority: fc.constantFrom(3, 10),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant("action" as const),
      job: fc.nat(),
      action: fc.constantFrom<JobAction>("stop", "pause", "resume"),
    }),
  },
  {
    weight: 8,
    arbitrary: fc.record({
      op: fc.constant("report" as const),
      run: fc.nat(),
      rank: fc.nat({ max: 2 }),
      event: fc.constantFrom(...EVENTS),
      code: fc.constantFrom(0, 0, 1, 137, 143),
      stale: fc.boolean().map((b) => b && Math.random() < 0.2),
      infra: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("ack" as const), node: fc.nat(), cmd: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("refuse" as const), node: fc.nat(), cmd: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("hello" as const),
      node: fc.nat(),
      keep: fc.nat(),
      foreign: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("lost" as const), node: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("drain" as const), on: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant("cordon" as const), node: fc.nat(), on: fc.boolean() }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("advance" as const),
      ms: fc.constantFrom(1_000, 31_000, 120_000, 301_000, 3_600_000),
    }),
  },
);

const pick = <T>(xs: T[], i: number): T | undefined => (xs.length === 0 ? undefined : xs[i % xs.length]);

/** What an agent on `node` would have in its journal: its open ranks that got past pending. */
function journalOf(f: Fleet, nodeId: string, keep: number, foreign: boolean): JournalEntry[] {
  const entries: JournalEntry[] = f.s
    .openRanksOn(nodeId)
    .filter((r) => r.state === "accepted" || r.state === "launched")
    .map((r) => ({
      run_id: r.run_id,
      epoch: f.s.run(r.run_id)!.epoch,
      rank: r.rank,
      state: r.state as "accepted" | "launched",
      exit_code: null,
      reason: null,
    }));
  // A partial journal: some entries lost (the agent died before writing them).
  const kept = entries.filter((_, i) => ((keep >> i) & 1) === 0 || i > 16);
  if (foreign)
    kept.push({ run_id: "run_foreign", epoch: 1, rank: 0, state: "launched", exit_code: null, reason: null });
  return kept;
}

export function play(f: Fleet, nodes: string[], o: Op): void {
  const jobs = [...f.s.jobRows.keys()];
  const runs = [...f.s.runRows.values()];
  switch (o.op) {
    case "submit": {
      const draining = (JSON.parse(f.s.meta("config")!) as { draining: boolean }).draining;
      const r = f.trySubmit({
        jobId: f.newId("job"),
        gpus: o.gpus,
        nodes: o.nodes,
        maxRetries: o.retries,
        python: o.python,
        retryOnUserFailure: o.retryUser,
        maxGpus: o.maxGpus,
        unconfirmed: o.unconfirmed,
        priorityClass: o.cls,
      });
      // Refused while draining, and only then.
      expect(r.ok).toBe(!draining);
      return;
    }
    case "classes": {
      const classes = BUILTIN_PRIORITY_CLASSES.map((c) => ({
        ...c,
        min_runtime_seconds: o.minRuntime ? c.min_runtime_seconds : 0,
      }));
      f.decide({ type: "set_priority_classes", classes });
      return;
    }
    case "settle": {
      const job = pick(
        jobs.filter((id) => f.s.job(id)!.unconfirmed === 1),
        o.job,
      );
      if (!job) return;
      if (o.confirm) expect(f.confirm([job], o.priority)).toEqual([job]);
      else {
        expect(f.withdraw([job])).toEqual([job]);
        expect(f.s.job(job)).toBeNull();
      }
      return;
    }
    case "action": {
      const job = pick(jobs, o.job);
      if (job) f.act(job, o.action, ADA);
      return;
    }
    case "report": {
      const run = pick(runs, o.run);
      if (!run) return;
      f.decide({
        type: "run_event",
        input: {
          runId: run.id,
          epoch: o.stale ? run.epoch + 1000 : run.epoch,
          rank: o.rank,
          event: o.event,
          exitCode: o.event === "succeeded" ? 0 : o.code,
          reason: null,
          infra: o.infra,
          source:
            o.event === "started" || o.event === "succeeded" || o.event === "failed" ? "runner" : "agent",
        },
      });
      return;
    }
    case "start": {
      const run = pick(
        runs.filter((r) => r.ended_at === null),
        o.run,
      );
      if (!run) return;
      for (const r of f.s.ranks(run.id)) {
        f.decide({
          type: "run_event",
          input: {
            runId: run.id,
            epoch: run.epoch,
            rank: r.rank,
            event: "started",
            exitCode: null,
            reason: null,
            infra: false,
            source: "runner",
          },
        });
      }
      return;
    }
    case "ack":
    case "refuse": {
      const node = pick(nodes, o.node)!;
      const cmd = pick(f.s.openCommands(node), o.cmd);
      if (!cmd) return;
      if (o.op === "ack") f.decide({ type: "ack", nodeId: node, commandId: cmd.id });
      else f.decide({ type: "refused", nodeId: node, commandId: cmd.id, code: "REFUSED", message: "test" });
      return;
    }
    case "hello": {
      const node = pick(nodes, o.node)!;
      const name = f.s.node(node)!.name;
      f.decide({
        type: "hello",
        nodeId: node,
        inventory: inventory(name, f.s.node(node)!.gpus),
        journal: journalOf(f, node, o.keep, o.foreign),
      });
      return;
    }
    case "lost":
      f.decide({ type: "node_lost", nodeId: pick(nodes, o.node)! });
      return;
    case "drain":
      f.decide(o.on ? { type: "drain", note: "test" } : { type: "undrain" });
      return;
    case "cordon": {
      const node = pick(nodes, o.node)!;
      const r = f.decide({
        type: "node_admin",
        node,
        action: o.on ? "cordon" : "uncordon",
        actor: "admin",
        note: null,
      });
      expect(r.result.ok).toBe(true);
      return;
    }
    case "advance":
      f.advance(o.ms);
      return;
  }
}
