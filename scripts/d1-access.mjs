// The Node side of scripts/d1-access-worker.js: the worker's options to add to a Miniflare that runs the
// control plane, and a client for it once Miniflare is ready. Every call is one plain HTTP request over
// loopback, never Miniflare's synchronous binding proxy (see the worker for why).
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const NAME = "sf-d1-access";

/**
 * The worker to add to `new Miniflare({workers: [...]})` beside the control plane, whose Miniflare options
 * (from wrangler.toml) are `workerOptions`: same compatibility, the same D1 database bound as DB, its own
 * loopback socket on a port the system picks.
 */
export function d1AccessWorker(workerOptions) {
  const db = workerOptions.d1Databases?.DB;
  if (db === undefined) throw new Error("wrangler.toml binds no D1 database as DB");
  return {
    name: NAME,
    modules: true,
    scriptPath: join(dirname(fileURLToPath(import.meta.url)), "d1-access-worker.js"),
    compatibilityDate: workerOptions.compatibilityDate,
    compatibilityFlags: workerOptions.compatibilityFlags,
    d1Databases: { DB: db },
    unsafeDirectSockets: [{ host: "127.0.0.1", port: 0 }],
  };
}

/** A client for the d1-access worker of a ready Miniflare `mf`. */
export async function d1Access(mf) {
  const base = await mf.unsafeGetDirectURL(NAME);
  const call = async (path, body) => {
    const res = await fetch(new URL(path, base), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = await res.json();
    if (!res.ok) throw new Error(`D1 ${path}: ${answer.error}`);
    return answer;
  };
  return {
    /** Applies the migrations the database lacks ({name, statements} in order); returns the names applied. */
    async migrate(migrations) {
      return (await call("/migrate", { migrations })).applied;
    },
    /** The rows of one statement. */
    async all(sql, ...params) {
      return (await call("/query", { sql, params })).results;
    },
    /** The first row of one statement, or null. */
    async first(sql, ...params) {
      return (await this.all(sql, ...params))[0] ?? null;
    },
  };
}
