/**
 * First start: the bootstrap admin (from SF_BOOTSTRAP_ADMIN_TOKEN) and the initial profiles are created
 * exactly once, guarded by a `bootstrapped` marker written in the same D1 batch, so a revoked bootstrap
 * token never comes back. Built-in recipe versions are ensured on every start (insert-or-ignore).
 */
import { sql } from "drizzle-orm";
import { col, db, prepared, schema } from "../../d1/client.js";
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
  const { meta, users, tokens, profiles, recipes } = schema;
  // Everything below happens once: on the first start, before `bootstrapped` is written.
  const fresh = sql`NOT EXISTS (SELECT 1 FROM ${meta} WHERE ${meta.key} = 'bootstrapped')`;
  const stmts: D1PreparedStatement[] = [];
  const token = config(env).bootstrapAdminToken;
  if (token) {
    stmts.push(
      prepared(
        d1,
        sql`INSERT OR IGNORE INTO ${users} (${col(users.id)}, ${col(users.name)}, ${col(users.role)})
          SELECT ${BOOTSTRAP_USER_ID}, 'admin', 'admin' WHERE ${fresh}`,
      ),
      prepared(
        d1,
        sql`INSERT OR IGNORE INTO ${tokens}
            (${col(tokens.id)}, ${col(tokens.userId)}, ${col(tokens.name)}, ${col(tokens.hash)}, ${col(tokens.prefix)})
          SELECT ${BOOTSTRAP_TOKEN_ID}, ${BOOTSTRAP_USER_ID}, 'bootstrap', ${await hashSecret(token)},
            ${token.slice(0, 10)} WHERE ${fresh}`,
      ),
    );
  }
  for (const p of INITIAL_PROFILES) {
    stmts.push(
      prepared(
        d1,
        sql`INSERT OR IGNORE INTO ${profiles}
            (${col(profiles.name)}, ${col(profiles.series)}, ${col(profiles.gpusPerNode)},
             ${col(profiles.defaultGpus)}, ${col(profiles.description)})
          SELECT ${p.name}, ${p.series}, ${p.gpus_per_node}, ${p.default_gpus}, ${p.description} WHERE ${fresh}`,
      ),
    );
  }
  const d = db(d1);
  for (const r of BUILTIN_RECIPES) {
    const { body, digest, json } = await normalizeRecipe(r);
    stmts.push(
      prepared(
        d1,
        d
          .insert(recipes)
          .values({ name: body.name, version: body.version, digest, body: json, publishedBy: "system" })
          .onConflictDoNothing(),
      ),
    );
  }
  stmts.push(
    prepared(
      d1,
      d
        .insert(meta)
        .values({ key: "bootstrapped", value: sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))` })
        .onConflictDoNothing(),
    ),
  );
  await d1.batch(stmts);
}
