import { and, eq, gt, isNull } from "drizzle-orm";
import { Hono } from "hono";
import { EnrollBody } from "../../contract/api.schema.js";
import { newId, nowIso } from "../../contract/ids.js";
import { signAgentCredential } from "../auth/agent-credential.js";
import type { Env } from "../auth/middleware.js";
import { hashSecret } from "../auth/secrets.js";
import { db, schema } from "../db/client.js";
import { config } from "../env.js";
import { AppError } from "../errors.js";
import { parseJson } from "../http.js";
import { fleetByRef } from "../services/fleets.service.js";

export const agentsRoutes = new Hono<Env>()
  /** Public: the enrollment token in the body is the credential. It works once. */
  .post("/agents/enroll", async (c) => {
    const body = await parseJson(c, EnrollBody);
    // Check signing is possible before the one-shot token is spent.
    const secret = config(c.env).jwtSecret;
    if (!secret) throw new AppError("UNAVAILABLE", "agent enrollment is not configured (SF_JWT_SECRET)");
    const d = db(c.env.DB);
    const now = nowIso();
    const nodeId = newId("nod");
    const hash = await hashSecret(body.token);
    // Consume atomically: only one caller can flip used_at from NULL.
    const consumed = await d
      .update(schema.enrollmentTokens)
      .set({ usedAt: now, nodeId })
      .where(
        and(
          eq(schema.enrollmentTokens.hash, hash),
          isNull(schema.enrollmentTokens.usedAt),
          gt(schema.enrollmentTokens.expiresAt, now),
        ),
      )
      .returning({ fleetId: schema.enrollmentTokens.fleetId })
      .get();
    if (!consumed) {
      throw new AppError(
        "ENROLLMENT_TOKEN_INVALID",
        "enrollment token is unknown, already used or expired; ask an admin for a new one",
      );
    }
    const fleet = await fleetByRef(d, consumed.fleetId);
    const credential = await signAgentCredential(secret, nodeId, fleet.id);
    return c.json({ node_id: nodeId, fleet_id: fleet.id, fleet: fleet.name, credential }, 201);
  });
