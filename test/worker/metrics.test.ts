/**
 * GET /v1/admin/metrics after real traffic: agents that connect and one that goes silent, submits that
 * are admitted, queued, dispatched and refused, a running job's ingest, webhook deliveries waiting, and
 * a fleet whose outbox cannot reach D1. The format itself is checked strictly in
 * test/unit/prometheus-exposition.test.ts; here each series must say what happened.
 */
import { runInDurableObject, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { ServerFrame } from "../../contract/agent-frames.schema.js";
import { VERSION_HEADERS } from "../../contract/version.js";
import { enroll, inventory, publishTestCapsule, ScriptedAgent } from "./agent-support.js";
import { ADMIN, api, createFleet, createUser, customSpec, registerNode } from "./helpers.js";
import { ingest, runToken } from "./ingest-helpers.js";
import { testEnv } from "./test-env.js";

type Launch = Extract<ServerFrame, { type: "launch" }>;

/** `name{label="value",…}` (labels sorted) → value, from the exposition's sample lines. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels = [...(m[2] ?? "").matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)]
      .map(([, k, v]) => `${k}="${v}"`)
      .sort();
    out.set(`${m[1]}{${labels.join(",")}}`, Number(m[3]));
  }
  return out;
}

async function scrape(token: string | null = ADMIN) {
  const res = await SELF.fetch("http://sf.test/v1/admin/metrics", {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  const h = res.headers;
  return {
    status: res.status,
    type: h.get("content-type"),
    cacheControl: h.get("cache-control"),
    text: await res.text(),
  };
}

/** Scrapes until `ready` holds (stored counters land shortly after the request that counted them). */
async function scrapeUntil(ready: (s: Map<string, number>) => boolean): Promise<Map<string, number>> {
  let s = new Map<string, number>();
  for (let i = 0; i < 60; i++) {
    s = samples((await scrape()).text);
    if (ready(s)) return s;
    await new Promise((r) => setTimeout(r, 100));
  }
  return s;
}

/** The next launch frame either agent receives (the scheduler picks the node). */
async function nextLaunch(agents: ScriptedAgent[], seen: Set<string>): Promise<[ScriptedAgent, Launch]> {
  for (let i = 0; i < 100; i++) {
    for (const a of agents) {
      const l = a.frames.find((f): f is Launch => f.type === "launch" && !seen.has(f.id));
      if (l) {
        seen.add(l.id);
        return [a, l];
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("no launch frame");
}

let op = "";
let viewer = "";

beforeAll(async () => {
  op = await createUser("mx-op");
  viewer = await createUser("mx-viewer", "viewer");
  await publishTestCapsule();
});

describe("GET /v1/admin/metrics", () => {
  it("is for admins only: 401 without a token, 403 for a viewer, an operator and an agent", async () => {
    await createFleet("mx-auth");
    const { credential } = await enroll("mx-auth");
    expect((await scrape(null)).status).toBe(401);
    for (const token of [viewer, op, credential]) {
      const r = await scrape(token);
      expect(r.status).toBe(403);
      expect(JSON.parse(r.text).error.code).toBe("FORBIDDEN");
    }
    const ok = await scrape();
    expect(ok.status).toBe(200);
    expect(ok.type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(ok.cacheControl).toBe("no-store");
    expect(
      samples(ok.text).get(
        'starforge_build_info{api_version="1",build="dev",min_cli_version="0.1.0",version="0.1.0"}',
      ),
    ).toBe(1);
  });

  it("reports queue, running jobs, agents, GPUs, admissions, rejections by code, dispatch latency and ingest", async () => {
    const fleet = await createFleet("mx-a");
    const agents: ScriptedAgent[] = [];
    for (const box of ["mx-a1", "mx-a2"]) {
      const agent = await ScriptedAgent.connect((await enroll("mx-a")).credential);
      agent.hello(inventory(box, 2));
      await agent.next("welcome");
      agents.push(agent);
    }
    // A third agent connects, then goes silent: lost.
    const silent = await ScriptedAgent.connect((await enroll("mx-a")).credential);
    silent.hello(inventory("mx-a3", 1));
    await silent.next("welcome");
    silent.close();
    await silent.closed;

    // Three admitted: a 1-GPU job that runs, a 2-GPU job that is acknowledged, a 2-GPU job that waits.
    const seen = new Set<string>();
    const jobs: string[] = [];
    for (const gpus of [1, 2, 2]) {
      const r = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "mx-a", gpus }));
      expect(r.status).toBe(201);
      jobs.push(r.body.job.id);
    }
    const [a1, l1] = await nextLaunch(agents, seen);
    a1.send({ v: 1, type: "ack", id: a1.id(), ref: l1.id });
    const rep = a1.report(l1.request, "launched");
    await a1.next("ack", (f) => f.ref === rep);
    const [a2, l2] = await nextLaunch(agents, seen);
    a2.send({ v: 1, type: "ack", id: a2.id(), ref: l2.id });
    const acc = a2.report(l2.request, "accepted");
    await a2.next("ack", (f) => f.ref === acc);

    // Four refused, each with its own code.
    expect((await api(op, "POST", "/v1/jobs", {})).body.error.code).toBe("INVALID_SPEC");
    const nowhere = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "mx-nowhere" }));
    expect(nowhere.body.error.code).toBe("FLEET_NOT_FOUND");
    expect((await api(viewer, "POST", "/v1/jobs", await customSpec({ fleet: "mx-a" }))).body.error.code).toBe(
      "FORBIDDEN",
    );
    const old = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "mx-a" }), {
      [VERSION_HEADERS.cli]: "0.0.1",
    });
    expect(old.body.error.code).toBe("CLI_TOO_OLD");

    // The running job reports 3 log lines and 2 metric points.
    const token = await runToken({
      runId: l1.request.run_id,
      jobId: l1.request.job_id,
      fleetId: fleet.id,
      epoch: l1.request.epoch,
    });
    expect(
      (await ingest(token, "/logs", { run_id: l1.request.run_id, seq: 0, chunks: ["a", "b", "c"] })).status,
    ).toBe(200);
    const points = [
      { key: "loss", step: 0, value: 1.5 },
      { key: "loss", step: 1, value: 1.2 },
    ];
    expect((await ingest(token, "/metrics", { run_id: l1.request.run_id, points })).status).toBe(200);

    const s = await scrapeUntil(
      (m) =>
        m.get('starforge_admissions_total{fleet="mx-a"}') === 3 &&
        m.get('starforge_ingested_items_total{kind="metrics"}') === 2 &&
        m.get('starforge_admission_rejections_total{code="CLI_TOO_OLD"}') === 1,
    );
    const f = 'fleet="mx-a"';
    expect({
      up: s.get(`starforge_fleet_up{${f}}`),
      queued: s.get(`starforge_fleet_jobs{${f},status="QUEUED"}`),
      pending: s.get(`starforge_fleet_jobs{${f},status="PENDING"}`),
      running: s.get(`starforge_fleet_jobs{${f},status="RUNNING"}`),
      submitted: s.get(`starforge_fleet_jobs{${f},status="SUBMITTED"}`),
      paused: s.get(`starforge_fleet_jobs{${f},status="PAUSED"}`),
      enrolled: s.get(`starforge_agents_enrolled{${f}}`),
      connected: s.get(`starforge_agents_connected{${f}}`),
      lost: s.get(`starforge_agents_lost{${f}}`),
      gpus: s.get(`starforge_gpus{${f}}`),
      allocated: s.get(`starforge_gpus_allocated{${f}}`),
      outbox: s.get(`starforge_outbox_entries{${f}}`),
      outboxAge: s.get(`starforge_outbox_oldest_age_seconds{${f}}`),
      admitted: s.get(`starforge_admissions_total{${f}}`),
      dispatched: s.get(`starforge_dispatch_latency_seconds_count{${f}}`),
      dispatchedFast: s.get(`starforge_dispatch_latency_seconds_bucket{${f},le="0.1"}`),
      dispatchedAll: s.get(`starforge_dispatch_latency_seconds_bucket{${f},le="+Inf"}`),
      logs: s.get('starforge_ingested_items_total{kind="logs"}'),
      metrics: s.get('starforge_ingested_items_total{kind="metrics"}'),
    }).toEqual({
      up: 1,
      queued: 1,
      pending: 1,
      running: 1,
      submitted: 0,
      paused: 0,
      enrolled: 3,
      connected: 2,
      lost: 1,
      gpus: 5,
      allocated: 3,
      outbox: 0,
      outboxAge: 0,
      admitted: 3,
      // The two that found GPUs were dispatched by the submit itself: a wait of (nearly) nothing.
      dispatched: 2,
      dispatchedFast: 2,
      dispatchedAll: 2,
      logs: 3,
      metrics: 2,
    });
    for (const code of ["INVALID_SPEC", "FLEET_NOT_FOUND", "FORBIDDEN", "CLI_TOO_OLD"]) {
      expect(s.get(`starforge_admission_rejections_total{code="${code}"}`), code).toBe(1);
    }
    for (const a of agents) a.close();
  });

  it("counts a retried submit (Idempotency-Key) once: the replay is not a new admission", async () => {
    await createFleet("mx-idem");
    const spec = await customSpec({ fleet: "mx-idem" });
    const key = { "idempotency-key": "mx-idem-1" };
    expect((await api(op, "POST", "/v1/jobs", spec, key)).status).toBe(201);
    const replay = await api(op, "POST", "/v1/jobs", spec, key);
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    const name = 'starforge_admissions_total{fleet="mx-idem"}';
    expect((await scrapeUntil((m) => m.get(name) === 1)).get(name)).toBe(1);
    await new Promise((ok) => setTimeout(ok, 800));
    expect(samples((await scrape()).text).get(name)).toBe(1);
  });

  it("keeps the counts D1 refused to store and writes them with the next flush", async () => {
    await createFleet("mx-retry");
    await testEnv.DB.exec("ALTER TABLE metric_counters RENAME TO metric_counters_away");
    try {
      expect((await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "mx-retry" }))).status).toBe(201);
      // The flush runs half a second after the answer, and fails.
      await new Promise((ok) => setTimeout(ok, 1000));
    } finally {
      await testEnv.DB.exec("ALTER TABLE metric_counters_away RENAME TO metric_counters");
    }
    const name = 'starforge_admissions_total{fleet="mx-retry"}';
    expect(samples((await scrape()).text).get(name)).toBeUndefined();
    expect((await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "mx-retry" }))).status).toBe(201);
    expect((await scrapeUntil((m) => m.get(name) === 2)).get(name)).toBe(2);
  });

  it("times each dispatch from the moment the job was queued", async () => {
    await createFleet("mx-wait");
    const r = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "mx-wait", gpus: 1 }));
    expect(r.body.job.status).toBe("QUEUED");
    await new Promise((ok) => setTimeout(ok, 1200));
    await registerNode("mx-wait", "mx-wait-n1", 1);
    const s = await scrapeUntil(
      (m) => m.get('starforge_dispatch_latency_seconds_count{fleet="mx-wait"}') === 1,
    );
    const f = 'fleet="mx-wait"';
    expect(s.get(`starforge_dispatch_latency_seconds_bucket{${f},le="1"}`)).toBe(0);
    expect(s.get(`starforge_dispatch_latency_seconds_bucket{${f},le="5"}`)).toBe(1);
    expect(s.get(`starforge_dispatch_latency_seconds_sum{${f}}`)).toBeGreaterThanOrEqual(1.2);
  });

  it("reports a fleet's outbox lag while D1 refuses its writes, and 0 once they landed", async () => {
    await createFleet("mx-lag");
    await registerNode("mx-lag", "mx-lag-n1", 1);
    // The flush of a dispatch writes the node's projection: with that table away, D1 refuses the batch.
    await testEnv.DB.exec("ALTER TABLE nodes RENAME TO nodes_offline");
    try {
      const r = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "mx-lag", gpus: 1 }));
      expect(r.status).toBe(201);
      await new Promise((ok) => setTimeout(ok, 50));
      const s = samples((await scrape()).text);
      expect(s.get('starforge_outbox_entries{fleet="mx-lag"}')).toBeGreaterThan(0);
      expect(s.get('starforge_outbox_oldest_age_seconds{fleet="mx-lag"}')).toBeGreaterThan(0);
    } finally {
      await testEnv.DB.exec("ALTER TABLE nodes_offline RENAME TO nodes");
    }
    // The retry timer flushes it.
    const s = await scrapeUntil((m) => m.get('starforge_outbox_entries{fleet="mx-lag"}') === 0);
    expect(s.get('starforge_outbox_entries{fleet="mx-lag"}')).toBe(0);
    expect(s.get('starforge_outbox_oldest_age_seconds{fleet="mx-lag"}')).toBe(0);
  });

  it("reports a fleet whose object fails as down, with no other series of it, and still answers 200", async () => {
    const broken = await createFleet("mx-broken");
    await createFleet("mx-fine");
    const stub = testEnv.FLEET.get(testEnv.FLEET.idFromName(broken.id));
    const sql = (q: string) => runInDurableObject(stub, (_o, state) => void state.storage.sql.exec(q));
    await sql("ALTER TABLE gpu_alloc RENAME TO gpu_alloc_away");
    let text = "";
    try {
      const r = await scrape();
      expect(r.status).toBe(200);
      text = r.text;
    } finally {
      await sql("ALTER TABLE gpu_alloc_away RENAME TO gpu_alloc");
    }
    const s = samples(text);
    expect(s.get('starforge_fleet_up{fleet="mx-broken"}')).toBe(0);
    expect(s.get('starforge_fleet_up{fleet="mx-fine"}')).toBe(1);
    // The dispatch and placement histograms come from D1's event log, not from the object: their (empty)
    // series stay.
    const fromObject = [...s.keys()].filter(
      (k) =>
        k.includes('"mx-broken"') &&
        !/^starforge_(fleet_up|dispatch_latency_seconds|placement_latency_seconds)/.test(k),
    );
    expect(fromObject).toEqual([]);
    expect(s.get('starforge_gpus{fleet="mx-fine"}')).toBe(0);
  });

  it("answers 503 UNAVAILABLE when D1 does not answer", async () => {
    await testEnv.DB.exec("ALTER TABLE metric_counters RENAME TO metric_counters_away");
    try {
      const r = await scrape();
      expect({ status: r.status, code: JSON.parse(r.text).error.code }).toEqual({
        status: 503,
        code: "UNAVAILABLE",
      });
    } finally {
      await testEnv.DB.exec("ALTER TABLE metric_counters_away RENAME TO metric_counters");
    }
  });

  it("counts webhook deliveries pending, and of those the ones due now", async () => {
    const before = samples((await scrape()).text);
    const row = (id: string, next: number) =>
      testEnv.DB.prepare(
        `INSERT INTO webhook_deliveries (webhook_id, event_id, user_id, type, payload, state, next_attempt_at, created_at)
         VALUES ('wh_mx', ?, 'usr_mx_nobody', 'job.queued', '{}', 'pending', ?, ?)`,
      ).bind(id, next, new Date().toISOString());
    await testEnv.DB.batch([
      row("evt_due", Date.now() - 1000),
      row("evt_later", Date.now() + 3_600_000),
      testEnv.DB.prepare(
        `INSERT INTO webhook_deliveries (webhook_id, event_id, user_id, type, payload, state, created_at)
         VALUES ('wh_mx', 'evt_done', 'usr_mx_nobody', 'job.queued', '{}', 'delivered', '2026-01-01T00:00:00.000Z')`,
      ),
    ]);
    const after = samples((await scrape()).text);
    const delta = (name: string) => after.get(`${name}{}`)! - before.get(`${name}{}`)!;
    expect(delta("starforge_webhook_deliveries_pending")).toBe(2);
    expect(delta("starforge_webhook_deliveries_due")).toBe(1);
  });
});
