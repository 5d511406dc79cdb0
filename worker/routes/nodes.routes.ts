/**
 * /v1/fleets/:fleet/nodes: every node of a fleet, and what an admin does to one (docs/api.md "Nodes"):
 * cordon, uncordon, drain, revoke (its agent is disconnected at once and refused from then on) and
 * remove (only a node that holds no run). The Fleet DO decides; these routes only name the node.
 */
import { Hono } from "hono";
import { NodeActionBody } from "../../contract/api.schema.js";
import type { NodeAction } from "../../contract/fleet.schema.js";
import { db } from "../../d1/client.js";
import { type Ctx, currentUser, type Env, requireRole } from "../auth/middleware.js";
import { unwrap } from "../errors.js";
import { parseJson } from "../http.js";
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

export const nodesRoutes = new Hono<Env>()
  .get("/fleets/:fleet/nodes", requireRole("viewer"), async (c) => {
    const f = await fleetByRef(db(c.env.DB), c.req.param("fleet"));
    return c.json({ nodes: (await fleetStub(c.env, f.id).inspect()).nodes });
  })
  .post("/fleets/:fleet/nodes/:node/cordon", requireRole("admin"), async (c) =>
    c.json(await administer(c, "cordon", await noteOf(c))),
  )
  .post("/fleets/:fleet/nodes/:node/uncordon", requireRole("admin"), async (c) =>
    c.json(await administer(c, "uncordon", null)),
  )
  .post("/fleets/:fleet/nodes/:node/drain", requireRole("admin"), async (c) =>
    c.json(await administer(c, "drain", await noteOf(c))),
  )
  .post("/fleets/:fleet/nodes/:node/revoke", requireRole("admin"), async (c) =>
    c.json(await administer(c, "revoke", await noteOf(c))),
  )
  .delete("/fleets/:fleet/nodes/:node", requireRole("admin"), async (c) =>
    c.json(await administer(c, "remove", null)),
  );
