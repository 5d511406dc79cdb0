/** Catalog reads and publication. Versions are immutable: republishing identical content is a no-op. */
import { and, eq } from "drizzle-orm";
import {
  type Catalog,
  catalogDigest,
  compareVersions,
  type RecipeVersion,
  RecipeVersionBody,
  recipeDigest,
} from "../../contract/catalog.schema.js";
import { canonicalJson } from "../../contract/digest.js";
import { type Db, schema } from "../../d1/client.js";
import { AppError } from "../errors.js";

export interface NormalizedRecipe {
  body: RecipeVersionBody;
  digest: string;
  json: string;
}

export async function normalizeRecipe(input: unknown): Promise<NormalizedRecipe> {
  const body = RecipeVersionBody.parse(input);
  return { body, digest: await recipeDigest(body), json: canonicalJson(body) };
}

function toVersion(row: typeof schema.recipes.$inferSelect): RecipeVersion {
  return {
    ...RecipeVersionBody.parse(JSON.parse(row.body)),
    digest: row.digest,
    published_at: row.publishedAt,
    published_by: row.publishedBy,
  };
}

export async function readCatalog(d: Db): Promise<Catalog> {
  const rows = await d.select().from(schema.recipes).all();
  const byName = new Map<string, RecipeVersion[]>();
  for (const row of rows) {
    const list = byName.get(row.name) ?? [];
    list.push(toVersion(row));
    byName.set(row.name, list);
  }
  const recipes = [...byName.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, versions]) => {
      versions.sort((a, b) => compareVersions(a.version, b.version));
      return { name, latest: versions[versions.length - 1]!.version, versions };
    });
  return { digest: await catalogDigest(rows), recipes };
}

export async function findRecipeVersion(d: Db, name: string, version: string): Promise<RecipeVersion | null> {
  const row = await d
    .select()
    .from(schema.recipes)
    .where(and(eq(schema.recipes.name, name), eq(schema.recipes.version, version)))
    .get();
  return row ? toVersion(row) : null;
}

export async function recipeExists(d: Db, name: string): Promise<boolean> {
  const row = await d
    .select({ n: schema.recipes.name })
    .from(schema.recipes)
    .where(eq(schema.recipes.name, name))
    .get();
  return Boolean(row);
}

export async function publishRecipe(
  d: Db,
  input: unknown,
  by: string,
): Promise<{ created: boolean; version: RecipeVersion }> {
  const { body, digest, json } = await normalizeRecipe(input);
  const existing = await findRecipeVersion(d, body.name, body.version);
  if (existing) {
    if (existing.digest === digest) return { created: false, version: existing };
    throw new AppError(
      "ALREADY_EXISTS",
      `${body.name}@${body.version} is already published with different content (${existing.digest}); versions are immutable, publish a new version`,
    );
  }
  await d
    .insert(schema.recipes)
    .values({ name: body.name, version: body.version, digest, body: json, publishedBy: by })
    .onConflictDoNothing()
    .run();
  const stored = await findRecipeVersion(d, body.name, body.version);
  if (!stored || stored.digest !== digest) {
    throw new AppError(
      "ALREADY_EXISTS",
      `${body.name}@${body.version} was just published by someone else with different content`,
    );
  }
  return { created: true, version: stored };
}
