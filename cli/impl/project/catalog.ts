/**
 * The server's recipe catalog as the project commands see it: fetched once, parsed with the contract's
 * schema (the server is a boundary too), and the small choices every command makes the same way:
 * which recipe, which version (the latest), which framework runtime, and what a lock pins.
 */
import type { Command } from "commander";
import {
  Catalog,
  type FrameworkSupport,
  type ParamSpec,
  RECIPE_NAME_RE,
  type RecipeVersion,
} from "../../../contract/catalog.schema.js";
import type { RecipeLock } from "../../../contract/recipe-lock.schema.js";
import { route } from "../../api.js";
import { authedApi } from "../../context.js";
import { CliError, EXIT } from "../../errors.js";
import { withSpinner } from "../../output.js";

export type CatalogRecipe = Catalog["recipes"][number];
export type LockedFramework = RecipeLock["framework"];

export async function fetchCatalog(cmd: Command): Promise<Catalog> {
  const api = authedApi(cmd);
  return withSpinner("reading the catalog", () => api.get(route("/v1/catalog"), Catalog));
}

export function checkMethodName(method: string): void {
  if (!RECIPE_NAME_RE.test(method)) {
    throw new CliError(`"${method}" is not a method name`, {
      code: "BAD_METHOD",
      exit: EXIT.USAGE,
      hint: "methods look like framework/method, e.g. python/charlm; see `sf methods`",
    });
  }
}

export function findRecipe(catalog: Catalog, method: string): CatalogRecipe {
  const recipe = catalog.recipes.find((r) => r.name === method);
  if (!recipe) {
    const known = catalog.recipes.map((r) => r.name);
    throw new CliError(`no method "${method}" is published on this server`, {
      code: "RECIPE_NOT_FOUND",
      exit: EXIT.NOT_FOUND,
      hint: known.length
        ? `known methods: ${known.join(", ")} (see \`sf methods\`)`
        : "this server publishes no methods yet",
    });
  }
  return recipe;
}

export function latestVersion(recipe: CatalogRecipe): RecipeVersion {
  const v =
    recipe.versions.find((x) => x.version === recipe.latest) ?? recipe.versions[recipe.versions.length - 1];
  if (!v)
    throw new CliError(`${recipe.name} has no published versions`, {
      code: "RECIPE_NOT_FOUND",
      exit: EXIT.NOT_FOUND,
    });
  return v;
}

/** Every (kind, version) a recipe version runs on, in catalog order. */
export function frameworkChoices(rv: RecipeVersion): LockedFramework[] {
  return rv.frameworks.flatMap((f) =>
    f.versions.map((version) => ({ kind: f.kind, version, runtime_id: f.runtime_id })),
  );
}

export function showFramework(f: LockedFramework | null | undefined): string {
  return f ? `${f.kind} ${f.version} (${f.runtime_id})` : "-";
}

/**
 * The framework runtime to lock: `--framework-version` must be listed; otherwise `keep` (the current
 * lock's) when the version still supports it, else the first framework's last listed version.
 */
export function chooseFramework(
  rv: RecipeVersion,
  wanted: string | undefined,
  keep?: LockedFramework,
): LockedFramework {
  const choices = frameworkChoices(rv);
  if (wanted !== undefined) {
    const hit =
      choices.find((f) => f.version === wanted && f.kind === keep?.kind) ??
      choices.find((f) => f.version === wanted);
    if (!hit) {
      throw new CliError(`${rv.name}@${rv.version} does not support framework version "${wanted}"`, {
        code: "FRAMEWORK_VERSION_UNSUPPORTED",
        exit: EXIT.REJECTED,
        hint: `supported: ${choices.map((f) => `${f.kind} ${f.version}`).join(", ")}`,
      });
    }
    return hit;
  }
  if (keep) {
    const same = choices.find(
      (f) => f.kind === keep.kind && f.version === keep.version && f.runtime_id === keep.runtime_id,
    );
    if (same) return same;
  }
  const first: FrameworkSupport = rv.frameworks[0]!;
  return {
    kind: first.kind,
    version: first.versions[first.versions.length - 1]!,
    runtime_id: first.runtime_id,
  };
}

export function buildLock(rv: RecipeVersion, framework: LockedFramework, catalogDigest: string): RecipeLock {
  return {
    lock_version: 1,
    recipe: { name: rv.name, version: rv.version, digest: rv.digest },
    framework,
    catalog_digest: catalogDigest,
    locked_at: new Date().toISOString(),
    params: rv.params,
    entrypoint: rv.entrypoint,
  };
}

export function lockText(lock: RecipeLock): string {
  return `${JSON.stringify(lock, null, 2)}\n`;
}

/** "float, 1e-06..10, default 0.1": the one-line description `sf methods` and config comments share. */
export function describeParam(spec: ParamSpec): string {
  const parts: string[] = [spec.type];
  const range = rangeOf(spec);
  if (range) parts.push(range);
  parts.push(spec.default === undefined ? "required" : `default ${JSON.stringify(spec.default)}`);
  return parts.join(", ");
}

export function rangeOf(spec: ParamSpec): string {
  if (spec.type === "int" || spec.type === "float") {
    if (spec.min !== undefined && spec.max !== undefined) return `${spec.min}..${spec.max}`;
    if (spec.min !== undefined) return `>= ${spec.min}`;
    if (spec.max !== undefined) return `<= ${spec.max}`;
    return "";
  }
  if (spec.type === "string" && spec.choices) return `one of ${spec.choices.join("|")}`;
  return "";
}

export function shortDigest(d: string | null | undefined): string {
  return d ? `${d.slice(0, 19)}…` : "-";
}
