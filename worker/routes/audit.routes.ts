/** /v1/audit: the audit log of administrative and security-relevant actions (docs/api.md), admins only. */
import { Hono } from "hono";
import { AuditQuery } from "../../contract/audit.schema.js";
import { db } from "../../d1/client.js";
import { type Env, requireRole } from "../auth/middleware.js";
import { parseValue } from "../http.js";
import { listAudit } from "../services/audit.service.js";

export const auditRoutes = new Hono<Env>().get("/audit", requireRole("admin"), async (c) =>
  c.json(await listAudit(db(c.env.DB), parseValue(AuditQuery, c.req.query()))),
);
