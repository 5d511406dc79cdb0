/**
 * The offline part of a submit: the lock is usable, `--set-grid` parses, and hyperparameters are typed
 * against the lock's params snapshot (by `sf validate`'s validateExperiment). Nothing here needs the
 * server, so a typo fails without one.
 */

import type { ParamValue } from "../../../contract/hyperparams.js";
import type { RecipeLock } from "../../../contract/recipe-lock.schema.js";
import { CliError, EXIT } from "../../errors.js";
import type { Experiment } from "../../project.js";
import { validateExperiment } from "../project/validate.js";

/** The lock, if it is well-formed and pins the method config.yaml asks for. */
export function requireLock(exp: Experiment): RecipeLock {
  const hint = `run \`sf recipe upgrade ${exp.name}\``;
  if (!exp.lock.ok) {
    throw new CliError(`${exp.relDir}/recipe.lock.json is unusable: ${exp.lock.problem}`, {
      code: "RECIPE_LOCK_MALFORMED",
      exit: EXIT.REJECTED,
      hint,
    });
  }
  const lock = exp.lock.value;
  if (lock.recipe.name !== exp.config.method) {
    throw new CliError(
      `config.yaml asks for method ${exp.config.method}, but recipe.lock.json pins ${lock.recipe.name}@${lock.recipe.version}`,
      { code: "RECIPE_LOCK_MISMATCH", exit: EXIT.REJECTED, hint },
    );
  }
  return lock;
}

/** `--set-grid k=v1,v2`: each key once, at least one value each. */
export function parseGrid(pairs: readonly string[]): Array<{ key: string; values: string[] }> {
  const grid: Array<{ key: string; values: string[] }> = [];
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0)
      throw new CliError(`--set-grid expects key=v1,v2,…, got "${pair}"`, {
        code: "USAGE",
        exit: EXIT.USAGE,
      });
    const key = pair.slice(0, eq).trim();
    const raw = pair.slice(eq + 1);
    if (grid.some((g) => g.key === key)) {
      throw new CliError(`--set-grid ${key} is given twice; list its values comma-separated`, {
        code: "USAGE",
        exit: EXIT.USAGE,
      });
    }
    const values = raw.split(",").map((v) => v.trim());
    if (values.some((v) => v === "")) {
      throw new CliError(`--set-grid ${key}=${raw}: empty value`, {
        code: "USAGE",
        exit: EXIT.USAGE,
        hint: "e.g. --set-grid learning_rate=0.05,0.1",
      });
    }
    grid.push({ key, values });
  }
  return grid;
}

/** config.yaml's hyperparameters overlaid with typed `--set` values (validate.ts does the typing), or every problem at once. */
export function resolveHyperparams(
  exp: Experiment,
  lock: RecipeLock,
  sets: Record<string, string>,
): Record<string, ParamValue> {
  const r = validateExperiment(exp, sets);
  if (!r.ok) {
    throw new CliError(
      `invalid hyperparameters for ${lock.recipe.name}@${lock.recipe.version}: ${r.issues.map((i) => `${i.source}: ${i.message}`).join("; ")}`,
      {
        code: "INVALID_HYPERPARAMS",
        exit: EXIT.REJECTED,
        hint: `see \`sf methods ${lock.recipe.name}\` for each parameter's type, range and default`,
        details: r.issues,
      },
    );
  }
  return r.hyperparams;
}
