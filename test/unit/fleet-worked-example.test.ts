/**
 * The worked example of docs/architecture.md ("The Fleet engine: deciders and one applier"), run for
 * real: a one-rank job RUNNING on gpu-a; its agent reports that rank 0 exited 0. If the rules change
 * what this event does, this test and that page change together.
 */
import { describe, expect, it } from "vitest";
import { Fleet, T0 } from "./fleet-harness.js";

describe("docs/architecture.md worked example: a run's exit event", () => {
  it("state before, the effects in order, state after", () => {
    const f = new Fleet();
    const node = f.agent("gpu-a", 2);
    const id = f.submit();
    f.report(id, "launched");
    const run = f.currentRun(id);
    // Before: RUNNING, its run holds GPU 0 of gpu-a, its rank is launched.
    expect([f.job(id).status, run.status, run.ended_at]).toEqual(["RUNNING", "RUNNING", null]);
    expect(f.s.allocations()).toEqual([{ node_id: node, idx: 0, run_id: run.id }]);
    expect(f.s.ranks(run.id).map((r) => r.state)).toEqual(["launched"]);

    const d = f.decide({
      type: "run_event",
      input: {
        runId: run.id,
        epoch: run.epoch,
        rank: 0,
        event: "exited",
        exitCode: 0,
        reason: null,
        infra: false,
        source: "agent",
      },
    });
    expect(d.result).toEqual({ kind: "applied", stopWorkload: false, runOver: true });
    const described = d.effects.map((e) => {
      switch (e.kind) {
        case "rank":
          return `rank ${e.row.rank}: ${e.row.state} (exit ${e.row.exit_code})`;
        case "settle":
          return `settle ${e.command} commands of rank ${e.rank ?? "*"}`;
        case "run":
          return `run: ${e.row.status}, ended_at ${e.row.ended_at === null ? "null" : "now"}`;
        case "job":
          return `job: ${e.row.status}`;
        case "outbox":
          return `outbox ${e.entry.kind}${e.entry.kind === "event" ? ` ${e.entry.event.from_status}→${e.entry.event.to_status}` : ""}`;
        case "free":
          return "free the run's GPUs";
        case "meta":
          return `meta ${e.key}`;
        case "timer":
          return `timer ${e.id}: ${e.due === null ? "cancel" : "arm"}`;
        default:
          return e.kind;
      }
    });
    expect(described).toEqual([
      "rank 0: exited (exit 0)",
      "settle launch commands of rank 0",
      "settle stop commands of rank 0",
      "run: SUCCEEDED, ended_at null",
      "outbox run",
      "job: SUCCEEDED",
      "outbox event RUNNING→SUCCEEDED",
      "outbox job",
      "free the run's GPUs",
      "settle launch commands of rank *",
      "run: SUCCEEDED, ended_at now",
      "outbox run",
      "outbox node",
      "timer windows: cancel",
    ]);
    // After: SUCCEEDED, the run released at T0 and nothing booked.
    expect([f.job(id).status, f.currentRun(id).status, f.currentRun(id).ended_at]).toEqual([
      "SUCCEEDED",
      "SUCCEEDED",
      T0,
    ]);
    expect(f.s.allocations()).toEqual([]);
  });
});
