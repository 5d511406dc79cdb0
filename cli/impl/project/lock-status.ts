/**
 * Lock × catalog → status, as a pure function so it is unit-tested without a server.
 *
 * - `runtime_removed`: what the lock pins can no longer run: the recipe is gone, or neither the locked
 *   version nor any newer one still publishes the locked framework runtime (kind, version, runtime_id).
 * - `recipe_stale`: a newer version is published, or the locked version's digest differs from the
 *   published one (the server's handshake would refuse it), or the locked version is gone but the latest
 *   still runs the locked framework.
 * - `current`: the lock pins the latest version with its published digest and a runtime it lists.
 * The diffs are what `sf recipe upgrade` would change, field by field.
 */
import type { Catalog, RecipeVersion } from "../../../contract/catalog.schema.js";
import type { LockStatus, RecipeLock } from "../../../contract/recipe-lock.schema.js";
import { frameworkChoices, type LockedFramework } from "./catalog.js";

export interface LockDiff {
  field: "recipe" | "version" | "digest" | "framework";
  locked: string;
  catalog: string | null;
}

export interface LockComparison {
  status: Exclude<LockStatus, "malformed">;
  diffs: LockDiff[];
  /** One sentence a person can act on. */
  reason: string;
}

const fw = (f: LockedFramework) => `${f.kind} ${f.version} (${f.runtime_id})`;

function supports(rv: RecipeVersion, f: LockedFramework): boolean {
  return frameworkChoices(rv).some(
    (c) => c.kind === f.kind && c.version === f.version && c.runtime_id === f.runtime_id,
  );
}

export function compareLock(lock: RecipeLock, catalog: Catalog): LockComparison {
  const recipe = catalog.recipes.find((r) => r.name === lock.recipe.name);
  if (!recipe) {
    return {
      status: "runtime_removed",
      diffs: [{ field: "recipe", locked: lock.recipe.name, catalog: null }],
      reason: `${lock.recipe.name} is no longer published`,
    };
  }
  const latest = recipe.versions.find((v) => v.version === recipe.latest);
  const pinned = recipe.versions.find((v) => v.version === lock.recipe.version);
  const diffs: LockDiff[] = [];
  if (latest && latest.version !== lock.recipe.version) {
    diffs.push({ field: "version", locked: lock.recipe.version, catalog: latest.version });
  }
  const target = latest ?? pinned;
  if (target && target.digest !== lock.recipe.digest) {
    diffs.push({ field: "digest", locked: lock.recipe.digest, catalog: target.digest });
  }
  if (target && !supports(target, lock.framework)) {
    const choices = frameworkChoices(target);
    const same = choices.find((c) => c.kind === lock.framework.kind) ?? choices[0];
    diffs.push({ field: "framework", locked: fw(lock.framework), catalog: same ? fw(same) : null });
  }
  const runnable =
    (pinned && supports(pinned, lock.framework)) || (latest && supports(latest, lock.framework));
  if (!runnable) {
    return {
      status: "runtime_removed",
      diffs,
      reason: pinned
        ? `${lock.recipe.name}@${lock.recipe.version} no longer lists ${fw(lock.framework)}`
        : `${lock.recipe.name}@${lock.recipe.version} is gone and no published version runs ${fw(lock.framework)}`,
    };
  }
  if (diffs.length === 0) return { status: "current", diffs, reason: "pins the latest published version" };
  const reason = !pinned
    ? `${lock.recipe.name}@${lock.recipe.version} is no longer published`
    : pinned.digest !== lock.recipe.digest
      ? `${lock.recipe.name}@${lock.recipe.version} is published with a different digest`
      : `${lock.recipe.name}@${recipe.latest} is published`;
  return { status: "recipe_stale", diffs, reason };
}
