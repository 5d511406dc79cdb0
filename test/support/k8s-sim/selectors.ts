/**
 * Label and field selectors, parsed as the API server parses them (400 for what it would refuse).
 */
import { badRequest } from "./errors.js";
import type { Json, KubeObject, ResourceDef } from "./resources.js";

export type Predicate = (o: KubeObject) => boolean;

/** A label selector (`a=b`, `a!=b`, `a`, `!a`, `a in (x,y)`, `a notin (x)`, comma = AND). */
export function labelSelector(selector: string | undefined): Predicate {
  const requirements = splitOutsideParens(selector ?? "").map(requirement);
  return (o) => requirements.every((r) => r(o.metadata.labels ?? {}));
}

function splitOutsideParens(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of s) {
    if (ch === "," && depth === 0) {
      parts.push(cur);
      cur = "";
      continue;
    }
    if (ch === "(") depth += 1;
    if (ch === ")") depth -= 1;
    cur += ch;
  }
  return [...parts, cur].map((p) => p.trim()).filter(Boolean);
}

const KEY = "([A-Za-z0-9][-A-Za-z0-9_./]*)";

function requirement(raw: string): (labels: Record<string, string>) => boolean {
  const set = new RegExp(`^${KEY}\\s+(in|notin)\\s*\\(([^)]*)\\)$`).exec(raw);
  if (set) {
    const [, key = "", op, list = ""] = set;
    const values = list.split(",").map((v) => v.trim());
    return op === "in"
      ? (l) => l[key] !== undefined && values.includes(l[key])
      : (l) => l[key] === undefined || !values.includes(l[key]);
  }
  const eq = new RegExp(`^${KEY}\\s*(==|=|!=)\\s*([-A-Za-z0-9_.]*)$`).exec(raw);
  if (eq) {
    const [, key = "", op, value] = eq;
    return op === "!=" ? (l) => l[key] !== value : (l) => l[key] === value;
  }
  const absent = new RegExp(`^!${KEY}$`).exec(raw);
  if (absent) return (l) => l[absent[1] ?? ""] === undefined;
  const exists = new RegExp(`^${KEY}$`).exec(raw);
  if (exists) return (l) => l[exists[1] ?? ""] !== undefined;
  throw badRequest(`unable to parse requirement: ${raw}`);
}

/** A field selector (`f=v`, `f==v`, `f!=v`, comma = AND) over the fields this resource indexes. */
export function fieldSelector(d: ResourceDef, selector: string | undefined): Predicate {
  const terms = (selector ?? "")
    .split(",")
    .filter(Boolean)
    .map((t) => {
      const m = /^([\w.]+)\s*(==|=|!=)\s*(.*)$/.exec(t.trim());
      if (!m) throw badRequest(`invalid field selector: ${t}`);
      const [, field = "", op, value] = m;
      if (!["metadata.name", "metadata.namespace", ...d.fields].includes(field)) {
        throw badRequest(`field label not supported: ${field}`);
      }
      return { field, negate: op === "!=", value };
    });
  return (o) => terms.every((t) => (fieldValue(o, t.field) === t.value) !== t.negate);
}

function fieldValue(o: KubeObject, path: string): string {
  if (path === "source") return String((o.source as Json | undefined)?.component ?? "");
  let v: unknown = o;
  for (const part of path.split(".")) v = v && typeof v === "object" ? (v as Json)[part] : undefined;
  return v === undefined || v === null ? "" : String(v);
}
