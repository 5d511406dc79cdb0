import { Hono } from "hono";
import { z } from "zod";
import { CreateTokenBody } from "../../contract/api.schema.js";
import { TokenView } from "../../contract/responses.schema.js";
import { db } from "../../d1/client.js";
import { userStub } from "../../durable-objects/user/stub.js";
import { currentUser, type Env, requireRole } from "../auth/middleware.js";
import { AppError } from "../errors.js";
import { parseJson } from "../http.js";
import { describe } from "../openapi/describe.js";
import { recordAudit } from "../services/audit.service.js";
import { createToken, findToken, listTokens, revokeToken } from "../services/tokens.service.js";
import { listedUserId } from "../services/users.service.js";

/** GET /v1/tokens */
const TokenList = z.looseObject({
  tokens: z.array(TokenView).describe("The tokens, newest first, revoked and expired ones included"),
});
/** POST /v1/tokens: the token as listed, and its secret (shown only in this answer). */
const CreatedToken = TokenView.extend({
  token: z
    .string()
    .describe("The token itself (`sfp_…`), shown only in this answer: send it as `Authorization: Bearer`"),
});
/** DELETE /v1/tokens/:id */
const RevokedToken = z.looseObject({
  id: z.string().describe("The token's id (`tok_…`)"),
  revoked: z.literal(true).describe("Always `true`: the token is revoked (also when it already was)"),
});

export const tokensRoutes = new Hono<Env>()
  .get(
    "/tokens",
    describe({
      id: "listTokens",
      tag: "Identity",
      summary: "List personal access tokens, newest first",
      description:
        "The caller's own, or another user's with `user` (admins only, unless it is the caller's own name). " +
        "`last_used_at` is updated at most once an hour per token.",
      role: "viewer",
      query: z.object({
        user: z.string().optional().describe("List this user's tokens (admins; or your own name)"),
      }),
      ok: { 200: TokenList },
      errors: ["USER_NOT_FOUND"],
    }),
    requireRole("viewer"),
    async (c) => {
      const me = currentUser(c);
      const d = db(c.env.DB);
      const userId = await listedUserId(d, me, c.req.query("user"), "tokens");
      return c.json({ tokens: await listTokens(d, userId) });
    },
  )
  .post(
    "/tokens",
    describe({
      id: "createToken",
      tag: "Identity",
      summary: "Create a personal access token for the caller",
      description: "`token` is the secret, shown only in this answer.",
      role: "viewer",
      body: CreateTokenBody,
      ok: { 201: CreatedToken },
    }),
    requireRole("viewer"),
    async (c) => {
      const body = await parseJson(c, CreateTokenBody);
      const me = currentUser(c);
      const created = await createToken(db(c.env.DB), me.userId, body.name, body.expires_in_days);
      await recordAudit(c, {
        action: "token.create",
        target: `token:${created.id}`,
        details: { user: me.name, name: created.name, expires_at: created.expires_at },
      });
      return c.json(created, 201);
    },
  )
  .delete(
    "/tokens/:id",
    describe({
      id: "revokeToken",
      tag: "Identity",
      summary: "Revoke a token",
      description:
        "Your own (the one making the request included), or anyone's for an admin. Revoking a revoked token " +
        "succeeds and changes nothing. Someone else's token answers 404 like no token, so ids cannot be probed.",
      role: "viewer",
      ok: { 200: RevokedToken },
      errors: ["TOKEN_NOT_FOUND"],
    }),
    requireRole("viewer"),
    async (c) => {
      const me = currentUser(c);
      const d = db(c.env.DB);
      const t = await findToken(d, c.req.param("id"));
      // Someone else's token looks the same as no token, so ids cannot be probed.
      if (!t || (t.userId !== me.userId && me.role !== "admin"))
        throw new AppError("TOKEN_NOT_FOUND", "no such token");
      if (!t.revokedAt) {
        await revokeToken(d, t.id);
        await recordAudit(c, {
          action: "token.revoke",
          target: `token:${t.id}`,
          details: { user_id: t.userId },
        });
      }
      // Its user's object refuses it from before this answer leaves, whatever an isolate still remembers
      // of it (fenced again on a repeat, in case an earlier revoke failed after D1 took it).
      await userStub(c.env, t.userId).fenceToken(t.userId, t.id);
      return c.json({ id: t.id, revoked: true });
    },
  );
