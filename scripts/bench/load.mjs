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
 * A connection the server closed before answering. On a saturated local workerd this happens to kept-alive
 * connections: kj's event loop polls its sockets and timers only when it has nothing else to do, so under
 * sustained saturation its clock stands still for seconds; when it finally polls, every connection that
 * was waiting for its next request has "waited" past kj's 5 s pipeline timeout and is closed with the
 * request unread (docs/operations.md, "Known problem: the local stack under sustained saturation").
 */
export const closedBeforeAnswer = (err) => err?.code === "ECONNRESET" || err?.code === "EPIPE";

/**
 * `request`, sent again on a new connection when the server closed the old one before answering, as a
 * production client does: safe because such a request never reached the Worker, and admissions carry an
 * Idempotency-Key (a second copy is the same job). `stats.resent` counts the second sends; `ms` counts from
 * the first.
 */
export async function send(agent, url, opts, stats) {
  const t0 = process.hrtime.bigint();
  for (let attempt = 1; ; attempt++) {
    try {
      const r = await request(agent, url, opts);
      // The latency a user sees: from the first send.
      return { ...r, ms: Number(process.hrtime.bigint() - t0) / 1e6 };
    } catch (err) {
      // A stall can outlast several new connections (each waits in workerd's accept queue through it):
      // up to 10 sends, a little further apart each time.
      if (!closedBeforeAnswer(err) || attempt >= 10) throw err;
      stats.resent++;
      await new Promise((r) => setTimeout(r, 10 * attempt));
    }
  }
}

/**
 * Sends `total` requests from `concurrency` clients; `make(i)` gives request i's options. Fails on the
 * first status other than `expect`. Returns rate (requests/s over the wall time), latency percentiles and
 * how many requests were sent again after the server closed their connection (`send`).
 */
export async function closedLoop({ url, concurrency, total, make, expect = 200 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const ms = [];
  const stats = { resent: 0 };
  let next = 0;
  const t0 = process.hrtime.bigint();
  const client = async () => {
    for (;;) {
      const i = next++;
      if (i >= total) return;
      const r = await send(agent, url, make(i), stats);
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
    resent: stats.resent,
  };
}

export function percentiles(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
  return { p50_ms: round(at(50), 2), p90_ms: round(at(90), 2), p99_ms: round(at(99), 2) };
}

/**
 * The round with the median rate, and every round's rate (`rounds`): on a shared machine one second of load
 * is one sample, and a ratio of two single samples taken a minute apart says as much about the machine.
 */
export function medianPoint(points) {
  const sorted = [...points].sort((a, b) => a.rate - b.rate);
  return { ...sorted[Math.floor(sorted.length / 2)], rounds: points.map((p) => p.rate) };
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export const round = (x, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;
