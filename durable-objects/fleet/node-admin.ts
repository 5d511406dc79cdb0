/**
 * What an admin decided about each node (rules/nodes.ts writes it): kept in meta `node_admin:<node>`,
 * apart from the node row that hellos and inventories rewrite. Read by the scheduler, the views and the
 * adapter (which refuses a revoked agent). `setNodeAdmin` is the one write (rules/nodes.ts, and a GPU failure's
 * diagnosis cordoning its node: rules/diagnosis.ts).
 */
import type { Orphan } from "../../contract/agent-frames.schema.js";
import { NODE_ADMIN_PREFIX } from "./keys.js";
import type { FleetState } from "./state.js";
import type { Tx } from "./tx.js";

export interface NodeAdmin {
  cordoned: boolean;
  note: string | null;
  /** When an admin revoked its agent (epoch ms); it is refused from then on. */
  revoked_at: number | null;
  /** When an admin removed it (epoch ms): the node is gone, its id stays refused. */
  removed_at: number | null;
  by: string;
  at: number;
}

export const nodeAdminKey = (nodeId: string) => `${NODE_ADMIN_PREFIX}${nodeId}`;

export function nodeAdmin(s: FleetState, nodeId: string): NodeAdmin | null {
  const v = s.meta(nodeAdminKey(nodeId));
  return v === null ? null : (JSON.parse(v) as NodeAdmin);
}

/** Records a change of what is decided about a node (by whom and when). */
export function setNodeAdmin(t: Tx, nodeId: string, change: Partial<NodeAdmin>, actor: string): void {
  const next: NodeAdmin = {
    cordoned: false,
    note: null,
    revoked_at: null,
    removed_at: null,
    ...nodeAdmin(t.s, nodeId),
    ...change,
    by: actor,
    at: t.now,
  };
  t.setMeta(nodeAdminKey(nodeId), JSON.stringify(next));
}

/** Every node an admin took out of scheduling (cordoned, drained, revoked), by node id. */
export function cordonedNodes(s: FleetState): Set<string> {
  const out = new Set<string>();
  for (const m of s.metaByPrefix(NODE_ADMIN_PREFIX)) {
    if ((JSON.parse(m.value) as NodeAdmin).cordoned) out.add(m.key.slice(NODE_ADMIN_PREFIX.length));
  }
  return out;
}

/** Whether an agent with this node id may connect (or use any agent route): not revoked, not removed. */
export function agentAdmitted(s: FleetState, nodeId: string): boolean {
  const a = nodeAdmin(s, nodeId);
  return !a || (a.revoked_at === null && a.removed_at === null);
}

/** Where a node's last start-up sweep report is kept: `{ at, orphans: Orphan[] }`. */
export const orphansKey = (nodeId: string) => `orphans:${nodeId}`;

export function nodeOrphans(s: FleetState, nodeId: string): { at: number; orphans: Orphan[] } | null {
  const v = s.meta(orphansKey(nodeId));
  return v === null ? null : (JSON.parse(v) as { at: number; orphans: Orphan[] });
}
