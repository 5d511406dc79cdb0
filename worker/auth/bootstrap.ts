/**
 * First start: the bootstrap admin (from SF_BOOTSTRAP_ADMIN_TOKEN) and the initial profiles are created
 * exactly once, guarded by a `bootstrapped` marker written in the same D1 batch, so a revoked bootstrap
 * token never comes back. Built-in recipe versions are ensured on every start (insert-or-ignore).
 */
import { BUILTIN_RECIPES, INITIAL_PROFILES } from "../catalog/builtin.js";
import { normalizeRecipe } from "../catalog/catalog.service.js";
import { type AppEnv, config } from "../env.js";
import { hashSecret } from "./secrets.js";

const BOOTSTRAP_USER_ID = "usr_bootstrap_admin";
const BOOTSTRAP_TOKEN_ID = "tok_bootstrap_admin";
const done = new WeakMap<object, Promise<void>>();

/** Runs once per isolate; concurrent callers share the promise, a failure is retried by the next request. */
export function ensureBootstrapped(env: AppEnv): Promise<void> {
  let p = done.get(env.DB);
  if (!p) {
    p = bootstrap(env).catch((err: unknown) => {
      done.delete(env.DB);
      throw err;
    });
    done.set(env.DB, p);
  }
  return p;
}

async function bootstrap(env: AppEnv): Promise<void> {
  const d1 = env.DB;
  const guard = "NOT EXISTS (SELECT 1 FROM meta WHERE key = 'bootstrapped')";
  const stmts: D1PreparedStatement[] = [];
  const token = config(env).bootstrapAdminToken;
  if (token) {
    stmts.push(
      d1
        .prepare(`INSERT OR IGNORE INTO users (id, name, role) SELECT ?, 'admin', 'admin' WHERE ${guard}`)
        .bind(BOOTSTRAP_USER_ID),
      d1
        .prepare(
          `INSERT OR IGNORE INTO tokens (id, user_id, name, hash, prefix) SELECT ?, ?, 'bootstrap', ?, ? WHERE ${guard}`,
        )
        .bind(BOOTSTRAP_TOKEN_ID, BOOTSTRAP_USER_ID, await hashSecret(token), token.slice(0, 10)),
    );
  }
  for (const p of INITIAL_PROFILES) {
    stmts.push(
      d1
        .prepare(
          `INSERT OR IGNORE INTO profiles (name, series, gpus_per_node, default_gpus, description) SELECT ?, ?, ?, ?, ? WHERE ${guard}`,
        )
        .bind(p.name, p.series, p.gpus_per_node, p.default_gpus, p.description),
    );
  }
  for (const r of BUILTIN_RECIPES) {
    const { body, digest, json } = await normalizeRecipe(r);
    stmts.push(
      d1
        .prepare(
          "INSERT OR IGNORE INTO recipes (name, version, digest, body, published_by) VALUES (?, ?, ?, ?, 'system')",
        )
        .bind(body.name, body.version, digest, json),
    );
  }
  stmts.push(
    d1.prepare(
      "INSERT OR IGNORE INTO meta (key, value) VALUES ('bootstrapped', strftime('%Y-%m-%dT%H:%M:%fZ','now'))",
    ),
  );
  await d1.batch(stmts);
}
