/**
 * /v1/secrets (the caller's own job secrets) and /v1/fleets/:fleet/secrets (a fleet's, set by admins).
 * A value goes in with PUT and never comes back: reads list names, who set them and when
 * (docs/api.md "Secrets"). Someone else's secret looks exactly like one that does not exist.
 */
import { Hono } from "hono";
import { z } from "zod";
import { SecretName } from "../../contract/jobspec.schema.js";
import { DeletedSecret, SecretList, SecretOne } from "../../contract/responses.schema.js";
import { SetSecretBody } from "../../contract/secrets.schema.js";
import { db } from "../../d1/client.js";
import type { SecretAddress } from "../../d1/secret-box.js";
import { deleteSecret, listSecrets, putSecret, rewrapSecrets } from "../../d1/secrets.js";
import { type Ctx, currentUser, type Env, requireRole } from "../auth/middleware.js";
import { AppError } from "../errors.js";
import { parseJson, parseValue } from "../http.js";
import { describe } from "../openapi/describe.js";
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

/** `?user=NAME` (read by ownerOf, not parsed by a schema): another user's secrets, admins only. */
const OwnerQuery = z.object({
  user: z
    .string()
    .optional()
    .describe("Another user's secrets (admins only; your own name is always allowed)"),
});

/** POST /v1/secrets/rewrap: the current key, how many values it sealed again, and those it could not open. */
const SecretsRewrapped = z.looseObject({
  key_id: z.string().describe("The id of the current `SF_SECRETS_KEY` (12 hex digits of its SHA-256)"),
  rewrapped: z.number().int().describe("How many values were sealed again under it"),
  /** Values sealed with a key that is neither current nor listed in SF_SECRETS_OLD_KEYS (left as they are). */
  unreadable: z
    .array(
      z.looseObject({
        scope: z.string().describe("`user` or `fleet`"),
        owner_id: z.string().describe("Whose it is: the user's id (`usr_…`) or the fleet's (`flt_…`)"),
        name: z.string().describe("The secret's name"),
        key_id: z.string().describe("The id of the key it is sealed with"),
      }),
    )
    .describe(
      "Values that no key opens (sealed with a key neither current nor in `SF_SECRETS_OLD_KEYS`, or altered), left as they are",
    ),
});

export const secretsRoutes = new Hono<Env>()
  // After SF_SECRETS_KEY rotated (the old key listed in SF_SECRETS_OLD_KEYS): every value sealed again
  // under the new key, so the old one can be dropped. Safe to repeat.
  .post(
    "/secrets/rewrap",
    describe({
      id: "rewrapSecrets",
      tag: "Secrets",
      summary: "Seal every stored secret again under the current SF_SECRETS_KEY",
      description:
        "After SF_SECRETS_KEY was rotated (the old key listed in SF_SECRETS_OLD_KEYS), so the old key can be " +
        "dropped. Safe to repeat; a value set meanwhile is never overwritten. `unreadable` lists values " +
        "sealed with a key that is neither current nor listed.",
      role: "admin",
      ok: { 200: SecretsRewrapped },
      errors: ["SECRETS_UNAVAILABLE"],
    }),
    requireRole("admin"),
    async (c) => {
      const ring = await keyring(c.env);
      const r = await rewrapSecrets(db(c.env.DB), ring);
      await recordAudit(c, {
        action: "secret.rewrap",
        target: `key:${ring.current.id}`,
        details: { rewrapped: r.rewrapped, unreadable: r.unreadable.length },
      });
      return c.json({ key_id: ring.current.id, ...r });
    },
  )
  .get(
    "/secrets",
    describe({
      id: "listSecrets",
      tag: "Secrets",
      summary: "List your secrets by name (never their values)",
      description: "`?user=NAME` (admins): another user's.",
      role: "viewer",
      query: OwnerQuery,
      ok: { 200: SecretList },
      errors: ["USER_NOT_FOUND"],
    }),
    requireRole("viewer"),
    async (c) => {
      const owner = await ownerOf(c);
      const rows = await listSecrets(db(c.env.DB), "user", owner.userId);
      return c.json({ secrets: rows.map((r) => secretView(r)) });
    },
  )
  .put(
    "/secrets/:name",
    describe({
      id: "setSecret",
      tag: "Secrets",
      summary: "Store or replace one of your secrets",
      description:
        "`:name` is an environment variable name (not one StarForge sets). The value is 8 characters to " +
        "32 KiB, without NUL, and never comes back from any route.",
      role: "operator",
      body: SetSecretBody,
      ok: {
        201: { description: "The secret was created", json: SecretOne },
        200: { description: "The secret's value was replaced", json: SecretOne },
      },
      errors: ["SECRETS_UNAVAILABLE"],
    }),
    requireRole("operator"),
    async (c) => {
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
    },
  )
  .delete(
    "/secrets/:name",
    describe({
      id: "deleteSecret",
      tag: "Secrets",
      summary: "Remove one of your secrets",
      description:
        "`?user=NAME` (admins): another user's. Runs already launched keep the value they were given; a " +
        "queued job naming it fails to launch, saying why. Another user's secret answers SECRET_NOT_FOUND.",
      role: "operator",
      query: OwnerQuery,
      ok: { 200: DeletedSecret },
      errors: ["SECRET_NOT_FOUND", "USER_NOT_FOUND"],
    }),
    requireRole("operator"),
    async (c) => {
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
    },
  )
  // A fleet's secrets: names are shown to whoever may submit there; only admins set or remove them.
  .get(
    "/fleets/:fleet/secrets",
    describe({
      id: "listFleetSecrets",
      tag: "Secrets",
      summary: "List a fleet's secrets by name (never their values)",
      description: "`:fleet` is a fleet name or id.",
      role: "operator",
      ok: { 200: SecretList },
      errors: ["FLEET_NOT_FOUND"],
    }),
    requireRole("operator"),
    async (c) => {
      const f = await fleetByRef(db(c.env.DB), c.req.param("fleet"));
      const rows = await listSecrets(db(c.env.DB), "fleet", f.id);
      return c.json({ secrets: rows.map((r) => secretView(r, f.name)) });
    },
  )
  .put(
    "/fleets/:fleet/secrets/:name",
    describe({
      id: "setFleetSecret",
      tag: "Secrets",
      summary: "Store or replace a fleet's secret",
      description:
        "For every job on the fleet that names it and has none of that name of its own. Body and answers as " +
        "PUT /v1/secrets/{name}.",
      role: "admin",
      body: SetSecretBody,
      ok: {
        201: { description: "The secret was created", json: SecretOne },
        200: { description: "The secret's value was replaced", json: SecretOne },
      },
      errors: ["FLEET_NOT_FOUND", "SECRETS_UNAVAILABLE"],
    }),
    requireRole("admin"),
    async (c) => {
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
    },
  )
  .delete(
    "/fleets/:fleet/secrets/:name",
    describe({
      id: "deleteFleetSecret",
      tag: "Secrets",
      summary: "Remove a fleet's secret",
      role: "admin",
      ok: { 200: DeletedSecret },
      errors: ["BAD_REQUEST", "FLEET_NOT_FOUND", "SECRET_NOT_FOUND"],
    }),
    requireRole("admin"),
    async (c) => {
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
    },
  );
