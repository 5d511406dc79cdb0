/**
 * The original client's wire format on the Worker and Run DO: unsequenced terminal-text log chunks that
 * never collide with the runner's sequenced lines, batches stored item by item (a bad point is rejected
 * alone, Python's NaN included), hardware series per host and GPU, artifact references by absolute path,
 * environment probes and nodes, chunked validation samples — and every one of them read back.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createUser } from "./helpers.js";
import { ingest, type LogLine, readAllLogs, startRun } from "./ingest-helpers.js";

/** POSTs a raw body, as a client whose JSON is not quite JSON would. */
async function rawIngest(token: string, path: string, text: string) {
  const res = await SELF.fetch(`http://sf.test/v1/ingest${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-starforge-token": token },
    body: text,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const lines = (ls: LogLine[], stream: string) => ls.filter((l) => l.stream === stream);

describe("logs without seq (the original client)", () => {
  it("never take the runner's seq numbers: the runner's later lines are all kept, and its eof is its own", async () => {
    const f = await startRun("compat-logs");
    const runner = (seq: number, n: number, eof = false) =>
      ingest(f.token, "/logs", {
        run_id: f.runId,
        seq,
        rank: 0,
        stream: "stdout",
        chunks: Array.from({ length: n }, (_, i) => `runner ${seq + i}`),
        ...(eof ? { eof: true } : {}),
      });
    expect((await runner(0, 3)).body).toMatchObject({ accepted: 3, stream: "stdout" });
    // The original client: several lines per chunk, no seq, no stream, then eof.
    const chunk = await ingest(f.token, "/logs", {
      run_id: f.runId,
      chunks: ["epoch 1\nloss 0.5\n", "epoch 2\r\nloss 0.4\npartial"],
    });
    expect(chunk.status).toBe(200);
    expect(chunk.body).toMatchObject({ accepted: 5, stream: "console", first_seq: 0, rejected: [] });
    const eof = await ingest(f.token, "/logs", { run_id: f.runId, chunks: ["bye\n"], eof: true });
    expect(eof.body).toMatchObject({ accepted: 1, stream: "console" });
    // Before the fix these took seqs 3.. of stdout and were dropped as duplicates.
    expect((await runner(3, 4)).body).toMatchObject({ accepted: 4, duplicates: 0 });
    expect((await runner(7, 1, true)).body).toMatchObject({ accepted: 1 });

    const all = await readAllLogs(f, 4);
    expect(lines(all, "stdout").map((l) => l.line)).toEqual(
      Array.from({ length: 8 }, (_, i) => `runner ${i}`),
    );
    expect(lines(all, "console").map((l) => [l.seq, l.line])).toEqual([
      [0, "epoch 1"],
      [1, "loss 0.5"],
      [2, "epoch 2"],
      [3, "loss 0.4"],
      [4, "partial"],
      [5, "bye"],
    ]);
    const page = await api(f.op, "GET", `/v1/jobs/${f.jobId}/logs?run=${f.runId}`);
    expect(page.body.streams).toEqual([
      { rank: 0, stream: "console", released_to: 6, held: 0, eof_seq: 6 },
      { rank: 0, stream: "stdout", released_to: 8, held: 0, eof_seq: 8 },
    ]);
    const consoleOnly = await api(f.op, "GET", `/v1/jobs/${f.jobId}/logs?run=${f.runId}&stream=console`);
    expect(consoleOnly.body.lines).toHaveLength(6);
  });

  it("splits every chunk on its own: a trailing newline adds no empty line, a lone one is an empty line, a huge line is cut, not refused", async () => {
    const f = await startRun("compat-split");
    const long = "x".repeat(40_000);
    const r = await ingest(f.token, "/logs", { run_id: f.runId, chunks: ["a\n", "\n", "", "b\n\nc", long] });
    expect(r.body).toMatchObject({ accepted: 8, rejected: [] });
    const got = (await readAllLogs(f)).map((l) => l.line);
    expect(got.slice(0, 5)).toEqual(["a", "", "b", "", "c"]);
    expect(got.slice(5).join("")).toBe(long);
    expect(got.slice(5).every((l) => l.length <= 16 * 1024)).toBe(true);
  });

  it("rejects only the chunks that are not text, and refuses `stream` on a batch without seq", async () => {
    const f = await startRun("compat-badchunk");
    const r = await ingest(f.token, "/logs", { run_id: f.runId, chunks: ["ok 1\n", 42, null, "ok 2\n"] });
    expect(r.status).toBe(200);
    expect(r.body.accepted).toBe(2);
    expect(r.body.rejected.map((x: { index: number; code: string }) => [x.index, x.code])).toEqual([
      [1, "INVALID_ITEM"],
      [2, "INVALID_ITEM"],
    ]);
    const mixed = await ingest(f.token, "/logs", { run_id: f.runId, chunks: ["x"], stream: "stderr" });
    expect(mixed.status).toBe(400);
    expect(mixed.body.error.code).toBe("BAD_REQUEST");
  });
});

describe("batches are stored item by item", () => {
  it("stores the valid points of a metrics batch and names the rejected ones, Python's NaN included", async () => {
    const f = await startRun("compat-items");
    const text = `{"run_id": "${f.runId}", "points": [
      {"key": "loss", "step": 1, "value": 0.5, "ts": "2026-12-01T10:00:00.000Z"},
      {"key": "loss", "step": 2, "value": NaN, "ts": "2026-12-01T10:00:01.000Z"},
      {"key": "loss", "step": 3, "value": "0.3"},
      {"key": "loss", "step": 4, "value": -Infinity},
      {"key": "NaN in a key is text", "step": 5, "value": 1.5, "ts": null}
    ]}`;
    const r = await rawIngest(f.token, "/metrics", text);
    expect(r.status).toBe(200);
    expect(r.body.accepted).toBe(2);
    const rejected = r.body.rejected as Array<{ index: number; code: string; message: string }>;
    expect(rejected.map((x) => [x.index, x.code])).toEqual([
      [1, "INVALID_ITEM"],
      [2, "INVALID_ITEM"],
      [3, "INVALID_ITEM"],
    ]);
    expect(rejected[0]!.message).toMatch(/^value: /);
    const loss = await api(f.op, "GET", `/v1/jobs/${f.jobId}/metrics?run=${f.runId}&key=loss`);
    expect(loss.body.points.map((p: { step: number }) => p.step)).toEqual([1]);
    const other = await api(
      f.op,
      "GET",
      `/v1/jobs/${f.jobId}/metrics?run=${f.runId}&key=NaN%20in%20a%20key%20is%20text`,
    );
    expect(other.body.points).toMatchObject([{ step: 5, value: 1.5 }]);
  });

  it("rejects the points past 256 alone, and still fails a body that is not JSON or names another run", async () => {
    const f = await startRun("compat-limits");
    const points = Array.from({ length: 260 }, (_, i) => ({ key: "k", step: i, value: i }));
    const r = await ingest(f.token, "/metrics", { run_id: f.runId, points });
    expect(r.body.accepted).toBe(256);
    expect(r.body.rejected.map((x: { index: number; code: string }) => x.code)).toEqual(
      Array(4).fill("OVER_LIMIT"),
    );
    const notJson = await rawIngest(f.token, "/metrics", "{not json");
    expect([notJson.status, (notJson.body.error as { code: string }).code]).toEqual([400, "BAD_REQUEST"]);
    const other = await ingest(f.token, "/metrics", { run_id: "run_someone_else", points: [] });
    expect([other.status, other.body.error.code]).toEqual([403, "FORBIDDEN"]);
    const noItems = await ingest(f.token, "/metrics", { run_id: f.runId });
    expect([noItems.status, noItems.body.error.code]).toEqual([400, "BAD_REQUEST"]);
  });

  // Regression (fuzz-ingest): values nested 100 000 deep overflowed the stack where they were serialized
  // (the probe's canonical JSON, an item's size, the Run DO's RPC): a 500, and the client retries forever.
  it("refuses a body nested deeper than 100 levels with a 400, on every route that takes any JSON", async () => {
    const f = await startRun("compat-deep");
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const cases: Array<[string, string]> = [
      ["/hparams", `{"run_id":"${f.runId}","params":{"a":${deep}}}`],
      ["/environment", `{"run_id":"${f.runId}","python":${deep}}`],
      ["/environment/nodes", `{"run_id":"${f.runId}","nodes":[{"hostname":"h","cpu":${deep}}]}`],
      [
        "/validation",
        `{"run_id":"${f.runId}","step":1,"chunk_index":0,"total_chunks":1,"total_samples":1,"samples":[],"dist":${deep}}`,
      ],
      ["/artifact", `{"run_id":"${f.runId}","kind":"checkpoint","path":"/x","metrics":{"m":${deep}}}`],
    ];
    for (const [path, body] of cases) {
      const r = await rawIngest(f.token, path, body);
      expect([r.status, (r.body.error as { code: string }).code], path).toEqual([400, "BAD_REQUEST"]);
    }
    // 100 levels are still taken: the body, params, and 98 arrays.
    const nested = `${"[".repeat(98)}1${"]".repeat(98)}`;
    const ok = await rawIngest(f.token, "/hparams", `{"run_id":"${f.runId}","params":{"a":${nested}}}`);
    expect(ok.status).toBe(200);
  });
});

describe("hardware, hparams, artifacts, environment, validation: stored and read back", () => {
  it("keeps one series per host and GPU (null node ids outside Ray), idempotent on retry, filterable", async () => {
    const f = await startRun("compat-hw");
    const ts = "2026-12-01T10:00:00.000Z";
    const ts2 = "2026-12-01T10:00:10.000Z";
    const batch = {
      run_id: f.runId,
      points: [
        {
          key: "gpu.util",
          value: 90,
          node_id: null,
          worker_id: "host-a",
          gpu_idx: 0,
          gpu_uuid: "GPU-aaaa",
          ts,
        },
        { key: "gpu.util", value: 10, node_id: null, worker_id: "host-b", gpu_idx: 0, ts },
        { key: "gpu.util", value: 50, node_id: null, worker_id: "host-a", gpu_idx: 1, ts },
        { key: "cpu.util", value: 33, node_id: null, worker_id: "host-a", gpu_idx: null, ts },
        { key: "cpu.util", value: 44, node_id: null, worker_id: "host-b", gpu_idx: null, ts },
        { key: "gpu.util", value: 95, node_id: null, worker_id: "host-a", gpu_idx: 0, ts: ts2 },
      ],
    };
    expect((await ingest(f.token, "/hardware", batch)).body).toEqual({ accepted: 6, rejected: [] });
    await ingest(f.token, "/hardware", batch); // a retry of the same batch
    const base = `/v1/jobs/${f.jobId}/hardware?run=${f.runId}`;
    const list = await api(f.op, "GET", base);
    expect(list.status).toBe(200);
    expect(
      list.body.series.map((s: Record<string, unknown>) => [
        s.key,
        s.worker_id,
        s.gpu_idx,
        s.count,
        (s.last as { value: number }).value,
      ]),
    ).toEqual([
      ["cpu.util", "host-a", null, 1, 33],
      ["cpu.util", "host-b", null, 1, 44],
      ["gpu.util", "host-a", 0, 2, 95],
      ["gpu.util", "host-a", 1, 1, 50],
      ["gpu.util", "host-b", 0, 1, 10],
    ]);
    expect(list.body.series[2]).toMatchObject({ node_id: null, gpu_uuid: "GPU-aaaa" });
    const gpu0 = await api(f.op, "GET", `${base}&key=gpu.util&gpu=0`);
    expect(
      gpu0.body.series.map((s: { worker_id: string; points: Array<{ value: number }> }) => [
        s.worker_id,
        s.points.map((p) => p.value),
      ]),
    ).toEqual([
      ["host-a", [90, 95]],
      ["host-b", [10]],
    ]);
    const hostB = await api(f.op, "GET", `${base}&key=cpu.util&node=host-b`);
    expect(hostB.body.series).toMatchObject([{ worker_id: "host-b", points: [{ value: 44 }] }]);
    // Paging by time never splits the samples of one instant.
    const page1 = await api(f.op, "GET", `${base}&key=gpu.util&limit=2`);
    expect(page1.body.series.flatMap((s: { points: unknown[] }) => s.points)).toHaveLength(3);
    const page2 = await api(f.op, "GET", `${base}&key=gpu.util&after=${page1.body.next_after}`);
    expect(page2.body.series).toMatchObject([{ worker_id: "host-a", gpu_idx: 0, points: [{ value: 95 }] }]);
    expect(page2.body.next_after).toBeNull();
  });

  it("reads back hparams, and artifact references by absolute path with any-JSON metrics", async () => {
    const f = await startRun("compat-art");
    await ingest(f.token, "/hparams", { run_id: f.runId, params: { lr: 0.001, model: { layers: 4 } } });
    const hp = await api(f.op, "GET", `/v1/jobs/${f.jobId}/hparams?run=${f.runId}`);
    expect(hp.body).toMatchObject({ run_id: f.runId, params: { lr: 0.001, model: { layers: 4 } } });
    expect(typeof hp.body.updated_at).toBe("string");
    const path = "/sf/run/out/checkpoints/checkpoint-500";
    const reg = await ingest(f.token, "/artifact", {
      run_id: f.runId,
      kind: "checkpoint",
      path,
      step: 500,
      size_bytes: null,
      metrics: { eval: { acc: 0.9, tags: ["best"] }, note: "ok" },
    });
    expect(reg.status).toBe(200);
    expect(reg.body.artifact).toMatchObject({ path, stored: false, step: 500, size_bytes: null });
    const arts = await api(f.op, "GET", `/v1/jobs/${f.jobId}/artifacts?run=${f.runId}`);
    expect(arts.body.artifacts).toMatchObject([
      { path, metrics: { eval: { acc: 0.9, tags: ["best"] }, note: "ok" } },
    ]);
    const dl = await api(
      f.op,
      "GET",
      `/v1/jobs/${f.jobId}/artifacts/download?run=${f.runId}&path=${encodeURIComponent(path)}`,
    );
    expect([dl.status, dl.body.error.code]).toEqual([404, "NOT_FOUND"]);
    expect(dl.body.error.message).toMatch(/registered by path only/);
    // Uploaded bytes still follow the upload path rules.
    const upload = await ingest(f.token, "/artifact", {
      run_id: f.runId,
      kind: "checkpoint",
      path,
      digest: `sha256:${"a".repeat(64)}`,
    });
    expect([upload.status, upload.body.error.code]).toEqual([400, "BAD_REQUEST"]);
  });

  it("keeps each distinct environment probe once and the job's nodes by hostname", async () => {
    const f = await startRun("compat-env");
    const probe = { run_id: f.runId, hostname: "gpu-node-1", python: "3.11.7", packages: { torch: "2.3.0" } };
    expect((await ingest(f.token, "/environment", probe)).body).toMatchObject({
      accepted: 1,
      duplicate: false,
    });
    expect((await ingest(f.token, "/environment", probe)).body).toMatchObject({
      accepted: 1,
      duplicate: true,
    });
    await ingest(f.token, "/environment", { ...probe, hostname: "gpu-node-2" });
    const nodes = await ingest(f.token, "/environment/nodes", {
      run_id: f.runId,
      nodes: [
        { hostname: "gpu-node-1", cpu: 64, gpu: ["H200", "H200"] },
        { cpu: 8 },
        { hostname: "gpu-node-2", cpu: { count: 32 }, gpu: [] },
      ],
    });
    expect(nodes.body).toMatchObject({ accepted: 2, rejected: [{ index: 1, code: "INVALID_ITEM" }] });
    await ingest(f.token, "/environment/nodes", {
      run_id: f.runId,
      nodes: [{ hostname: "gpu-node-1", cpu: 128, gpu: [] }],
    });
    const env = await api(f.op, "GET", `/v1/jobs/${f.jobId}/environment?run=${f.runId}`);
    expect(env.body.probes.map((p: { hostname: string }) => p.hostname)).toEqual([
      "gpu-node-1",
      "gpu-node-2",
    ]);
    expect(env.body.probes[0].probe).toEqual({
      hostname: "gpu-node-1",
      python: "3.11.7",
      packages: { torch: "2.3.0" },
    });
    expect(env.body.nodes.map((n: Record<string, unknown>) => [n.hostname, n.cpu, n.gpu])).toEqual([
      ["gpu-node-1", 128, []],
      ["gpu-node-2", { count: 32 }, []],
    ]);
  });

  it("assembles chunked validation samples per step, idempotent on retry, a bad sample rejected alone", async () => {
    const f = await startRun("compat-val");
    const sample = (idx: number) => ({
      idx,
      reward: idx / 10,
      user: `q${idx}`,
      assistant: `a${idx}`,
      env: { k: idx },
    });
    const chunk0 = {
      run_id: f.runId,
      step: 100,
      chunk_index: 0,
      total_chunks: 2,
      total_samples: 4,
      samples: [sample(0), sample(1)],
    };
    expect((await ingest(f.token, "/validation", chunk0)).body).toEqual({ accepted: 2, rejected: [] });
    await ingest(f.token, "/validation", chunk0); // retried
    const partial = await api(f.op, "GET", `/v1/jobs/${f.jobId}/validation?run=${f.runId}`);
    expect(partial.body.steps).toMatchObject([
      { step: 100, chunks_received: 1, samples_received: 2, complete: false },
    ]);
    const chunk1 = await ingest(f.token, "/validation", {
      ...chunk0,
      chunk_index: 1,
      samples: [sample(2), { idx: "three" }, sample(3)],
      avg_reward: 0.15,
      dist: { buckets: [1, 2, 1] },
    });
    expect(chunk1.body).toMatchObject({ accepted: 2, rejected: [{ index: 1, code: "INVALID_ITEM" }] });
    const steps = await api(f.op, "GET", `/v1/jobs/${f.jobId}/validation?run=${f.runId}`);
    expect(steps.body.steps).toMatchObject([
      {
        step: 100,
        total_chunks: 2,
        chunks_received: 2,
        total_samples: 4,
        samples_received: 4,
        complete: true,
        avg_reward: 0.15,
        dist: { buckets: [1, 2, 1] },
      },
    ]);
    const page = await api(f.op, "GET", `/v1/jobs/${f.jobId}/validation?run=${f.runId}&step=100&limit=3`);
    expect(page.body.samples.map((s: { idx: number }) => s.idx)).toEqual([0, 1, 2]);
    expect(page.body.samples[1]).toEqual(sample(1));
    const rest = await api(
      f.op,
      "GET",
      `/v1/jobs/${f.jobId}/validation?run=${f.runId}&step=100&after=${page.body.next_after}`,
    );
    expect(rest.body.samples.map((s: { idx: number }) => s.idx)).toEqual([3]);
    expect(rest.body.next_after).toBeNull();
    const missing = await api(f.op, "GET", `/v1/jobs/${f.jobId}/validation?run=${f.runId}&step=7`);
    expect([missing.status, missing.body.error.code]).toEqual([404, "NOT_FOUND"]);
    const bad = await ingest(f.token, "/validation", { ...chunk0, chunk_index: 2 });
    expect([bad.status, bad.body.error.code]).toEqual([400, "BAD_REQUEST"]);
  });

  it("shows the run's timeline: what its ranks reported and the job's state changes", async () => {
    const f = await startRun("compat-events");
    await ingest(f.token, "/lifecycle", { run_id: f.runId, event: "started", ts: "2026-12-01T10:00:00Z" });
    await ingest(f.token, "/lifecycle", { run_id: f.runId, event: "succeeded", exit_code: 0 });
    const ev = await api(f.op, "GET", `/v1/jobs/${f.jobId}/events?run=${f.runId}`);
    expect(ev.status).toBe(200);
    expect(ev.body.run).toMatchObject({ id: f.runId, attempt: 1, status: "SUCCEEDED", exit_code: 0 });
    expect(ev.body.lifecycle.map((e: { event: string; rank: number }) => [e.rank, e.event])).toEqual([
      [0, "started"],
      [0, "succeeded"],
    ]);
    expect(ev.body.lifecycle[0].ts).toBe("2026-12-01T10:00:00.000Z");
    expect(ev.body.transitions.map((t: { to: string }) => t.to)).toEqual([
      "SUBMITTED",
      "PENDING",
      "RUNNING",
      "SUCCEEDED",
    ]);
  });

  it("lets only the job's owner (or an admin) read these routes", async () => {
    const f = await startRun("compat-auth");
    const mallory = await createUser("compat-mallory");
    for (const route of ["hparams", "hardware", "events", "environment", "validation"]) {
      const r = await api(mallory, "GET", `/v1/jobs/${f.jobId}/${route}`);
      expect([route, r.status, r.body.error.code]).toEqual([route, 403, "FORBIDDEN"]);
      const own = await api(f.op, "GET", `/v1/jobs/${f.jobId}/${route}`);
      expect([route, own.status]).toEqual([route, 200]);
    }
  });
});
