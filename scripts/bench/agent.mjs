// A simulated forgelet for the benchmarks: a real WebSocket to /v1/agents/connect speaking the real frames
// (contract/agent-frames.schema.ts): hello with a simulated inventory, `ping` heartbeats, an ack for every
// command. It runs nothing: it records when each LaunchRequest arrived, which is what the latency and
// fan-in benchmarks measure, and hands the request (with its run's ingest token) to the ingest benchmark.
import WebSocket from "ws";

let frameSeq = 0;
const fid = () => `b${++frameSeq}`;

export async function enrollAgent(api, adminToken, fleet) {
  const t = await api(adminToken, "POST", `/v1/fleets/${fleet}/enrollment-tokens`, {});
  const r = await api(null, "POST", "/v1/agents/enroll", { token: t.token });
  return { credential: r.credential, nodeId: r.node_id };
}

export class SimAgent {
  /** LaunchRequests by job id: { at (performance.now() on arrival), request, rank }. */
  launches = new Map();
  onLaunch = null;
  #ws;
  #timer = null;

  constructor(ws) {
    this.#ws = ws;
    ws.on("message", (data) => {
      const text = data.toString();
      if (text === "pong") return;
      const f = JSON.parse(text);
      if (f.type === "launch") {
        const at = performance.now();
        this.launches.set(f.request.job_id, { at, request: f.request, rank: f.rank });
        this.send({ v: 1, type: "ack", id: fid(), ref: f.id });
        this.onLaunch?.(f.request, at);
      } else if (f.type === "stop") {
        this.send({ v: 1, type: "ack", id: fid(), ref: f.id });
        this.report(f, "stopped", { exit_code: 143 });
      }
    });
  }

  /** Connects and says hello; resolves on the server's welcome. */
  static async connect(
    baseUrl,
    credential,
    { name, gpus, series = "h200", runtime = "process", heartbeatMs = 10_000 },
  ) {
    const ws = new WebSocket(`${baseUrl.replace(/^http/, "ws")}/v1/agents/connect`, {
      headers: { authorization: `Bearer ${credential}` },
    });
    await new Promise((ok, ko) => {
      ws.once("open", ok);
      ws.once("error", ko);
      ws.once("unexpected-response", (_req, res) => ko(new Error(`connect: HTTP ${res.statusCode}`)));
    });
    const agent = new SimAgent(ws);
    const welcome = new Promise((ok) => {
      const onMsg = (data) => {
        const text = data.toString();
        if (text !== "pong" && JSON.parse(text).type === "welcome") {
          ws.off("message", onMsg);
          ok();
        }
      };
      ws.on("message", onMsg);
    });
    agent.send({
      v: 1,
      type: "hello",
      id: fid(),
      journal: [],
      inventory: {
        hostname: name,
        runtime,
        gpu_series: series,
        gpus: Array.from({ length: gpus }, (_, index) => ({ index, name: `sim ${series}`, simulated: true })),
        cpus: 8,
        memory_mb: 32_000,
        labels: {},
        agent_version: "bench",
      },
    });
    await welcome;
    agent.#timer = setInterval(() => ws.send("ping"), heartbeatMs);
    return agent;
  }

  send(frame) {
    this.#ws.send(JSON.stringify(frame));
  }

  report(r, event, extra = {}) {
    this.send({
      v: 1,
      type: "report",
      id: fid(),
      run_id: r.run_id,
      epoch: r.epoch,
      rank: r.rank ?? 0,
      event,
      exit_code: extra.exit_code ?? null,
      reason: null,
      infra: false,
      ts: new Date().toISOString(),
    });
  }

  close() {
    clearInterval(this.#timer);
    this.#ws.close(1000, "bench done");
  }
}
