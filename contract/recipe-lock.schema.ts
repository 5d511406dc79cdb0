/** recipe.lock.json: pins an experiment to one published recipe version and framework runtime. */
import { z } from "zod";
import { Entrypoint, ParamSpec, RecipeName, Version } from "./catalog.schema.js";
import { Digest } from "./digest.js";

export const RecipeLock = z.object({
  lock_version: z.literal(1),
  recipe: z.object({ name: RecipeName, version: Version, digest: Digest }),
  framework: z.object({ kind: z.string().min(1), version: z.string().min(1), runtime_id: z.string().min(1) }),
  catalog_digest: Digest,
  locked_at: z.string(),
  /**
   * A snapshot of the recipe version's typed params and entrypoint, so `sf validate` works offline.
   * They are covered by the recipe digest: the server's handshake catches any drift.
   */
  params: z.record(z.string(), ParamSpec).default({}),
  entrypoint: Entrypoint.optional(),
});
export type RecipeLock = z.infer<typeof RecipeLock>;

export type LockStatus = "current" | "recipe_stale" | "runtime_removed" | "malformed";
