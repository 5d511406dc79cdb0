/**
 * /v1/secrets (the caller's own job secrets) and /v1/fleets/:fleet/secrets (a fleet's, set by admins).
 * A value goes in with PUT and never comes back: reads list names, who set them and when
 * (docs/api.md "Secrets"). Someone else's secret looks exactly like one that does not exist.
 */
import { Hono } from "hono";
import { SecretName } from "../../contract/jobspec.schema.js";
import { SetSecretBody } from "../../contract/secrets.schema.js";
import { db } from "../../d1/client.js";
import type { SecretAddress } from "../../d1/secret-box.js";
import { deleteSecret, listSecrets, putSecret, rewrapSecrets } from "../../d1/secrets.js";
import { type Ctx, currentUser, type Env, requireRole } from "../auth/middleware.js";
import { AppError } from "../errors.js";
import { parseJson, parseValue } from "../http.js";
import { recordAudit } from "../services/audit.service.js";
import { fleetByRef } from "../services/fleets.service.js";
import { keyring, secretView } from "../services/secrets.service.js";
import { userByName } from "../services/users.service.js";

/** Whose secrets a request means: the caller's, or (admins only) `?user=NAME`'s. */
async function ownerOf(c: Ctx): Promise<{ userId: string; name: string }> {
  const me = currentUser(c);
  const who = c.req.query("user");
  if (!who || who === me.name) return { userId: me.userId, name: me.name };
  if (me.role !== "admin") throw new AppError("FORBIDDEN", "only admins manage other users' secrets");
  const u = await userByName(db(c.env.DB), who);
  return { userId: u.id, name: u.name };
}

const nameOf = (c: Ctx) => parseValue(SecretName, c.req.param("name"));

export const secretsRoutes = new Hono<Env>()
  // After SF_SECRETS_KEY rotated (the old key listed in SF_SECRETS_OLD_KEYS): every value sealed again
  // under the new key, so the old one can be dropped. Safe to repeat.
  .post("/secrets/rewrap", requireRole("admin"), async (c) => {
    const ring = await keyring(c.env);
    const r = await rewrapSecrets(db(c.env.DB), ring);
    await recordAudit(c, {
      action: "secret.rewrap",
      target: `key:${ring.current.id}`,
      details: { rewrapped: r.rewrapped, unreadable: r.unreadable.length },
    });
    return c.json({ key_id: ring.current.id, ...r });
  })
  .get("/secrets", requireRole("viewer"), async (c) => {
    const owner = await ownerOf(c);
    const rows = await listSecrets(db(c.env.DB), "user", owner.userId);
    return c.json({ secrets: rows.map((r) => secretView(r)) });
  })
  .put("/secrets/:name", requireRole("operator"), async (c) => {
    const me = currentUser(c);
    const at: SecretAddress = { scope: "user", ownerId: me.userId, name: nameOf(c) };
    const { value } = await parseJson(c, SetSecretBody);
    const { created, row } = await putSecret(db(c.env.DB), await keyring(c.env), at, value, me.name);
    // Name and scope only, never the value.
    await recordAudit(c, {
      action: "secret.set",
      target: `secret:user:${me.name}/${at.name}`,
      details: { scope: "user", created },
    });
    return c.json({ secret: secretView(row) }, created ? 201 : 200);
  })
  .delete("/secrets/:name", requireRole("operator"), async (c) => {
    const owner = await ownerOf(c);
    const name = nameOf(c);
    if (!(await deleteSecret(db(c.env.DB), { scope: "user", ownerId: owner.userId, name })))
      throw new AppError("SECRET_NOT_FOUND", `no secret named ${name}`);
    await recordAudit(c, {
      action: "secret.delete",
      target: `secret:user:${owner.name}/${name}`,
      details: { scope: "user" },
    });
    return c.json({ name, deleted: true });
  })
  // A fleet's secrets: names are shown to whoever may submit there; only admins set or remove them.
  .get("/fleets/:fleet/secrets", requireRole("operator"), async (c) => {
    const f = await fleetByRef(db(c.env.DB), c.req.param("fleet"));
    const rows = await listSecrets(db(c.env.DB), "fleet", f.id);
    return c.json({ secrets: rows.map((r) => secretView(r, f.name)) });
  })
  .put("/fleets/:fleet/secrets/:name", requireRole("admin"), async (c) => {
    const me = currentUser(c);
    const d = db(c.env.DB);
    const f = await fleetByRef(d, c.req.param("fleet"));
    const at: SecretAddress = { scope: "fleet", ownerId: f.id, name: nameOf(c) };
    const { value } = await parseJson(c, SetSecretBody);
    const { created, row } = await putSecret(d, await keyring(c.env), at, value, me.name);
    await recordAudit(c, {
      action: "secret.set",
      target: `secret:fleet:${f.name}/${at.name}`,
      details: { scope: "fleet", created },
    });
    return c.json({ secret: secretView(row, f.name) }, created ? 201 : 200);
  })
  .delete("/fleets/:fleet/secrets/:name", requireRole("admin"), async (c) => {
    const d = db(c.env.DB);
    const f = await fleetByRef(d, c.req.param("fleet"));
    const name = nameOf(c);
    if (!(await deleteSecret(d, { scope: "fleet", ownerId: f.id, name })))
      throw new AppError("SECRET_NOT_FOUND", `fleet ${f.name} has no secret named ${name}`);
    await recordAudit(c, {
      action: "secret.delete",
      target: `secret:fleet:${f.name}/${name}`,
      details: { scope: "fleet" },
    });
    return c.json({ name, deleted: true });
  });
