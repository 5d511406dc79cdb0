// A loopback-only door to the control plane's D1 for the Node scripts that start it on Miniflare
// (scripts/serve-worker.mjs, scripts/bench/workerd.mjs), run in the same workerd with the same database
// bound as DB (scripts/d1-access.mjs). It replaces Miniflare's binding proxy (getD1Database), whose
// synchronous calls (every property read, prepare, bind) go through a worker-thread handshake that can
// desynchronise under load and then fail every later call (an AssertionError in fetch-sync; fixed upstream
// only in releases that need Node 22). Here every call is one ordinary HTTP request.
//   POST /migrate {migrations: [{name, statements}]}  applies, in order, the migrations the database lacks,
//                 each with its row in wrangler's d1_migrations table in one batch (all or nothing), exactly
//                 as `wrangler d1 migrations apply` records them, so either tool can take over a state
//                 directory; answers {applied: [names]}
//   POST /query   {sql, params}  runs one statement; answers {results: [rows]}
// Errors answer 500 with {error}.
const MIGRATIONS_TABLE = "d1_migrations";

async function migrate(db, migrations) {
  await db.exec(
    `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE}(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL);`,
  );
  const { results } = await db.prepare(`SELECT name FROM ${MIGRATIONS_TABLE}`).all();
  const done = new Set(results.map((r) => r.name));
  const applied = [];
  for (const { name, statements } of migrations) {
    if (done.has(name)) continue;
    await db.batch([
      ...statements.map((sql) => db.prepare(sql)),
      db.prepare(`INSERT INTO ${MIGRATIONS_TABLE} (name) VALUES (?)`).bind(name),
    ]);
    applied.push(name);
  }
  return applied;
}

export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    if (request.method !== "POST") return Response.json({ error: "POST only" }, { status: 405 });
    try {
      const body = await request.json();
      if (pathname === "/migrate") return Response.json({ applied: await migrate(env.DB, body.migrations) });
      if (pathname === "/query") {
        const { results } = await env.DB.prepare(body.sql)
          .bind(...(body.params ?? []))
          .all();
        return Response.json({ results });
      }
      return Response.json({ error: `no route ${pathname}` }, { status: 404 });
    } catch (err) {
      return Response.json({ error: String(err?.stack ?? err) }, { status: 500 });
    }
  },
};
