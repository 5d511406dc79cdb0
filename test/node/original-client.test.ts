/**
 * Tier 3, issue 9's load-bearing proof: training code that reports only through the original platform's
 * client (test/support/original_client.py, written from its public behaviour) runs as a real job on the
 * real local stack, through a proxy that makes some of its requests fail so it retries them, while the
 * capsule's runner ships the job's own stdout on the same run. Every channel must read back exactly over
 * the public API: points, log lines (in order, nothing lost, duplicates only where an answer was lost),
 * hparams, hardware per host and GPU, artifacts, environment, validation samples — and the runner's own
 * lines are all there.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_LOG_LINE } from "../../contract/ingest.schema.js";
import { consoleLines } from "../../durable-objects/run/policy.js";
import { type ControlPlane, call } from "../support/control-plane.js";
import { FaultProxy } from "../support/fault-proxy.js";
import type { ForgeletProc } from "../support/forgelet.js";
import { waitForStatus } from "../support/jobs.js";
import { submitCustom } from "../support/lifecycle.js";
import { newSfHome, sf } from "../support/sf.js";
import { fleetWithAgent, newUser, sharedControlPlane } from "../support/shared-control-plane.js";
import { uploadWorkspace } from "../support/workspace.js";

const SUPPORT = resolve(import.meta.dirname, "../support");
// The job's constants (test/support/original_client_job.py).
const PARTS = 4;
const LINES_PER_PART = 300;
const STEPS = 120;
const PRINTED = 4 * 60;
const INSTANTS = 4 * 3;
const BASE_TS_MS = 1_796_000_000_000;

let cp: ControlPlane;
let proxy: FaultProxy;
let agent: ForgeletProc | undefined;
let ada = "";
let jobId = "";
let runId = "";

/** The failures the client must ride out (n-th request to each path). */
function plan(path: string, nth: number) {
  if (path === "/logs" && nth === 2) return { loseAnswer: 500 }; // stored, but the client retries
  if (path === "/metrics" && nth === 1) return { refuse: 503 }; // never reached the server
  if (path === "/hardware" && nth === 1) return { loseAnswer: 502 };
  if (path === "/validation" && nth === 2) return { refuse: 400 }; // a 4xx: the original retries it too
  if (path === "/environment" && nth === 1) return { loseAnswer: 500 };
  return "ok" as const;
}

async function get<T = Record<string, unknown>>(path: string): Promise<T> {
  const r = await call(cp, ada, "GET", path);
  expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(200);
  return r.body as T;
}

interface Line {
  stream: string;
  seq: number;
  line: string;
}

async function allLines(): Promise<Line[]> {
  const out: Line[] = [];
  let offset = 0;
  for (;;) {
    const page = await get<{ lines: Line[]; next_offset: number }>(
      `/v1/jobs/${jobId}/logs?offset=${offset}&limit=500`,
    );
    if (page.lines.length === 0) return out;
    out.push(...page.lines);
    offset = page.next_offset;
  }
}

function consolePart(p: number): string {
  let text = "";
  for (let n = p * LINES_PER_PART; n < (p + 1) * LINES_PER_PART; n++)
    text += `console line ${n}: ${"x".repeat(n % 97)}\n`;
  return text;
}

/** The chunks the client means to send, in order: each part cut every 8192 characters, then the last. */
function intendedChunks(): string[] {
  const chunks: string[] = [];
  for (let p = 0; p < PARTS; p++) {
    const text = consolePart(p);
    for (let i = 0; i < text.length; i += 8192) chunks.push(text.slice(i, i + 8192));
  }
  chunks.push("the last line has no newline");
  return chunks;
}

beforeAll(async () => {
  cp = sharedControlPlane();
  let fleet: string;
  ({ fleet, agent } = await fleetWithAgent(cp, "original-client"));
  proxy = await new FaultProxy(cp.url, plan).start();
  ada = (await newUser(cp, "ada")).token;
  const train = [
    "#!/usr/bin/env bash",
    "set -euo pipefail",
    // The client talks to ingest through the test's proxy; the runner talks to it directly.
    `export STARFORGE_ENDPOINT='${proxy.url}'`,
    "export STARFORGE_FLUSH_INTERVAL=0.3",
    "exec python3 original_client_job.py",
    "",
  ].join("\n");
  const workspace = await uploadWorkspace(cp.url, ada, [
    { path: "exp/train.sh", content: train, mode: 0o755 },
    { path: "exp/original_client.py", content: readFileSync(join(SUPPORT, "original_client.py"), "utf8") },
    {
      path: "exp/original_client_job.py",
      content: readFileSync(join(SUPPORT, "original_client_job.py"), "utf8"),
    },
  ]);
  jobId = await submitCustom(cp, ada, { name: "original-client", fleet, workspace, maxRetries: 0 });
  const done = await waitForStatus(cp, ada, jobId, ["SUCCEEDED", "FAILED", "STOPPED"], 120_000);
  expect(done.job.status, JSON.stringify(done.runs)).toBe("SUCCEEDED");
  runId = done.job.current_run_id ?? done.runs.at(-1)!.id;
});

afterAll(async () => {
  await proxy?.stop();
  await agent?.dispose();
});

describe("training code on the original client, on the real stack", () => {
  it("rode out every injected failure by retrying (and the server saw the lost answers' requests twice)", () => {
    expect(proxy.refused.map((r) => `${r.path} ${r.status}`).sort()).toEqual([
      "/metrics 503",
      "/validation 400",
    ]);
    expect(
      proxy.forwarded
        .filter((f) => f.lost)
        .map((f) => f.path)
        .sort(),
    ).toEqual(["/environment", "/hardware", "/logs"]);
    // Nothing reached the server that it refused: no batch was turned down whole.
    expect(proxy.forwarded.filter((f) => f.status !== 200)).toEqual([]);
  });

  it("reads back the console text in order with nothing lost: duplicates only of the batch whose answer was lost", async () => {
    const lines = await allLines();
    const consoleRead = lines.filter((l) => l.stream === "console");
    expect(consoleRead.map((l) => l.seq)).toEqual(consoleRead.map((_, i) => i));
    // What reached the server, in order, is exactly what reads back, line by line.
    const bodies = proxy.forwarded.filter((f) => f.path === "/logs");
    const sent = bodies.flatMap((f) => (JSON.parse(f.body) as { chunks: string[] }).chunks);
    const asLines = (chunks: string[]) => chunks.flatMap((c) => consoleLines(c, MAX_LOG_LINE));
    expect(consoleRead.map((l) => l.line)).toEqual(asLines(sent));
    // And without the copy the client re-sent after the lost answer, it is exactly what the job printed.
    const lostAt = bodies.findIndex((f) => f.lost);
    const withoutRetry = bodies.filter((_, i) => i !== lostAt + 1);
    expect(bodies[lostAt + 1]!.body).toBe(bodies[lostAt]!.body);
    expect(withoutRetry.flatMap((f) => (JSON.parse(f.body) as { chunks: string[] }).chunks)).toEqual(
      intendedChunks(),
    );
    const lastBatch = JSON.parse(bodies.at(-1)!.body) as { eof?: boolean };
    expect(lastBatch.eof).toBe(true);
    expect(consoleRead.at(-1)!.line).toBe("the last line has no newline");
  });

  it("keeps every line the runner shipped on the same run, each once, in order", async () => {
    const lines = await allLines();
    const stdout = lines.filter((l) => l.stream === "stdout");
    expect(stdout.map((l) => l.seq)).toEqual(stdout.map((_, i) => i));
    expect(stdout.map((l) => l.line)).toEqual([
      ...Array.from({ length: PRINTED }, (_, i) => `runner line ${i}`),
      `job done: ${PRINTED} lines printed`,
    ]);
    const page = await get<{ streams: Array<{ stream: string; eof_seq: number | null }> }>(
      `/v1/jobs/${jobId}/logs?limit=1`,
    );
    expect(page.streams.map((s) => [s.stream, s.eof_seq])).toEqual([
      ["console", lines.filter((l) => l.stream === "console").length],
      ["stderr", 0], // the job wrote nothing to stderr; the runner still closed that stream
      ["stdout", PRINTED + 1],
    ]);
  });

  it("reads back every metric point, and loses only the one that was NaN", async () => {
    const loss = await get<{ points: Array<{ step: number; value: number }> }>(
      `/v1/jobs/${jobId}/metrics?key=train/loss`,
    );
    expect(loss.points.map((p) => [p.step, p.value])).toEqual(
      Array.from({ length: STEPS }, (_, s) => [s, 1 / (s + 1)]),
    );
    const grad = await get<{ points: Array<{ step: number; value: number }> }>(
      `/v1/jobs/${jobId}/metrics?key=train/grad_norm`,
    );
    expect(grad.points.map((p) => [p.step, p.value])).toEqual(
      Array.from({ length: STEPS }, (_, s) => [s, s * 0.5]).filter(([s]) => s !== 50),
    );
  });

  it("reads back hparams and hardware per host and GPU, never collapsing two hosts onto one series", async () => {
    const hp = await get<{ params: unknown }>(`/v1/jobs/${jobId}/hparams`);
    // The runner records the recipe's typed hyperparameters (none for a custom job); the client's follow.
    expect(hp.params).toEqual({ lr: 0.0003, model: { layers: 2, act: "gelu" }, tags: ["a", "b"] });
    type Series = {
      key: string;
      worker_id: string;
      node_id: null;
      gpu_idx: number | null;
      gpu_uuid: string | null;
      count: number;
    };
    const list = await get<{ series: Series[] }>(`/v1/jobs/${jobId}/hardware`);
    expect(list.series.map((s) => [s.key, s.worker_id, s.gpu_idx, s.gpu_uuid, s.count])).toEqual([
      ["cpu.util", "host-a", null, null, INSTANTS],
      ["cpu.util", "host-b", null, null, INSTANTS],
      ["gpu.util", "host-a", 0, "GPU-host-a-0", INSTANTS],
      ["gpu.util", "host-a", 1, "GPU-host-a-1", INSTANTS],
      ["gpu.util", "host-b", 0, "GPU-host-b-0", INSTANTS],
      ["gpu.util", "host-b", 1, "GPU-host-b-1", INSTANTS],
    ]);
    expect(list.series.every((s) => s.node_id === null)).toBe(true);
    const gpu = await get<{
      series: Array<{ worker_id: string; gpu_idx: number; points: Array<{ ts: string; value: number }> }>;
    }>(`/v1/jobs/${jobId}/hardware?key=gpu.util`);
    for (const s of gpu.series) {
      const base = s.worker_id === "host-a" ? 10 : 20;
      expect(s.points.map((p) => [Date.parse(p.ts), p.value])).toEqual(
        Array.from({ length: INSTANTS }, (_, t) => [BASE_TS_MS + 10_000 * t, base + t + s.gpu_idx / 2]),
      );
    }
  });

  it("reads back artifacts by absolute path, environment, nodes and validation samples", async () => {
    const arts = await get<{ artifacts: Array<Record<string, unknown>> }>(`/v1/jobs/${jobId}/artifacts`);
    const byKind = Object.fromEntries(arts.artifacts.map((a) => [a.kind, a]));
    expect(byKind.checkpoint).toMatchObject({
      step: 100,
      size_bytes: 1234,
      stored: false,
      metrics: { eval: { acc: 0.5 }, tags: ["best"] },
    });
    expect(String(byKind.checkpoint!.path)).toMatch(/^\/.*\/out\/checkpoints\/checkpoint-100$/);
    expect(byKind.hf_export).toMatchObject({ step: null, metrics: null, stored: false });

    const env = await get<{
      probes: Array<{ hostname: string; probe: Record<string, unknown> }>;
      nodes: Array<Record<string, unknown>>;
    }>(`/v1/jobs/${jobId}/environment`);
    // The client's probe (sent once, stored once though the answer was lost) and the runner's own.
    const client = env.probes.filter((p) => p.hostname === "gpu-node-a");
    expect(client.map((p) => p.probe)).toEqual([
      {
        hostname: "gpu-node-a",
        python: { version: "3.11.7" },
        packages: { torch: "2.3.0" },
        image: "acme/train:1",
      },
    ]);
    expect(env.probes.length).toBe(2);
    expect(env.nodes.map((n) => n.hostname)).toEqual(expect.arrayContaining(["gpu-node-a", "gpu-node-b"]));
    expect(env.nodes.find((n) => n.hostname === "gpu-node-b")).toMatchObject({
      cpu: 64,
      gpu: ["H200", "H200"],
    });

    const steps = await get<{ steps: Array<Record<string, unknown>> }>(`/v1/jobs/${jobId}/validation`);
    expect(steps.steps).toEqual([
      expect.objectContaining({
        step: 10,
        total_chunks: 3,
        chunks_received: 3,
        total_samples: 7,
        samples_received: 7,
        complete: true,
        avg_reward: 0.3,
        dist: { hist: [1, 2, 4] },
      }),
    ]);
    const samples = await get<{ samples: unknown[] }>(`/v1/jobs/${jobId}/validation?step=10`);
    expect(samples.samples).toEqual(
      Array.from({ length: 7 }, (_, i) => ({
        idx: i,
        reward: i / 10,
        user: `question ${i}`,
        assistant: `answer ${i}\nwith two lines`,
        env: { seed: i },
      })),
    );
  });

  it("shows it with sf: hparams and environment in `sf job status`, samples in `sf job samples`", async () => {
    const home = newSfHome();
    const login = await sf(["login", "--server", cp.url, "--token", ada], { home });
    expect(login.code, login.stderr).toBe(0);
    const status = await sf(["job", "status", jobId], { home });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^Hyperparameters$/m);
    expect(status.stdout).toMatch(/^lr\s+0\.0003$/m);
    expect(status.stdout).toMatch(/^model\s+\{"layers":2,"act":"gelu"\}$/m);
    expect(status.stdout).toMatch(new RegExp(`^Environment \\(run ${runId}\\)$`, "m"));
    expect(status.stdout).toMatch(/^ {2}gpu-node-a · python 3\.11\.7 · no GPUs seen · 1 packages$/m);
    const list = await sf(["job", "samples", jobId], { home });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^10\s+7\/7\s+3\/3\s+yes\s+0\.3$/m);
    const one = await sf(["job", "samples", jobId, "--step", "10", "--limit", "2"], { home });
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toContain("step 10: 7/7 samples, avg reward 0.3 (complete)");
    expect(one.stdout).toContain(
      "#1  reward 0.1\n  user:\n    question 1\n  assistant:\n    answer 1\n    with two lines\n",
    );
    expect(one.stdout).not.toContain("#2");
    expect(one.stderr).toContain("(2 of 7 samples; --limit N for more)");
    const json = await sf(["job", "samples", jobId, "--step", "10", "--json"], { home });
    expect((JSON.parse(json.stdout) as { samples: unknown[] }).samples).toHaveLength(7);
  });
});
