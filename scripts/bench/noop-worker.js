// The baseline next to the control plane on the same workerd (scripts/bench/workerd.mjs):
//   GET /noop     answers at once (the cost of a request through workerd),
//   POST /noop-do reads the body and makes one RPC to a SQLite-backed Durable Object that does nothing
//                 (the cost of the hop every admission must make to its Fleet DO),
//   POST /noop-d1 reads the body and writes one row to a D1 database of its own in one batch (the cost
//                 of one D1 write transaction),
//   POST /chain2  reads the body and makes two RPCs in a row, to two SQLite-backed Durable Objects that
//                 each write the body as one row (the structural floor of an admission: the user's object
//                 reserves, then the fleet's queues).
import { DurableObject } from "cloudflare:workers";

export class NoopDO extends DurableObject {
  ping() {
    return 1;
  }

  /** Writes `body` as one row; answers once it is durable (the output gate). */
  write(body) {
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
    sql.exec("INSERT INTO rows (body) VALUES (?)", body);
    return 1;
  }
}

export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    if (pathname === "/noop") return Response.json({ ok: true });
    if (pathname === "/noop-do") {
      await request.text();
      const n = await env.NOOP.get(env.NOOP.idFromName("noop")).ping();
      return Response.json({ ok: n === 1 }, { status: 201 });
    }
    if (pathname === "/chain2") {
      const body = await request.text();
      const first = await env.NOOP.get(env.NOOP.idFromName("chain-user")).write(body);
      const second = await env.NOOP.get(env.NOOP.idFromName("chain-fleet")).write(body);
      return Response.json({ ok: first + second === 2 }, { status: 201 });
    }
    if (pathname === "/noop-d1") {
      await request.text();
      await env.NOOP_DB.batch([
        env.NOOP_DB.prepare("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, at INTEGER)"),
        env.NOOP_DB.prepare("INSERT INTO t (at) VALUES (?)").bind(Date.now()),
      ]);
      return Response.json({ ok: true }, { status: 201 });
    }
    return new Response("not found", { status: 404 });
  },
};
