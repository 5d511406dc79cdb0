// CPU profile of the admission path: `node scripts/bench/profile.mjs [--clients N] [--submits N] [--top N]`.
// Starts the control plane on workerd (as the admissions benchmark does) with its V8 inspector on, samples
// the isolate that runs the Worker and its Durable Objects while N clients submit, and prints the
// functions with the most self time and the most total time (a function's own time plus its callees').
// Profile first, then cut: what the issue asked before any change to the path's CPU.
import { parseArgs } from "node:util";
import WebSocket from "ws";
import { benchSubmitter } from "./setup.mjs";
import { freePort, startWorkerd } from "./workerd.mjs";

const { values: opts } = parseArgs({
  options: {
    clients: { type: "string", default: "8" },
    submits: { type: "string", default: "3000" },
    top: { type: "string", default: "40" },
    json: { type: "string" },
  },
});
const log = (m) => process.stderr.write(`profile: ${m}\n`);

/** A Chrome DevTools Protocol session on one inspector target. */
async function inspect(port) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const target = targets.find((t) => /starforge/.test(t.title ?? "") || /starforge/.test(t.url ?? ""));
  if (!target) throw new Error(`no starforge target among ${JSON.stringify(targets.map((t) => t.title))}`);
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((ok, ko) => {
    ws.once("open", ok);
    ws.once("error", ko);
  });
  let next = 0;
  const waiting = new Map();
  ws.on("message", (data) => {
    const m = JSON.parse(String(data));
    const w = waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id);
    if (m.error) w.ko(new Error(JSON.stringify(m.error)));
    else w.ok(m.result);
  });
  return {
    send: (method, params = {}) =>
      new Promise((ok, ko) => {
        const id = ++next;
        waiting.set(id, { ok, ko });
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}

/** Self and total time per function (name and source position), from a V8 CPU profile. */
function summarize(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const dt = profile.timeDeltas;
  const selfUs = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + (dt[i] ?? 0));
  }
  const key = (n) => {
    const f = n.callFrame;
    const file = (f.url || "").split("/").slice(-2).join("/");
    return `${f.functionName || "(anonymous)"} ${file}:${f.lineNumber + 1}`;
  };
  const self = new Map();
  const total = new Map();
  let all = 0;
  for (const [id, us] of selfUs) {
    all += us;
    const n = byId.get(id);
    self.set(key(n), (self.get(key(n)) ?? 0) + us);
    // Total: once per distinct function on the sample's stack (recursion counted once).
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const k = key(byId.get(at));
      if (seen.has(k)) continue;
      seen.add(k);
      total.set(k, (total.get(k) ?? 0) + us);
    }
  }
  const rank = (m) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .map(([k, us]) => ({ fn: k, ms: Math.round(us / 100) / 10, pct: Math.round((us / all) * 1000) / 10 }));
  return { sampled_ms: Math.round(all / 1000), self: rank(self), total: rank(total) };
}

const port = await freePort();
const w = await startWorkerd({ inspectorPort: port, vars: { SF_LOG_LEVEL: "warn" } });
try {
  const submits = await benchSubmitter(w, "prof", Number(opts.clients));
  log("warming up (500 submits)");
  await submits(500);
  const cdp = await inspect(port);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
  await cdp.send("Profiler.start");
  log(`profiling ${opts.submits} submits at ${opts.clients} client(s)`);
  // A failed request still ends the profile, which is then what shows why.
  const point = await submits(Number(opts.submits)).catch((err) => {
    process.exitCode = 1;
    log(`a submit failed: ${err.message}`);
    return { rate: "n/a" };
  });
  const { profile } = await cdp.send("Profiler.stop");
  cdp.close();
  const s = summarize(profile);
  const top = Number(opts.top);
  if (opts.json) {
    const { writeFileSync } = await import("node:fs");
    writeFileSync(opts.json, JSON.stringify(profile));
  }
  console.log(`${point.rate} admissions/s; ${s.sampled_ms} ms of samples over ${opts.submits} submits`);
  console.log(`\nself time (ms, % of samples)`);
  for (const r of s.self.slice(0, top))
    console.log(`${String(r.ms).padStart(9)}  ${String(r.pct).padStart(5)} %  ${r.fn}`);
  console.log(`\ntotal time`);
  for (const r of s.total.slice(0, top))
    console.log(`${String(r.ms).padStart(9)}  ${String(r.pct).padStart(5)} %  ${r.fn}`);
} finally {
  await w.stop();
}
