#!/usr/bin/env node
// `npm run deploy -- --env production [--dry-run]`: deploys one environment of wrangler.toml.
//   1. refuses an environment that `npm run setup:cloudflare` has not prepared (its D1 database_id or
//      SF_PUBLIC_URL still the placeholder), or whose [env.*] misses a variable or binding of the top level
//   2. `npm run build` (dist/: the job capsule this code ships with), then checks the bundle as CI does
//      (scripts/check-bundle.mjs: size, imports, start-up)
//   3. `wrangler deploy --env X --var SF_BUILD:<commit>`: the git commit (with "-dirty" when tracked
//      files differ from it) travels with the deployment as SF_BUILD
//   4. with SF_ADMIN_TOKEN set: publishes dist/capsule on the deployed control plane (its blobs, then
//      PUT /v1/capsule), so new jobs get the capsule of this build; jobs cannot launch before one is published
// --capsule-only does step 4 alone; --skip-build uses dist/ as it is; --dry-run prints and runs nothing.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  assertEnvParity,
  exitWith,
  notSetUp,
  ROOT,
  readRaw,
  requireEnv,
  ScriptError,
  wrangler,
} from "./wrangler-envs.mjs";

const SCRIPT = "deploy";

/** The commit being deployed: `git rev-parse`, "-dirty" when tracked files changed, "unknown" outside git. */
export function buildId(cwd = ROOT) {
  const git = (args) => spawnSync("git", args, { cwd, encoding: "utf8" });
  const head = git(["rev-parse", "--short=12", "HEAD"]);
  if (head.status !== 0) return "unknown";
  const dirty = git(["status", "--porcelain", "--untracked-files=no"]).stdout.trim() !== "";
  return `${head.stdout.trim()}${dirty ? "-dirty" : ""}`;
}

/**
 * Uploads the capsule's files the control plane lacks (blobs are content-addressed and write-once) and
 * publishes them for new jobs. Waits up to a minute for the first answer: a new custom domain may need it.
 */
export async function publishCapsule(url, token, capsuleDir) {
  const filesJson = join(capsuleDir, "files.json");
  if (!existsSync(filesJson))
    throw new ScriptError("CAPSULE_MISSING", `${filesJson} is missing; run npm run build`);
  const files = JSON.parse(readFileSync(filesJson, "utf8"));
  const auth = { authorization: `Bearer ${token}` };
  const deadline = Date.now() + 60_000;
  for (;;) {
    const health = await fetch(`${url}/v1/health`).catch((err) => err);
    if (health instanceof Response && health.ok) break;
    if (Date.now() > deadline) {
      const why =
        health instanceof Response ? `HTTP ${health.status}` : String(health?.cause?.code ?? health);
      throw new ScriptError(
        "CAPSULE_PUBLISH_FAILED",
        `${url}/v1/health did not answer 200 within 60 s (${why})`,
      );
    }
    await new Promise((r) => setTimeout(r, 2000));
  }
  for (const [name, digest] of Object.entries(files)) {
    const head = await fetch(`${url}/v1/blobs/${digest}`, { method: "HEAD", headers: auth });
    if (head.status === 200) continue;
    const bytes = readFileSync(join(capsuleDir, name));
    const put = await fetch(`${url}/v1/blobs/${digest}`, {
      method: "PUT",
      headers: { ...auth, "content-length": String(bytes.length) },
      body: bytes,
    });
    if (!put.ok) {
      throw new ScriptError(
        "CAPSULE_PUBLISH_FAILED",
        `PUT /v1/blobs/${digest} (${name}): ${put.status} ${await put.text()}`,
      );
    }
  }
  const res = await fetch(`${url}/v1/capsule`, {
    method: "PUT",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ files }),
  });
  if (!res.ok)
    throw new ScriptError("CAPSULE_PUBLISH_FAILED", `PUT /v1/capsule: ${res.status} ${await res.text()}`);
  return files;
}

async function main() {
  const { values: opts } = parseArgs({
    options: {
      env: { type: "string" },
      config: { type: "string", default: join(ROOT, "wrangler.toml") },
      "dry-run": { type: "boolean", default: false },
      "skip-build": { type: "boolean", default: false },
      "capsule-only": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (opts.help) {
    console.log(
      "usage: npm run deploy -- --env NAME [--dry-run] [--skip-build] [--capsule-only]   (NAME: an [env.*] of wrangler.toml)\n" +
        "SF_ADMIN_TOKEN=<an admin token> also publishes the job capsule of this build.",
    );
    return;
  }
  const configPath = resolve(opts.config);
  const raw = readRaw(configPath);
  const env = requireEnv(raw, opts.env, configPath);
  const name = opts.env;
  assertEnvParity(raw, configPath);
  const missing = notSetUp(env);
  if (missing.length > 0) {
    throw new ScriptError(
      "DEPLOY_NOT_SET_UP",
      `[env.${name}] is not set up: ${missing.join("; ")}. Run \`npm run setup:cloudflare -- --env ${name} --domain <host>\` (or --public-url <url>) first; docs/deploy.md`,
    );
  }
  const url = env.vars.SF_PUBLIC_URL;
  const token = process.env.SF_ADMIN_TOKEN || "";
  if (opts["capsule-only"] && !token) {
    throw new ScriptError("BAD_ARGUMENT", "--capsule-only publishes with an admin token: set SF_ADMIN_TOKEN");
  }
  // The commit of this checkout: the Worker's code comes from here, whichever config file is used.
  const build = buildId(ROOT);
  const dry = opts["dry-run"];
  const show = (cmd) => console.log(`${dry ? "would run" : "$"} ${cmd}`);
  const check = [join(ROOT, "scripts", "check-bundle.mjs"), "--env", name, "--config", configPath];
  const deploy = ["deploy", "--env", name, "--var", `SF_BUILD:${build}`, "--config", basename(configPath)];

  console.log(`${SCRIPT}: [env.${name}] → Worker starforge-${name} at ${url}, build ${build}`);
  if (!opts["skip-build"]) {
    show("npm run build");
    if (!dry && spawnSync("npm", ["run", "build"], { cwd: ROOT, stdio: "inherit" }).status !== 0) {
      throw new ScriptError("BUILD_FAILED", "npm run build failed (above); nothing was deployed");
    }
  }
  if (!opts["capsule-only"]) {
    show(`node ${relative(ROOT, check[0])} ${check.slice(1).join(" ")}`);
    if (!dry && spawnSync(process.execPath, check, { stdio: "inherit" }).status !== 0) {
      throw new ScriptError("BUNDLE_CHECK_FAILED", "the bundle check failed (above); nothing was deployed");
    }
    show(`wrangler ${deploy.join(" ")}`);
    if (!dry && wrangler(deploy, { cwd: dirname(configPath), inherit: true }).code !== 0) {
      throw new ScriptError("WRANGLER_FAILED", `wrangler deploy --env ${name} failed (above)`);
    }
  }
  if (!token) {
    console.log(
      `${SCRIPT}: the job capsule was not published (no SF_ADMIN_TOKEN); jobs launch only once one is:\n` +
        `  SF_ADMIN_TOKEN=<an admin token> npm run deploy -- --env ${name} --capsule-only`,
    );
  } else {
    show(`publish dist/capsule on ${url} (PUT /v1/blobs/…, PUT /v1/capsule)`);
    if (!dry) {
      const files = await publishCapsule(url, token, join(ROOT, "dist", "capsule"));
      console.log(`${SCRIPT}: job capsule published: ${Object.values(files).join(", ")}`);
    }
  }
  if (!dry) console.log(`${SCRIPT}: done; check it with: curl ${url}/v1/health`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  main().catch((err) => exitWith(SCRIPT, err));
}
