/**
 * The console's script and stylesheet, built into the Worker (scripts/build-console.mjs). Names carry the
 * content's hash, so they are cached for a year and a new deploy is never served an old file.
 */
import { Hono } from "hono";
import type { ConsoleEnv } from "./api.js";
import { ASSETS } from "./assets.generated.js";

const byFile = new Map(Object.values(ASSETS).map((a) => [a.file, a]));

/** The URL a page links to for `name`. */
export function assetUrl(name: keyof typeof ASSETS): string {
  return `/console/assets/${ASSETS[name].file}`;
}

export const assetRoutes = new Hono<ConsoleEnv>().get("/assets/:file", (c) => {
  const asset = byFile.get(c.req.param("file"));
  if (!asset) return c.text("no such asset", 404);
  return c.body(asset.body, 200, {
    "content-type": asset.type,
    "cache-control": "public, max-age=31536000, immutable",
    "x-content-type-options": "nosniff",
  });
});
