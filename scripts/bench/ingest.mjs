// Ingest into one run, as the capsule's runners send it: metric points and log lines in batches of 256,
// from 8 concurrent senders with the run's own token (for logs: one sender per rank, each sending its
// stream's batches in order, as capsule/runner/sfrunner/logship.py does); then everything read back through the user API and
// compared with what was sent. Baseline: the same rows inserted into SQLite by better-sqlite3 in batched
// transactions (one per 256 rows), in this process, with the same keys (a point per (key, step), a line
// per (rank, stream, seq)). And the live log tail: a line posted → the same line at an SSE follower.
import http from "node:http";
import Database from "better-sqlite3";
import { percentiles, request, round } from "./load.mjs";

const BATCH = 256;
const SENDERS = 8;

/** `queues`: one list of bodies per sender, each sent in order; the senders run concurrently. */
async function sendAll(url, token, queues) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: queues.length });
  const t0 = performance.now();
  await Promise.all(
    queues.map(async (bodies) => {
      for (const body of bodies) {
        const r = await request(agent, url, {
          method: "POST",
          headers: { "x-starforge-token": token, "content-type": "application/json" },
          body,
        });
        if (r.status >= 300) throw new Error(`ingest ${url}: ${r.status} ${r.body}`);
      }
    }),
  );
  agent.destroy();
  return (performance.now() - t0) / 1000;
}

/** Deals `items` round-robin into `n` queues. */
const deal = (items, n) => Array.from({ length: n }, (_, k) => items.filter((_, i) => i % n === k));

function sqliteBaseline(points, lines) {
  const db = new Database(":memory:");
  db.exec(`CREATE TABLE metrics (key TEXT NOT NULL, step INTEGER NOT NULL, value REAL NOT NULL, ts INTEGER,
             PRIMARY KEY (key, step));
           CREATE TABLE logs (rank INTEGER NOT NULL, stream TEXT NOT NULL, seq INTEGER NOT NULL, text TEXT NOT NULL,
             PRIMARY KEY (rank, stream, seq));`);
  const m = db.prepare(
    "INSERT INTO metrics (key, step, value, ts) VALUES (?, ?, ?, ?) ON CONFLICT (key, step) DO UPDATE SET value = excluded.value, ts = excluded.ts",
  );
  const l = db.prepare("INSERT OR IGNORE INTO logs (rank, stream, seq, text) VALUES (?, ?, ?, ?)");
  const mBatch = db.transaction((rows) => {
    for (const p of rows) m.run(p.key, p.step, p.value, Date.parse(p.ts));
  });
  const lBatch = db.transaction((rows) => {
    for (const r of rows) l.run(r.rank, "stdout", r.seq, r.text);
  });
  let t0 = performance.now();
  for (let i = 0; i < points.length; i += BATCH) mBatch(points.slice(i, i + BATCH));
  const pointsS = (performance.now() - t0) / 1000;
  t0 = performance.now();
  for (let i = 0; i < lines.length; i += BATCH) lBatch(lines.slice(i, i + BATCH));
  const linesS = (performance.now() - t0) / 1000;
  db.close();
  return { points_per_s: round(points.length / pointsS), lines_per_s: round(lines.length / linesS) };
}

/** `launch` is a LaunchRequest a simulated agent received (its run's id and ingest token). */
export async function benchIngest({ baseUrl, userToken, launch, points: nPoints, lines: nLines }) {
  const endpoint = `${baseUrl}/v1/ingest`;
  const token = launch.ingest.token;
  const run = launch.run_id;
  const ts = new Date().toISOString();
  const keys = ["train/loss", "train/lr", "train/grad_norm", "eval/loss"];
  const points = Array.from({ length: nPoints }, (_, i) => ({
    key: keys[i % keys.length],
    step: Math.floor(i / keys.length),
    value: Math.sin(i) * 10,
    ts,
  }));
  const perRank = Math.ceil(nLines / SENDERS);
  const ranks = Array.from({ length: SENDERS }, (_, rank) =>
    Array.from({ length: perRank }, (_, seq) => ({
      rank,
      seq,
      text: `rank ${rank} step ${seq}: loss=${(1 / (seq + 1)).toFixed(6)} lr=3e-4 tokens/s=81234`,
    })),
  );
  const lines = ranks.flat();
  const pointBodies = [];
  for (let i = 0; i < points.length; i += BATCH)
    pointBodies.push(JSON.stringify({ run_id: run, points: points.slice(i, i + BATCH) }));
  const lineQueues = ranks.map((rl, rank) => {
    const bodies = [];
    for (let i = 0; i < rl.length; i += BATCH) {
      const b = rl.slice(i, i + BATCH);
      bodies.push(
        JSON.stringify({ run_id: run, seq: b[0].seq, stream: "stdout", rank, chunks: b.map((x) => x.text) }),
      );
    }
    return bodies;
  });
  const pointsS = await sendAll(`${endpoint}/metrics`, token, deal(pointBodies, SENDERS));
  const linesS = await sendAll(`${endpoint}/logs`, token, lineQueues);

  // Read back through the user API: every point and line, equal to what was sent.
  const agent = new http.Agent({ keepAlive: true });
  const get = async (path) => {
    const r = await request(agent, baseUrl + path, {
      headers: { authorization: `Bearer ${userToken}` },
      keepBody: true,
    });
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.body}`);
    return JSON.parse(r.body);
  };
  const job = launch.job_id;
  let pointsEqual = true;
  let pointsRead = 0;
  for (const key of keys) {
    const rows = [];
    for (let after = -1; ; ) {
      const page = await get(
        `/v1/jobs/${job}/metrics?key=${encodeURIComponent(key)}&after=${after}&limit=10000`,
      );
      rows.push(...page.points);
      if (page.next_after === null) break;
      after = page.next_after;
    }
    const sent = points.filter((p) => p.key === key);
    pointsRead += rows.length;
    if (
      rows.length !== sent.length ||
      rows.some((r, i) => r.step !== sent[i].step || r.value !== sent[i].value)
    )
      pointsEqual = false;
  }
  // Within each rank's stream, cursor order is seq order (docs/ingest.md): every line, once, in order.
  let linesRead = 0;
  let linesEqual = true;
  for (const rl of ranks) {
    const got = [];
    for (let offset = 0; ; ) {
      const page = await get(
        `/v1/jobs/${job}/logs?offset=${offset}&limit=5000&stream=stdout&rank=${rl[0].rank}`,
      );
      got.push(...page.lines);
      if (page.lines.length === 0 || page.next_offset === offset) break;
      offset = page.next_offset;
    }
    linesRead += got.length;
    if (got.length !== rl.length || got.some((l, i) => l.line !== rl[i].text || l.seq !== i))
      linesEqual = false;
  }
  const baseline = sqliteBaseline(points, lines);
  return {
    tool: `${SENDERS} concurrent senders (for logs: one per rank, its batches in order), ${BATCH} items per batch, POST /v1/ingest/{metrics,logs} with the run token`,
    points: nPoints,
    lines: nLines,
    points_per_s: round(nPoints / pointsS),
    lines_per_s: round(nLines / linesS),
    readback: {
      points_read: pointsRead,
      points_equal: pointsEqual,
      lines_read: linesRead,
      lines_equal: linesEqual,
    },
    sqlite_baseline: baseline,
  };
}

/** Posts one line at a time and times its arrival at a follower of GET /v1/jobs/:id/logs?follow=1. */
export async function benchLogTail({ baseUrl, userToken, launch, samples }) {
  const token = launch.ingest.token;
  const seen = new Map();
  const waiters = new Map();
  const controller = new AbortController();
  const res = await fetch(`${baseUrl}/v1/jobs/${launch.job_id}/logs?follow=1`, {
    headers: { authorization: `Bearer ${userToken}`, accept: "text/event-stream" },
    signal: controller.signal,
  });
  if (res.status !== 200) throw new Error(`follow: ${res.status}`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  const pump = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ done: true }));
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      for (let cut = buf.indexOf("\n\n"); cut >= 0; cut = buf.indexOf("\n\n")) {
        const frame = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        const data = frame.split("\n").find((l) => l.startsWith("data: "));
        if (!data) continue;
        const m = /tail-probe-(\d+)/.exec(data);
        if (m) {
          seen.set(Number(m[1]), performance.now());
          waiters.get(Number(m[1]))?.();
        }
      }
    }
  })();
  const agent = new http.Agent({ keepAlive: true });
  const ms = [];
  // The follower may replay earlier lines first; the probes use a stream of their own (stderr).
  for (let i = 0; i < samples; i++) {
    const body = JSON.stringify({
      run_id: launch.run_id,
      seq: i,
      stream: "stderr",
      rank: 0,
      chunks: [`tail-probe-${i}`],
    });
    const t0 = performance.now();
    const arrived = new Promise((ok, ko) => {
      const t = setTimeout(() => ko(new Error(`line ${i} never reached the follower`)), 10_000);
      waiters.set(i, () => {
        clearTimeout(t);
        ok();
      });
      if (seen.has(i)) waiters.get(i)();
    });
    const r = await request(agent, `${baseUrl}/v1/ingest/logs`, {
      method: "POST",
      headers: { "x-starforge-token": token, "content-type": "application/json" },
      body,
    });
    if (r.status >= 300) throw new Error(`logs: ${r.status} ${r.body}`);
    await arrived;
    ms.push(seen.get(i) - t0);
    await new Promise((r2) => setTimeout(r2, 5));
  }
  controller.abort();
  await pump;
  return { tool: "one line per POST, an SSE follower on the same job", samples, ...percentiles(ms) };
}
