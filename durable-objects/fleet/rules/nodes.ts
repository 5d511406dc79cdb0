/**
 * Administering one node (docs/operations.md "Nodes"): cordon (no new runs; running ones go on), drain
 * (cordon, and its resumable runs stop with a checkpoint and are queued again, to run elsewhere once
 * they released the node; runs that cannot resume are reported and go on), revoke (its agent is shut
 * out: the adapter closes its socket and refuses it from then on, and its runs are handled like those of
 * a lost agent) and remove (a node that holds no run is forgotten; a removed agent stays refused).
 * The admin state is kept in meta `node_admin:<node>`, apart from the node row that hellos and
 * inventories rewrite, so it survives the agent coming and going.
 */
import { fail, ok, type Result } from "../../../contract/errors.js";
import type { DrainBlocker, NodeAction, NodeView } from "../../../contract/fleet.schema.js";
import { ALLOCATED_STATES, type JobState } from "../../../contract/job-states.js";
import { movedKey } from "../keys.js";
import { nodeAdmin, setNodeAdmin } from "../node-admin.js";
import type { NodeRow } from "../rows.js";
import type { FleetState } from "../state.js";
import { lostTimer } from "../timers.js";
import type { Tx } from "../tx.js";
import { nodeView } from "../views.js";
import { clusterNodesOf, nodeLost } from "./agents.js";
import { emitNode, setStatus } from "./ledger.js";
import { jobResumable, move } from "./lifecycle.js";

export type { NodeAction };

export interface NodeAdminReport {
  node: NodeView | null;
  action: NodeAction;
  /** Jobs a drain stopped with a checkpoint and queued again. */
  requeued: string[];
  /** Runs a drain cannot move: they go on until they end or someone stops them. */
  blockers: DrainBlocker[];
  /** Agents whose sockets the adapter must close now (revoke). */
  disconnect: string[];
}

/** The node a reference names: its id, else its name. */
function byRef(s: FleetState, ref: string): NodeRow | null {
  return s.node(ref) ?? s.nodeByName(ref);
}

/** Jobs that hold GPUs on the node: running, launching or stopping there. */
function jobsOn(s: FleetState, nodeId: string) {
  const ids = new Set(s.openRanksOn(nodeId).map((r) => s.run(r.run_id)?.job_id));
  return [...ids]
    .map((id) => (id ? s.job(id) : null))
    .filter((j): j is NonNullable<typeof j> => j !== null && ALLOCATED_STATES.has(j.status as JobState));
}

export function nodeAction(
  t: Tx,
  ref: string,
  action: NodeAction,
  actor: string,
  note: string | null,
): Result<NodeAdminReport> {
  const node = byRef(t.s, ref);
  if (!node) return fail("NODE_NOT_FOUND", `this fleet has no node ${ref}`);
  const admin = nodeAdmin(t.s, node.id);
  const report: NodeAdminReport = { node: null, action, requeued: [], blockers: [], disconnect: [] };
  const revoked = admin?.revoked_at != null;
  switch (action) {
    case "cordon":
      setNodeAdmin(t, node.id, { cordoned: true, note }, actor);
      break;
    case "uncordon":
      if (revoked) {
        return fail("CONFLICT", `node ${node.name} was revoked; enroll its agent again to bring it back`);
      }
      setNodeAdmin(t, node.id, { cordoned: false, note: null }, actor);
      t.schedule();
      break;
    case "drain": {
      setNodeAdmin(t, node.id, { cordoned: true, note }, actor);
      const why = `node ${node.name} is drained${note ? `: ${note}` : ""}`;
      for (const job of jobsOn(t.s, node.id)) {
        if (!jobResumable(job)) {
          report.blockers.push({
            job_id: job.id,
            name: job.name,
            status: job.status,
            reason:
              "cannot resume from a checkpoint (lifecycle.resumable is false); stop it or wait for it to end",
          });
          continue;
        }
        // Stopped with a checkpoint, then queued again at once: the scheduler holds it until its last
        // run has released its GPUs (and written the checkpoint it continues from), then places it on
        // another node, this one being cordoned.
        move(t, job, "STOPPED", "node", why);
        t.deleteMeta(movedKey(job.id));
        const now = t.s.job(job.id);
        if (now?.status === "STOPPED") {
          setStatus(t, now, "QUEUED", "system:node-drain", { reason: `${why}; queued to run elsewhere` });
          report.requeued.push(job.id);
        }
      }
      t.schedule();
      break;
    }
    case "revoke": {
      if (node.agent !== 1) {
        return fail(
          "CONFLICT",
          node.agent_id
            ? `node ${node.name} is reached through agent ${t.s.node(node.agent_id)?.name ?? node.agent_id}; revoke that agent`
            : `node ${node.name} has no agent to revoke (an admin registered it); cordon or remove it`,
        );
      }
      setNodeAdmin(t, node.id, { cordoned: true, note: note ?? "revoked", revoked_at: t.now }, actor);
      // Its runs are handled like a lost agent's: they keep their GPUs for the grace period, then fail as
      // infrastructure failures (and auto-retry places them elsewhere).
      nodeLost(t, node.id);
      report.disconnect.push(node.id);
      break;
    }
    case "remove": {
      const held = [node, ...clusterNodesOf(t.s, node.id)].flatMap((n) => t.s.openRanksOn(n.id));
      if (held.length > 0 || t.s.allocatedOn(node.id).length > 0) {
        return fail(
          "CONFLICT",
          `node ${node.name} still holds ${held.length} run rank(s); drain it and wait for them to end, or stop them`,
        );
      }
      if (node.agent_id) {
        return fail(
          "CONFLICT",
          `node ${node.name} is listed by its agent's cluster; remove it there or revoke the agent`,
        );
      }
      for (const n of [node, ...clusterNodesOf(t.s, node.id)]) {
        setNodeAdmin(t, n.id, { cordoned: true, removed_at: t.now }, actor);
        t.cancelTimer(lostTimer(n.id));
        t.put({ kind: "node_gone", id: n.id });
        emitNode(t, { ...n, status: "removed", version: n.version + 1, updated_at: t.now });
      }
      if (node.agent === 1) report.disconnect.push(node.id);
      return ok(report);
    }
  }
  const after = t.s.node(node.id);
  report.node = after ? nodeView(t.s, after) : null;
  return ok(report);
}
