// Submit → LaunchRequest at a connected agent (simulated agents on real WebSockets, scripts/bench/agent.mjs,
// on workerd without wrangler's proxy), one submit at a time, with 1 agent and with many agents connected
// and heartbeating on the same fleet (fan-in). Also hands out the LaunchRequests (each with its run's
// ingest token) to the ingest benchmarks.
import { readFileSync } from "node:fs";
import http from "node:http";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { enrollAgent, SimAgent } from "./agent.mjs";
import { percentiles, request, round } from "./load.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const log = (m) => process.stderr.write(`bench: ${m}\n`);

/** A JSON client for one control plane. */
export function jsonClient(baseUrl) {
  const agent = new http.Agent({ keepAlive: true });
  return async (token, method, path, body, raw) => {
    const headers = token ? { authorization: `Bearer ${token}` } : {};
    if (body !== undefined && !raw) headers["content-type"] = "application/json";
    const send = () =>
      request(agent, baseUrl + path, {
        method,
        headers,
        body: body === undefined ? undefined : raw ? body : JSON.stringify(body),
        keepBody: true,
      });
    // A kept-alive socket the server closed while it sat idle (a long point ran meanwhile) hangs up the
    // request sent on it before anything was read: sent again, once, on a fresh socket.
    const r = await send().catch((err) => {
      if (err.code !== "ECONNRESET") throw err;
      return send();
    });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.body}`);
    return r.body ? JSON.parse(r.body) : {};
  };
}

/** Uploads and publishes dist/capsule, as `npm start` does (a LaunchRequest names the capsule's files). */
export async function publishCapsule(api, adminToken) {
  const dir = join(root, "dist", "capsule");
  const files = JSON.parse(readFileSync(join(dir, "files.json"), "utf8"));
  for (const [name, digest] of Object.entries(files)) {
    await api(adminToken, "PUT", `/v1/blobs/${digest}`, readFileSync(join(dir, name)), true);
  }
  await api(adminToken, "PUT", "/v1/capsule", { files });
}

/**
 * `samples` submits, one at a time, to a fleet of `agents` simulated agents with `gpusEach` GPUs; each
 * sample is the time from sending the submit to its LaunchRequest arriving at an agent. With `recycle`,
 * each job is stopped after its sample and its GPU released before the next submit.
 */
export async function launchLatency({
  w,
  api,
  user,
  fleetName,
  specFor,
  agents,
  gpusEach,
  samples,
  heartbeatMs,
  recycle = false,
}) {
  await api(w.adminToken, "POST", "/v1/fleets", { name: fleetName, kind: "process" });
  const connected = [];
  for (let i = 0; i < agents; i += 50) {
    // Enrol and connect in groups, so a thousand agents do not all dial in the same millisecond.
    const group = await Promise.all(
      Array.from({ length: Math.min(50, agents - i) }, async (_, k) => {
        const { credential } = await enrollAgent(api, w.adminToken, fleetName);
        return SimAgent.connect(w.url, credential, {
          name: `${fleetName}-${i + k}`,
          gpus: gpusEach,
          heartbeatMs,
        });
      }),
    );
    connected.push(...group);
  }
  if (agents > 1) log(`  ${agents} agents connected to ${fleetName}`);
  const waiters = new Map();
  const arrived = new Map();
  for (const a of connected) {
    a.onLaunch = (req, at) => {
      arrived.set(req.job_id, { at, req });
      waiters.get(req.job_id)?.();
    };
  }
  const body = JSON.stringify(specFor(fleetName));
  const ms = [];
  const requests = [];
  const http1 = new http.Agent({ keepAlive: true });
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    const r = await request(http1, `${w.url}/v1/jobs`, {
      method: "POST",
      headers: { authorization: `Bearer ${user.token}`, "content-type": "application/json" },
      body,
      keepBody: true,
    });
    if (r.status !== 201) throw new Error(`submit: ${r.status} ${r.body}`);
    const jobId = JSON.parse(r.body).job.id;
    if (!arrived.has(jobId)) {
      await new Promise((ok, ko) => {
        const t = setTimeout(() => ko(new Error(`no LaunchRequest for ${jobId} in 10 s`)), 10_000);
        waiters.set(jobId, () => {
          clearTimeout(t);
          ok();
        });
      });
    }
    const got = arrived.get(jobId);
    ms.push(got.at - t0);
    requests.push(got.req);
    if (recycle) {
      // Stop it (not timed) and wait until its agent gave the GPU back, so the next submit finds it free.
      await api(user.token, "POST", `/v1/jobs/${jobId}/stop`, {});
      const deadline = Date.now() + 10_000;
      while ((await api(user.token, "GET", `/v1/fleets/${fleetName}`)).totals.allocated > 0) {
        if (Date.now() > deadline) throw new Error(`job ${jobId}'s GPU was not released in 10 s`);
        await new Promise((r2) => setTimeout(r2, 2));
      }
    }
  }
  return {
    agents,
    connected,
    launches: requests,
    result: {
      agents,
      samples,
      ...percentiles(ms),
      mean_ms: round(ms.reduce((s, x) => s + x, 0) / ms.length, 2),
    },
  };
}
