/**
 * Ingest authentication: a per-run token writes only its own run, on every ingest endpoint; no token or
 * a bad one is 401; and a run token opens no other route (user auth sees it as an agent credential of
 * another audience). Positive controls prove each endpoint accepts the right token.
 */
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { digestOf } from "../../contract/digest.js";
import { mintIngestToken } from "../../contract/ingest-token.js";
import { ADMIN, api, createUser, enrollAgent } from "./helpers.js";
import { fleetWithNode, type RunFixture, readAllLogs, submitRun } from "./ingest-helpers.js";
import { testEnv } from "./test-env.js";

interface Endpoint {
  name: string;
  /** A request about `runId` that the run's own token may make. */
  request(runId: string): Promise<{ method: string; path: string; body: BodyInit; json: boolean }>;
}

const BYTES = "checkpoint bytes";

const json = (method: string, path: string, body: unknown) => ({
  method,
  path,
  body: JSON.stringify(body),
  json: true,
});

const ENDPOINTS: Endpoint[] = [
  {
    name: "POST /metrics",
    request: async (run) =>
      json("POST", "/metrics", { run_id: run, points: [{ key: "loss", step: 1, value: 2 }] }),
  },
  {
    name: "POST /logs",
    request: async (run) => json("POST", "/logs", { run_id: run, seq: 0, chunks: ["hello"] }),
  },
  {
    name: "POST /hparams",
    request: async (run) => json("POST", "/hparams", { run_id: run, params: { lr: 0.1 } }),
  },
  {
    name: "POST /hardware",
    request: async (run) =>
      json("POST", "/hardware", { run_id: run, points: [{ key: "gpu_util", value: 90, gpu_idx: 0 }] }),
  },
  {
    name: "POST /artifact",
    request: async (run) =>
      json("POST", "/artifact", { run_id: run, kind: "eval_report", path: "eval.json" }),
  },
  {
    name: "POST /artifact/upload",
    request: async (run) =>
      json("POST", "/artifact/upload", {
        run_id: run,
        path: "a.bin",
        size_bytes: BYTES.length,
        digest: await digestOf(BYTES),
      }),
  },
  {
    name: "PUT /artifact/blob/:run/*",
    request: async (run) => ({
      method: "PUT",
      path: `/artifact/blob/${run}/a.bin?digest=${await digestOf(BYTES)}`,
      body: BYTES,
      json: false,
    }),
  },
  // Last: a started report changes the job, which the other endpoints do not care about.
  {
    name: "POST /lifecycle",
    request: async (run) => json("POST", "/lifecycle", { run_id: run, event: "started" }),
  },
];

async function send(e: Endpoint, runId: string, headers: Record<string, string>) {
  const r = await e.request(runId);
  const res = await SELF.fetch(`http://sf.test/v1/ingest${r.path}`, {
    method: r.method,
    headers: { ...(r.json ? { "content-type": "application/json" } : {}), ...headers },
    body: r.body,
  });
  const text = await res.text();
  return { status: res.status, code: (text ? JSON.parse(text) : {}).error?.code as string | undefined };
}

/** One line per endpoint, so a failure shows every endpoint that misbehaved at once. */
async function answers(runId: string, headers: Record<string, string>): Promise<string[]> {
  const out: string[] = [];
  for (const e of ENDPOINTS) {
    const r = await send(e, runId, headers);
    out.push(`${e.name} → ${r.status} ${r.code ?? ""}`.trim());
  }
  return out;
}

const every = (status: number, code: string) => ENDPOINTS.map((e) => `${e.name} → ${status} ${code}`);

let a: RunFixture;
let b: RunFixture;

beforeAll(async () => {
  const op = await createUser("ia-op");
  await fleetWithNode("ia");
  a = await submitRun(op, "ia", "a");
  b = await submitRun(op, "ia", "b");
});

describe("ingest authentication", () => {
  it("refuses a token for another run with 403 on every endpoint, and writes nothing", async () => {
    expect(await answers(b.runId, { "x-starforge-token": a.token })).toEqual(every(403, "FORBIDDEN"));
    expect(await answers(b.runId, { authorization: `Bearer ${a.token}` })).toEqual(every(403, "FORBIDDEN"));
    expect(await readAllLogs(b)).toEqual([]);
    expect((await api(b.op, "GET", `/v1/jobs/${b.jobId}/artifacts`)).body.artifacts).toEqual([]);
    expect(await testEnv.BLOBS.head(`artifacts/${b.runId}/a.bin`)).toBeNull();
    expect((await api(b.op, "GET", `/v1/jobs/${b.jobId}`)).body.job.status).toBe("SUBMITTED");
  });

  it("refuses a missing, garbage, foreign-signed, expired or non-ingest token with 401", async () => {
    const claims = { sub: b.runId, job: b.jobId, fleet: b.fleetId, epoch: b.epoch };
    const foreign = await mintIngestToken("another-secret-that-is-at-least-32-chars!!", claims);
    const expired = await mintIngestToken(testEnv.SF_JWT_SECRET!, claims, 0);
    const agent = await enrollAgent("ia");
    const unauthenticated = every(401, "UNAUTHENTICATED");
    expect(await answers(b.runId, {})).toEqual(unauthenticated);
    const headers: Array<Record<string, string>> = [
      { "x-starforge-token": "garbage" },
      { "x-starforge-token": "eyJhbGciOiJIUzI1NiJ9.e30.bm90LWEtc2lnbmF0dXJl" },
      { "x-starforge-token": foreign },
      { "x-starforge-token": expired },
      { "x-starforge-token": agent },
      { "x-starforge-token": ADMIN },
      { authorization: `Basic ${b.token}` },
      { authorization: `Bearer ${ADMIN}` },
    ];
    for (const header of headers) {
      expect(await answers(b.runId, header), JSON.stringify(header)).toEqual(unauthenticated);
    }
  });

  it("accepts the run's own token on every endpoint, in either header", async () => {
    const ok = await answers(a.runId, { "x-starforge-token": a.token });
    expect(ok.map((l) => l.replace(/ → (200|201)$/, " → ok"))).toEqual(
      ENDPOINTS.map((e) => `${e.name} → ok`),
    );
    const viaBearer = await send(ENDPOINTS[0]!, a.runId, { authorization: `Bearer ${a.token}` });
    expect(viaBearer.status).toBe(200);
    expect((await api(a.op, "GET", `/v1/jobs/${a.jobId}`)).body.job.status).toBe("RUNNING");
  });

  it("opens no user route with a run token", async () => {
    const routes: Array<[string, string, unknown?]> = [
      ["GET", "/v1/jobs"],
      ["GET", `/v1/jobs/${a.jobId}`],
      ["GET", `/v1/jobs/${a.jobId}/logs`],
      ["GET", `/v1/jobs/${a.jobId}/metrics`],
      ["GET", `/v1/jobs/${a.jobId}/artifacts`],
      ["POST", `/v1/jobs/${a.jobId}/stop`],
      ["GET", "/v1/me"],
      ["GET", `/v1/blobs/sha256:${"0".repeat(64)}`],
    ];
    for (const [method, path, body] of routes) {
      const asBearer = await api(a.token, method, path, body);
      expect([asBearer.status, asBearer.body.error?.code], `${method} ${path}`).toEqual([
        401,
        "UNAUTHENTICATED",
      ]);
      const asHeader = await api(null, method, path, body, { "x-starforge-token": a.token });
      expect([asHeader.status, asHeader.body.error?.code], `${method} ${path}`).toEqual([
        401,
        "UNAUTHENTICATED",
      ]);
    }
    expect((await api(a.op, "GET", `/v1/jobs/${a.jobId}`)).body.job.status).not.toBe("STOPPED");
  });
});
