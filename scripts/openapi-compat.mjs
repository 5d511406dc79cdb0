#!/usr/bin/env node
// The breaking-change check (docs/api.md "The OpenAPI document"): compares contract/openapi.json with the
// document of the last release — the one tagged `v<version>` (git), kept beside it as
// contract/openapi.released.json so a clone without tags can still check — and fails when a client
// written against the release could break, unless the version was bumped as semver says (a new major, or
// a new minor while the major is 0).
//
// Breaking, as a client sees it:
// - a removed operation or webhook, a removed success status;
// - a request that the release accepted and this one refuses: a new required parameter, body or body
//   field, a parameter or body field that became required, a narrowed type (a type, enum value or format
//   dropped, a bound tightened, a pattern changed, unknown fields refused);
// - an answer a release client cannot read: a field that was always sent and now may not be, a type that
//   widened (a new type beside the old, null included). New fields and new enum values in answers are
//   not breaking (clients ignore what they do not know: docs/api.md), nor are new error codes.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];

/** Follows `$ref`s (local ones) until a schema that is not one. */
function deref(doc, schema) {
  let s = schema;
  const seen = new Set();
  while (s && typeof s === "object" && typeof s.$ref === "string" && !seen.has(s.$ref)) {
    seen.add(s.$ref);
    s = s.$ref
      .slice(2)
      .split("/")
      .reduce((o, k) => o?.[k.replaceAll("~1", "/").replaceAll("~0", "~")], doc);
  }
  return s ?? {};
}

/** The JSON types a schema admits; null for "anything". */
function typesOf(doc, raw) {
  const s = deref(doc, raw);
  if (s.const !== undefined)
    return new Set([s.const === null ? "null" : typeof s.const === "number" ? "number" : typeof s.const]);
  if (Array.isArray(s.enum)) {
    return new Set(
      s.enum.map((v) =>
        v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" ? "number" : typeof v,
      ),
    );
  }
  if (s.type)
    return new Set((Array.isArray(s.type) ? s.type : [s.type]).map((t) => (t === "integer" ? "number" : t)));
  for (const k of ["anyOf", "oneOf"]) {
    if (Array.isArray(s[k])) {
      const all = new Set();
      for (const m of s[k]) {
        const t = typesOf(doc, m);
        if (t === null) return null;
        for (const x of t) all.add(x);
      }
      return all;
    }
  }
  if (Array.isArray(s.allOf)) {
    for (const m of s.allOf) {
      const t = typesOf(doc, m);
      if (t !== null) return t;
    }
  }
  if (s.properties) return new Set(["object"]);
  return null;
}

/** Object properties and required names, merged over allOf. */
function objectOf(doc, raw) {
  const s = deref(doc, raw);
  const props = { ...(s.properties ?? {}) };
  const required = new Set(s.required ?? []);
  let closed = s.additionalProperties === false;
  for (const m of s.allOf ?? []) {
    const o = objectOf(doc, m);
    Object.assign(props, o.props);
    for (const r of o.required) required.add(r);
    closed ||= o.closed;
  }
  return { props, required, closed };
}

const fmt = (t) => (t === null ? "anything" : [...t].sort().join("|"));

/**
 * Breaking differences between two schemas at `where`. `side` is "request" (what a client sends: the new
 * schema must accept all the old one did) or "response" (what it reads: the new must send nothing the old
 * could not).
 */
function compareSchemas(oldDoc, newDoc, oldRaw, newRaw, where, side, out, seen = new Set()) {
  const key = `${JSON.stringify(oldRaw)}|${JSON.stringify(newRaw)}|${side}`;
  if (seen.has(key)) return;
  seen.add(key);
  const o = deref(oldDoc, oldRaw);
  const n = deref(newDoc, newRaw);
  const ot = typesOf(oldDoc, o);
  const nt = typesOf(newDoc, n);
  if (side === "request") {
    if (
      nt !== null &&
      (ot === null || [...ot].some((t) => !nt.has(t) && !(t === "number" && nt.has("number"))))
    ) {
      out.push(`${where}: accepts ${fmt(nt)}, the release accepted ${fmt(ot)}`);
    }
    if (Array.isArray(o.enum) && Array.isArray(n.enum)) {
      const gone = o.enum.filter((v) => !n.enum.some((w) => JSON.stringify(w) === JSON.stringify(v)));
      if (gone.length)
        out.push(`${where}: no longer accepts ${gone.map((v) => JSON.stringify(v)).join(", ")}`);
    } else if (!Array.isArray(o.enum) && Array.isArray(n.enum)) {
      out.push(`${where}: now accepts only ${n.enum.map((v) => JSON.stringify(v)).join(", ")}`);
    }
    for (const [k, tighter] of [
      ["maxLength", (a, b) => b < a],
      ["maximum", (a, b) => b < a],
      ["maxItems", (a, b) => b < a],
      ["minLength", (a, b) => b > a],
      ["minimum", (a, b) => b > a],
      ["minItems", (a, b) => b > a],
    ]) {
      if (n[k] !== undefined && (o[k] === undefined || tighter(o[k], n[k]))) {
        out.push(`${where}: ${k} ${o[k] ?? "none"} → ${n[k]}`);
      }
    }
    if (n.pattern !== undefined && n.pattern !== o.pattern)
      out.push(`${where}: pattern ${o.pattern ?? "none"} → ${n.pattern}`);
    if (n.format !== undefined && n.format !== o.format)
      out.push(`${where}: format ${o.format ?? "none"} → ${n.format}`);
  } else if (ot !== null && (nt === null || [...nt].some((t) => !ot.has(t)))) {
    out.push(`${where}: may now be ${fmt(nt)}, the release sent ${fmt(ot)}`);
  }
  const isObject = (t) => t === null || t.has("object");
  if (isObject(ot) && isObject(nt)) {
    const oo = objectOf(oldDoc, o);
    const no = objectOf(newDoc, n);
    if (side === "request") {
      if (no.closed && !oo.closed) out.push(`${where}: refuses fields it does not know`);
      for (const r of no.required) {
        if (!oo.required.has(r)) out.push(`${where}.${r}: required now`);
      }
      for (const [p, s] of Object.entries(oo.props)) {
        if (no.props[p]) compareSchemas(oldDoc, newDoc, s, no.props[p], `${where}.${p}`, side, out, seen);
        else if (no.closed) out.push(`${where}.${p}: no longer accepted`);
      }
    } else {
      for (const r of oo.required) {
        if (!no.required.has(r)) out.push(`${where}.${r}: no longer always sent`);
      }
      for (const [p, s] of Object.entries(oo.props)) {
        if (no.props[p]) compareSchemas(oldDoc, newDoc, s, no.props[p], `${where}.${p}`, side, out, seen);
      }
    }
  }
  const oi = o.items;
  const ni = n.items;
  if (oi && ni) compareSchemas(oldDoc, newDoc, oi, ni, `${where}[]`, side, out, seen);
}

function parametersOf(doc, op, pathItem) {
  const all = [...(pathItem.parameters ?? []), ...(op.parameters ?? [])].map((p) => deref(doc, p));
  return new Map(all.map((p) => [`${p.in} ${p.name}`, p]));
}

function jsonSchemaOf(content) {
  return content?.["application/json"]?.schema;
}

/** Every breaking change from `oldDoc` to `newDoc`, as sentences. */
export function breakingChanges(oldDoc, newDoc) {
  const out = [];
  for (const [path, oldItem] of Object.entries(oldDoc.paths ?? {})) {
    for (const m of METHODS) {
      const oldOp = oldItem[m];
      if (!oldOp) continue;
      const where = `${m.toUpperCase()} ${path}`;
      const newItem = newDoc.paths?.[path];
      const newOp = newItem?.[m];
      if (!newOp) {
        out.push(`${where}: removed`);
        continue;
      }
      const op = parametersOf(oldDoc, oldOp, oldItem);
      const np = parametersOf(newDoc, newOp, newItem);
      for (const [k, p] of np) {
        const before = op.get(k);
        if (p.required && !before) out.push(`${where}: new required parameter ${k}`);
        else if (p.required && !before.required) out.push(`${where}: parameter ${k} is required now`);
      }
      for (const [k, p] of op) {
        const after = np.get(k);
        if (after?.schema && p.schema)
          compareSchemas(oldDoc, newDoc, p.schema, after.schema, `${where} ${k}`, "request", out);
      }
      const ob = deref(oldDoc, oldOp.requestBody);
      const nb = deref(newDoc, newOp.requestBody);
      if (newOp.requestBody && nb.required && !(oldOp.requestBody && ob.required))
        out.push(`${where}: a body is required now`);
      const os = jsonSchemaOf(ob.content);
      const ns = jsonSchemaOf(nb.content);
      if (os && ns) compareSchemas(oldDoc, newDoc, os, ns, `${where} body`, "request", out);
      for (const [status, answer] of Object.entries(oldOp.responses ?? {})) {
        if (!/^2/.test(status)) continue;
        const now = newOp.responses?.[status];
        if (!now) {
          out.push(`${where}: no longer answers ${status}`);
          continue;
        }
        const oa = jsonSchemaOf(deref(oldDoc, answer).content);
        const na = jsonSchemaOf(deref(newDoc, now).content);
        if (oa && na) compareSchemas(oldDoc, newDoc, oa, na, `${where} ${status}`, "response", out);
      }
    }
  }
  for (const [name, hook] of Object.entries(oldDoc.webhooks ?? {})) {
    const now = newDoc.webhooks?.[name];
    if (!now?.post) {
      out.push(`webhook ${name}: removed`);
      continue;
    }
    const os = jsonSchemaOf(deref(oldDoc, hook.post?.requestBody).content);
    const ns = jsonSchemaOf(deref(newDoc, now.post.requestBody).content);
    // A receiver reads a delivery as a client reads an answer.
    if (os && ns) compareSchemas(oldDoc, newDoc, os, ns, `webhook ${name}`, "response", out);
  }
  return out;
}

/** Whether `next` is a version that may break `prev`'s clients (semver: major, or minor below 1.0). */
export function bumpAllowsBreaking(prev, next) {
  const [pa, pb] = prev.split(".").map(Number);
  const [na, nb] = next.split(".").map(Number);
  if (na !== pa) return na > pa;
  return pa === 0 && nb > pb;
}

function git(args) {
  // A document is over a megabyte: past execFileSync's default output buffer.
  return execFileSync("git", args, {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 256 * 1024 * 1024,
  });
}

/** The last release's document: the tag's, checked against the committed copy; the copy alone without tags. */
export function releasedDocument() {
  const copyPath = join(root, "contract", "openapi.released.json");
  const copy = existsSync(copyPath) ? readFileSync(copyPath, "utf8") : null;
  let tag = null;
  try {
    tag = git(["describe", "--tags", "--abbrev=0", "--match", "v[0-9]*"]).trim();
  } catch {}
  if (tag) {
    let tagged;
    try {
      tagged = git(["show", `${tag}:contract/openapi.json`]);
    } catch (err) {
      throw new Error(`cannot read contract/openapi.json of release ${tag}: ${err.message.split("\n")[0]}`);
    }
    if (copy !== null && JSON.stringify(JSON.parse(copy)) !== JSON.stringify(JSON.parse(tagged))) {
      throw new Error(
        `contract/openapi.released.json is not the document of ${tag}: restore it from the tag`,
      );
    }
    return { from: tag, doc: JSON.parse(tagged) };
  }
  if (copy === null)
    throw new Error("no release to compare with: no v* tag and no contract/openapi.released.json");
  return { from: "contract/openapi.released.json (no release tag in this clone)", doc: JSON.parse(copy) };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const current = JSON.parse(readFileSync(join(root, "contract", "openapi.json"), "utf8"));
  let released;
  try {
    released = releasedDocument();
  } catch (err) {
    console.error(`openapi compat: ${err.message}`);
    process.exit(1);
  }
  const changes = breakingChanges(released.doc, current);
  const prev = released.doc.info.version;
  const next = current.info.version;
  if (changes.length === 0) {
    console.log(`openapi compat: no breaking change since ${released.from} (${prev} → ${next})`);
  } else if (bumpAllowsBreaking(prev, next)) {
    console.log(
      `openapi compat: ${changes.length} breaking change(s) since ${released.from}, allowed by ${prev} → ${next}`,
    );
  } else {
    console.error(
      `openapi compat: ${changes.length} breaking change(s) since ${released.from} (version ${prev} → ${next}):`,
    );
    for (const c of changes) console.error(`  - ${c}`);
    console.error(
      "Keep the old shape, or bump the version (a new major; a new minor while it is 0.x) for a release.",
    );
    process.exit(1);
  }
}
