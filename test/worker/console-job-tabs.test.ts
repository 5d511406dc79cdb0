/**
 * The job page's tabs (pages/job-tabs.tsx), rendered through /console/jobs/:id/:tab for a job with data and
 * for one without; the log download route; the live log tail resumed through /console/api.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { digestOf } from "../../contract/digest.js";
import { groupKeys } from "../../worker/console/pages/job-tabs.js";
import { type ConsoleBrowser, ORIGIN, signIn } from "./console-support.js";
import { api, createFleet, createUser, customSpec } from "./helpers.js";
import { ingest, type RunFixture, SseReader, startRun } from "./ingest-helpers.js";

async function tab(b: ConsoleBrowser, f: { jobId: string }, name: string, query = ""): Promise<string> {
  const r = await b.get(`/console/jobs/${f.jobId}/${name}${query}`);
  expect(r.status, r.html.slice(0, 2000)).toBe(200);
  return r.html;
}

/** A signed-in owner of a job that has not run (a fleet without nodes keeps it queued). */
async function queuedJob(name: string): Promise<{ b: ConsoleBrowser; jobId: string }> {
  const op = await createUser(name);
  await createFleet(name);
  const r = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: name, name: "waits" }));
  expect(r.status).toBe(201);
  return { b: await signIn(op), jobId: r.body.job.id as string };
}

const all = (html: string, re: RegExp) => [...html.matchAll(re)].map((m) => m.slice(1));

async function metrics(f: RunFixture, points: Array<{ key: string; step: number; value: number }>) {
  const r = await ingest(f.token, "/metrics", { run_id: f.runId, points });
  expect(r.status).toBe(200);
}

describe("charts tab", () => {
  it("groups metric keys by prefix: train, eval, other prefixes, then keys without one", () => {
    const keys = ["loss", "eval/acc", "zeta.x", "train/lr", "train/loss", "alpha/b"].map((key) => ({ key }));
    expect(groupKeys(keys).map((g) => [g.group, g.keys.map((k) => k.key)])).toEqual([
      ["train", ["train/loss", "train/lr"]],
      ["eval", ["eval/acc"]],
      ["alpha", ["alpha/b"]],
      ["zeta", ["zeta.x"]],
      ["", ["loss"]],
    ]);
  });

  it("lists every key of the run as a figure, grouped in sections, with its count and last value", async () => {
    const f = await startRun("tabs-charts");
    await metrics(f, [
      ...[0, 1, 2].map((step) => ({ key: "train/loss", step, value: 2 - step / 2 })),
      { key: "train/lr", step: 0, value: 0.001 },
      { key: "eval/acc", step: 2, value: 0.75 },
      { key: "loss", step: 0, value: 9 },
    ]);
    const b = await signIn(f.op);
    const html = await tab(b, f, "charts");
    expect(all(html, /<h2 id="chart-group-\d+">([^<]*)<\/h2>/g).flat()).toEqual([
      "train",
      "eval",
      "Other metrics",
    ]);
    expect(all(html, /data-chart-key="([^"]+)"/g).flat()).toEqual([
      "train/loss",
      "train/lr",
      "eval/acc",
      "loss",
    ]);
    expect(html).toContain(
      `<figure class="chart" data-chart-key="train/loss" data-job="${f.jobId}" data-run="${f.runId}">`,
    );
    expect(html).toContain("3 points; last 1 at step 2");
    expect(html).toContain('<label for="chart-smoothing">Smoothing</label>');
    expect(html).toContain('<label for="chart-log">Log scale</label>');
    expect(html).toContain('<label for="chart-x">X axis</label>');
    // One run only: nothing to compare with.
    expect(html).not.toContain("Compare runs");
    expect(html).not.toContain("No metrics yet");
  });

  it("says what sends metrics when the run has none, and that a queued job has not run", async () => {
    const f = await startRun("tabs-charts-empty");
    const b = await signIn(f.op);
    const html = await tab(b, f, "charts");
    expect(html).toContain('<section class="notice empty"><h2>No metrics yet</h2>');
    expect(html).toContain("starforge.report.log");
    expect(html).not.toContain("data-chart-key");
    expect(html).not.toContain('data-metrics-wait="1"');
    // Once the run is going, the page waits for the first metrics (the script reloads it when they come).
    await ingest(f.token, "/lifecycle", { run_id: f.runId, event: "started" });
    expect((await api(f.op, "GET", `/v1/jobs/${f.jobId}`)).body.job.status).toBe("RUNNING");
    const waiting = await tab(b, f, "charts");
    expect(waiting).toContain(`<div data-metrics-wait="1" data-job="${f.jobId}" data-run="${f.runId}">`);
    await metrics(f, [{ key: "train/loss", step: 0, value: 1 }]);
    const live = await tab(b, f, "charts");
    expect(live).toContain('data-live="1"');
    expect(live).toContain("The run is going: the charts update every 2 seconds.");

    const q = await queuedJob("tabs-charts-queued");
    const page = await tab(q.b, q, "charts");
    expect(page).toContain("This job has not run yet");
  });
});

describe("logs tab", () => {
  it("renders the first page with rank, stream and offset per line, filters and the download link", async () => {
    const f = await startRun("tabs-logs");
    await ingest(f.token, "/logs", { run_id: f.runId, rank: 0, seq: 0, chunks: ["epoch 1", "epoch 2"] });
    await ingest(f.token, "/logs", {
      run_id: f.runId,
      rank: 1,
      stream: "stderr",
      seq: 0,
      chunks: ["warning: slow"],
    });
    const b = await signIn(f.op);
    const html = await tab(b, f, "logs");
    expect(all(html, /<li data-offset="(\d+)" data-rank="(\d+)" data-stream="(\w+)"/g)).toEqual([
      ["0", "0", "stdout"],
      ["1", "0", "stdout"],
      ["2", "1", "stderr"],
    ]);
    expect(html).toContain('<ol id="log-lines">');
    expect(html).toContain('<option value="1">Rank 1</option>');
    expect(html).toContain('<label for="log-search">Search</label>');
    expect(html).toMatch(
      new RegExp(`href="/console/api/jobs/${f.jobId}/logs/download\\?run=${f.runId}"[^>]*>Download logs</a>`),
    );
    // Not over: the script follows from the next cursor.
    expect(html).toContain('data-next="3"');
    expect(html).toContain('data-live="1"');

    const rank1 = await tab(b, f, "logs", "?rank=1");
    expect(all(rank1, /<li data-offset="(\d+)"/g).flat()).toEqual(["2"]);
    expect(rank1).toContain('<option value="1" selected="">Rank 1</option>');
    expect(rank1).toContain('data-rank="1"');

    const searched = await tab(b, f, "logs", "?q=EPOCH");
    expect(all(searched, /data-stream="\w+" class="(log-\w+)"/g).flat()).toEqual([
      "log-hit",
      "log-hit",
      "log-miss",
    ]);
    expect(searched).toContain("2 of 3 lines match");
  });

  it("shows an empty state for a run that wrote nothing and is over", async () => {
    const f = await startRun("tabs-logs-empty");
    const stop = await api(f.op, "POST", `/v1/jobs/${f.jobId}/stop`);
    expect(stop.status).toBeLessThan(300);
    const b = await signIn(f.op);
    const html = await tab(b, f, "logs");
    expect(html).toContain("No log lines");
    expect(html).not.toContain('data-live="1"');
  });

  it("downloads every line as `rank stream text`, streamed over several pages, as an attachment", async () => {
    const f = await startRun("tabs-logs-dl");
    const lines = Array.from({ length: 5200 }, (_, i) => `line ${i}`);
    for (let seq = 0; seq < lines.length; seq += 1000) {
      const r = await ingest(f.token, "/logs", {
        run_id: f.runId,
        seq,
        chunks: lines.slice(seq, seq + 1000),
      });
      expect(r.status).toBe(200);
    }
    await ingest(f.token, "/logs", { run_id: f.runId, rank: 2, stream: "stderr", seq: 0, chunks: ["oops"] });
    const b = await signIn(f.op);
    const res = await SELF.fetch(`${ORIGIN}/console/api/jobs/${f.jobId}/logs/download?run=${f.runId}`, {
      headers: { cookie: b.cookie },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${f.runId}.log"`);
    const text = await res.text();
    const got = text.split("\n");
    expect(got.pop()).toBe("");
    expect(got).toHaveLength(5201);
    expect(got[0]).toBe("0 stdout line 0");
    expect(got[5199]).toBe("0 stdout line 5199");
    expect(got[5200]).toBe("2 stderr oops");

    const onlyStderr = await SELF.fetch(`${ORIGIN}/v1/jobs/${f.jobId}/logs/download?stream=stderr`, {
      headers: { authorization: `Bearer ${f.op}` },
    });
    expect([onlyStderr.status, await onlyStderr.text()]).toEqual([200, "2 stderr oops\n"]);
    // Other users get the API's refusal, through the console as well.
    const mallory = await signIn(await createUser("tabs-logs-dl-m"));
    const refused = await SELF.fetch(`${ORIGIN}/console/api/jobs/${f.jobId}/logs/download`, {
      headers: { cookie: mallory.cookie },
    });
    expect(refused.status).toBe(403);
    await refused.text();
  });

  it("resumes the live tail through /console/api after the last line the browser saw (Last-Event-ID)", async () => {
    const f = await startRun("tabs-logs-sse");
    await ingest(f.token, "/logs", { run_id: f.runId, seq: 0, chunks: ["a", "b", "c", "d"] });
    const b = await signIn(f.op);
    const res = await SELF.fetch(
      `${ORIGIN}/console/api/jobs/${f.jobId}/logs?run=${f.runId}&follow=1&offset=0`,
      {
        headers: { cookie: b.cookie, accept: "text/event-stream", "last-event-id": "1" },
      },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const sse = new SseReader(res);
    const frames = await sse.until((fr) => fr.id === "3");
    const events = frames.filter((fr) => fr.id !== undefined);
    expect(events.map((fr) => [fr.id, JSON.parse(fr.data!).line])).toEqual([
      ["2", "c"],
      ["3", "d"],
    ]);
    // A line written after the reconnect arrives on the same stream, once.
    await ingest(f.token, "/logs", { run_id: f.runId, seq: 4, chunks: ["e"] });
    const more = await sse.until((fr) => fr.id !== undefined);
    expect(more.at(-1)?.id).toBe("4");
    await sse.cancel();
  });
});

describe("events tab", () => {
  it("shows the state timeline with edges", async () => {
    const f = await startRun("tabs-events");
    const b = await signIn(f.op);
    const html = await tab(b, f, "events");
    expect(html).toContain('<h2 id="timeline-h">State timeline</h2>');
    expect(html).toMatch(/state-QUEUED">QUEUED<\/span> → <span class="state state-SUBMITTED">SUBMITTED/);
    expect(html).toContain("<code>dispatch</code>");
  });

  it("explains why a queued job waits", async () => {
    const q = await queuedJob("tabs-events-q");
    const html = await tab(q.b, q, "events");
    expect(html).toContain("Why it is not running yet");
    expect(html).toContain("<code>NO_NODE_OF_SERIES</code>");
  });
});

describe("hardware tab", () => {
  it("has a chart per key and the latest sample per GPU", async () => {
    const f = await startRun("tabs-hw");
    const t1 = "2026-12-01T10:00:00.000Z";
    const t2 = "2026-12-01T10:00:10.000Z";
    const p = (key: string, gpu: number, value: number, ts: string) => ({
      key,
      value,
      node_id: null,
      worker_id: "gpu-node-1",
      gpu_idx: gpu,
      ts,
    });
    const r = await ingest(f.token, "/hardware", {
      run_id: f.runId,
      points: [
        p("gpu.util", 0, 80, t1),
        p("gpu.util", 0, 91, t2),
        p("gpu.util", 1, 12, t1),
        p("gpu.mem_used_bytes", 0, 2 * 1024 ** 3, t1),
      ],
    });
    expect(r.status).toBe(200);
    const b = await signIn(f.op);
    const html = await tab(b, f, "hardware");
    expect(all(html, /data-chart-key="([^"]+)" data-source="hardware"/g).flat()).toEqual([
      "gpu.util",
      "gpu.mem_used_bytes",
    ]);
    expect(html).toContain("3 samples");
    const rows = all(
      html,
      /<tr data-gpu="(\d)"><th scope="row">gpu-node-1<\/th><td>\d<\/td><td>([^<]+)<\/td><td>([^<]+)<\/td>/g,
    );
    expect(rows).toEqual([
      ["0", "91", "2.0 GiB"],
      ["1", "12", "—"],
    ]);
  });

  it("shows an empty state when the run sent no samples", async () => {
    const f = await startRun("tabs-hw-empty");
    const b = await signIn(f.op);
    expect(await tab(b, f, "hardware")).toContain("No hardware samples");
  });
});

describe("artifacts tab", () => {
  it("lists artifacts, with a download link only for stored bytes", async () => {
    const f = await startRun("tabs-art");
    await ingest(f.token, "/artifact", {
      run_id: f.runId,
      kind: "checkpoint",
      path: "/sf/run/out/ckpt-500",
      step: 500,
      size_bytes: null,
    });
    const b = await signIn(f.op);
    const html = await tab(b, f, "artifacts");
    expect(html).toContain("Artifacts (1)");
    expect(html).toContain('<span class="mono">/sf/run/out/ckpt-500</span>');
    expect(html).toContain("registered by path");
    expect(html).toContain("<td>500</td>");
    expect(html).not.toContain("/artifacts/download");
  });

  it("links stored bytes to a download through /console/api that answers them", async () => {
    const f = await startRun("tabs-art-stored");
    const bytes = new TextEncoder().encode("weights");
    const path = "ckpt/model 1.pt";
    const digest = await digestOf(bytes);
    const target = await ingest(f.token, "/artifact/upload", {
      run_id: f.runId,
      path,
      size_bytes: bytes.length,
      digest,
    });
    const put = await SELF.fetch(target.body.url, {
      method: "PUT",
      headers: target.body.headers,
      body: bytes,
    });
    expect(put.status).toBe(201);
    await put.text();
    const reg = await ingest(f.token, "/artifact", {
      run_id: f.runId,
      kind: "checkpoint",
      path,
      step: 7,
      digest,
    });
    expect(reg.status).toBe(200);
    const b = await signIn(f.op);
    const html = await tab(b, f, "artifacts");
    const href = /<a href="([^"]+)" download="">ckpt\/model 1\.pt<\/a>/
      .exec(html)?.[1]
      ?.replaceAll("&amp;", "&");
    expect(href).toBe(
      `/console/api/jobs/${f.jobId}/artifacts/download?run=${f.runId}&path=${encodeURIComponent(path)}`,
    );
    expect(html).toContain(`<code title="${digest}">${digest.replace("sha256:", "").slice(0, 12)}</code>`);
    expect(html).toContain("<td>yes</td>");
    const dl = await SELF.fetch(`${ORIGIN}${href}`, { headers: { cookie: b.cookie } });
    expect([dl.status, await dl.text()]).toEqual([200, "weights"]);
  });

  it("shows an empty state without artifacts", async () => {
    const f = await startRun("tabs-art-empty");
    const b = await signIn(f.op);
    expect(await tab(b, f, "artifacts")).toContain("No artifacts");
  });
});

describe("config tab", () => {
  it("shows the spec, the hyperparameters and the environment", async () => {
    const f = await startRun("tabs-config");
    await ingest(f.token, "/hparams", { run_id: f.runId, params: { lr: 0.001, model: { layers: 4 } } });
    await ingest(f.token, "/environment/nodes", {
      run_id: f.runId,
      nodes: [{ hostname: "gpu-node-1", cpu: 64, gpu: ["H200"] }],
    });
    await ingest(f.token, "/environment", { run_id: f.runId, hostname: "gpu-node-1", python: "3.11.7" });
    const b = await signIn(f.op);
    const html = await tab(b, f, "config");
    expect(html).toContain("&quot;api_version&quot;: &quot;starforge.dev/v1&quot;");
    expect(html).toContain('<th scope="row">lr</th><td class="mono">0.001</td>');
    expect(html).toContain('<th scope="row">model</th><td class="mono">{&quot;layers&quot;:4}</td>');
    expect(html).toContain('<th scope="row">gpu-node-1</th><td class="mono">64</td>');
    expect(html).toContain('<dt>python</dt><dd class="mono">3.11.7</dd>');
  });

  it("still shows the spec of a job that has not run", async () => {
    const q = await queuedJob("tabs-config-q");
    const html = await tab(q.b, q, "config");
    expect(html).toContain("&quot;name&quot;: &quot;waits&quot;");
    expect(html).toContain("The job has not run yet.");
  });
});

describe("samples tab", () => {
  it("lists validation steps and the samples of the latest (or the chosen) step", async () => {
    const f = await startRun("tabs-samples");
    for (const step of [10, 20]) {
      const r = await ingest(f.token, "/validation", {
        run_id: f.runId,
        step,
        chunk_index: 0,
        total_chunks: 1,
        total_samples: 2,
        samples: [0, 1].map((idx) => ({
          idx,
          reward: idx,
          user: `q${step}-${idx}`,
          assistant: `a${step}-${idx}`,
        })),
      });
      expect(r.status).toBe(200);
    }
    const b = await signIn(f.op);
    const html = await tab(b, f, "samples");
    expect(all(html, /<th scope="row"><a href="[^"]*step=(\d+)">/g).flat()).toEqual(["10", "20"]);
    expect(html).toContain("Samples at step 20");
    expect(html).toContain('<td class="sample-text">q20-1</td><td class="sample-text">a20-1</td>');
    const s10 = await tab(b, f, "samples", "?step=10");
    expect(s10).toContain("Samples at step 10");
    expect(s10).toContain("q10-0");
    expect(s10).not.toContain("q20-0");
  });

  it("says so when the job sent none", async () => {
    const f = await startRun("tabs-samples-empty");
    const b = await signIn(f.op);
    expect(await tab(b, f, "samples")).toContain("This job sent no validation samples");
  });
});
