/**
 * What the Cloudflare scripts (setup-cloudflare, deploy, check-bundle) share about wrangler.toml's deployed
 * environments ([env.staging], [env.production]): reading the file with wrangler's own parser, checking that
 * each environment repeats what wrangler does not inherit, editing values in place without re-serialising the
 * file (its comments and order stay), running wrangler, and one way of failing with a stable code.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { experimental_readRawConfig } from "wrangler";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** What wrangler.toml holds until `npm run setup:cloudflare` has written an environment's real values. */
export const PLACEHOLDER_DATABASE_ID = "00000000-0000-0000-0000-000000000000";
/** SF_PUBLIC_URL placeholders use the reserved `.invalid` TLD (RFC 6761), so they can never resolve. */
export const isPlaceholderUrl = (url) => {
  try {
    return new URL(url).hostname.endsWith(".invalid");
  } catch {
    return true;
  }
};

/** A refusal with a stable code; the message says what to do. Scripts print it once and exit non-zero. */
export class ScriptError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** Prints `<script>: error <CODE>: <message>` and exits (2 for a refused input, 1 otherwise). */
export function exitWith(script, err) {
  if (err instanceof ScriptError) {
    console.error(`${script}: error ${err.code}: ${err.message}`);
    process.exit(err.code.startsWith("BAD_") || err.code === "ENV_UNKNOWN" ? 2 : 1);
  }
  console.error(`${script}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(1);
}

export function readRaw(configPath) {
  try {
    return experimental_readRawConfig({ config: configPath }).rawConfig;
  } catch (err) {
    throw new ScriptError("CONFIG_INVALID", `${configPath} does not parse: ${err.message}`);
  }
}

/** The deployed environments, in file order. */
export const envNames = (raw) => Object.keys(raw.env ?? {});

export function requireEnv(raw, name, configPath) {
  const names = envNames(raw);
  if (!name) throw new ScriptError("BAD_ARGUMENT", `--env is required: one of ${names.join(", ")}`);
  const env = raw.env?.[name];
  if (!env) {
    throw new ScriptError(
      "ENV_UNKNOWN",
      `${configPath} has no [env.${name}]; the deployed environments are ${names.join(", ") || "(none)"}`,
    );
  }
  return env;
}

const sameSet = (a, b) => a.length === b.length && a.every((x) => b.includes(x));

/**
 * What each environment misses of the top level. wrangler does not inherit `vars` or bindings into
 * [env.*] (it only warns when a whole table is absent, never for one missing key), so a variable added at
 * the top level and forgotten in production would silently take its code default there. DO `migrations`
 * ARE inherited (wrangler 4.86 `inheritable("migrations")`): the one append-only list stays at the top.
 * Names that Cloudflare scopes to the account must differ between environments: D1 databases, R2
 * buckets and ratelimit namespace_ids (two environments sharing one would share their counters).
 */
export function envProblems(raw) {
  const problems = [];
  const top = raw;
  const seen = { db: new Map(), bucket: new Map(), ns: new Map() };
  const claim = (kind, value, env, what) => {
    const other = seen[kind].get(value);
    if (other) problems.push(`[env.${env}] ${what} "${value}" is also used by [env.${other}]`);
    else seen[kind].set(value, env);
  };
  for (const name of envNames(raw)) {
    const env = raw.env[name];
    const where = `[env.${name}]`;
    for (const key of Object.keys(top.vars ?? {})) {
      if (!(key in (env.vars ?? {}))) problems.push(`${where} vars lack ${key} (set at the top level)`);
    }
    const d1 = (x) => (x.d1_databases ?? []).map((d) => `${d.binding} (migrations_dir ${d.migrations_dir})`);
    if (!sameSet(d1(top), d1(env))) {
      problems.push(
        `${where} d1_databases ${d1(env).join(", ") || "none"} ≠ top level ${d1(top).join(", ")}`,
      );
    }
    const r2 = (x) => (x.r2_buckets ?? []).map((b) => b.binding);
    if (!sameSet(r2(top), r2(env))) {
      problems.push(`${where} r2_buckets ${r2(env).join(", ") || "none"} ≠ top level ${r2(top).join(", ")}`);
    }
    const dos = (x) => (x.durable_objects?.bindings ?? []).map((b) => `${b.name}=${b.class_name}`);
    if (!sameSet(dos(top), dos(env))) {
      problems.push(
        `${where} durable_objects ${dos(env).join(", ") || "none"} ≠ top level ${dos(top).join(", ")}`,
      );
    }
    const rl = (x) => (x.ratelimits ?? []).map((r) => `${r.name} ${r.simple?.limit}/${r.simple?.period}s`);
    if (!sameSet(rl(top), rl(env))) {
      problems.push(`${where} ratelimits ${rl(env).join(", ") || "none"} ≠ top level ${rl(top).join(", ")}`);
    }
    if (env.migrations !== undefined) {
      problems.push(`${where} declares its own DO migrations; they are inherited from the top level`);
    }
    for (const d of env.d1_databases ?? []) claim("db", d.database_name, name, "D1 database_name");
    for (const b of env.r2_buckets ?? []) claim("bucket", b.bucket_name, name, "R2 bucket_name");
    for (const r of env.ratelimits ?? []) claim("ns", String(r.namespace_id), name, "ratelimit namespace_id");
  }
  return problems;
}

export function assertEnvParity(raw, configPath) {
  const problems = envProblems(raw);
  if (problems.length > 0) {
    throw new ScriptError(
      "ENV_INCOMPLETE",
      `${configPath}: every deployed environment must repeat the top level's vars and bindings:\n  ${problems.join("\n  ")}`,
    );
  }
}

/** Why this environment cannot be deployed yet (empty when it can). */
export function notSetUp(env) {
  const why = [];
  for (const d of env.d1_databases ?? []) {
    if (!d.database_id || d.database_id === PLACEHOLDER_DATABASE_ID) {
      why.push(`D1 ${d.binding} database_id is the placeholder`);
    }
  }
  if (isPlaceholderUrl(env.vars?.SF_PUBLIC_URL)) {
    why.push(`SF_PUBLIC_URL is the placeholder ${env.vars?.SF_PUBLIC_URL}`);
  }
  return why;
}

// ---------------------------------------------------------------------------------------------------
// wrangler.toml, edited as text: only the lines that change are touched.

const HEADER = /^\s*(\[\[?)\s*([A-Za-z0-9_.-]+)\s*\]\]?\s*(#.*)?$/;

/** Every table of the file: its name, whether it is an array table, and its line range (header excluded). */
function tables(lines) {
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const m = HEADER.exec(lines[i]);
    if (!m) continue;
    if (out.length > 0) out[out.length - 1].end = i;
    out.push({ name: m[2], array: m[1] === "[[", header: i, end: lines.length });
  }
  return out;
}

/** Where a single-line value ends (strings and arrays may hold `#`); the rest is a comment. */
function valueEnd(s) {
  let inString = false;
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "[" || c === "{") depth++;
    else if (c === "]" || c === "}") depth--;
    else if (c === "#" && depth === 0) return i;
  }
  if (inString || depth !== 0) return -1;
  return s.length;
}

function findKey(lines, table, key) {
  const re = new RegExp(`^(\\s*)${key}(\\s*=\\s*)(.*)$`);
  for (let i = table.header + 1; i < table.end; i++) {
    const m = re.exec(lines[i]);
    if (m) return { line: i, indent: m[1], eq: m[2], rest: m[3] };
  }
  return null;
}

/**
 * Sets `key = literal` in one table: `[name]`, or the `[[name]]` block whose `matchKey` has `matchValue`.
 * A key the table lacks is added right after its header. Returns the new text.
 */
export function setTomlValue(text, { table, key, literal, match }) {
  const lines = text.split("\n");
  const candidates = tables(lines).filter((t) => t.name === table);
  const target = match
    ? candidates.find((t) => findKey(lines, t, match.key)?.rest.startsWith(JSON.stringify(match.value)))
    : candidates.find((t) => !t.array);
  if (!target) {
    const which = match ? `[[${table}]] with ${match.key} = "${match.value}"` : `[${table}]`;
    throw new ScriptError("CONFIG_INVALID", `wrangler.toml has no ${which}`);
  }
  const found = findKey(lines, target, key);
  if (!found) {
    lines.splice(target.header + 1, 0, `${key} = ${literal}`);
    return lines.join("\n");
  }
  const end = valueEnd(found.rest);
  if (end < 0) {
    throw new ScriptError(
      "CONFIG_INVALID",
      `wrangler.toml [${table}] ${key} spans several lines; put it on one line or edit it by hand`,
    );
  }
  const comment = found.rest.slice(end).trimEnd();
  lines[found.line] = `${found.indent}${key}${found.eq}${literal}${comment ? ` ${comment.trimStart()}` : ""}`;
  return lines.join("\n");
}

/** Parses TOML text with wrangler's own reader (through a scratch file), so an edit is checked before it lands. */
export function parseTomlText(text) {
  const dir = mkdtempSync(join(tmpdir(), "sf-wrangler-toml-"));
  try {
    const file = join(dir, "wrangler.toml");
    writeFileSync(file, text);
    return readRaw(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------
// wrangler itself

/** The `wrangler` on PATH (npm run puts node_modules/.bin first; tests put a fake first), else ours. */
export function wranglerBin() {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, "wrangler");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return localWrangler();
}

/** The wrangler this repository pins, whatever PATH holds: for local work (bundling, local D1). */
export const localWrangler = () => join(ROOT, "node_modules", ".bin", "wrangler");

/**
 * Runs wrangler to completion; metrics off, never interactive (CI=true answers its prompts). Account work
 * uses the `wrangler` on PATH; `local: true` the pinned one.
 */
export function wrangler(args, { input, cwd = ROOT, env = {}, local = false, inherit = false } = {}) {
  const r = spawnSync(local ? localWrangler() : wranglerBin(), args, {
    cwd,
    input,
    stdio: inherit ? "inherit" : "pipe",
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true", ...env },
  });
  return { code: r.status ?? 1, stdout: r.stdout ?? "", stderr: r.stderr ?? "", error: r.error };
}

/** Strips terminal colours (wrangler colours its tables even into a pipe at times). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escapes is the point
export const plain = (s) => s.replace(/\u001b\[[0-9;]*m/g, "");

/** Parses the JSON wrangler printed, skipping any banner line before it. */
export function parseJsonOutput(stdout) {
  const text = plain(stdout);
  const start = text.search(/^[[{]/m);
  if (start < 0) throw new Error("no JSON in wrangler's output");
  return JSON.parse(text.slice(start));
}
