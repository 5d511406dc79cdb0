/**
 * `sf validate EXP`: everything that can be checked without a server. The lock carries a snapshot of
 * the recipe's typed params, so hyperparameters are typed and ranged offline; the server's catalog
 * handshake at submit catches any drift. `validateExperiment` is also the first step of `sf submit`.
 */
import type { Command } from "commander";
import { type ParamValue, validateHyperparams } from "../../../contract/hyperparams.js";
import type { RecipeLock } from "../../../contract/recipe-lock.schema.js";
import { CliError, EXIT } from "../../errors.js";
import { c, emit, info, isJson, print } from "../../output.js";
import { CONFIG_FILE, type Experiment, findProjectRoot, LOCK_FILE, readExperiment } from "../../project.js";
import { showFramework } from "./catalog.js";

export interface ValidationIssue {
  /** Where it comes from: config.yaml, recipe.lock.json or --set. */
  source: string;
  key?: string;
  message: string;
}

export interface ValidationResult {
  ok: boolean;
  experiment: string;
  method: string;
  recipe: RecipeLock["recipe"] | null;
  framework: RecipeLock["framework"] | null;
  /** The hyperparameters a submit sends: config values, then --set overrides, then defaults. */
  hyperparams: Record<string, ParamValue>;
  issues: ValidationIssue[];
}

/** Parses repeated `--set key=value` flags (values stay strings; validation coerces them). */
export function parseSets(pairs: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs) {
    const eq = p.indexOf("=");
    if (eq <= 0) {
      throw new CliError(`--set expects key=value, got "${p}"`, {
        code: "USAGE",
        exit: EXIT.USAGE,
        hint: "e.g. --set learning_rate=0.05",
      });
    }
    out[p.slice(0, eq).trim()] = p.slice(eq + 1);
  }
  return out;
}

/** Validates an experiment (already read, so its config.yaml parsed) plus `--set` overrides, offline. */
export function validateExperiment(exp: Experiment, sets: Record<string, string> = {}): ValidationResult {
  const issues: ValidationIssue[] = [];
  const base = { experiment: exp.name, method: exp.config.method };
  if (!exp.lock.ok) {
    issues.push({
      source: LOCK_FILE,
      message: `${exp.lock.problem}; re-lock with \`sf recipe upgrade ${exp.name}\``,
    });
    return { ...base, ok: false, recipe: null, framework: null, hyperparams: {}, issues };
  }
  const lock = exp.lock.value;
  if (lock.recipe.name !== exp.config.method) {
    issues.push({
      source: CONFIG_FILE,
      key: "method",
      message: `method is ${exp.config.method} but ${LOCK_FILE} pins ${lock.recipe.name}; re-lock with \`sf recipe upgrade ${exp.name}\``,
    });
  }
  const params = lock.params;
  const known = Object.keys(params).sort();
  // --set values are text: coerce each against its own spec so an issue names the flag, not the config.
  const overrides: Record<string, ParamValue> = {};
  const badSets = new Set<string>();
  for (const [key, raw] of Object.entries(sets)) {
    const spec = Object.hasOwn(params, key) ? params[key] : undefined;
    if (!spec) {
      badSets.add(key);
      issues.push({
        source: "--set",
        key,
        message: `unknown hyperparameter "${key}"; known: ${known.length ? known.join(", ") : "(none)"}`,
      });
      continue;
    }
    const r = validateHyperparams({ [key]: spec }, { [key]: raw }, { coerceStrings: true });
    if (r.ok) overrides[key] = r.values[key]!;
    else {
      badSets.add(key);
      for (const i of r.issues) issues.push({ source: "--set", key, message: i.message });
    }
  }
  const merged: Record<string, unknown> = { ...exp.config.hyperparams, ...overrides };
  for (const k of badSets) delete merged[k];
  const r = validateHyperparams(params, merged);
  for (const i of r.ok ? [] : r.issues) {
    if (badSets.has(i.key)) continue;
    issues.push({
      source: Object.hasOwn(overrides, i.key) ? "--set" : CONFIG_FILE,
      key: i.key,
      message: i.message,
    });
  }
  return {
    ...base,
    ok: issues.length === 0,
    recipe: lock.recipe,
    framework: lock.framework,
    hyperparams: r.ok ? r.values : {},
    issues,
  };
}

export async function validate(_cmd: Command, name: string, o: { set?: string[] }): Promise<void> {
  const sets = parseSets(o.set);
  const exp = readExperiment(findProjectRoot(), name);
  const result = validateExperiment(exp, sets);
  if (!result.ok) {
    for (const i of result.issues) info(`${c.red("✗")} ${c.dim(`${i.source}:`)} ${i.message}`);
    const n = result.issues.length;
    const summary = `${name} failed validation (${n} problem${n === 1 ? "" : "s"})`;
    // With --json nothing above was printed: the error message is the only place the problems appear.
    throw new CliError(
      isJson() ? `${summary}: ${result.issues.map((i) => `${i.source}: ${i.message}`).join("; ")}` : summary,
      {
        code: "VALIDATION_FAILED",
        exit: EXIT.REJECTED,
        hint: "fix config.yaml (or the --set flags) and run `sf validate` again",
        details: result,
      },
    );
  }
  emit(result, () => {
    const r = result.recipe!;
    print(`${c.green("✓")} ${name}: ${r.name}@${r.version} on ${showFramework(result.framework)}`);
    for (const [k, v] of Object.entries(result.hyperparams)) print(`  ${k} = ${JSON.stringify(v)}`);
  });
}
