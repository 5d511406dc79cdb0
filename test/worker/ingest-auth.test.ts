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

describe("a run token's lifetime", () => {
  /** A run that ran and ended on a scripted agent, without a single ingest call (nothing cached). */
  async function endedRun(fleet: string): Promise<{ runId: string; token: string }> {
    const { enroll, inventory, publishTestCapsule, ScriptedAgent } = await import("./agent-support.js");
    const { createFleet, customSpec } = await import("./helpers.js");
    await publishTestCapsule();
    await createFleet(fleet, { kind: "docker" });
    const { credential } = await enroll(fleet);
    const agent = await ScriptedAgent.connect(credential);
    agent.hello(inventory(`${fleet}-box`, 1));
    await agent.next("welcome");
    expect((await api(op, "POST", "/v1/jobs", await customSpec({ fleet, gpus: 1 }))).status).toBe(201);
    const launch = await agent.next("launch");
    agent.send({ v: 1, type: "ack", id: agent.id(), ref: launch.id });
    agent.report(launch.request, "accepted");
    agent.report(launch.request, "launched");
    const done = agent.report(launch.request, "exited", { exit_code: 0, reason: "exited with code 0" });
    await agent.next("ack", (a) => a.ref === done);
    agent.close();
    const runId = launch.request.run_id as string;
    // The ledger learns it ended from the Fleet DO's outbox flush, just after the ack: wait until the
    // outbox is empty, so no later flush rewrites the row this test then ages.
    const fleetId = launch.request.fleet_id as string;
    const stub = testEnv.FLEET.get(testEnv.FLEET.idFromName(fleetId));
    const deadline = Date.now() + 5000;
    for (;;) {
      const row = await testEnv.DB.prepare("SELECT ended_at FROM runs WHERE id = ?").bind(runId).first();
      if (row?.ended_at && (await stub.outboxSize()) === 0) break;
      if (Date.now() > deadline) throw new Error(`run ${runId} never ended in the ledger`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return { runId, token: launch.request.ingest.token as string };
  }

  const logs = (runId: string, token: string) =>
    SELF.fetch("http://sf.test/v1/ingest/logs", {
      method: "POST",
      headers: { "content-type": "application/json", "x-starforge-token": token },
      body: JSON.stringify({ run_id: runId, seq: 0, chunks: ["late line"] }),
    });

  let op = "";
  beforeAll(async () => {
    op = await createUser("ttl-op");
  });

  it("is accepted for the final flush right after its run ended", async () => {
    const { runId, token } = await endedRun("ttl-fresh");
    const res = await logs(runId, token);
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });

  it("is refused once its run ended longer ago than the grace (10 minutes)", async () => {
    const { runId, token } = await endedRun("ttl-old");
    const longAgo = new Date(Date.now() - 11 * 60_000).toISOString();
    await testEnv.DB.prepare("UPDATE runs SET ended_at = ? WHERE id = ?").bind(longAgo, runId).run();
    const res = await logs(runId, token);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(res.status).toBe(401);
    expect(body.error.code).toBe("TOKEN_REVOKED");
    expect(body.error.message).toContain(`run ${runId} ended at ${longAgo}`);
  });
});
