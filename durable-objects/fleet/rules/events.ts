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
  // An agent speaks only for the ranks on the nodes it serves. Another node's rank is refused like an
  // unknown run and left alone (found by fuzz-frames: any agent of a fleet could end any of its runs).
  const own = e.agentId === undefined || reportsOwnRank(t, e.agentId, e);
  const out = own ? applyRunEvent(t, e) : ({ kind: "unknown_run", stopWorkload: true } as const);
  if (own) pauseIfDraining(t, e.runId);
  const run = t.s.run(e.runId);
  return { ...out, runOver: run ? runIsOver(run.status, run.ended_at) : true } as RunEventOutcome;
}

/**
 * The rank is on the agent's own node or on a cluster node it fronts (as agents.ts `servedBy`, which
 * cannot be imported here: agents.ts imports this file).
 */
function reportsOwnRank(t: Tx, agentId: string, e: RunEventInput): boolean {
  const rank = t.s.ranks(e.runId).find((r) => r.rank === e.rank);
  return rank !== undefined && (rank.node_id === agentId || t.s.node(rank.node_id)?.agent_id === agentId);
}
