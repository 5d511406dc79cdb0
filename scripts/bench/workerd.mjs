// The control plane on workerd WITHOUT wrangler dev's proxy, for benchmarks of the Worker itself.
//
// `wrangler dev` puts a proxy worker and an inspector proxy in front of the user's worker; here that caps a
// trivial route at a few hundred requests/s, which would hide everything this suite measures. So the
// benchmarks bundle the Worker exactly as `wrangler deploy` would (`--dry-run --outdir`), read its bindings
// from wrangler.toml (wrangler's own unstable_getMiniflareWorkerOptions), and run it with Miniflare in one
// workerd process next to a tiny no-op worker (scripts/bench/noop-worker.js: a no-op route and a no-op
// Durable Object RPC) that serves as the baseline. Each worker gets its own direct loopback socket, so
// both are reached the same way, with nothing in between. State (D1, R2, Durable Objects) is persisted to
// a temporary directory on disk, as `npm start` does, after the same `wrangler d1 migrations apply`.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const wranglerBin = join(root, "node_modules", ".bin", "wrangler");
const quietEnv = {
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  CI: "true",
};

export function freePort() {
  return new Promise((ok, ko) => {
    const srv = createServer();
    srv.on("error", ko);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
  });
}

function run(args) {
  const r = spawnSync(wranglerBin, args, { cwd: root, env: quietEnv, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`wrangler ${args.join(" ")} failed:\n${r.stdout}\n${r.stderr}`);
}

/**
 * Starts the control plane (and the no-op baseline worker) on one workerd. Returns its URLs, the bootstrap
 * admin token and stop(). `vars` override wrangler.toml [vars].
 */
export async function startWorkerd({ vars = {}, inspectorPort } = {}) {
  const { Miniflare } = await import("miniflare");
  const { unstable_getMiniflareWorkerOptions } = await import("wrangler");
  const dir = mkdtempSync(join(tmpdir(), "sf-bench-workerd-"));
  const bundle = join(dir, "bundle");
  const persist = join(dir, "state");
  run(["deploy", "--dry-run", "--outdir", bundle]);
  run(["d1", "migrations", "apply", "DB", "--local", "--persist-to", persist]);

  const { workerOptions } = unstable_getMiniflareWorkerOptions(join(root, "wrangler.toml"));
  const adminToken = `sfp_${randomBytes(32).toString("base64url")}`;
  const [appPort, noopPort] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${appPort}`;
  const mf = new Miniflare({
    ...(inspectorPort ? { inspectorPort } : {}),
    d1Persist: join(persist, "v3", "d1"),
    r2Persist: join(persist, "v3", "r2"),
    durableObjectsPersist: join(persist, "v3", "do"),
    workers: [
      {
        ...workerOptions,
        name: "starforge",
        modules: true,
        scriptPath: join(bundle, "index.js"),
        modulesRoot: bundle,
        bindings: {
          ...workerOptions.bindings,
          SF_PUBLIC_URL: url,
          SF_BOOTSTRAP_ADMIN_TOKEN: adminToken,
          SF_JWT_SECRET: randomBytes(48).toString("base64url"),
          SF_SECRETS_KEY: randomBytes(32).toString("base64url"),
          ...vars,
        },
        unsafeDirectSockets: [{ host: "127.0.0.1", port: appPort }],
      },
      {
        name: "noop",
        modules: true,
        scriptPath: join(root, "scripts", "bench", "noop-worker.js"),
        compatibilityDate: workerOptions.compatibilityDate,
        compatibilityFlags: workerOptions.compatibilityFlags,
        durableObjects: { NOOP: { className: "NoopDO", useSQLite: true } },
        d1Databases: { NOOP_DB: "noop-db" },
        unsafeDirectSockets: [{ host: "127.0.0.1", port: noopPort }],
      },
    ],
  });
  await mf.ready;
  return {
    url,
    noopUrl: `http://127.0.0.1:${noopPort}`,
    adminToken,
    async stop() {
      await mf.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
