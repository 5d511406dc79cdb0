/**
 * A report about one rank of a run, whoever it comes from (agent frames, runner lifecycle reports, an
 * agent's journal at hello, a lost node's grace): applied by runs.ts, then a job that just started while
 * the fleet drains is paused at once. Idempotent: a repeated report changes nothing.
 */
import type { RunEventInput, RunEventOutcome } from "../../../contract/fleet.schema.js";
import { runIsOver } from "../../../contract/job-states.js";
import type { Tx } from "../tx.js";
import { pauseIfDraining } from "./lifecycle.js";
import { applyRunEvent } from "./runs.js";

export function runEvent(t: Tx, e: RunEventInput): RunEventOutcome {
  const out = applyRunEvent(t, e);
  pauseIfDraining(t, e.runId);
  const run = t.s.run(e.runId);
  return { ...out, runOver: run ? runIsOver(run.status, run.ended_at) : true } as RunEventOutcome;
}
