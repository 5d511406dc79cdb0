import { Hono } from "hono";
import { CreateTokenBody } from "../../contract/api.schema.js";
import { db } from "../../d1/client.js";
import { userStub } from "../../durable-objects/user/stub.js";
import { currentUser, type Env, requireRole } from "../auth/middleware.js";
import { AppError } from "../errors.js";
import { parseJson } from "../http.js";
import { recordAudit } from "../services/audit.service.js";
import { createToken, findToken, listTokens, revokeToken } from "../services/tokens.service.js";
import { userByName } from "../services/users.service.js";

export const tokensRoutes = new Hono<Env>()
  .get("/tokens", requireRole("viewer"), async (c) => {
    const me = currentUser(c);
    const d = db(c.env.DB);
    const who = c.req.query("user");
    if (who && who !== me.name && me.role !== "admin")
      throw new AppError("FORBIDDEN", "only admins list other users' tokens");
    const userId = who ? (await userByName(d, who)).id : me.userId;
    return c.json({ tokens: await listTokens(d, userId) });
  })
  .post("/tokens", requireRole("viewer"), async (c) => {
    const body = await parseJson(c, CreateTokenBody);
    const me = currentUser(c);
    const created = await createToken(db(c.env.DB), me.userId, body.name, body.expires_in_days);
    await recordAudit(c, {
      action: "token.create",
      target: `token:${created.id}`,
      details: { user: me.name, name: created.name, expires_at: created.expires_at },
    });
    return c.json(created, 201);
  })
  .delete("/tokens/:id", requireRole("viewer"), async (c) => {
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
  });
