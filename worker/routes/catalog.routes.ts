import { Hono } from "hono";
import { z } from "zod";
import { db } from "../../d1/client.js";
import { currentUser, type Env, requireRole } from "../auth/middleware.js";
import { publishRecipe, readCatalog } from "../catalog/catalog.service.js";
import { AppError } from "../errors.js";
import { describeIssues, issuesOf } from "../http.js";
import { recordAudit } from "../services/audit.service.js";

export const catalogRoutes = new Hono<Env>()
  .get("/catalog", requireRole("viewer"), async (c) => {
    const catalog = await readCatalog(db(c.env.DB));
    c.header("ETag", `"${catalog.digest}"`);
    return c.json(catalog);
  })
  .get("/catalog/:framework/:method", requireRole("viewer"), async (c) => {
    const name = `${c.req.param("framework")}/${c.req.param("method")}`;
    const catalog = await readCatalog(db(c.env.DB));
    const recipe = catalog.recipes.find((r) => r.name === name);
    if (!recipe) throw new AppError("NOT_FOUND", `no recipe ${name} is published; see GET /v1/catalog`);
    return c.json({ catalog_digest: catalog.digest, ...recipe });
  })
  .post("/catalog/recipes", requireRole("admin"), async (c) => {
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
  });
