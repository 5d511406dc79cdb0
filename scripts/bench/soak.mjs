// Sustained admissions against the control plane on workerd, watching the connections:
// `node scripts/bench/soak.mjs [--clients N] [--submits N] [--var KEY=VALUE ...]`.
// N closed-loop clients on kept-alive connections submit until M admissions are answered or a request
// fails; it prints every connection the server closed (and when), how many submits were sent again on a
// new connection after that (with their Idempotency-Key, as `npm run bench` does), the first failure, and
// the slowest requests with when they started. Then it waits for D1 to converge and checks exactly-once:
// the jobs in D1 are the submits answered, one per key. Exit status 1 when a request failed or the count
// is off. A diagnostic, not a benchmark.
import http from "node:http";
import { parseArgs } from "node:util";
import { jsonClient } from "./latency.mjs";
import { send } from "./load.mjs";
import { benchUser, charlmSpec, submitRequest } from "./setup.mjs";
import { startWorkerd } from "./workerd.mjs";

const { values: opts } = parseArgs({
  options: {
    clients: { type: "string", default: "32" },
    submits: { type: "string", default: "20000" },
    var: { type: "string", multiple: true, default: [] },
  },
});
const vars = { SF_LOG_LEVEL: "warn" };
for (const v of opts.var) vars[v.slice(0, v.indexOf("="))] = v.slice(v.indexOf("=") + 1);
const clients = Number(opts.clients);
const total = Number(opts.submits);

const w = await startWorkerd({ vars });
const api = jsonClient(w.url);
const user = await benchUser(api, w.adminToken, { max_gpus: 16, max_jobs: 100_000, daily_gpu_hours: 1e6 });
await api(w.adminToken, "POST", "/v1/fleets", { name: "soak", kind: "process" });
const body = JSON.stringify(charlmSpec(user.charlmDigest, "soak"));

const t0 = Date.now();
const at = () => ((Date.now() - t0) / 1000).toFixed(2);
const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
const closedByServer = [];
const connect = agent.createConnection.bind(agent);
agent.createConnection = (...args) => {
  const socket = connect(...args);
  socket.on("end", () => closedByServer.push(at()));
  return socket;
};
let next = 0;
let done = 0;
let failure = null;
const slowest = [];
const stats = { resent: 0 };
const client = async () => {
  while (!failure && next < total) {
    const i = next++;
    const started = Date.now();
    try {
      const r = await send(agent, `${w.url}/v1/jobs`, submitRequest(user.token, body, `soak-${i}`), stats);
      if (r.status !== 201) failure = `request ${i}: ${r.status} ${r.body.slice(0, 300)}`;
      done++;
      slowest.push({ ms: Date.now() - started, started_s: (started - t0) / 1000 });
      if (done % 5000 === 0) process.stderr.write(`soak: ${done} answered at ${at()} s\n`);
    } catch (err) {
      failure = `request ${i} failed after ${Date.now() - started} ms at ${at()} s: ${err.message} (${done} answered)`;
    }
  }
};
await Promise.all(Array.from({ length: clients }, client));
const wall = (Date.now() - t0) / 1000;
slowest.sort((a, b) => b.ms - a.ms);
console.log(`${done} answered in ${wall.toFixed(1)} s (${(done / wall).toFixed(0)}/s) at ${clients} clients`);
console.log(
  `connections the server closed: ${closedByServer.length}${closedByServer.length ? ` (at ${[...new Set(closedByServer)].join(", ")} s)` : ""}`,
);
console.log(
  `slowest: ${slowest
    .slice(0, 5)
    .map((s) => `${s.ms} ms (started ${s.started_s.toFixed(1)} s)`)
    .join(", ")}`,
);
console.log(`submits sent again on a new connection: ${stats.resent}`);
console.log(failure ? `FAILED: ${failure}` : "no request failed");
agent.destroy();
// Exactly once: every answered submit is one job in D1, whatever was sent twice.
let inD1 = -1;
for (let waited = 0; waited < 30_000 && inD1 !== done; waited += 200) {
  inD1 = (await w.db.first("SELECT COUNT(*) AS n FROM jobs")).n;
  if (inD1 !== done) await new Promise((r) => setTimeout(r, 200));
}
console.log(`jobs in D1: ${inD1} (answered ${done})`);
if (inD1 !== done) failure ??= `D1 holds ${inD1} jobs for ${done} answered submits`;
await w.stop();
process.exit(failure ? 1 : 0);
