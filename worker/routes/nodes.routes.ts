/**
 * /v1/fleets/:fleet/nodes: every node of a fleet, and what an admin does to one (docs/api.md "Nodes"):
 * cordon, uncordon, drain, revoke (its agent is disconnected at once and refused from then on) and
 * remove (only a node that holds no run). The Fleet DO decides; these routes only name the node.
 */
import { Hono } from "hono";
import { NodeActionBody } from "../../contract/api.schema.js";
import type { ErrorCode } from "../../contract/errors.js";
import type { NodeAction } from "../../contract/fleet.schema.js";
import { NodeAdminAnswer, NodeList } from "../../contract/responses.schema.js";
import { db } from "../../d1/client.js";
import { type Ctx, currentUser, type Env, requireRole } from "../auth/middleware.js";
import { unwrap } from "../errors.js";
import { parseJson } from "../http.js";
import { describe } from "../openapi/describe.js";
import { recordAudit } from "../services/audit.service.js";
import { fleetByRef, fleetStub } from "../services/fleets.service.js";

async function administer(c: Ctx, action: NodeAction, note: string | null) {
  const f = await fleetByRef(db(c.env.DB), c.req.param("fleet")!);
  const ref = c.req.param("node")!;
  const report = unwrap(await fleetStub(c.env, f.id).administerNode(ref, action, currentUser(c).name, note));
  await recordAudit(c, {
    action: `node.${action}`,
    target: `node:${f.name}/${report.node?.name ?? ref}`,
    details: { note, requeued: report.requeued.length, blockers: report.blockers.length },
  });
  return { action, node: report.node, requeued: report.requeued, blockers: report.blockers };
}

/** A POST body is optional for these actions: none, `{}` or `{ "note": "…" }`. */
async function noteOf(c: Ctx): Promise<string | null> {
  if (!c.req.header("content-length") && !c.req.header("transfer-encoding")) return null;
  return (await parseJson(c, NodeActionBody)).note ?? null;
}

/**
 * An admin's action on one node: the node as it is now, and what the action did. `note`: whether it takes
 * the optional `{ "note" }` body (uncordon and remove read none); `conflict`: whether it can answer 409.
 */
const describeNodeAction = (
  id: string,
  summary: string,
  description: string,
  o: { note: boolean; conflict: boolean },
) =>
  describe({
    id,
    tag: "Fleets",
    summary,
    description: `${description} \`:fleet\` is the fleet's name or id, \`:node\` the node's name or id. Recorded in the audit log.`,
    role: "admin",
    ...(o.note
      ? {
          body: {
            schema: NodeActionBody,
            optional: true,
            description: 'Optional (none, `{}` or `{ "note": "…" }`): why, for whoever looks later',
          },
        }
      : {}),
    ok: { 200: NodeAdminAnswer },
    errors: ["FLEET_NOT_FOUND", "NODE_NOT_FOUND", ...(o.conflict ? (["CONFLICT"] as ErrorCode[]) : [])],
  });

export const nodesRoutes = new Hono<Env>()
  .get(
    "/fleets/:fleet/nodes",
    describe({
      id: "listFleetNodes",
      tag: "Fleets",
      summary: "List a fleet's nodes, live from its Durable Object",
      description: "Each node with its GPUs, and `cordoned`, `cordon_note` and `revoked` beside its status.",
      role: "viewer",
      ok: { 200: NodeList },
      errors: ["FLEET_NOT_FOUND"],
    }),
    requireRole("viewer"),
    async (c) => {
      const f = await fleetByRef(db(c.env.DB), c.req.param("fleet"));
      return c.json({ nodes: (await fleetStub(c.env, f.id).inspect()).nodes });
    },
  )
  .post(
    "/fleets/:fleet/nodes/:node/cordon",
    describeNodeAction(
      "cordonNode",
      "Cordon a node: no new runs are placed on it",
      "The runs already there go on; queued jobs that only fit there wait with their pending reason.",
      { note: true, conflict: false },
    ),
    requireRole("admin"),
    async (c) => c.json(await administer(c, "cordon", await noteOf(c))),
  )
  .post(
    "/fleets/:fleet/nodes/:node/uncordon",
    describeNodeAction(
      "uncordonNode",
      "Uncordon a node: it takes new runs again",
      "A scheduling pass runs at once. No body is read. 409 `CONFLICT` for a revoked node: its agent must enroll again.",
      { note: false, conflict: true },
    ),
    requireRole("admin"),
    async (c) => c.json(await administer(c, "uncordon", null)),
  )
  .post(
    "/fleets/:fleet/nodes/:node/drain",
    describeNodeAction(
      "drainNode",
      "Drain a node: cordon it and move its resumable jobs elsewhere",
      "Each job running there that can resume from a checkpoint is stopped (it checkpoints) and queued " +
        "again at once (`requeued`); jobs that cannot resume go on and are listed in `blockers`.",
      { note: true, conflict: false },
    ),
    requireRole("admin"),
    async (c) => c.json(await administer(c, "drain", await noteOf(c))),
  )
  .post(
    "/fleets/:fleet/nodes/:node/revoke",
    describeNodeAction(
      "revokeNode",
      "Revoke a node's agent: disconnect it and refuse its credential",
      "Its socket is closed at once, its credential is refused from then on (401 `NODE_REVOKED`) and the " +
        "node is cordoned; its runs are handled like a lost agent's. 409 `CONFLICT` for a node without an " +
        "agent of its own (registered by an admin, or reached through a cluster agent).",
      { note: true, conflict: true },
    ),
    requireRole("admin"),
    async (c) => c.json(await administer(c, "revoke", await noteOf(c))),
  )
  .delete(
    "/fleets/:fleet/nodes/:node",
    describeNodeAction(
      "removeNode",
      "Remove a node that holds no run",
      'Answers `"node": null`; an agent of that node stays refused (`NODE_REVOKED`). 409 `CONFLICT` ' +
        "while a run holds GPUs there, or for a node listed by its agent's cluster.",
      { note: false, conflict: true },
    ),
    requireRole("admin"),
    async (c) => c.json(await administer(c, "remove", null)),
  );
