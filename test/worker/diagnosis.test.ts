/**
 * Failure diagnosis inside workerd (issue 29): a run that fails after logging a CUDA OOM traceback is
 * diagnosed from its stored lines within seconds — GET /v1/jobs/:id, the job.failed webhook's payload and
 * starforge_failures_total all carry it, and the line points into the logs API; a fleet's own rule is
 * validated when saved and decides the class; a loss reported as NaN and a run that stops making steps are
 * live anomalies (a job.anomaly event, and under on_anomaly: stop a FAILED job diagnosed with the class).
 */
import { runDurableObjectAlarm, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ADMIN, api, createUser, customSpec } from "./helpers.js";
import { fleetWithNode, ingest, type LogLine, type RunFixture, runToken } from "./ingest-helpers.js";
import { testEnv } from "./test-env.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Nothing listens on the discard port of loopback: the dispatcher's attempts fail at once. */
const CLOSED = "http://127.0.0.1:9";

const OOM_LOG = [
  "epoch 0 step 40 loss 2.3141",
  "Traceback (most recent call last):",
  '  File "/workspace/train.py", line 88, in <module>',
  "    loss.backward()",
  "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.11 GiB of which 1.19 GiB is free. Including non-PyTorch memory, this process has 77.90 GiB memory in use.",
];

async function runningJob(
  op: string,
  fleet: string,
  lifecycle: Record<string, unknown> = { max_retries: 2, retry_on_user_failure: false },
): Promise<RunFixture> {
  const r = await api(op, "POST", "/v1/jobs", await customSpec({ fleet, gpus: 1, lifecycle }));
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const jobId = r.body.job.id as string;
  const detail = await api(op, "GET", `/v1/jobs/${jobId}`);
  const run = detail.body.runs.at(-1) as { id: string; epoch: number };
  const c = { runId: run.id, jobId, fleetId: detail.body.job.fleet_id as string, epoch: run.epoch };
  const f = { op, fleet, ...c, token: await runToken(c) };
  expect((await ingest(f.token, "/lifecycle", { run_id: f.runId, event: "started" })).status).toBe(200);
  return f;
}

// biome-ignore lint/suspicious/noExplicitAny: the API's JSON is read loosely by design
async function until(what: string, read: () => Promise<any>, ms = 10_000): Promise<any> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

const diagnosisOf = (f: RunFixture) =>
  until("the diagnosis", async () => (await api(f.op, "GET", `/v1/jobs/${f.jobId}`)).body.diagnosis);

describe("a failed run's diagnosis", () => {
  it("rests on the line its rank logged, within seconds, in the API, the webhook and the metrics", async () => {
    const op = await createUser("dg-oom");
    await fleetWithNode("dg-oom");
    const hook = await api(op, "POST", "/v1/webhooks", { url: `${CLOSED}/hook` });
    expect(hook.status).toBe(201);
    const f = await runningJob(op, "dg-oom");
    await ingest(f.token, "/logs", { run_id: f.runId, rank: 0, stream: "stderr", seq: 0, chunks: OOM_LOG });
    const failedAt = Date.now();
    await ingest(f.token, "/lifecycle", { run_id: f.runId, event: "failed", exit_code: 1 });

    const d = await diagnosisOf(f);
    expect(Date.now() - failedAt).toBeLessThan(10_000);
    expect(d).toMatchObject({
      class: "CUDA_OOM",
      rank: 0,
      node: "dg-oom-n1",
      line: { rank: 0, stream: "stderr", seq: 4 },
      action: { policy: "no_retry", retried: false, cordoned: null },
      from_logs: true,
    });
    expect(d.line.text).toContain("torch.OutOfMemoryError: CUDA out of memory");
    expect(d.hint).toMatch(/batch size/);
    // The line's cursor is where the logs API has it.
    const page = await api(op, "GET", `/v1/jobs/${f.jobId}/logs?offset=${d.line.cursor}&limit=1`);
    expect((page.body.lines as LogLine[])[0]?.line).toBe(OOM_LOG[4]);
    const job = (await api(op, "GET", `/v1/jobs/${f.jobId}`)).body;
    expect(job.job.status).toBe("FAILED");
    expect(job.runs[0].diagnosis.class).toBe("CUDA_OOM");
    expect(job.events.at(-1)).toMatchObject({ to: "FAILED", detail: { diagnosis: { class: "CUDA_OOM" } } });

    // The job.failed webhook waited for the diagnosis and carries it.
    const list = await until("the job.failed delivery", async () => {
      const r = await api(op, "GET", `/v1/webhooks/${hook.body.webhook.id}/deliveries`);
      return (r.body.deliveries as Array<{ id: string; type: string }>).find((x) => x.type === "job.failed");
    });
    const one = await api(op, "GET", `/v1/webhooks/${hook.body.webhook.id}/deliveries/${list.id}`);
    expect(one.body.delivery.payload).toMatchObject({
      type: "job.failed",
      data: { detail: { diagnosis: { class: "CUDA_OOM", rank: 0 } } },
    });
    await api(op, "DELETE", `/v1/webhooks/${hook.body.webhook.id}`);

    const scrape = await SELF.fetch("http://sf.test/v1/admin/metrics", {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(await scrape.text()).toMatch(/^starforge_failures_total\{fleet="dg-oom",class="CUDA_OOM"\} 1$/m);
  }, 30_000);

  it("uses the fleet's own rules, validated when saved", async () => {
    const op = await createUser("dg-rule");
    await fleetWithNode("dg-rule");
    const bad = await api(ADMIN, "PATCH", "/v1/fleets/dg-rule", {
      diagnosis: { rules: [{ pattern: "([", class: "NETWORK" }] },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/not a valid regular expression/);
    const saved = await api(ADMIN, "PATCH", "/v1/fleets/dg-rule", {
      diagnosis: {
        rules: [{ pattern: "(?i)stale file handle", class: "NETWORK", hint: "The scratch mount went away." }],
      },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.fleet.diagnosis.rules).toHaveLength(1);
    // A PATCH of nothing changes nothing (and the rules stay).
    const none = await api(ADMIN, "PATCH", "/v1/fleets/dg-rule", {});
    expect([none.status, none.body.fleet.diagnosis.rules.length]).toEqual([200, 1]);
    const f = await runningJob(op, "dg-rule");
    await ingest(f.token, "/logs", {
      run_id: f.runId,
      seq: 0,
      chunks: ["Traceback (most recent call last):", "OSError: [Errno 116] Stale file handle"],
    });
    await ingest(f.token, "/lifecycle", { run_id: f.runId, event: "failed", exit_code: 1 });
    expect(await diagnosisOf(f)).toMatchObject({
      class: "NETWORK",
      rule: 0,
      hint: "The scratch mount went away.",
      action: { policy: "retry", retried: true },
    });
  }, 30_000);
});

describe("a live anomaly", () => {
  const events = async (f: RunFixture) =>
    (await api(f.op, "GET", `/v1/jobs/${f.jobId}`)).body.events as Array<{
      edge: string;
      to: string;
      detail: { anomaly?: { class: string; policy: string } };
    }>;

  it("a NaN loss warns while the run goes on; under on_anomaly stop it ends the job with NAN_LOSS", async () => {
    const op = await createUser("dg-nan");
    await fleetWithNode("dg-nan");
    const hook = await api(op, "POST", "/v1/webhooks", { url: `${CLOSED}/hook`, events: ["job.anomaly"] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const warn = await runningJob(op, "dg-nan");
    const points = [
      { key: "train/loss", step: 1, value: 2.5 },
      { key: "train/loss", step: 2, value: "nan" },
    ];
    expect((await ingest(warn.token, "/metrics", { run_id: warn.runId, points })).status).toBe(200);
    const warned = await until("the anomaly event", async () =>
      (await events(warn)).find((e) => e.edge === "anomaly"),
    );
    expect(warned.detail.anomaly).toMatchObject({ class: "NAN_LOSS", policy: "warn" });
    expect((await api(op, "GET", `/v1/jobs/${warn.jobId}`)).body.job.status).toBe("RUNNING");
    // The job.anomaly webhook carries it.
    const sent = await until("the job.anomaly delivery", async () => {
      const r = await api(op, "GET", `/v1/webhooks/${hook.body.webhook.id}/deliveries`);
      return (r.body.deliveries as Array<{ id: string; type: string }>).find((x) => x.type === "job.anomaly");
    });
    const body = await api(op, "GET", `/v1/webhooks/${hook.body.webhook.id}/deliveries/${sent.id}`);
    expect(body.body.delivery.payload).toMatchObject({
      type: "job.anomaly",
      data: {
        job: { status: "RUNNING" },
        detail: { anomaly: { class: "NAN_LOSS", key: "train/loss", value: "nan" } },
      },
    });
    await api(op, "DELETE", `/v1/webhooks/${hook.body.webhook.id}`);
    // The NaN is not charted.
    const series = await api(op, "GET", `/v1/jobs/${warn.jobId}/metrics?key=train/loss`);
    expect(series.body.points.map((p: { step: number }) => p.step)).toEqual([1]);

    const stop = await runningJob(op, "dg-nan", { max_retries: 2, on_anomaly: "stop" });
    await ingest(stop.token, "/metrics", { run_id: stop.runId, points });
    expect(await diagnosisOf(stop)).toMatchObject({ class: "NAN_LOSS", action: { retried: false } });
    expect((await api(op, "GET", `/v1/jobs/${stop.jobId}`)).body.job.status).toBe("FAILED");
  }, 30_000);

  it("a run that stops making steps is a HANG within its bound", async () => {
    const op = await createUser("dg-hang");
    await fleetWithNode("dg-hang");
    const f = await runningJob(op, "dg-hang", { max_retries: 0, hang_factor: 2, hang_floor_seconds: 5 });
    let stalled = 0;
    for (let step = 0; step < 5; step++) {
      await ingest(f.token, "/metrics", { run_id: f.runId, points: [{ key: "train/loss", step, value: 1 }] });
      stalled = Date.now();
      if (step < 4) await sleep(100);
    }
    const run = testEnv.RUN.get(testEnv.RUN.idFromName(f.runId));
    const hang = await until(
      "the hang",
      async () => {
        // The Run DO's alarm judges it; the test runtime runs alarms when asked.
        if (Date.now() - stalled > 5_000) await runDurableObjectAlarm(run);
        return (await events(f)).find((e) => e.edge === "anomaly");
      },
      15_000,
    );
    // Its bound: hang_factor × ~100 ms is below the 5 s floor, so 5 s after the last step (and not long after).
    expect(Date.now() - stalled).toBeGreaterThanOrEqual(5_000);
    expect(Date.now() - stalled).toBeLessThan(10_000);
    expect(hang.detail.anomaly).toMatchObject({ class: "HANG", policy: "warn" });
  }, 30_000);
});
