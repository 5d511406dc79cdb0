/**
 * Agents: a node's hello (inventory + journal), reconciliation of what the agent runs against what this
 * fleet expects, command acknowledgements and refusals, and a node going silent. A silent agent does not
 * fail its runs at once: its node is marked lost and the runs keep their GPUs until it comes back or its
 * grace period ends.
 */
import type { Inventory, JournalEntry } from "../../../contract/agent-frames.schema.js";
import { ALLOCATED_STATES, type JobState } from "../../../contract/job-states.js";
import type { NodeRow } from "../rows.js";
import type { FleetState } from "../state.js";
import { lostTimer } from "../timers.js";
import type { Tx } from "../tx.js";
import { runEvent } from "./events.js";
import { config, fleetId, putNode } from "./ledger.js";

export interface Welcome {
  expected: Array<{ run_id: string; epoch: number; rank: number }>;
  stop: Array<{ run_id: string; epoch: number }>;
}

export function hello(t: Tx, nodeId: string, inv: Inventory, journal: JournalEntry[]): Welcome {
  // Back within the grace period: its runs are not failed.
  t.cancelTimer(lostTimer(nodeId));
  const existing = t.s.node(nodeId);
  const taken = t.s.nodeByName(inv.hostname);
  const name = taken && taken.id !== nodeId ? `${inv.hostname}-${nodeId.slice(-6)}` : inv.hostname;
  const row: NodeRow = {
    id: nodeId,
    name: existing?.name ?? name,
    series: inv.gpu_series,
    gpus: Math.max(inv.gpus.length, ...t.s.allocatedOn(nodeId).map((g) => g + 1)),
    status: "ready",
    runtime: inv.runtime,
    labels: JSON.stringify(inv.labels),
    cpus: inv.cpus,
    memory_mb: inv.memory_mb,
    version: (existing?.version ?? 0) + 1,
    created_at: existing?.created_at ?? t.now,
    updated_at: t.now,
    agent: 1,
    hostname: inv.hostname,
    lost_since: null,
    advertise_addr: inv.advertise_addr ?? null,
  };
  putNode(t, row);

  const welcome: Welcome = { expected: [], stop: [] };
  const known = new Map(journal.map((j) => [`${j.run_id}#${j.rank}`, j]));
  for (const rank of t.s.openRanksOn(nodeId)) {
    const run = t.s.run(rank.run_id)!;
    const key = `${rank.run_id}#${rank.rank}`;
    const j = known.get(key);
    known.delete(key);
    const base = { runId: run.id, epoch: run.epoch, rank: rank.rank, source: "agent" as const };
    if (j && j.epoch === run.epoch) {
      // The agent still has it: reattach, and catch up on what happened while it was away.
      const event = j.state === "exited" ? "exited" : j.state;
      runEvent(t, { ...base, event, exitCode: j.exit_code, reason: j.reason, infra: false });
    } else if (j) {
      welcome.stop.push({ run_id: j.run_id, epoch: j.epoch });
    } else if (rank.state === "accepted" || rank.state === "launched") {
      // The agent took it but no longer knows it (its journal was lost): that rank is gone.
      runEvent(t, {
        ...base,
        event: "exited",
        exitCode: null,
        reason: "the agent came back without this run",
        infra: true,
      });
    }
    const live = run.ended_at === null && ALLOCATED_STATES.has(run.status as JobState);
    if (!j && rank.state === "pending" && live) {
      // Acked but never accepted, and the agent does not know it: the launch was lost between the
      // ack and the agent's journal. Send it again rather than leave the rank (and its GPUs) waiting.
      t.put({ kind: "reopen", run_id: run.id, rank: rank.rank, node_id: nodeId });
    }
    const after = t.s.ranks(run.id).find((r) => r.rank === rank.rank);
    const open = t.s.run(run.id)!.ended_at === null;
    if (open && after && (after.state === "accepted" || after.state === "launched")) {
      welcome.expected.push({ run_id: run.id, epoch: run.epoch, rank: rank.rank });
    }
  }
  // Anything else the agent runs is not ours any more (ended, replaced by a newer epoch, unknown).
  for (const j of known.values())
    if (j.state !== "exited") welcome.stop.push({ run_id: j.run_id, epoch: j.epoch });
  t.schedule();
  return welcome;
}

/** The agent received a command; launches are then confirmed by its `accepted` report. */
export function ackCommand(t: Tx, nodeId: string, commandId: string): boolean {
  const cmd = t.s.command(commandId);
  if (!cmd || cmd.node_id !== nodeId) return false;
  if (cmd.acked_at === null) t.put({ kind: "ack", id: commandId, at: t.now });
  return true;
}

/** The agent refused a command: a refused launch fails that rank as an infrastructure failure. */
export function refusedCommand(
  t: Tx,
  nodeId: string,
  commandId: string,
  code: string,
  message: string,
): void {
  const cmd = t.s.command(commandId);
  if (!cmd || cmd.node_id !== nodeId) return;
  if (cmd.acked_at === null) t.put({ kind: "ack", id: cmd.id, at: t.now });
  if (cmd.kind !== "launch") return;
  const run = t.s.run(cmd.run_id);
  if (run) launchFailed(t, run.id, cmd.rank, `agent refused the launch: ${code}: ${message}`);
}

/** A rank that could not be launched (refused, or its LaunchRequest could not be built): infra failure. */
export function launchFailed(t: Tx, runId: string, rank: number, reason: string): void {
  const run = t.s.run(runId);
  if (!run) return;
  runEvent(t, {
    runId,
    epoch: run.epoch,
    rank,
    event: "launch_failed",
    exitCode: null,
    reason,
    infra: true,
    source: "agent",
  });
}

/**
 * The agent's socket closed or went silent: no new work goes there; its runs keep RUNNING (with the
 * node's lost_since) and their GPUs. If it is not back within the grace period, they fail.
 */
export function nodeLost(t: Tx, nodeId: string): void {
  const node = t.s.node(nodeId);
  if (node?.agent !== 1 || node.status === "lost") return;
  putNode(t, { ...node, status: "lost", lost_since: t.now, version: node.version + 1, updated_at: t.now });
  t.setTimer(lostTimer(nodeId), t.now + t.ctx.settings.lostGraceMs);
}

/**
 * The grace period of a lost node ran out: each rank still open there is gone, as an infrastructure
 * failure (so the job fails, its gang is stopped, and auto-retry may requeue it). Should the agent
 * come back later with such a workload, its hello gets that run in `stop`.
 */
export function lostGraceOver(t: Tx, nodeId: string): void {
  const node = t.s.node(nodeId);
  if (node?.status !== "lost") return;
  const grace = Math.round(t.ctx.settings.lostGraceMs / 1000);
  for (const rank of t.s.openRanksOn(nodeId)) {
    if (rank.state === "exited" || rank.state === "cancelled") continue;
    const run = t.s.run(rank.run_id)!;
    runEvent(t, {
      runId: run.id,
      epoch: run.epoch,
      rank: rank.rank,
      event: "exited",
      exitCode: null,
      reason: `the agent on ${node.name} was silent for more than ${grace} s`,
      infra: true,
      source: "agent",
    });
  }
}

/** What a launch command needs to become a LaunchRequest, or null when its run or job is gone. */
export function launchContext(s: FleetState, runId: string) {
  const run = s.run(runId);
  const job = run ? s.job(run.job_id) : null;
  if (!run || !job) return null;
  return { run, job, fleetId: fleetId(s), network: config(s)?.network ?? null };
}
