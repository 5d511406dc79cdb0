#!/usr/bin/env node
// `npm start`: brings up the control plane locally with nothing else installed.
//   1. creates local secrets once (.sf-local/dev.vars, 0600): bootstrap admin token, JWT key, secrets key
//   2. serves the Worker in workerd on 127.0.0.1 (or --host) through Miniflare (scripts/serve-worker.mjs,
//      which applies D1 migrations to the persisted local state first), in its own process group
//   4. creates the default `local` fleet through the API (idempotent), uploads and publishes the job
//      capsule from dist/capsule (built by `npm run build`, which `prestart` runs)
//   5. enrolls and starts a local forgelet (process runtime, 8 simulated H200s) in the local fleet
// Options (flags or env): --port/SF_PORT (8787), --state-dir/SF_STATE_DIR (.sf-local), --no-agent, --quiet;
// SF_BOOTSTRAP_ADMIN_TOKEN: the admin token of a new state directory (default: generated).
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values: opts } = parseArgs({
  options: {
    port: { type: "string", default: process.env.SF_PORT ?? "8787" },
    host: { type: "string", default: process.env.SF_HOST ?? "127.0.0.1" },
    "state-dir": { type: "string", default: process.env.SF_STATE_DIR ?? join(root, ".sf-local") },
    quiet: { type: "boolean", default: false },
    "no-agent": { type: "boolean", default: false },
    var: { type: "string", multiple: true, default: [] },
    ratelimit: { type: "string", multiple: true, default: [] },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (opts.help) {
  console.log(`usage: npm start [-- --port N] [--host ADDR] [--state-dir DIR] [--no-agent] [--var KEY=VALUE ...]
                 [--ratelimit NAME=LIMIT ...] [--quiet]

Starts the StarForge control plane on http://<host>:<port> (host 127.0.0.1 unless --host names an
address of this machine that agents and workloads elsewhere reach, e.g. a cluster's pods) with persisted local state in
<state-dir> (default .sf-local/), with a local forgelet agent (process runtime, 8 simulated H200
GPUs) in the "local" fleet unless --no-agent. --var overrides a wrangler.toml variable for this
run (e.g. --var SF_AGENT_LOST_GRACE_SECONDS=30); --ratelimit sets the limit of a [[ratelimits]]
binding (e.g. --ratelimit AUTH_FAILURES_BY_ADDRESS=1000 where many test clients share one address).
Stop it with Ctrl-C. Environment: SF_PORT, SF_HOST, SF_STATE_DIR,
SF_BOOTSTRAP_ADMIN_TOKEN (the admin token of a new state directory; default: generated).`);
  process.exit(0);
}

// Checked before anything is started: where it listens, and what agents and workloads are told.
const host = opts.host;
if (!/^[0-9]{1,3}(\.[0-9]{1,3}){3}$/.test(host)) {
  console.error(`sf start: --host takes an IPv4 address of this machine, got "${host}"`);
  process.exit(2);
}

// --var KEY=VALUE overrides a [vars] entry of wrangler.toml for this run (wrangler's own syntax is KEY:VALUE).
const extraVars = opts.var.map((v) => {
  const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(v);
  if (!m) {
    console.error(`start: --var expects KEY=VALUE with an upper-case KEY, got "${v}"`);
    process.exit(2);
  }
  return `${m[1]}:${m[2]}`;
});
// --ratelimit NAME=LIMIT overrides the limit of a [[ratelimits]] binding for this run.
const extraLimits = opts.ratelimit.map((v) => {
  if (!/^[A-Z][A-Z0-9_]*=[1-9][0-9]*$/.test(v)) {
    console.error(
      `start: --ratelimit expects NAME=LIMIT with a binding NAME and a positive LIMIT, got "${v}"`,
    );
    process.exit(2);
  }
  return v;
});
const env = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };
const wrangler = join(root, "node_modules", ".bin", "wrangler");
const stateDir = resolve(opts["state-dir"]);
const persist = join(stateDir, "state");
const varsFile = join(stateDir, "dev.vars");

/** Set once child processes exist: a failed start then takes them down with it (no orphans). */
let stopHook = null;

function fail(msg) {
  console.error(`sf start: ${msg}`);
  if (stopHook) stopHook(1);
  else process.exit(1);
}

if (!existsSync(wrangler)) fail("dependencies are missing; run `npm ci` first");

// 1. secrets, created once and kept. SF_BOOTSTRAP_ADMIN_TOKEN from the environment becomes the admin token
// of a new state directory: it is written into dev.vars, which is what the Worker reads, so both agree.
// The Worker creates the admin once, on its first start; a state directory created with another token
// keeps that one, so a different token there is refused rather than failing later with 401.
const envToken = process.env.SF_BOOTSTRAP_ADMIN_TOKEN || "";
// worker/env.ts requires at least 16 characters; dev.vars is KEY=VALUE lines, so no spaces or newlines.
if (envToken && !(envToken.length >= 16 && /^[\x21-\x7e]+$/.test(envToken))) {
  console.error(
    "sf start: error BOOTSTRAP_TOKEN_INVALID: SF_BOOTSTRAP_ADMIN_TOKEN must be at least 16 printable characters, no spaces",
  );
  process.exit(2);
}
mkdirSync(stateDir, { recursive: true });
if (!existsSync(varsFile)) {
  const token = envToken || `sfp_${randomBytes(32).toString("base64url")}`;
  const jwt = randomBytes(48).toString("base64url");
  writeFileSync(varsFile, `SF_BOOTSTRAP_ADMIN_TOKEN=${token}\nSF_JWT_SECRET=${jwt}\n`, { mode: 0o600 });
}
// Job secrets are sealed with this key (docs/security.md); a state directory from before it gets one.
if (!readFileSync(varsFile, "utf8").includes("SF_SECRETS_KEY=")) {
  appendFileSync(varsFile, `SF_SECRETS_KEY=${randomBytes(32).toString("base64url")}\n`);
}
chmodSync(varsFile, 0o600);
const secrets = Object.fromEntries(
  readFileSync(varsFile, "utf8")
    .split("\n")
    .filter((l) => l.includes("="))
    .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
);
if (envToken && envToken !== secrets.SF_BOOTSTRAP_ADMIN_TOKEN) {
  console.error(
    `sf start: error BOOTSTRAP_TOKEN_MISMATCH: SF_BOOTSTRAP_ADMIN_TOKEN differs from the admin token of ${stateDir} (kept in ${varsFile}), which its control plane already uses; unset it to keep that one, or start a new state directory with --state-dir`,
  );
  process.exit(2);
}
const adminToken = secrets.SF_BOOTSTRAP_ADMIN_TOKEN;

// 2. the Worker in workerd, in its own process group so workerd never outlives us. scripts/serve-worker.mjs
// explains why this is Miniflare itself and not `wrangler dev`.
const port = Number(opts.port);
const publicUrl = `http://${host}:${port}`;
const child = spawn(
  process.execPath,
  [
    join(root, "scripts", "serve-worker.mjs"),
    "--ip",
    host,
    "--port",
    String(port),
    "--persist-to",
    persist,
    "--env-file",
    varsFile,
    "--var",
    `SF_PUBLIC_URL:${publicUrl}`,
    ...extraVars.flatMap((v) => ["--var", v]),
    ...extraLimits.flatMap((v) => ["--ratelimit", v]),
    "--log-level",
    opts.quiet ? "warn" : "info",
  ],
  { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "inherit"] },
);
// Its output is ours; "SERVING" means the migrations are applied and requests are served.
let workerReady = false;
child.stdout.on("data", (d) => {
  process.stdout.write(d);
  if (d.toString().includes("SERVING ")) workerReady = true;
});
let stopping = false;
const groups = [child.pid];
/**
 * True while a process of group `g` is still running. A member that exited but was not reaped yet (a
 * zombie: our own children, while stop() below blocks the event loop that would reap them) does not count,
 * or every stop would wait its whole grace period for processes that are already gone.
 */
const alive = (g) => {
  try {
    process.kill(-g, 0);
  } catch {
    return false;
  }
  for (const pid of readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(pid)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses, so split after the last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(pgrp) === g && state !== "Z") return true;
  }
  return false;
};
const signal = (g, sig) => {
  try {
    process.kill(-g, sig);
  } catch {
    // already gone
  }
};
/**
 * Stops every process group we started, synchronously (TERM, up to 5 s, then KILL), then exits. Never
 * returns, so `fail()` can rely on it. Workloads outlive an agent restart by design (they are
 * reattached); `npm start` ending means the whole local system ends, so the local agent's workloads go too.
 */
const stop = (code) => {
  if (stopping) process.exit(code);
  stopping = true;
  for (const g of localWorkloadGroups()) groups.push(g);
  for (const g of groups) signal(g, "SIGTERM");
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + 5000;
  while (groups.some(alive) && Date.now() < deadline) Atomics.wait(pause, 0, 0, 50);
  for (const g of groups) signal(g, "SIGKILL");
  process.exit(code);
};
stopHook = stop;
process.on("SIGINT", () => stop(0));
process.on("SIGTERM", () => stop(0));
child.on("exit", (code) => {
  if (!stopping) {
    console.error(`sf start: the Worker (scripts/serve-worker.mjs) exited with ${code}`);
    stop(code ?? 1);
  }
});

function localWorkloadGroups() {
  try {
    const journal = JSON.parse(readFileSync(join(stateDir, "forgelet", "journal.json"), "utf8"));
    return journal.records.filter((r) => r.ref?.kind === "process").map((r) => Number(r.ref.id));
  } catch {
    return [];
  }
}

await waitForHealth(`${publicUrl}/v1/health`, 60_000);

// 4. the default local fleet
const res = await fetch(`${publicUrl}/v1/fleets`, {
  method: "POST",
  headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
  body: JSON.stringify({
    name: "local",
    kind: "process",
    description: "this machine (created by npm start)",
  }),
});
if (res.status !== 201 && res.status !== 409)
  fail(`could not create the local fleet: ${res.status} ${await res.text()}`);

const api = async (method, path, body, headers = {}) => {
  const raw = headers["content-length"] !== undefined;
  const r = await fetch(`${publicUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${adminToken}`,
      ...(body && !raw ? { "content-type": "application/json" } : {}),
      ...headers,
    },
    body: body && !raw ? JSON.stringify(body) : body,
  });
  const text = await r.text();
  if (!r.ok) fail(`${method} ${path}: ${r.status} ${text}`);
  return text ? JSON.parse(text) : {};
};

// 4b. the job capsule: upload what the server lacks, then publish it for new jobs
const capsuleDir = join(root, "dist", "capsule");
if (existsSync(join(capsuleDir, "files.json"))) {
  const files = JSON.parse(readFileSync(join(capsuleDir, "files.json"), "utf8"));
  for (const [name, digest] of Object.entries(files)) {
    const head = await fetch(`${publicUrl}/v1/blobs/${digest}`, {
      method: "HEAD",
      headers: { authorization: `Bearer ${adminToken}` },
    });
    if (head.status === 200) continue;
    const bytes = readFileSync(join(capsuleDir, name));
    await api("PUT", `/v1/blobs/${digest}`, bytes, { "content-length": String(bytes.length) });
  }
  await api("PUT", "/v1/capsule", { files });
} else {
  console.warn(
    "sf start: dist/capsule is missing (run `npm run build`); jobs cannot launch until a capsule is published",
  );
}

// 5. a local forgelet: enrolled once, then started with the control plane and stopped with it
let agentLog = null;
if (!opts["no-agent"]) {
  const agentState = join(stateDir, "forgelet");
  const forgelet = join(root, "dist", "forgelet.mjs");
  if (!existsSync(forgelet)) fail("dist/forgelet.mjs is missing; run `npm run build`");
  if (!existsSync(join(agentState, "credential.json"))) {
    const { token } = await api("POST", "/v1/fleets/local/enrollment-tokens", {});
    const enrolled = spawnSync(
      process.execPath,
      [forgelet, "enroll", "--server", publicUrl, "--token", token, "--state-dir", agentState],
      { encoding: "utf8" },
    );
    if (enrolled.status !== 0) fail(`forgelet enroll failed:\n${enrolled.stdout}${enrolled.stderr}`);
  }
  agentLog = join(stateDir, "forgelet.log");
  const logStart = existsSync(agentLog) ? statSync(agentLog).size : 0;
  const out = openSync(agentLog, "a");
  const agent = spawn(
    process.execPath,
    [
      forgelet,
      "run",
      "--runtime",
      "process",
      "--simulate-gpus",
      "8",
      "--gpu-series",
      "h200",
      "--name",
      "local-1",
      "--state-dir",
      agentState,
      // The port may differ from the one the agent enrolled against.
      "--server",
      publicUrl,
    ],
    {
      cwd: root,
      env: { ...process.env, FORGELET_BACKOFF_MAX_MS: "5000" },
      detached: true,
      stdio: ["ignore", out, out],
    },
  );
  groups.push(agent.pid);
  agent.on("exit", (code) => {
    if (!stopping) console.error(`sf start: the local forgelet exited with ${code}; see ${agentLog}`);
  });
  // Wait until this agent process has connected and its node is ready, so a job submitted right after
  // this line can run. (The node may still look ready from a previous run; the log tells this run.)
  const deadline = Date.now() + 30_000;
  for (;;) {
    const connected = readFileSync(agentLog, "utf8").slice(logStart).includes("connected to");
    const fleet = connected ? await api("GET", "/v1/fleets/local") : null;
    if (fleet?.nodes?.some((n) => n.agent && n.status === "ready")) break;
    if (Date.now() > deadline) fail(`the local forgelet did not connect within 30 s; see ${agentLog}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

console.log(`
StarForge control plane is up: ${publicUrl}
  state:        ${stateDir}
  admin token:  ${adminToken}   (kept in ${varsFile}, mode 0600)
  local agent:  ${agentLog ? `forgelet in fleet "local" with 8 simulated H200s (log: ${agentLog})` : "not started (--no-agent)"}

Next:
  curl ${publicUrl}/v1/health
  curl -H "Authorization: Bearer $SF_ADMIN" ${publicUrl}/v1/catalog      # with SF_ADMIN set to the token above
  curl -H "Authorization: Bearer $SF_ADMIN" ${publicUrl}/v1/fleets/local
See README.md ("A first job by hand") and docs/api.md. Ctrl-C stops everything.
READY ${publicUrl}`);

async function waitForHealth(url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    try {
      const r = workerReady ? await fetch(url) : null;
      if (r?.ok) return;
      last = r ? `HTTP ${r.status}` : "not serving yet";
    } catch (err) {
      last = String(err?.cause?.code ?? err);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  fail(`the control plane did not become healthy in ${timeoutMs / 1000}s (${last})`);
}
