/**
 * What a submit needs from the server before it packs anything: the hardware registry (to expand
 * `--profile`) and the catalog (the handshake: the locked recipe version is published with the same
 * digest and still supports the locked framework runtime). The server repeats the handshake at admission;
 * doing it here first means a stale lock uploads nothing.
 */

import { Catalog, type RecipeVersion } from "../../../contract/catalog.schema.js";
import {
  expandProfiles,
  type Pool,
  type ProfileEntry,
  ProfileError,
  parseProfileArg,
} from "../../../contract/profile-grammar.js";
import type { RecipeLock } from "../../../contract/recipe-lock.schema.js";
import { ProfileList } from "../../../contract/responses.schema.js";
import { type Api, route } from "../../api.js";
import { CliError, EXIT } from "../../errors.js";

/** Offline: every `--profile` parses ([ROLE=]NAME[:GPUS]). */
export function checkProfileSyntax(args: readonly string[]): void {
  if (args.length === 0) {
    throw new CliError("at least one --profile is required", {
      code: "INVALID_PROFILE",
      exit: EXIT.USAGE,
      hint: "e.g. --profile h200:1 (see GET /v1/profiles for what the server offers)",
    });
  }
  for (const a of args) {
    try {
      parseProfileArg(a);
    } catch (err) {
      if (err instanceof ProfileError) throw new CliError(err.message, { code: err.code, exit: EXIT.USAGE });
      throw err;
    }
  }
}

export async function fetchProfiles(api: Api): Promise<ProfileEntry[]> {
  return (await api.get(route("/v1/profiles"), ProfileList)).profiles;
}

export function expand(
  args: readonly string[],
  registry: ProfileEntry[],
): { pools: Pool[]; roles: Record<string, string> } {
  try {
    return expandProfiles(args, registry);
  } catch (err) {
    if (!(err instanceof ProfileError)) throw err;
    const known = registry
      .map((p) => `${p.name} (${p.gpus_per_node}/node, default ${p.default_gpus})`)
      .join(", ");
    throw new CliError(err.message, {
      code: err.code,
      exit: EXIT.REJECTED,
      hint: `profiles on this server: ${known || "(none)"}`,
    });
  }
}

export async function fetchCatalog(api: Api): Promise<Catalog> {
  return api.get(route("/v1/catalog"), Catalog);
}

/** The published recipe version the lock pins, or the same coded refusal admission would give. */
export function handshake(catalog: Catalog, lock: RecipeLock, experiment: string): RecipeVersion {
  const { name, version, digest } = lock.recipe;
  const upgrade = `run \`sf recipe upgrade ${experiment}\` to move it to what the server publishes`;
  const recipe = catalog.recipes.find((r) => r.name === name);
  if (!recipe) {
    throw new CliError(`method ${name} is not published on this server`, {
      code: "RECIPE_NOT_FOUND",
      exit: EXIT.REJECTED,
      hint: "see `sf methods` for what this server publishes",
    });
  }
  const published = recipe.versions.find((v) => v.version === version);
  if (!published) {
    throw new CliError(
      `${name}@${version} (pinned by recipe.lock.json) is not published; latest is ${recipe.latest}`,
      {
        code: "RECIPE_VERSION_NOT_FOUND",
        exit: EXIT.REJECTED,
        hint: upgrade,
      },
    );
  }
  if (published.digest !== digest) {
    throw new CliError(
      `recipe.lock.json pins ${name}@${version} at ${digest}, but the server publishes ${published.digest}`,
      {
        code: "RECIPE_LOCK_STALE",
        exit: EXIT.REJECTED,
        hint: upgrade,
      },
    );
  }
  const fw = lock.framework;
  const support = published.frameworks.find((f) => f.kind === fw.kind);
  if (!support?.versions.includes(fw.version) || support.runtime_id !== fw.runtime_id) {
    const offered = published.frameworks
      .map((f) => `${f.kind} ${f.versions.join("|")} (${f.runtime_id})`)
      .join(", ");
    throw new CliError(
      `${name}@${version} is not published for ${fw.kind} ${fw.version} (${fw.runtime_id}); it supports ${offered}`,
      {
        code: "FRAMEWORK_VERSION_UNSUPPORTED",
        exit: EXIT.REJECTED,
        hint: `run \`sf recipe upgrade ${experiment} --framework-version <version>\``,
      },
    );
  }
  return published;
}
