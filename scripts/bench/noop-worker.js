// The baseline next to the control plane on the same workerd (scripts/bench/workerd.mjs):
//   GET /noop     answers at once (the cost of a request through workerd),
//   POST /noop-do reads the body and makes one RPC to a SQLite-backed Durable Object that does nothing
//                 (the cost of the hop every admission must make to its Fleet DO),
//   POST /noop-d1 reads the body and writes one row to a D1 database of its own in one batch (the cost
//                 of one D1 write transaction: what reserving an admission's slot costs at the least).
import { DurableObject } from "cloudflare:workers";

export class NoopDO extends DurableObject {
  ping() {
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
