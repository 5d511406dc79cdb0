/**
 * Agents: a node's hello (inventory + journal), reconciliation of what the agent runs against what this
 * fleet expects, command acknowledgements, and a node going silent. A silent agent does not fail its
 * runs: its node is marked lost and the runs keep their GPUs until it comes back (or, with the lifecycle
 * issue, a grace period ends).
 */
import type { Inventory, JournalEntry } from "../contract/agent-frames.schema.js";
import { FleetLifecycle } from "./fleet-lifecycle.js";
import type { CommandRow, NodeRow } from "./fleet-store.js";

export interface Welcome {
  expected: Array<{ run_id: string; epoch: number; rank: number }>;
  stop: Array<{ run_id: string; epoch: number }>;
}

export class FleetAgents extends FleetLifecycle {
  hello(nodeId: string, inv: Inventory, journal: JournalEntry[], now: number): Welcome {
    // Back within the grace period: its runs are not failed.
    this.store.deleteTimer(lostTimer(nodeId));
    const existing = this.store.node(nodeId);
    const taken = this.store.nodeByName(inv.hostname);
    const name = taken && taken.id !== nodeId ? `${inv.hostname}-${nodeId.slice(-6)}` : inv.hostname;
    const row: NodeRow = {
      id: nodeId,
      name: existing?.name ?? name,
      series: inv.gpu_series,
      gpus: Math.max(inv.gpus.length, ...this.store.allocatedOn(nodeId).map((g) => g + 1)),
      status: "ready",
      runtime: inv.runtime,
      labels: JSON.stringify(inv.labels),
      cpus: inv.cpus,
      memory_mb: inv.memory_mb,
      version: (existing?.version ?? 0) + 1,
      created_at: existing?.created_at ?? now,
      updated_at: now,
      agent: 1,
      hostname: inv.hostname,
      lost_since: null,
    };
    this.upsertNode(row, now);

    const welcome: Welcome = { expected: [], stop: [] };
    const known = new Map(journal.map((j) => [`${j.run_id}#${j.rank}`, j]));
    for (const rank of this.store.openRanksOn(nodeId)) {
      const run = this.store.run(rank.run_id)!;
      const key = `${rank.run_id}#${rank.rank}`;
      const j = known.get(key);
      known.delete(key);
      const base = { runId: run.id, epoch: run.epoch, rank: rank.rank, source: "agent" as const };
      if (j && j.epoch === run.epoch) {
        // The agent still has it: reattach, and catch up on what happened while it was away.
        const event = j.state === "exited" ? "exited" : j.state;
        this.runEvent({ ...base, event, exitCode: j.exit_code, reason: j.reason, infra: false }, now);
      } else if (j) {
        welcome.stop.push({ run_id: j.run_id, epoch: j.epoch });
      } else if (rank.state === "accepted" || rank.state === "launched") {
        // The agent took it but no longer knows it (its journal was lost): that rank is gone.
        this.runEvent(
          {
            ...base,
            event: "exited",
            exitCode: null,
            reason: "the agent came back without this run",
            infra: true,
          },
          now,
        );
      }
      const live = run.ended_at === null && ["SUBMITTED", "PENDING", "RUNNING"].includes(run.status);
      if (!j && rank.state === "pending" && live) {
        // Acked but never accepted, and the agent does not know it: the launch was lost between the
        // ack and the agent's journal. Send it again rather than leave the rank (and its GPUs) waiting.
        this.store.reopenLaunch(run.id, rank.rank, nodeId);
      }
      const after = this.store.ranks(run.id).find((r) => r.rank === rank.rank);
      const open = this.store.run(run.id)!.ended_at === null;
      if (open && after && (after.state === "accepted" || after.state === "launched")) {
        welcome.expected.push({ run_id: run.id, epoch: run.epoch, rank: rank.rank });
      }
    }
    // Anything else the agent runs is not ours any more (ended, replaced by a newer epoch, unknown).
    for (const j of known.values())
      if (j.state !== "exited") welcome.stop.push({ run_id: j.run_id, epoch: j.epoch });
    this.schedule(now);
    return welcome;
  }

  /** The agent received a command; launches are then confirmed by its `accepted` report. */
  ackCommand(nodeId: string, commandId: string, now: number): boolean {
    const cmd = this.store.command(commandId);
    if (!cmd || cmd.node_id !== nodeId) return false;
    this.store.ackCommand(commandId, now);
    return true;
  }

  /**
   * The agent's socket closed or went silent: no new work goes there; its runs keep RUNNING (with the
   * node's lost_since) and their GPUs. If it is not back within `graceMs`, they fail (lostGraceOver).
   */
  nodeLost(nodeId: string, now: number, graceMs: number): void {
    const node = this.store.node(nodeId);
    if (node?.agent !== 1 || node.status === "lost") return;
    node.status = "lost";
    node.lost_since = now;
    node.version += 1;
    node.updated_at = now;
    this.upsertNode(node, now);
    this.store.setTimer(lostTimer(nodeId), now + graceMs);
  }

  /**
   * The grace period of a lost node ran out: each rank still open there is gone, as an infrastructure
   * failure (so the job fails, its gang is stopped, and auto-retry may requeue it). Should the agent
   * come back later with such a workload, its hello gets that run in `stop`.
   */
  lostGraceOver(nodeId: string, graceMs: number, now: number): void {
    const node = this.store.node(nodeId);
    if (node?.status !== "lost") return;
    for (const rank of this.store.openRanksOn(nodeId)) {
      if (rank.state === "exited" || rank.state === "cancelled") continue;
      const run = this.store.run(rank.run_id)!;
      this.runEvent(
        {
          runId: run.id,
          epoch: run.epoch,
          rank: rank.rank,
          event: "exited",
          exitCode: null,
          reason: `the agent on ${node.name} was silent for more than ${Math.round(graceMs / 1000)} s`,
          infra: true,
          source: "agent",
        },
        now,
      );
    }
  }

  openCommands(nodeId: string): CommandRow[] {
    return this.store.openCommands(nodeId);
  }

  markSent(commandId: string, now: number): void {
    this.store.markSent(commandId, now);
  }

  /** What a launch command needs to become a LaunchRequest. */
  launchContext(cmd: CommandRow) {
    const run = this.store.run(cmd.run_id);
    const job = run ? this.store.job(run.job_id) : null;
    if (!run || !job) return null;
    return { run, job, fleetId: this.fleetId() };
  }
}

/** The timer that fails a lost node's runs when its grace period ends. */
export function lostTimer(nodeId: string): string {
  return `lost:${nodeId}`;
}
