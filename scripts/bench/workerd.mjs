// The control plane on workerd WITHOUT wrangler dev's proxy, for benchmarks of the Worker itself.
//
// `wrangler dev` puts a proxy worker and an inspector proxy in front of the user's worker; here that caps a
// trivial route at a few hundred requests/s, which would hide everything this suite measures. So the
// benchmarks take the Worker bundled exactly as `wrangler deploy` would, with its bindings read from
// wrangler.toml by wrangler itself (scripts/worker-bundle.mjs, which `npm start` serves too), and run it
// with Miniflare in one
// workerd process next to a tiny no-op worker (scripts/bench/noop-worker.js: a no-op route and a no-op
// Durable Object RPC) that serves as the baseline. Each worker gets its own direct loopback socket, so
// both are reached the same way, with nothing in between. State (D1, R2, Durable Objects) is persisted to
// a temporary directory on disk, as `npm start` does, with the same migrations. Unlike `npm start`, no
// local entry wraps the Worker (scripts/serve-worker.mjs drains unread request bodies): this measures the
// Worker itself, as it runs on Cloudflare.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { d1Access, d1AccessWorker } from "../d1-access.mjs";
import { ensureWorkerBundle } from "../worker-bundle.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

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

/**
 * Starts the control plane (and the no-op baseline worker) on one workerd. Returns its URLs, the bootstrap
 * admin token and stop(). `vars` override wrangler.toml [vars].
 */
export async function startWorkerd({ vars = {}, inspectorPort } = {}) {
  const { Miniflare } = await import("miniflare");
  const dir = mkdtempSync(join(tmpdir(), "sf-bench-workerd-"));
  const persist = join(dir, "state");
  const { scriptPath, workerOptions, migrations } = await ensureWorkerBundle();
  const adminToken = `sfp_${randomBytes(32).toString("base64url")}`;
  const [appPort, noopPort] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${appPort}`;
  const mf = new Miniflare({
    cf: false,
    // The Worker logs every request as it does in production (console.log, at SF_LOG_LEVEL); here workerd
    // writes those lines to a pipe that this process (also the load generator) would otherwise parse and
    // print, which is the client's CPU, not the Worker's: read and dropped. Warnings and errors still show.
    handleRuntimeStdio(stdout, stderr) {
      stdout.resume();
      stderr.pipe(process.stderr);
    },
    ...(inspectorPort ? { inspectorPort } : {}),
    d1Persist: join(persist, "v3", "d1"),
    r2Persist: join(persist, "v3", "r2"),
    durableObjectsPersist: join(persist, "v3", "do"),
    workers: [
      {
        ...workerOptions,
        name: "starforge",
        modules: true,
        scriptPath,
        modulesRoot: dirname(scriptPath),
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
      d1AccessWorker(workerOptions),
    ],
  });
  await mf.ready;
  const db = await d1Access(mf);
  await db.migrate(migrations);
  return {
    url,
    noopUrl: `http://127.0.0.1:${noopPort}`,
    adminToken,
    /** The control plane's D1, read from this process (the projection-lag benchmark polls it): scripts/d1-access.mjs. */
    db,
    async stop() {
      await mf.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
