/**
 * `sf recipe status`: offline, whether each lock is well-formed; with `--online`, how it compares with
 * the published catalog (current / recipe_stale / runtime_removed / malformed) and what differs.
 */
import type { Command } from "commander";
import type { Catalog } from "../../../contract/catalog.schema.js";
import type { LockStatus } from "../../../contract/recipe-lock.schema.js";
import { CliError, EXIT } from "../../errors.js";
import { c, emit, info, print, table } from "../../output.js";
import { findProjectRoot, readExperiment } from "../../project.js";
import { fetchCatalog, shortDigest } from "./catalog.js";
import { compareLock, type LockDiff } from "./lock-status.js";
import { resolveTargets } from "./targets.js";

export interface StatusRow {
  experiment: string;
  recipe: string | null;
  framework: string | null;
  /** `ok` only offline: the lock is well-formed, but nothing was compared. */
  status: LockStatus | "ok";
  reason: string;
  diffs: LockDiff[];
}

export function statusRow(root: string, name: string, catalog: Catalog | null): StatusRow {
  const row = { experiment: name, recipe: null, framework: null, diffs: [] };
  let exp: ReturnType<typeof readExperiment>;
  try {
    exp = readExperiment(root, name);
  } catch (err) {
    if (!(err instanceof CliError) || err.exit === EXIT.NOT_FOUND || err.exit === EXIT.USAGE) throw err;
    return { ...row, status: "malformed", reason: err.message };
  }
  if (!exp.lock.ok) return { ...row, status: "malformed", reason: exp.lock.problem };
  const lock = exp.lock.value;
  const base = {
    ...row,
    recipe: `${lock.recipe.name}@${lock.recipe.version}`,
    framework: `${lock.framework.kind} ${lock.framework.version}`,
  };
  if (!catalog) return { ...base, status: "ok", reason: "well-formed (not compared with the server)" };
  return { ...base, ...compareLock(lock, catalog) };
}

export function showValue(field: LockDiff["field"], v: string | null): string {
  if (v === null) return "(not published)";
  return field === "digest" ? shortDigest(v) : v;
}

/**
 * The issue's `--server` switch cannot exist here: the global `--server <url>` owns that flag on every
 * command. So the switch is `--online`, and naming a server on the command line implies it.
 */
function online(cmd: Command, o: { online?: boolean }): boolean {
  return Boolean(o.online) || cmd.getOptionValueSourceWithGlobals("server") === "cli";
}

export async function recipeStatus(
  cmd: Command,
  exp: string | undefined,
  o: { all?: boolean; online?: boolean; check?: boolean },
): Promise<void> {
  const root = findProjectRoot();
  const names = resolveTargets(root, exp, o.all, true);
  const catalog = online(cmd, o) ? await fetchCatalog(cmd) : null;
  const rows = names.map((n) => statusRow(root, n, catalog));
  const good = (s: StatusRow["status"]) => s === "ok" || s === "current";
  emit(
    { mode: catalog ? "online" : "offline", catalog_digest: catalog?.digest ?? null, experiments: rows },
    () => {
      const paint = (s: StatusRow["status"]) =>
        good(s) ? c.green(s) : s === "recipe_stale" ? c.yellow(s) : c.red(s);
      table(
        rows.map((r) => ({
          experiment: r.experiment,
          recipe: r.recipe,
          framework: r.framework,
          status: paint(r.status),
        })),
        ["experiment", "recipe", "framework", "status"],
      );
      for (const r of rows.filter((x) => !good(x.status))) {
        print("");
        print(`${c.bold(r.experiment)}: ${r.status}: ${r.reason}`);
        for (const d of r.diffs)
          print(`  ${d.field.padEnd(10)} ${showValue(d.field, d.locked)} → ${showValue(d.field, d.catalog)}`);
        print(
          c.dim(
            `  fix: sf recipe upgrade ${r.experiment}${r.status === "malformed" ? "   (re-locks from config.yaml's method)" : ""}`,
          ),
        );
      }
      if (!catalog)
        info(c.dim("offline check only; add --online to compare the locks with the server's catalog"));
    },
  );
  if (o.check && !rows.every((r) => good(r.status))) process.exitCode = EXIT.REJECTED;
}
