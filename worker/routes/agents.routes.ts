import { and, eq, gt, isNull } from "drizzle-orm";
import { Hono } from "hono";
import { decodeJwt } from "jose";
import { z } from "zod";
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
import { describe } from "../openapi/describe.js";
import { recordAudit } from "../services/audit.service.js";
import { fleetByRef, fleetStub } from "../services/fleets.service.js";
import { artifactDownload, CheckpointQuery } from "../services/runs.service.js";

/** POST /v1/agents/enroll: the node id minted for the agent and its credential (forgelet saves it). */
const EnrolledAgent = z.looseObject({
  node_id: z.string().describe("The node id minted for the agent, `nod_` plus a lowercase ULID"),
  fleet_id: z.string().describe("The id (`flt_…`) of the fleet the token was minted for"),
  fleet: z.string().describe("That fleet's name"),
  /** The agent credential (an HS256 JWT): `Authorization: Bearer` on the agent routes. */
  credential: z
    .string()
    .describe("The agent's credential, a JWT: send it as `Authorization: Bearer` on the agent routes"),
  /** When the credential expires; the control plane renews it over the agent's socket. */
  expires_at: z
    .string()
    .describe(
      "When the credential expires, ISO 8601 UTC; renewed over the agent's socket while it is connected",
    ),
});

export const agentsRoutes = new Hono<Env>()
  /** Public: the enrollment token in the body is the credential. It works once. */
  .post(
    "/agents/enroll",
    describe({
      id: "enrollAgent",
      tag: "Agents",
      summary: "Trade a one-shot enrollment token for a node id and an agent credential",
      description:
        "Public: the enrollment token in the body is the credential. It is spent atomically, so only one " +
        "caller can use it, and only before it expires. Enrollment mints a node id and a credential; it does " +
        "not register a node (the agent's hello does, over its socket). 503 `UNAVAILABLE` when " +
        "`SF_JWT_SECRET` is not configured (checked before the token is spent); 404 `FLEET_NOT_FOUND` when " +
        "the token's fleet was deleted (the token is spent by then). A failed enrollment counts as a failed login.",
      auth: "none",
      body: EnrollBody,
      ok: { 201: EnrolledAgent },
      errors: ["ENROLLMENT_TOKEN_INVALID", "FLEET_NOT_FOUND", "UNAVAILABLE"],
    }),
    async (c) => {
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
    },
  )
  /**
   * The agent's one outbound connection: a WebSocket upgrade, authenticated by its node credential, handed
   * to the fleet's Durable Object (which owns the socket from then on, hibernating between frames).
   */
  .get(
    "/agents/connect",
    describe({
      id: "connectAgent",
      tag: "Agents",
      summary: "Open the agent's WebSocket to its fleet",
      description:
        "A WebSocket upgrade authenticated by the node credential, handed to the fleet's Durable Object, " +
        "which owns the socket from then on (frames, heartbeats and reconciliation: docs/agent-protocol.md). " +
        "400 `BAD_REQUEST` without `Upgrade: websocket`; 403 `FORBIDDEN` for a user token; 401 " +
        "`NODE_REVOKED` once an admin revoked or removed the node.",
      auth: "agent",
      headers: { Upgrade: { description: "`websocket`", required: true } },
      ok: { 101: { description: "Switching Protocols: the socket is open" } },
      errors: ["BAD_REQUEST", "FORBIDDEN", "FLEET_NOT_FOUND", "NODE_REVOKED"],
    }),
    requireAgent(),
    async (c) => {
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
    },
  )
  /**
   * A checkpoint of an earlier run, for the agent launching its successor (LaunchRequest.resume_from).
   * Only checkpoints, and only of runs this agent's fleet scheduled.
   */
  .get(
    "/agents/checkpoint",
    describe({
      id: "downloadAgentCheckpoint",
      tag: "Agents",
      summary: "Download the checkpoint a run continues from",
      description:
        "For the agent launching a run that resumes (`LaunchRequest.resume_from`): only checkpoints, and only " +
        "of runs the agent's own fleet scheduled. The `ETag` is the registered digest; the agent hashes the " +
        "bytes and refuses a mismatch. 404 `NOT_FOUND`: another fleet's run, no such checkpoint, or bytes " +
        "never uploaded; 404 `BLOB_NOT_FOUND`: the bytes are gone from storage.",
      auth: "agent",
      query: CheckpointQuery,
      ok: {
        200: {
          description: "The checkpoint's bytes",
          media: { type: "application/octet-stream", schema: { type: "string", format: "binary" } },
          headers: {
            ETag: "The digest it was registered with, quoted",
            "Content-Disposition": "`attachment` with the file name",
          },
        },
      },
      errors: ["FORBIDDEN", "NODE_REVOKED", "NOT_FOUND", "BLOB_NOT_FOUND"],
    }),
    requireAgent(),
    async (c) => {
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
    },
  );
