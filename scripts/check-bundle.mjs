#!/usr/bin/env node
// `npm run check:bundle [-- --env NAME ...]`: builds the Worker exactly as `wrangler deploy` would, for each
// deployed environment of wrangler.toml, with no account and no network (`wrangler deploy --dry-run --outdir
// --env X --metafile`), and checks what Cloudflare would refuse or what would break at run time:
//   1. every [env.*] repeats the top level's vars and bindings (wrangler inherits neither; scripts/wrangler-envs.mjs)
//   2. size: uncompressed against the platform limit, gzip against our own budget (numbers and sources below)
//   3. imports: only cloudflare:* and the node: modules of NODE_ALLOWED; nothing left unresolved
//   4. start-up: the bundle loaded in real workerd (Miniflare, the environment's bindings simulated locally,
//      D1 migrated) must answer GET /v1/health 200, and its start-up must stay under the platform's limit
// Exits 0 when every environment passes, else 1 with one `error CODE:` line per failure.
// Options: --env NAME (repeatable; default every [env.*]), --config PATH (default wrangler.toml),
// --startup-limit-ms N (default the platform's 1000), --keep DIR (leave the bundles there).
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import {
  assertEnvParity,
  envNames,
  exitWith,
  readRaw,
  requireEnv,
  ScriptError,
  wrangler,
} from "./wrangler-envs.mjs";

const SCRIPT = "check-bundle";
const MiB = 1024 * 1024;

/**
 * Cloudflare's limits, checked 2026-12-02 (docs/deploy.md cites them):
 * - Worker size: 64 MiB uncompressed on every plan. The compressed limits (3 MB Free, 10 MB Paid) were
 *   removed on 2026-09-04 (developers.cloudflare.com/changelog/post/2026-09-04-increased-worker-size-limit,
 *   cloudflare/workers-sdk#14001).
 * - Start-up: 1 s to parse the script and run its global scope (changelog 2025-10-10; 400 ms before).
 * GZIP_BUDGET is ours, not the platform's: the former Free-plan limit, kept because download and parse
 * time grow with the bundle, and a jump past it means something large slipped into the Worker.
 */
export const PLATFORM_SIZE_LIMIT = 64 * MiB;
export const GZIP_BUDGET = 3 * MiB;
export const STARTUP_LIMIT_MS = 1000;

/**
 * The node: modules the Worker may import. At our compatibility_date (2026-04-20) with nodejs_compat,
 * workerd exports nearly every node: module, but several only as stubs whose functions throw
 * (child_process, worker_threads, cluster, …) or as something else than on Node (fs is an in-memory file
 * system, net/tls/dns reach the network only through Cloudflare's sockets). These are the ones that behave
 * as on Node; an import of any other means Node-only code reached the Worker. test/unit/wrangler-envs.test.ts
 * checks each one is native in workerd at our date (wrangler's unenv preset).
 */
export const NODE_ALLOWED = [
  "assert",
  "assert/strict",
  "async_hooks",
  "buffer",
  "crypto",
  "diagnostics_channel",
  "events",
  "path",
  "path/posix",
  "path/win32",
  "querystring",
  "stream",
  "stream/consumers",
  "stream/promises",
  "stream/web",
  "string_decoder",
  "timers",
  "timers/promises",
  "url",
  "util",
  "util/types",
  "zlib",
];

const NODE_BUILTINS = new Set(builtinModules);
/** `node:x` or a bare builtin name → "x"; anything else → null. */
export function nodeModuleName(spec) {
  if (spec.startsWith("node:")) return spec.slice(5);
  return NODE_BUILTINS.has(spec) ? spec : null;
}

/** Problems with what the bundle imports, from esbuild's metafile (the importing file named). */
export function importProblems(meta, root) {
  const problems = [];
  const external = new Set();
  for (const [file, input] of Object.entries(meta.inputs ?? {})) {
    for (const imp of input.imports ?? []) {
      // "<runtime>" and the like are esbuild's own helpers, not modules.
      if (imp.path.startsWith("<")) continue;
      const spec = imp.original ?? imp.path;
      const node = nodeModuleName(spec);
      const from = relative(root, resolve(root, file)) || file;
      if (node !== null) {
        if (!NODE_ALLOWED.includes(node)) {
          problems.push({
            code: "BUNDLE_NODE_MODULE",
            message: `${from} imports node:${node}, which the Worker may not use (workerd has it only as a stub or with other semantics; allowed: NODE_ALLOWED in scripts/check-bundle.mjs)`,
          });
        }
        if (imp.external) external.add(`node:${node}`);
      } else if (imp.external) {
        if (/^(cloudflare|workerd):/.test(imp.path)) external.add(imp.path);
        else {
          problems.push({
            code: "BUNDLE_UNRESOLVED_IMPORT",
            message: `${from} imports "${imp.path}", which the bundle leaves unresolved; workerd cannot load it`,
          });
        }
      }
    }
  }
  return { problems, external: [...external].sort() };
}

/** The modules wrangler would upload: every file of the out dir but the map, README and metafile. */
export function measure(outdir) {
  let bytes = 0;
  let gzip = 0;
  for (const name of readdirSync(outdir, { recursive: true })) {
    const path = join(outdir, String(name));
    if (!statSync(path).isFile() || /\.map$|^README\.md$|^meta\.json$/.test(basename(path))) continue;
    const data = readFileSync(path);
    bytes += data.length;
    gzip += gzipSync(data).length;
  }
  return { bytes, gzip };
}

const mib = (n) => `${(n / MiB).toFixed(2)} MiB`;

/** The size checks: the platform's limit on the uncompressed bundle, and our gzip budget. */
export function sizeFailures({ bytes, gzip }) {
  const failures = [];
  if (bytes > PLATFORM_SIZE_LIMIT) {
    failures.push({
      code: "BUNDLE_TOO_LARGE",
      message: `the bundle is ${mib(bytes)}, over Cloudflare's ${mib(PLATFORM_SIZE_LIMIT)} limit`,
    });
  }
  if (gzip > GZIP_BUDGET) {
    failures.push({
      code: "BUNDLE_OVER_BUDGET",
      message: `the bundle is ${mib(gzip)} gzipped, over our ${mib(GZIP_BUDGET)} budget; find what grew (the esbuild metafile: check:bundle --keep DIR)`,
    });
  }
  return failures;
}
const pct = (n, of) => `${((100 * n) / of).toFixed(1)}%`;

/** Builds one environment's bundle with wrangler, as `wrangler deploy` would, without uploading it. */
function buildBundle(configPath, env, outdir) {
  mkdirSync(outdir, { recursive: true });
  const args = ["deploy", "--dry-run", "--outdir", outdir, "--metafile", join(outdir, "meta.json")];
  const r = wrangler([...args, "--env", env, "--config", configPath], {
    cwd: dirname(configPath),
    local: true,
  });
  if (r.code !== 0) {
    throw new ScriptError(
      "BUNDLE_BUILD_FAILED",
      `wrangler deploy --dry-run --env ${env} failed:\n${r.stdout}${r.stderr}`,
    );
  }
  return JSON.parse(readFileSync(join(outdir, "meta.json"), "utf8"));
}

/** CPU milliseconds the workerd processes this process started have used so far (Linux /proc), or null. */
export function workerdCpuMs() {
  let ticks = 0;
  let found = false;
  let entries;
  try {
    entries = readdirSync("/proc");
  } catch {
    return null;
  }
  for (const pid of entries) {
    if (!/^[0-9]+$/.test(pid)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid … utime stime: fields 4, 14 and 15 (proc(5)); comm may hold spaces.
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const fields = stat.slice(close + 2).split(" ");
    if (comm !== "workerd" || Number(fields[1]) !== process.pid) continue;
    ticks += Number(fields[11]) + Number(fields[12]);
    found = true;
  }
  // USER_HZ is 100 on every Linux we run on (getconf CLK_TCK).
  return found ? ticks * 10 : null;
}

/** Loads a Worker in a fresh workerd, asks `path` once; the wall and workerd CPU time that took, and the answer. */
async function firstAnswer(Miniflare, options, path) {
  // What the Worker logs is kept, not printed: shown only when it did not answer 200.
  const logs = [];
  const keep = (stream) =>
    stream.on("data", (d) => {
      logs.push(String(d));
    });
  const t0 = performance.now();
  const mf = new Miniflare({
    host: "127.0.0.1",
    port: 0,
    ...options,
    handleRuntimeStdio: (stdout, stderr) => {
      keep(stdout);
      keep(stderr);
    },
    handleStructuredLogs: ({ message }) => {
      logs.push(`${message}\n`);
    },
  });
  try {
    await mf.ready;
    const res = await mf.dispatchFetch(`http://127.0.0.1${path}`);
    const body = await res.text();
    const cpuMs = workerdCpuMs();
    return { wallMs: performance.now() - t0, cpuMs, status: res.status, body, logs: logs.join("") };
  } finally {
    await mf.dispose();
  }
}

/**
 * Start-up, measured from outside: locally workerd reports no start-up time, and inside the isolate the
 * clock stands still while code runs. What Cloudflare limits is the time to parse the script and run its
 * global scope. So the bundle is loaded in a fresh workerd with the environment's bindings and asked GET
 * /v1/health once, and the same is done for a stand-in with the same bindings whose script does nothing
 * (its Durable Object classes empty, one D1 query); the difference in workerd's CPU time is the bundle's
 * parse, global scope and first request (bootstrap included): an upper bound on the start-up the platform
 * measures. CPU time, not wall time: on a busy machine wall time mostly measures the neighbours (and
 * Miniflare's own work in this process). Without /proc (not Linux) the wall times stand in, with a warning.
 */
async function measureStartup(configPath, env, outdir, main, state) {
  const { Miniflare } = await import("miniflare");
  const { unstable_getMiniflareWorkerOptions } = await import("wrangler");
  const raw = readRaw(configPath);
  for (const db of raw.env[env].d1_databases ?? []) {
    if (!db.migrations_dir) continue;
    const args = ["d1", "migrations", "apply", db.binding, "--local", "--persist-to", state, "--env", env];
    const r = wrangler([...args, "--config", configPath], { cwd: dirname(configPath), local: true });
    if (r.code !== 0) {
      throw new ScriptError("BUNDLE_HEALTH_FAILED", `local D1 migrations failed:\n${r.stdout}${r.stderr}`);
    }
  }
  const { workerOptions } = unstable_getMiniflareWorkerOptions(configPath, env);
  const common = {
    ...workerOptions,
    name: `starforge-${env}`,
    d1Persist: join(state, "v3", "d1"),
    r2Persist: join(state, "v3", "r2"),
    durableObjectsPersist: join(state, "v3", "do"),
    bindings: {
      ...workerOptions.bindings,
      // Secrets exist only in Cloudflare; local stand-ins of the right shape, thrown away with the state.
      SF_BOOTSTRAP_ADMIN_TOKEN: `sfp_${randomBytes(32).toString("base64url")}`,
      SF_JWT_SECRET: randomBytes(48).toString("base64url"),
      SF_SECRETS_KEY: randomBytes(32).toString("base64url"),
    },
  };
  const classes = Object.values(workerOptions.durableObjects ?? {}).map(
    (d) => `export class ${typeof d === "string" ? d : d.className} { fetch() { return new Response(""); } }`,
  );
  const d1 = Object.keys(workerOptions.d1Databases ?? {})[0];
  const standIn = [
    ...classes,
    `export default { async fetch(req, env) { ${d1 ? `await env.${d1}.prepare("SELECT 1").first();` : ""} return new Response("ok"); } };`,
  ].join("\n");
  const empty = await firstAnswer(Miniflare, { ...common, modules: true, script: standIn }, "/");
  const ours = await firstAnswer(
    Miniflare,
    { ...common, modules: true, scriptPath: join(outdir, main), modulesRoot: outdir },
    "/v1/health",
  );
  const byCpu = ours.cpuMs !== null && empty.cpuMs !== null;
  return {
    ours,
    empty,
    byCpu,
    shareMs: Math.max(0, byCpu ? ours.cpuMs - empty.cpuMs : ours.wallMs - empty.wallMs),
  };
}

async function checkEnv(configPath, env, work, startupLimitMs) {
  const outdir = join(work, env, "bundle");
  const t0 = performance.now();
  const meta = buildBundle(configPath, env, outdir);
  const failures = [];
  const say = (line) => console.log(`  ${line}`);
  console.log(
    `${SCRIPT}: [env.${env}] bundled in ${((performance.now() - t0) / 1000).toFixed(1)} s (${outdir})`,
  );

  const { bytes, gzip } = measure(outdir);
  say(
    `size      ${mib(bytes)} of the platform's ${mib(PLATFORM_SIZE_LIMIT)} limit (${pct(bytes, PLATFORM_SIZE_LIMIT)} used); ` +
      `gzip ${mib(gzip)} of our ${mib(GZIP_BUDGET)} budget (${pct(gzip, GZIP_BUDGET)} used)`,
  );
  for (const f of sizeFailures({ bytes, gzip }))
    failures.push({ ...f, message: `[env.${env}] ${f.message}` });

  const imports = importProblems(meta, dirname(configPath));
  say(`imports   ${imports.external.join(", ") || "none"} (left to the runtime)`);
  for (const p of imports.problems) failures.push({ ...p, message: `[env.${env}] ${p.message}` });

  // The main module is named after wrangler.toml's `main` (worker/index.ts → index.js).
  const entry = Object.keys(meta.outputs ?? {}).find((k) => meta.outputs[k].entryPoint);
  if (!entry) throw new ScriptError("BUNDLE_BUILD_FAILED", `wrangler's metafile names no entry point`);
  const state = join(work, env, "state");
  const { empty, ours, byCpu, shareMs } = await measureStartup(
    configPath,
    env,
    outdir,
    basename(entry),
    state,
  );
  const how = byCpu
    ? `workerd CPU ${ours.cpuMs} ms, a stand-in with the same bindings ${empty.cpuMs} ms`
    : `wall time ${Math.round(ours.wallMs)} ms, the stand-in ${Math.round(empty.wallMs)} ms; no /proc, so wall time stands in for CPU`;
  say(
    `start-up  GET /v1/health answered ${ours.status} (${how}): ≈${Math.round(shareMs)} ms of the ${startupLimitMs} ms limit (${pct(shareMs, startupLimitMs)} used)`,
  );
  if (ours.status !== 200) {
    failures.push({
      code: "BUNDLE_HEALTH_FAILED",
      message: `[env.${env}] the bundle answered GET /v1/health with ${ours.status}: ${ours.body.slice(0, 500)}\n${ours.logs.slice(-2000)}`,
    });
  }
  if (shareMs > startupLimitMs) {
    failures.push({
      code: "BUNDLE_STARTUP_SLOW",
      message: `[env.${env}] start-up took ≈${Math.round(shareMs)} ms, over the ${startupLimitMs} ms limit; move work out of the global scope`,
    });
  }
  return failures;
}

async function main() {
  const { values: opts } = parseArgs({
    options: {
      env: { type: "string", multiple: true, default: [] },
      config: { type: "string", default: "wrangler.toml" },
      "startup-limit-ms": { type: "string", default: String(STARTUP_LIMIT_MS) },
      keep: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (opts.help) {
    console.log(
      "usage: npm run check:bundle [-- --env NAME ...] [--config PATH] [--startup-limit-ms N] [--keep DIR]",
    );
    return;
  }
  const configPath = resolve(opts.config);
  const startupLimitMs = Number(opts["startup-limit-ms"]);
  if (!Number.isFinite(startupLimitMs) || startupLimitMs <= 0) {
    throw new ScriptError("BAD_ARGUMENT", `--startup-limit-ms takes a positive number of milliseconds`);
  }
  const raw = readRaw(configPath);
  const envs = opts.env.length > 0 ? opts.env : envNames(raw);
  if (envs.length === 0) throw new ScriptError("ENV_UNKNOWN", `${configPath} has no [env.*] to check`);
  for (const env of envs) requireEnv(raw, env, configPath);
  assertEnvParity(raw, configPath);

  const work = opts.keep ? resolve(opts.keep) : mkdtempSync(join(tmpdir(), "sf-check-bundle-"));
  const failures = [];
  try {
    for (const env of envs) failures.push(...(await checkEnv(configPath, env, work, startupLimitMs)));
  } finally {
    if (!opts.keep) rmSync(work, { recursive: true, force: true });
  }
  if (failures.length > 0) {
    for (const f of failures) console.error(`${SCRIPT}: error ${f.code}: ${f.message}`);
    process.exit(1);
  }
  console.log(`${SCRIPT}: OK (${envs.join(", ")})`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  main().catch((err) => exitWith(SCRIPT, err));
}
