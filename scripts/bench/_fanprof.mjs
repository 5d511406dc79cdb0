import WebSocket from "ws";
import { enrollAgent, SimAgent } from "./agent.mjs";
import { jsonClient, publishCapsule } from "./latency.mjs";
import { freePort, startWorkerd } from "./workerd.mjs";

const N = Number(process.env.N ?? 200);
const ip = await freePort();
const w = await startWorkerd({ inspectorPort: ip });
const api = jsonClient(w.url);
await publishCapsule(api, w.adminToken);
await api(w.adminToken, "POST", "/v1/fleets", { name: "fan", kind: "process" });
const agents = [];
const connectGroup = async (n) => {
  const g = await Promise.all(
    Array.from({ length: n }, async (_, k) => {
      const { credential } = await enrollAgent(api, w.adminToken, "fan");
      return SimAgent.connect(w.url, credential, {
        name: `n${agents.length}-${k}-${Math.random()}`.replace(/\./g, ""),
        gpus: 1,
        heartbeatMs: 2000,
      });
    }),
  );
  agents.push(...g);
};
await connectGroup(50);
await connectGroup(50);
await connectGroup(50);
const targets = await (await fetch(`http://127.0.0.1:${ip}/json`)).json();
const t = targets.find((x) => x.title.includes("core:user:starforge"));
const ws = new WebSocket(t.webSocketDebuggerUrl);
await new Promise((ok) => ws.on("open", ok));
let id = 0;
const pending = new Map();
ws.on("message", (m) => {
  const x = JSON.parse(m);
  if (x.id && pending.has(x.id)) {
    pending.get(x.id)(x.result);
    pending.delete(x.id);
  }
});
const send = (method, params = {}) =>
  new Promise((ok) => {
    const i = ++id;
    pending.set(i, ok);
    ws.send(JSON.stringify({ id: i, method, params }));
  });
await send("Profiler.enable");
await send("Profiler.start");
const t0 = Date.now();
await connectGroup(50);
console.log("group took", Date.now() - t0);
const { profile } = await send("Profiler.stop");
const self = new Map();
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
for (let i = 0; i < profile.samples.length; i++) {
  const n = byId.get(profile.samples[i]);
  const f = n.callFrame;
  const k = `${f.functionName || "(anon)"}:${f.lineNumber}`;
  self.set(k, (self.get(k) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
for (const [k, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25))
  console.log((us / 1000).toFixed(0).padStart(6), k);
for (const a of agents) a.close();
ws.close();
await w.stop();
