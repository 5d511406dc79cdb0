import { Hono } from "hono";
import { z } from "zod";
import { Catalog, RecipeVersionBody } from "../../contract/catalog.schema.js";
import { Digest } from "../../contract/digest.js";
import { PublishedRecipe } from "../../contract/responses.schema.js";
import { db } from "../../d1/client.js";
import { currentUser, type Env, requireRole } from "../auth/middleware.js";
import { publishRecipe, readCatalog } from "../catalog/catalog.service.js";
import { AppError } from "../errors.js";
import { describeIssues, issuesOf } from "../http.js";
import { describe } from "../openapi/describe.js";
import { recordAudit } from "../services/audit.service.js";

/** GET /v1/catalog/:framework/:method: one recipe of the catalog, with the catalog's digest. */
const CatalogRecipe = Catalog.shape.recipes.element.extend({ catalog_digest: Digest });

export const catalogRoutes = new Hono<Env>()
  .get(
    "/catalog",
    describe({
      id: "getCatalog",
      tag: "Catalog",
      summary: "The whole recipe catalog: every recipe and its versions",
      description:
        "Recipes by name, each one's versions ascending by semver (pre-releases before their release). The " +
        "answer's ETag is the catalog digest; `If-None-Match` is not evaluated.",
      role: "viewer",
      ok: {
        200: {
          description: "The catalog",
          json: Catalog,
          headers: { ETag: "The catalog digest, quoted" },
        },
      },
    }),
    requireRole("viewer"),
    async (c) => {
      const catalog = await readCatalog(db(c.env.DB));
      c.header("ETag", `"${catalog.digest}"`);
      return c.json(catalog);
    },
  )
  .get(
    "/catalog/:framework/:method",
    describe({
      id: "getRecipe",
      tag: "Catalog",
      summary: "One recipe, `framework/method`, with all its versions",
      role: "viewer",
      ok: { 200: CatalogRecipe },
      errors: ["NOT_FOUND"],
    }),
    requireRole("viewer"),
    async (c) => {
      const name = `${c.req.param("framework")}/${c.req.param("method")}`;
      const catalog = await readCatalog(db(c.env.DB));
      const recipe = catalog.recipes.find((r) => r.name === name);
      if (!recipe) throw new AppError("NOT_FOUND", `no recipe ${name} is published; see GET /v1/catalog`);
      return c.json({ catalog_digest: catalog.digest, ...recipe });
    },
  )
  .post(
    "/catalog/recipes",
    describe({
      id: "publishRecipe",
      tag: "Catalog",
      summary: "Publish a recipe version",
      description:
        "Versions are immutable: republishing identical content changes nothing (200, `created: false`); " +
        "new content for an existing name and version is ALREADY_EXISTS. An invalid recipe is BAD_REQUEST " +
        "with `details.issues`.",
      role: "admin",
      body: RecipeVersionBody,
      ok: {
        201: { description: "Published", json: PublishedRecipe },
        200: {
          description: "Identical content was already published: nothing changed",
          json: PublishedRecipe,
        },
      },
      errors: ["ALREADY_EXISTS"],
    }),
    requireRole("admin"),
    async (c) => {
      let raw: unknown;
      try {
        raw = await c.req.json();
      } catch {
        throw new AppError("BAD_REQUEST", "request body must be JSON");
      }
      try {
        const { created, version } = await publishRecipe(db(c.env.DB), raw, currentUser(c).name);
        // Republishing identical content is a no-op and is not logged.
        if (created)
          await recordAudit(c, {
            action: "recipe.publish",
            target: `recipe:${version.name}@${version.version}`,
            details: { digest: version.digest },
          });
        return c.json({ created, recipe: version }, created ? 201 : 200);
      } catch (err) {
        if (err instanceof z.ZodError) {
          throw new AppError("BAD_REQUEST", `invalid recipe: ${describeIssues(err)}`, {
            issues: issuesOf(err),
          });
        }
        throw err;
      }
    },
  );
