/// <reference types="vite/types/importMeta.d.ts" />
/**
 * What a run reports (log lines, metric keys, hyperparameters, hardware ids, validation samples) and what a
 * job's spec says reach the console's pages as text only: every tab escapes them, and no console source
 * file has a way to put HTML into a page unescaped.
 */
import { describe, expect, it } from "vitest";
import { TABS } from "../../worker/console/job-data.js";
import { signIn } from "./console-support.js";
import { api, createUser, customSpec } from "./helpers.js";
import { fleetWithNode, ingest, runToken } from "./ingest-helpers.js";

const SCRIPT = "<script>alert(1)</script>";
const IMG = '"><img src=x onerror=alert(1)>';
const BOTH = `${SCRIPT} ${IMG}`;

/** Raw markup an injection would leave in the page. */
const RAW = ["<script>alert(1)", "<img src=x", "onerror=alert(1)>"];

describe("console escaping", () => {
  it("renders every tab with hostile run data and spec fields as inert text", async () => {
    const op = await createUser("esc-a");
    await fleetWithNode("esc-a");
    // The job name is a DNS-like label; free text goes in the spec's experiment and labels.
    const spec = await customSpec({ fleet: "esc-a", name: "esc" });
    spec.metadata = { ...spec.metadata, experiment: BOTH, labels: { note: BOTH } };
    const r = await api(op, "POST", "/v1/jobs", spec);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const detail = await api(op, "GET", `/v1/jobs/${r.body.job.id}`);
    const run = detail.body.runs.at(-1) as { id: string; epoch: number };
    const token = await runToken({
      runId: run.id,
      jobId: r.body.job.id,
      fleetId: detail.body.job.fleet_id,
      epoch: run.epoch,
    });
    const f = { jobId: r.body.job.id as string, runId: run.id, token };

    const ok = async (path: string, body: unknown) => {
      const res = await ingest(f.token, path, { run_id: f.runId, ...(body as object) });
      expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body.rejected ?? [], path).toEqual([]);
    };
    await ok("/logs", { seq: 0, chunks: [SCRIPT, IMG] });
    await ok("/metrics", {
      points: [
        { key: SCRIPT, step: 0, value: 1 },
        { key: IMG, step: 0, value: 2 },
      ],
    });
    await ok("/hparams", { params: { [SCRIPT]: IMG, plain: SCRIPT } });
    await ok("/hardware", {
      points: [{ key: SCRIPT, value: 1, node_id: null, worker_id: IMG, gpu_idx: 0 }],
    });
    await ok("/environment", { hostname: IMG, python: SCRIPT });
    await ok("/validation", {
      step: 1,
      chunk_index: 0,
      total_chunks: 1,
      total_samples: 1,
      samples: [{ idx: 0, reward: 1, user: SCRIPT, assistant: IMG, env: { x: SCRIPT } }],
    });
    await ok("/artifact", { kind: "checkpoint", path: `/out/${IMG}`, step: 1, size_bytes: null });

    const b = await signIn(op);
    const shown: string[] = [];
    for (const tab of TABS) {
      const page = await b.get(`/console/jobs/${f.jobId}/${tab}`);
      expect(page.status, tab).toBe(200);
      for (const raw of RAW) expect(page.html.includes(raw), `${tab} has raw ${raw}`).toBe(false);
      if (page.html.includes("&lt;script&gt;alert(1)&lt;/script&gt;")) shown.push(tab);
    }
    // Each tab that shows reported text shows the payload, escaped.
    expect(shown).toEqual(["charts", "logs", "hardware", "config", "samples"]);
    const artifacts = await b.get(`/console/jobs/${f.jobId}/artifacts`);
    expect(artifacts.html).toContain("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;");
  });
});

describe("console sources", () => {
  const files = import.meta.glob("../../worker/console/**/*.{ts,tsx,css}", {
    query: "?raw",
    import: "default",
    eager: true,
  }) as Record<string, string>;
  // The generated bundle holds third-party code (uPlot); its sources are not ours to police here.
  const ours = Object.entries(files).filter(([path]) => !path.endsWith("assets.generated.ts"));

  it("finds the console's sources", () => {
    const names = ours.map(([p]) => p);
    expect(names.some((p) => p.endsWith("pages/job-tabs.tsx"))).toBe(true);
    expect(names.some((p) => p.endsWith("client/logs.ts"))).toBe(true);
    expect(names.length).toBeGreaterThan(10);
  });

  it("has no way to write unescaped HTML into a page", () => {
    const forbidden: Array<[string, RegExp]> = [
      ["dangerouslySetInnerHTML", /dangerouslySetInnerHTML/],
      ["hono/html (raw)", /["']hono\/html["']/],
      ["raw(", /(?<![\w.])raw\(/],
      [".innerHTML =", /\.(?:inner|outer)HTML\s*\+?=/],
      ["insertAdjacentHTML", /insertAdjacentHTML/],
      ["document.write", /document\.write/],
    ];
    const found = ours.flatMap(([path, text]) =>
      forbidden.filter(([, re]) => re.test(text)).map(([what]) => `${path}: ${what}`),
    );
    expect(found).toEqual([]);
  });
});
