import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { nowIso } from "../../contract/ids.js";
import { ProfileEntry } from "../../contract/profile-grammar.js";
import { DeletedProfile, OneProfile, ProfileList } from "../../contract/responses.schema.js";
import { db, schema } from "../../d1/client.js";
import { type Env, requireRole } from "../auth/middleware.js";
import { AppError } from "../errors.js";
import { parseJson } from "../http.js";
import { describe } from "../openapi/describe.js";
import { recordAudit } from "../services/audit.service.js";
import { readProfiles } from "../services/profiles.service.js";

const ProfileBody = ProfileEntry.omit({ name: true }).refine(
  (p) => p.default_gpus <= p.gpus_per_node || p.default_gpus % p.gpus_per_node === 0,
  {
    message: "default_gpus must fit one node or be a multiple of gpus_per_node",
  },
);

export const profilesRoutes = new Hono<Env>()
  .get(
    "/profiles",
    describe({
      id: "listProfiles",
      tag: "Profiles",
      summary: "List GPU profiles, sorted by name",
      role: "viewer",
      ok: { 200: ProfileList },
    }),
    requireRole("viewer"),
    async (c) => c.json({ profiles: await readProfiles(db(c.env.DB)) }),
  )
  .put(
    "/profiles/:name",
    describe({
      id: "setProfile",
      tag: "Profiles",
      summary: "Create or replace a GPU profile",
      description:
        "The body is the profile without its name (the path's). `default_gpus` must fit one node or be a " +
        "multiple of `gpus_per_node`. An invalid `:name` is a 400 `BAD_REQUEST`, checked before the body. " +
        "Answers 200 whether it created or replaced the profile.",
      role: "admin",
      body: ProfileBody,
      ok: { 200: OneProfile },
    }),
    requireRole("admin"),
    async (c) => {
      const name = ProfileEntry.shape.name.safeParse(c.req.param("name"));
      if (!name.success) throw new AppError("BAD_REQUEST", "profile names are lowercase [a-z0-9._-]");
      const body = await parseJson(c, ProfileBody);
      const row = {
        name: name.data,
        series: body.series,
        gpusPerNode: body.gpus_per_node,
        defaultGpus: body.default_gpus,
        description: body.description,
        updatedAt: nowIso(),
      };
      await db(c.env.DB)
        .insert(schema.profiles)
        .values(row)
        .onConflictDoUpdate({ target: schema.profiles.name, set: row })
        .run();
      await recordAudit(c, {
        action: "profile.set",
        target: `profile:${name.data}`,
        details: { series: body.series, gpus_per_node: body.gpus_per_node, default_gpus: body.default_gpus },
      });
      return c.json({ profile: { name: name.data, ...body } });
    },
  )
  .delete(
    "/profiles/:name",
    describe({
      id: "deleteProfile",
      tag: "Profiles",
      summary: "Delete a GPU profile",
      description: "Jobs and quotas that name it are not checked.",
      role: "admin",
      ok: { 200: DeletedProfile },
      errors: ["PROFILE_NOT_FOUND"],
    }),
    requireRole("admin"),
    async (c) => {
      const d = db(c.env.DB);
      const r = await d
        .delete(schema.profiles)
        .where(eq(schema.profiles.name, c.req.param("name")))
        .run();
      if (!r.meta.changes) throw new AppError("PROFILE_NOT_FOUND", `no profile ${c.req.param("name")}`);
      await recordAudit(c, { action: "profile.delete", target: `profile:${c.req.param("name")}` });
      return c.json({ deleted: c.req.param("name") });
    },
  );
