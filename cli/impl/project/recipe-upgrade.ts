/**
 * `sf recipe upgrade`: moves locks to the catalog's latest version. Every experiment is planned and
 * validated against the new version first; only if all of them can move are the files written, in one
 * all-or-nothing write. A lock is never rewritten without printing what changed.
 */
import { join } from "node:path";
import type { Command } from "commander";
import type { Catalog, ParamSpec } from "../../../contract/catalog.schema.js";
import { canonicalJson } from "../../../contract/digest.js";
import { type ParamValue, validateHyperparams } from "../../../contract/hyperparams.js";
import type { RecipeLock } from "../../../contract/recipe-lock.schema.js";
import { CliError, EXIT } from "../../errors.js";
import { c, emit, info, print } from "../../output.js";
import {
  CONFIG_FILE,
  type Experiment,
  findProjectRoot,
  LOCK_FILE,
  readExperiment,
  writeFilesAtomically,
} from "../../project.js";
import {
  buildLock,
  chooseFramework,
  fetchCatalog,
  findRecipe,
  latestVersion,
  lockText,
  shortDigest,
  showFramework,
} from "./catalog.js";
import { addParamsToConfig } from "./config-text.js";
import { resolveTargets } from "./targets.js";

export interface UpgradeChange {
  field: "recipe" | "version" | "digest" | "framework" | "params";
  from: string | null;
  to: string;
}

export interface UpgradePlan {
  experiment: string;
  from: RecipeLock | null;
  to: RecipeLock;
  changes: UpgradeChange[];
  /** New hyperparameters added to config.yaml with their defaults. */
  added: Array<{ name: string; value: ParamValue }>;
  /** Absolute paths and contents to write; empty when the lock is already current. */
  files: Array<{ path: string; content: string }>;
}

/** Plans one experiment's upgrade; throws a CliError naming the experiment when it cannot move. */
export function planUpgrade(exp: Experiment, catalog: Catalog, frameworkVersion?: string): UpgradePlan {
  const rv = latestVersion(findRecipe(catalog, exp.config.method));
  const old = exp.lock.ok ? exp.lock.value : null;
  const framework = chooseFramework(
    rv,
    frameworkVersion,
    old?.recipe.name === rv.name ? old.framework : undefined,
  );
  const config = exp.config.hyperparams;
  const dropped = Object.keys(config).filter((k) => !Object.hasOwn(rv.params, k));
  if (dropped.length) {
    const what = dropped.length === 1 ? "hyperparameter" : "hyperparameters";
    throw new CliError(
      `${rv.name}@${rv.version} no longer has ${what} ${dropped.join(", ")}: remove ${dropped.length === 1 ? "it" : "them"} from ${exp.relDir}/${CONFIG_FILE} (known: ${Object.keys(rv.params).sort().join(", ") || "none"})`,
      { code: "PARAMS_REMOVED", exit: EXIT.REJECTED, hint: "then run `sf recipe upgrade` again" },
    );
  }
  // Only parameters the old version did not have are "new"; one the user left out on purpose keeps
  // meaning "the default" and is not written in.
  const isNew = (k: string) => old !== null && !Object.hasOwn(old.params, k);
  const added = Object.entries(rv.params)
    .filter(([k, spec]) => !Object.hasOwn(config, k) && isNew(k) && spec.default !== undefined)
    .map(([name, spec]) => ({ name, value: spec.default as ParamValue, spec: spec as ParamSpec }));
  const check = validateHyperparams(rv.params, {
    ...config,
    ...Object.fromEntries(added.map((a) => [a.name, a.value])),
  });
  if (!check.ok) {
    throw new CliError(
      `${exp.relDir}/${CONFIG_FILE} does not validate against ${rv.name}@${rv.version}: ${check.issues.map((i) => i.message).join("; ")}`,
      {
        code: "VALIDATION_FAILED",
        exit: EXIT.REJECTED,
        hint: `fix ${exp.relDir}/${CONFIG_FILE}, then upgrade again (see \`sf methods ${rv.name}\`)`,
      },
    );
  }
  const to = buildLock(rv, framework, catalog.digest);
  const changes: UpgradeChange[] = [];
  if (!old) changes.push({ field: "recipe", from: null, to: `${rv.name}@${rv.version}` });
  else {
    if (old.recipe.name !== rv.name) changes.push({ field: "recipe", from: old.recipe.name, to: rv.name });
    if (old.recipe.version !== rv.version)
      changes.push({ field: "version", from: old.recipe.version, to: rv.version });
    if (old.recipe.digest !== rv.digest)
      changes.push({ field: "digest", from: old.recipe.digest, to: rv.digest });
    if (showFramework(old.framework) !== showFramework(framework)) {
      changes.push({ field: "framework", from: showFramework(old.framework), to: showFramework(framework) });
    }
    if (
      canonicalJson([old.params, old.entrypoint]) !== canonicalJson([to.params, to.entrypoint]) &&
      changes.length === 0
    ) {
      changes.push({ field: "params", from: "snapshot differs", to: "published snapshot" });
    }
  }
  const plan = {
    experiment: exp.name,
    from: old,
    to,
    changes,
    added: added.map(({ name, value }) => ({ name, value })),
  };
  if (changes.length === 0 && added.length === 0) return { ...plan, files: [] };
  const files = [{ path: join(exp.dir, LOCK_FILE), content: lockText(to) }];
  if (added.length)
    files.push({
      path: join(exp.dir, CONFIG_FILE),
      content: addParamsToConfig(exp.configText, added, `${rv.name}@${rv.version}`),
    });
  return { ...plan, files };
}

function showPlan(p: UpgradePlan, dryRun: boolean): void {
  const to = `${p.to.recipe.name}@${p.to.recipe.version}`;
  if (p.files.length === 0) {
    print(`${p.experiment}: already current (${to} on ${showFramework(p.to.framework)})`);
    return;
  }
  const from = p.from ? `${p.from.recipe.name}@${p.from.recipe.version}` : "(malformed lock)";
  print(`${c.bold(p.experiment)}: ${from} → ${to}${dryRun ? c.dim("  (dry run)") : ""}`);
  const show = (field: string, v: string | null) =>
    v === null ? "-" : field === "digest" ? shortDigest(v) : v;
  for (const ch of p.changes)
    print(`  ${ch.field.padEnd(10)} ${show(ch.field, ch.from)} → ${show(ch.field, ch.to)}`);
  for (const a of p.added)
    print(
      `  ${c.green("+")} ${a.name} = ${JSON.stringify(a.value)}   (new hyperparameter, default added to ${CONFIG_FILE})`,
    );
}

export async function recipeUpgrade(
  cmd: Command,
  exp: string | undefined,
  o: { all?: boolean; dryRun?: boolean; frameworkVersion?: string },
): Promise<void> {
  const root = findProjectRoot();
  const names = resolveTargets(root, exp, o.all, false);
  const catalog = await fetchCatalog(cmd);
  const plans: UpgradePlan[] = [];
  const failures: Array<{ experiment: string; error: CliError }> = [];
  for (const name of names) {
    try {
      plans.push(planUpgrade(readExperiment(root, name), catalog, o.frameworkVersion));
    } catch (err) {
      if (!(err instanceof CliError) || names.length === 1) throw err;
      failures.push({ experiment: name, error: err });
    }
  }
  if (failures.length) {
    const lines = failures.map((f) => `  ${f.experiment}: ${f.error.message}`);
    throw new CliError(
      `cannot upgrade ${failures.map((f) => f.experiment).join(", ")}; nothing was written (--all is all-or-nothing):\n${lines.join("\n")}`,
      {
        code: "UPGRADE_FAILED",
        exit: EXIT.REJECTED,
        hint: "fix those experiments, or upgrade the others one by one",
      },
    );
  }
  const files = plans.flatMap((p) => p.files);
  if (!o.dryRun && files.length) writeFilesAtomically(files);
  const state = (p: UpgradePlan) =>
    p.files.length === 0 ? "current" : o.dryRun ? "would_upgrade" : "upgraded";
  emit(
    {
      dry_run: Boolean(o.dryRun),
      catalog_digest: catalog.digest,
      experiments: plans.map((p) => ({
        experiment: p.experiment,
        status: state(p),
        from: p.from ? { recipe: p.from.recipe, framework: p.from.framework } : null,
        to: { recipe: p.to.recipe, framework: p.to.framework },
        changes: p.changes,
        added: p.added,
        files: p.files.map((f) => f.path),
      })),
    },
    () => {
      for (const p of plans) showPlan(p, Boolean(o.dryRun));
      const moved = plans.filter((p) => p.files.length).length;
      if (moved === 0) return;
      if (o.dryRun)
        info(
          c.dim(
            `dry run: nothing written; run without --dry-run to upgrade ${moved} experiment${moved === 1 ? "" : "s"}`,
          ),
        );
      else
        info(
          `${c.green("✓")} upgraded ${moved} experiment${moved === 1 ? "" : "s"}; check with \`sf validate <exp>\``,
        );
    },
  );
}
