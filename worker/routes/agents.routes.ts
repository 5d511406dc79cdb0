import { and, eq, gt, isNull } from "drizzle-orm";
import { Hono } from "hono";
import { decodeJwt } from "jose";
import { mintAgentCredential } from "../../contract/agent-credential.js";
import { EnrollBody } from "../../contract/api.schema.js";
import { newId, nowIso } from "../../contract/ids.js";
import { db, schema } from "../../d1/client.js";
import { doSettings } from "../../durable-objects/env.js";
import { countFailedLogin } from "../auth/login-limiter.js";
import { type Env, requireAgent } from "../auth/middleware.js";
import { hashSecret } from "../auth/secrets.js";
import { config } from "../env.js";
import { AppError } from "../errors.js";
import { parseJson, parseValue } from "../http.js";
import { recordAudit } from "../services/audit.service.js";
import { fleetByRef, fleetStub } from "../services/fleets.service.js";
import { artifactDownload, CheckpointQuery } from "../services/runs.service.js";

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
      await countFailedLogin(c, body.token);
      throw new AppError(
        "ENROLLMENT_TOKEN_INVALID",
        "enrollment token is unknown, already used or expired; ask an admin for a new one",
      );
    }
    const fleet = await fleetByRef(d, consumed.fleetId);
    const ttl = Math.round(doSettings(c.env).credentialMs / 1000);
    const { credential, expiresAt } = await mintAgentCredential(secret, nodeId, fleet.id, ttl);
    // The route is public; from here on the caller is the agent it just enrolled, and the log says so.
    c.set("principal", { kind: "agent", nodeId, fleetId: fleet.id });
    await recordAudit(c, {
      action: "agent.enroll",
      target: `node:${nodeId}`,
      details: { fleet: fleet.name },
    });
    return c.json(
      {
        node_id: nodeId,
        fleet_id: fleet.id,
        fleet: fleet.name,
        credential,
        expires_at: new Date(expiresAt).toISOString(),
      },
      201,
    );
  })
  /**
   * The agent's one outbound connection: a WebSocket upgrade, authenticated by its node credential, handed
   * to the fleet's Durable Object (which owns the socket from then on, hibernating between frames).
   */
  .get("/agents/connect", requireAgent(), async (c) => {
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
      throw new AppError("BAD_REQUEST", "this endpoint takes a WebSocket upgrade (Upgrade: websocket)");
    }
    const p = c.get("principal");
    if (p.kind !== "agent") throw new AppError("FORBIDDEN", "this route is for agents");
    await fleetByRef(db(c.env.DB), p.fleetId);
    const headers = new Headers(c.req.raw.headers);
    headers.set("x-sf-node-id", p.nodeId);
    // The Fleet DO renews the credential over this socket before it expires (it was verified above).
    const exp = decodeJwt(c.req.header("authorization")?.replace(/^Bearer\s+/i, "") ?? "").exp;
    headers.set("x-sf-credential-expires-at", exp === undefined ? "" : String(exp * 1000));
    return fleetStub(c.env, p.fleetId).fetch(new Request("https://fleet.internal/agent", { headers }));
  })
  /**
   * A checkpoint of an earlier run, for the agent launching its successor (LaunchRequest.resume_from).
   * Only checkpoints, and only of runs this agent's fleet scheduled.
   */
  .get("/agents/checkpoint", requireAgent(), async (c) => {
    const q = parseValue(CheckpointQuery, c.req.query());
    const p = c.get("principal");
    if (p.kind !== "agent") throw new AppError("FORBIDDEN", "this route is for agents");
    const fleet = fleetStub(c.env, p.fleetId);
    if (!(await fleet.agentAdmitted(p.nodeId))) {
      throw new AppError("NODE_REVOKED", "an admin revoked or removed this node; enroll it again");
    }
    if (!(await fleet.hasRun(q.run))) {
      throw new AppError("NOT_FOUND", `this fleet scheduled no run ${q.run}`);
    }
    return artifactDownload(c.env, q.run, q.path, { kind: "checkpoint" });
  });
