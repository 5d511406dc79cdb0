import { asc, eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { CreateUserBody, QuotaBody, UpdateUserBody } from "../../contract/api.schema.js";
import { newId, nowIso } from "../../contract/ids.js";
import { CreatedUser, Me, OneUser, UserList, UserQuota } from "../../contract/responses.schema.js";
import { db, schema } from "../../d1/client.js";
import { userStub } from "../../durable-objects/user/stub.js";
import { currentUser, type Env, isAdmin, requireRole } from "../auth/middleware.js";
import { AppError } from "../errors.js";
import { parseJson } from "../http.js";
import { describe } from "../openapi/describe.js";
import { recordAudit } from "../services/audit.service.js";
import { fleetIds, fleetStub, pushToFleets } from "../services/fleets.service.js";
import { prepareToken } from "../services/tokens.service.js";
import { quotaOf, userByName, userView } from "../services/users.service.js";

export const usersRoutes = new Hono<Env>()
  .get(
    "/me",
    describe({
      id: "getMe",
      tag: "Identity",
      summary: "The caller and their effective quota",
      description: "The quota is the one an admin set, or the default quota when none was.",
      role: "viewer",
      ok: { 200: Me },
    }),
    requireRole("viewer"),
    async (c) => {
      const me = currentUser(c);
      const d = db(c.env.DB);
      const u = await userByName(d, me.name);
      return c.json({ user: userView(u), quota: await quotaOf(d, u.id) });
    },
  )
  .get(
    "/users",
    describe({
      id: "listUsers",
      tag: "Identity",
      summary: "List every user, sorted by name",
      role: "admin",
      ok: { 200: UserList },
    }),
    requireRole("admin"),
    async (c) => {
      const rows = await db(c.env.DB).select().from(schema.users).orderBy(asc(schema.users.name)).all();
      return c.json({ users: rows.map(userView) });
    },
  )
  .post(
    "/users",
    describe({
      id: "createUser",
      tag: "Identity",
      summary: "Create a user, and by default their first token",
      description:
        "With `with_token` (the default) the user's first token, named `initial`, is minted in the same D1 " +
        "batch: both exist or neither. The token is shown only in this answer.",
      role: "admin",
      body: CreateUserBody,
      ok: {
        201: {
          description: "Created: the user, and `token` when `with_token` was true",
          json: z.union([CreatedUser, OneUser]),
        },
      },
      errors: ["ALREADY_EXISTS"],
    }),
    requireRole("admin"),
    async (c) => {
      const body = await parseJson(c, CreateUserBody);
      const d = db(c.env.DB);
      const exists = await d.select().from(schema.users).where(eq(schema.users.name, body.name)).get();
      if (exists) throw new AppError("ALREADY_EXISTS", `user ${body.name} already exists`);
      const id = newId("usr");
      const user = { id, name: body.name, role: body.role, email: body.email ?? null };
      // User and first token in one D1 batch: either both exist or neither.
      if (body.with_token) {
        const { row, secret } = await prepareToken(id, "initial");
        await d.batch([d.insert(schema.users).values(user), d.insert(schema.tokens).values(row)]);
        const created = await userByName(d, body.name);
        await recordAudit(c, {
          action: "user.create",
          target: `user:${created.name}`,
          details: { user_id: created.id, role: created.role, with_token: true },
        });
        return c.json({ user: userView(created), token: secret }, 201);
      }
      await d.insert(schema.users).values(user).run();
      const created = await userByName(d, body.name);
      await recordAudit(c, {
        action: "user.create",
        target: `user:${created.name}`,
        details: { user_id: created.id, role: created.role, with_token: false },
      });
      return c.json({ user: userView(created) }, 201);
    },
  )
  .patch(
    "/users/:name",
    describe({
      id: "updateUser",
      tag: "Identity",
      summary: "Change a user's role or disabled flag",
      description:
        "Omitted fields stay as they are; a body with neither changes nothing and answers the user. An admin " +
        "cannot disable or demote themselves (409 `CONFLICT`).",
      role: "admin",
      body: UpdateUserBody,
      ok: { 200: OneUser },
      errors: ["USER_NOT_FOUND", "CONFLICT"],
    }),
    requireRole("admin"),
    async (c) => {
      const body = await parseJson(c, UpdateUserBody);
      const d = db(c.env.DB);
      const u = await userByName(d, c.req.param("name"));
      if (u.id === currentUser(c).userId && (body.disabled || (body.role && body.role !== "admin"))) {
        throw new AppError("CONFLICT", "you cannot disable or demote yourself; ask another admin");
      }
      const changes = {
        ...(body.role ? { role: body.role } : {}),
        ...(body.disabled !== undefined ? { disabled: body.disabled } : {}),
      };
      // An empty PATCH changes nothing and answers with the user as it is.
      if (Object.keys(changes).length > 0) {
        await d.update(schema.users).set(changes).where(eq(schema.users.id, u.id)).run();
        await recordAudit(c, { action: "user.update", target: `user:${u.name}`, details: changes });
      }
      const updated = await userByName(d, u.name);
      // Submits check the account in the user's object: a disabled or demoted user is refused from here on.
      if (Object.keys(changes).length > 0)
        await userStub(c.env, u.id).setAccount(u.id, { disabled: updated.disabled, role: updated.role });
      return c.json({ user: userView(updated) });
    },
  )
  .get(
    "/users/:name/quota",
    describe({
      id: "getUserQuota",
      tag: "Identity",
      summary: "A user's effective quota",
      description:
        "Non-admins may read only their own (403 `FORBIDDEN`). The user is looked up first, so an unknown " +
        "name is 404 `USER_NOT_FOUND` whoever asks.",
      role: "viewer",
      ok: { 200: UserQuota },
      errors: ["USER_NOT_FOUND"],
    }),
    requireRole("viewer"),
    async (c) => {
      const me = c.get("principal");
      const d = db(c.env.DB);
      const u = await userByName(d, c.req.param("name"));
      if (!isAdmin(me) && currentUser(c).userId !== u.id)
        throw new AppError("FORBIDDEN", "you may only read your own quota");
      return c.json({ user: u.name, quota: await quotaOf(d, u.id) });
    },
  )
  .put(
    "/users/:name/quota",
    describe({
      id: "setUserQuota",
      tag: "Identity",
      summary: "Replace a user's quota",
      description:
        "A full quota: omitted optional fields take their defaults. Every fleet gets it at once and queued " +
        "jobs are scheduled against it; a lower `max_jobs` applies from the next submit or resume.",
      role: "admin",
      body: QuotaBody,
      ok: { 200: UserQuota },
      errors: ["USER_NOT_FOUND", "UNAVAILABLE"],
    }),
    requireRole("admin"),
    async (c) => {
      const q = await parseJson(c, QuotaBody);
      const d = db(c.env.DB);
      const u = await userByName(d, c.req.param("name"));
      const row = {
        userId: u.id,
        maxGpus: q.max_gpus,
        maxJobs: q.max_jobs,
        dailyGpuHours: q.daily_gpu_hours,
        allowedProfiles: JSON.stringify(q.allowed_profiles),
        priority: q.priority,
        maxPriorityClass: q.max_priority_class,
        updatedAt: nowIso(),
      };
      await d
        .insert(schema.quotas)
        .values(row)
        .onConflictDoUpdate({ target: schema.quotas.userId, set: row })
        .run();
      // The user's object admits with it from this answer on; fleets schedule with the quota they hold, so
      // the change goes to them too and queued jobs see it now.
      await userStub(c.env, u.id).setQuota(u.id, q);
      await recordAudit(c, {
        action: "quota.set",
        target: `user:${u.name}`,
        details: { ...q, allowed_profiles: q.allowed_profiles.join(",") },
      });
      await pushToFleets(await fleetIds(c.env), `quota of ${u.name}`, (id) =>
        fleetStub(c.env, id).setQuota(u.id, q),
      );
      return c.json({ user: u.name, quota: q });
    },
  );
