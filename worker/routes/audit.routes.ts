/** /v1/audit: the audit log of administrative and security-relevant actions (docs/api.md), admins only. */
import { Hono } from "hono";
import { AuditQuery } from "../../contract/audit.schema.js";
import { AuditPage } from "../../contract/responses.schema.js";
import { db } from "../../d1/client.js";
import { type Env, requireRole } from "../auth/middleware.js";
import { parseValue } from "../http.js";
import { describe } from "../openapi/describe.js";
import { listAudit } from "../services/audit.service.js";

export const auditRoutes = new Hono<Env>().get(
  "/audit",
  describe({
    id: "listAuditEntries",
    tag: "Audit",
    summary: "The audit log, newest first",
    description:
      "Administrative and security-relevant actions, one entry each, recorded once the action succeeded. " +
      "Pages by `cursor` (the previous page's `next_cursor`, null on the last page).",
    role: "admin",
    query: AuditQuery,
    ok: { 200: AuditPage },
  }),
  requireRole("admin"),
  async (c) => c.json(await listAudit(db(c.env.DB), parseValue(AuditQuery, c.req.query()))),
);
