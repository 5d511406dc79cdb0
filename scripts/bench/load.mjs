// A closed-loop HTTP load generator for the benchmarks: `concurrency` clients, each sending its next
// request as soon as the previous one answered, over keep-alive loopback connections (node:http, so the
// client costs as little CPU as it can: it shares this 2-core machine with what it measures).
import http from "node:http";

/** One request; resolves to { status, ms, body } (body only when `keepBody`). */
export function request(agent, url, { method = "GET", headers = {}, body, keepBody = false }) {
  const u = new URL(url);
  const t0 = process.hrtime.bigint();
  return new Promise((ok, ko) => {
    const req = http.request(
      { agent, host: u.hostname, port: u.port, path: u.pathname + u.search, method, headers },
      (res) => {
        const chunks = [];
        res.on("data", (c) => {
          if (keepBody || res.statusCode >= 400) chunks.push(c);
        });
        res.on("end", () =>
          ok({
            status: res.statusCode,
            ms: Number(process.hrtime.bigint() - t0) / 1e6,
            body: chunks.length ? Buffer.concat(chunks).toString() : "",
          }),
        );
        res.on("error", ko);
      },
    );
    req.on("error", ko);
    if (body !== undefined) req.end(body);
    else req.end();
  });
}

/**
 * Sends `total` requests from `concurrency` clients; `make(i)` gives request i's options. Fails on the
 * first status other than `expect`. Returns rate (requests/s over the wall time) and latency percentiles.
 */
export async function closedLoop({ url, concurrency, total, make, expect = 200 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const ms = [];
  let next = 0;
  const t0 = process.hrtime.bigint();
  const client = async () => {
    for (;;) {
      const i = next++;
      if (i >= total) return;
      const r = await request(agent, url, make(i));
      if (r.status !== expect) throw new Error(`request ${i} to ${url}: ${r.status} ${r.body.slice(0, 500)}`);
      ms.push(r.ms);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
  agent.destroy();
  return {
    requests: total,
    concurrency,
    seconds: round(wallS, 3),
    rate: round(total / wallS),
    ...percentiles(ms),
  };
}

export function percentiles(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
  return { p50_ms: round(at(50), 2), p90_ms: round(at(90), 2), p99_ms: round(at(99), 2) };
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export const round = (x, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;
