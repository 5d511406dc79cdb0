import { and, eq, gt, isNull } from "drizzle-orm";
import { Hono } from "hono";
import { EnrollBody } from "../../contract/api.schema.js";
import { newId, nowIso } from "../../contract/ids.js";
import { db, schema } from "../../durable-objects/ledger/client.js";
import { signAgentCredential } from "../auth/agent-credential.js";
import { type Env, requireAgent } from "../auth/middleware.js";
import { hashSecret } from "../auth/secrets.js";
import { config } from "../env.js";
import { AppError } from "../errors.js";
import { parseJson, parseValue } from "../http.js";
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
      throw new AppError(
        "ENROLLMENT_TOKEN_INVALID",
        "enrollment token is unknown, already used or expired; ask an admin for a new one",
      );
    }
    const fleet = await fleetByRef(d, consumed.fleetId);
    const credential = await signAgentCredential(secret, nodeId, fleet.id);
    return c.json({ node_id: nodeId, fleet_id: fleet.id, fleet: fleet.name, credential }, 201);
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
    if (!(await fleetStub(c.env, p.fleetId).hasRun(q.run))) {
      throw new AppError("NOT_FOUND", `this fleet scheduled no run ${q.run}`);
    }
    return artifactDownload(c.env, q.run, q.path, { kind: "checkpoint" });
  });
