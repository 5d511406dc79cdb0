#!/usr/bin/env node
// Serves the Worker locally in workerd, as `wrangler dev` does, through wrangler's own API
// (unstable_startWorker) with two differences that matter for a control plane under test:
//  - no inspector: `wrangler dev` always attaches devtools' Network domain, which copies every outbound
//    response body into an inspector message (one loopback connection per 4 KiB chunk, and the whole body
//    base64-encoded in the log), so a Worker reading a large object from S3 exhausts file descriptors;
//  - no file watching: an edit in the checkout does not restart a running control plane under a test.
// Usage: node scripts/serve-worker.mjs --ip A --port N --persist-to DIR --env-file F [--var K:V ...]
//        [--log-level info|warn]. Runs until SIGTERM/SIGINT.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { unstable_startWorker } from "wrangler";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values: o } = parseArgs({
  options: {
    ip: { type: "string", default: "127.0.0.1" },
    port: { type: "string" },
    "persist-to": { type: "string" },
    "env-file": { type: "string" },
    var: { type: "string", multiple: true, default: [] },
    "log-level": { type: "string", default: "info" },
  },
});

/** KEY=VALUE lines (the dev.vars that scripts/start.mjs writes) become secret bindings. */
function secretsFrom(file) {
  if (!file) return {};
  const out = {};
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const at = line.indexOf("=");
    if (at > 0) out[line.slice(0, at)] = { type: "secret_text", value: line.slice(at + 1) };
  }
  return out;
}

const vars = {};
for (const v of o.var) {
  const at = v.indexOf(":");
  if (at <= 0) {
    console.error(`serve-worker: --var expects KEY:VALUE, got "${v}"`);
    process.exit(2);
  }
  vars[v.slice(0, at)] = { type: "plain_text", value: v.slice(at + 1) };
}

const worker = await unstable_startWorker({
  config: join(root, "wrangler.toml"),
  bindings: { ...secretsFrom(o["env-file"]), ...vars },
  dev: {
    server: { hostname: o.ip, port: Number(o.port) },
    inspector: false,
    watch: false,
    liveReload: false,
    persist: o["persist-to"],
    logLevel: o["log-level"],
  },
});
await worker.ready;
console.log(`[wrangler:info] Ready on ${await worker.url}`);
const stop = async () => {
  await worker.dispose().catch(() => {});
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
