/**
 * Agents: a node's hello (inventory + journal), reconciliation of what the agent runs against what this
 * fleet expects, command acknowledgements and refusals, and a node going silent. A silent agent does not
 * fail its runs at once: its node is marked lost and the runs keep their GPUs until it comes back or its
 * grace period ends.
 */
import type { Inventory, JournalEntry, Orphan } from "../../../contract/agent-frames.schema.js";
import { ALLOCATED_STATES, type JobState } from "../../../contract/job-states.js";
import { orphansKey } from "../node-admin.js";
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

/** Runtimes whose agent fronts a cluster's nodes rather than its own host. */
const CLUSTER_RUNTIMES: ReadonlySet<string> = new Set(["slurm", "kuberay"]);

/** A free node name: `wanted`, or `wanted-<suffix>` when another node of the fleet has it. */
function freeName(t: Tx, id: string, wanted: string): string {
  const taken = t.s.nodeByName(wanted);
  return taken && taken.id !== id ? `${wanted}-${id.slice(-6)}` : wanted;
}

/** The nodes a cluster agent fronts (empty for an agent whose own host is its node). */
export function clusterNodesOf(s: FleetState, agentId: string): NodeRow[] {
  return s.nodesOfAgent(agentId);
}

/** A cluster node's id in the fleet: stable across restarts, derived from its agent and its name. */
export function clusterNodeId(agentId: string, name: string): string {
  return `${agentId}:${name}`;
}

/** Does the agent `agentId` serve the node `nodeId` (it is the node, or fronts it)? */
export function servedBy(s: FleetState, nodeId: string, agentId: string): boolean {
  return nodeId === agentId || s.node(nodeId)?.agent_id === agentId;
}

/**
 * A cluster agent's nodes as its inventory says now: new ones appear, known ones take the cluster's
 * state (drained and down nodes get no new runs; their runs go on), and nodes the cluster no longer
 * lists are kept (they may hold runs) but marked down.
 */
export function syncClusterNodes(t: Tx, agentId: string, inv: Inventory): void {
  const listed = new Set<string>();
  for (const n of inv.nodes ?? []) {
    const id = clusterNodeId(agentId, n.name);
    listed.add(id);
    const existing = t.s.node(id);
    const reason = n.state === "ready" ? null : `${n.state}${n.reason ? `: ${n.reason}` : ""}`;
    const row: NodeRow = {
      id,
      name: existing?.name ?? freeName(t, id, n.name),
      series: n.gpu_series,
      gpus: Math.max(n.gpus, ...t.s.allocatedOn(id).map((g) => g + 1)),
      status: n.state,
      runtime: inv.runtime,
      labels: JSON.stringify(n.labels),
      cpus: n.cpus,
      memory_mb: n.memory_mb,
      version: existing?.version ?? 0,
      created_at: existing?.created_at ?? t.now,
      updated_at: existing?.updated_at ?? t.now,
      agent: 1,
      hostname: n.name,
      lost_since: null,
      advertise_addr: n.advertise_addr,
      agent_id: agentId,
      status_reason: reason,
      workloads: inv.workloads ? JSON.stringify(inv.workloads) : null,
    };
    if (!existing || changed(existing, row))
      putNode(t, { ...row, version: row.version + 1, updated_at: t.now });
  }
  for (const gone of clusterNodesOf(t.s, agentId)) {
    if (listed.has(gone.id) || gone.status === "down") continue;
    putNode(t, {
      ...gone,
      status: "down",
      status_reason: "down: the cluster no longer lists this node",
      lost_since: null,
      version: gone.version + 1,
      updated_at: t.now,
    });
  }
}

function changed(a: NodeRow, b: NodeRow): boolean {
  const keys: Array<keyof NodeRow> = [
    "series",
    "gpus",
    "status",
    "runtime",
    "labels",
    "cpus",
    "memory_mb",
    "advertise_addr",
    "status_reason",
    "lost_since",
    "workloads",
  ];
  return keys.some((k) => a[k] !== b[k]);
}

/** A cluster agent's refreshed inventory: its own row and its nodes; new capacity may dispatch work. */
export function inventory(t: Tx, agentId: string, inv: Inventory): void {
  // Only a cluster agent (its hello said so) lists nodes; an agent's own host is updated by its hello.
  const row = t.s.node(agentId);
  if (!row || inv.nodes === undefined || !CLUSTER_RUNTIMES.has(row.runtime ?? "")) return;
  syncClusterNodes(t, agentId, inv);
  t.schedule();
}

export function hello(
  t: Tx,
  nodeId: string,
  inv: Inventory,
  journal: JournalEntry[],
  orphans: Orphan[] = [],
): Welcome {
  // What its start-up sweep found, shown on the node until the next hello says otherwise.
  if (orphans.length > 0) t.setMeta(orphansKey(nodeId), JSON.stringify({ at: t.now, orphans }));
  else t.deleteMeta(orphansKey(nodeId));
  // Back within the grace period: its runs (and those on the nodes it fronts) are not failed.
  t.cancelTimer(lostTimer(nodeId));
  for (const child of clusterNodesOf(t.s, nodeId)) t.cancelTimer(lostTimer(child.id));
  const existing = t.s.node(nodeId);
  const cluster = inv.nodes !== undefined;
  const row: NodeRow = {
    id: nodeId,
    name: existing?.name ?? freeName(t, nodeId, inv.hostname),
    series: inv.gpu_series,
    // A cluster agent's own host runs nothing: its GPUs are its nodes'.
    gpus: cluster ? 0 : Math.max(inv.gpus.length, ...t.s.allocatedOn(nodeId).map((g) => g + 1)),
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
    agent_id: null,
    status_reason: null,
    workloads: inv.workloads ? JSON.stringify(inv.workloads) : null,
  };
  putNode(t, row);
  // An agent that fronted a cluster and now runs its own host: its former nodes take no more runs.
  if (cluster || clusterNodesOf(t.s, nodeId).length > 0)
    syncClusterNodes(t, nodeId, { ...inv, nodes: inv.nodes ?? [] });

  const welcome: Welcome = { expected: [], stop: [] };
  const known = new Map(journal.map((j) => [`${j.run_id}#${j.rank}`, j]));
  const served = [nodeId, ...clusterNodesOf(t.s, nodeId).map((n) => n.id)];
  for (const rank of served.flatMap((id) => t.s.openRanksOn(id))) {
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
      t.put({ kind: "reopen", run_id: run.id, rank: rank.rank, node_id: rank.node_id });
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
  if (!cmd || !servedBy(t.s, cmd.node_id, nodeId)) return false;
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
  if (!cmd || !servedBy(t.s, cmd.node_id, nodeId)) return;
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
  // A cluster agent's nodes are reached only through it: they are lost with it.
  for (const n of [node, ...clusterNodesOf(t.s, nodeId)]) {
    if (n.status === "lost") continue;
    putNode(t, { ...n, status: "lost", lost_since: t.now, version: n.version + 1, updated_at: t.now });
    t.setTimer(lostTimer(n.id), t.now + t.ctx.settings.lostGraceMs);
  }
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
