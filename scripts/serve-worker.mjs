#!/usr/bin/env node
// Serves the Worker locally in workerd, the runtime Cloudflare runs it on, through Miniflare directly: the
// socket on --ip:--port is workerd's own HTTP server, in front of the Worker and its Durable Objects.
//
// Not `wrangler dev` (nor wrangler's unstable_startWorker), because both put a proxy Worker in a second
// workerd in front of this one, and that hop loses requests: after the Worker answers a request without
// reading its body (a 401 before the JSON is parsed, a 413), the proxy's next request on the same pooled
// connection can fail, and the proxy then answers a POST with 503 "Your worker restarted mid-request" and
// parks a GET or HEAD until some later request arrives (minutes, on a quiet server). The proxy exists for
// live reload and the devtools inspector, neither of which a control plane wants (the inspector also copies
// every outbound response body). docs/decisions.md has the measurements.
//
// One more thing differs from production, on purpose: workerd's HTTP server closes a kept-alive connection
// when the Worker answered before the request body had arrived, without saying `Connection: close`, so the
// client's next request on it is lost (on Cloudflare the edge holds the client's connection and this never
// reaches a client). Every HTTP client pools connections, so the local entry below reads the rest of an
// unread request body before the answer goes out, as `wrangler dev` does in its own dev-only middleware,
// up to DRAIN_LIMIT bytes; past that the connection is dropped as before (the answer still goes out).
//
// The bundle is wrangler's own (scripts/worker-bundle.mjs), the bindings are read from wrangler.toml by
// wrangler's own reader (cached beside the bundle), and state lives where `wrangler dev --persist-to` keeps it (<persist>/v3), so a
// state directory moves freely between this and wrangler. D1 migrations are applied here before the first
// request is served, recorded in wrangler's d1_migrations table exactly as `wrangler d1 migrations apply`
// records them.
// Usage: node scripts/serve-worker.mjs --ip A --port N --persist-to DIR --env-file F [--var K:V ...]
//        [--ratelimit NAME=LIMIT ...] [--log-level info|warn]. Runs until SIGTERM/SIGINT; prints "SERVING <url>" once the migrations are applied.
import { readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { Log, LogLevel, Miniflare } from "miniflare";
import { d1Access, d1AccessWorker } from "./d1-access.mjs";
import { ensureWorkerBundle } from "./worker-bundle.mjs";

const { values: o } = parseArgs({
  options: {
    ip: { type: "string", default: "127.0.0.1" },
    port: { type: "string" },
    "persist-to": { type: "string" },
    "env-file": { type: "string" },
    var: { type: "string", multiple: true, default: [] },
    ratelimit: { type: "string", multiple: true, default: [] },
    "log-level": { type: "string", default: "info" },
  },
});

/** KEY=VALUE lines (the dev.vars that scripts/start.mjs writes) become secret bindings. */
function secretsFrom(file) {
  if (!file) return {};
  const out = {};
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const at = line.indexOf("=");
    if (at > 0) out[line.slice(0, at)] = line.slice(at + 1);
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
  vars[v.slice(0, at)] = v.slice(at + 1);
}

/** The most of an unread request body the local entry reads away before answering (bytes). */
const DRAIN_LIMIT = 64 * 1024 * 1024;

/**
 * The local entry module: the production bundle's exports, with fetch wrapped so that a request body the
 * Worker did not read to its end (left unread, or cancelled) is read away before the answer goes out. The
 * Worker gets the body through a pipe of the same kind (a FixedLengthStream when the length is declared,
 * so R2 still sees a known length); when it answers, the pipe is closed and whatever the socket still has
 * is read and dropped.
 */
function localEntry(bundleName) {
  return `import worker from "./${bundleName}";
export * from "./${bundleName}";
export default {
  ...worker,
  async fetch(request, env, ctx) {
    if (request.body === null) return worker.fetch(request, env, ctx);
    const length = Number(request.headers.get("content-length") ?? Number.NaN);
    const pipe = Number.isSafeInteger(length) && length >= 0 ? new FixedLengthStream(length) : new IdentityTransformStream();
    // The socket's stream is read here and written into the Worker's end of the pipe, by hand (not pipeTo)
    // so that the reader stays ours when the Worker stops reading.
    const source = request.body.getReader();
    const sink = pipe.writable.getWriter();
    let answered = false;
    let finished = false;
    const pumping = (async () => {
      try {
        for (;;) {
          const { done, value } = await source.read();
          if (done) {
            finished = true;
            await sink.close();
            return;
          }
          if (answered) return; // the answer is out: drain below reads the rest
          await sink.write(value);
        }
      } catch {
        // The Worker cancelled its end (sink refused), or the client went away (source failed).
      }
    })();
    const inner = new Request(request, { body: pipe.readable });
    try {
      return await worker.fetch(inner, env, ctx);
    } finally {
      answered = true;
      if (!inner.bodyUsed) inner.body.cancel().catch(() => {});
      sink.abort().catch(() => {});
      await pumping;
      let left = ${DRAIN_LIMIT};
      try {
        while (!finished) {
          const { done, value } = await source.read();
          if (done) break;
          left -= value.byteLength;
          if (left < 0) {
            await source.cancel();
            break;
          }
        }
      } catch {
        // The client went away: nothing to keep the connection for.
      }
    }
  },
};
`;
}

let mf;
try {
  const { scriptPath, workerOptions, migrations } = await ensureWorkerBundle();
  for (const v of o.ratelimit) {
    const [name, limit] = v.split("=");
    const binding = workerOptions.ratelimits?.[name];
    if (!binding) throw new Error(`--ratelimit ${v}: wrangler.toml has no [[ratelimits]] binding ${name}`);
    binding.simple = { ...binding.simple, limit: Number(limit) };
  }
  mf = new Miniflare({
    host: o.ip,
    port: Number(o.port),
    defaultPersistRoot: join(resolve(o["persist-to"]), "v3"),
    // Request.cf is a placeholder locally: never fetched from Cloudflare (this machine may have no internet).
    cf: false,
    log: new Log(o["log-level"] === "info" ? LogLevel.INFO : LogLevel.WARN),
    workers: [
      {
        ...workerOptions,
        name: "starforge",
        modules: [
          {
            type: "ESModule",
            path: join(dirname(scriptPath), "local-entry.mjs"),
            contents: localEntry(basename(scriptPath)),
          },
          { type: "ESModule", path: scriptPath },
        ],
        bindings: { ...workerOptions.bindings, ...secretsFrom(o["env-file"]), ...vars },
      },
      d1AccessWorker(workerOptions),
    ],
  });
  const url = await mf.ready;
  const applied = await (await d1Access(mf)).migrate(migrations);
  if (o["log-level"] === "info") for (const name of applied) console.log(`applied migration ${name}`);
  console.log(`SERVING ${url}`);
} catch (err) {
  console.error(`serve-worker: ${err?.stack ?? err}`);
  await mf?.dispose().catch(() => {});
  process.exit(1);
}

const stop = async () => {
  await mf.dispose().catch(() => {});
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
