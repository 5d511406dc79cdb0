/** Typed hyperparameter validation, shared by `sf validate` (offline) and admission (server). */
import type { ParamSpec } from "./catalog.schema.js";

export type ParamValue = string | number | boolean;

export interface ParamIssue {
  key: string;
  message: string;
}

export type HyperparamResult =
  | { ok: true; values: Record<string, ParamValue> }
  | { ok: false; issues: ParamIssue[] };

/**
 * Checks values against the recipe's typed params: unknown keys are rejected with the list of known
 * ones, types and ranges are enforced, defaults fill the rest. `coerceStrings` accepts CLI `--set k=v`
 * text and converts it to the declared type.
 */
export function validateHyperparams(
  specs: Record<string, ParamSpec>,
  values: Record<string, unknown>,
  opts: { coerceStrings?: boolean } = {},
): HyperparamResult {
  const issues: ParamIssue[] = [];
  const out: Record<string, ParamValue> = {};
  const known = Object.keys(specs).sort();
  // Own properties only: a key such as "constructor" must not resolve to Object.prototype.
  const specOf = (key: string): ParamSpec | undefined => (Object.hasOwn(specs, key) ? specs[key] : undefined);
  for (const [key, raw] of Object.entries(values)) {
    const spec = specOf(key);
    if (!spec) {
      issues.push({
        key,
        message: `unknown hyperparameter "${key}"; known: ${known.length ? known.join(", ") : "(none)"}`,
      });
      continue;
    }
    const checked = checkOne(key, spec, raw, opts.coerceStrings ?? false);
    if (typeof checked === "string") issues.push({ key, message: checked });
    else out[key] = checked.value;
  }
  for (const [key, spec] of Object.entries(specs)) {
    if (Object.hasOwn(out, key) || issues.some((i) => i.key === key)) continue;
    if (spec.default === undefined) issues.push({ key, message: `"${key}" is required (${spec.type})` });
    else out[key] = spec.default;
  }
  return issues.length ? { ok: false, issues } : { ok: true, values: out };
}

function checkOne(
  key: string,
  spec: ParamSpec,
  raw: unknown,
  coerce: boolean,
): { value: ParamValue } | string {
  switch (spec.type) {
    case "int":
    case "float": {
      const n = coerce && typeof raw === "string" && raw.trim() !== "" ? Number(raw) : raw;
      if (typeof n !== "number" || !Number.isFinite(n))
        return `"${key}" must be a ${spec.type}, got ${show(raw)}`;
      if (spec.type === "int" && !Number.isInteger(n)) return `"${key}" must be an integer, got ${show(raw)}`;
      if (spec.min !== undefined && n < spec.min) return `"${key}" must be >= ${spec.min}, got ${n}`;
      if (spec.max !== undefined && n > spec.max) return `"${key}" must be <= ${spec.max}, got ${n}`;
      return { value: n };
    }
    case "bool": {
      let b: unknown = raw;
      if (coerce && typeof raw === "string") b = raw === "true" ? true : raw === "false" ? false : raw;
      if (typeof b !== "boolean") return `"${key}" must be true or false, got ${show(raw)}`;
      return { value: b };
    }
    case "string": {
      if (typeof raw !== "string") return `"${key}" must be a string, got ${show(raw)}`;
      if (spec.choices && !spec.choices.includes(raw)) {
        return `"${key}" must be one of ${spec.choices.join(", ")}, got ${show(raw)}`;
      }
      return { value: raw };
    }
  }
}

function show(v: unknown): string {
  return typeof v === "string" ? JSON.stringify(v) : String(v);
}
