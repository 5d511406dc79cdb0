/**
 * starforge.report, imported from runner.pyz by plain Python code the way training code does: the
 * original client's API and wire format, a no-op without a token, and never an exception into training.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { IngestServer, type MetricPoint } from "./support/ingest-server.js";
import { capsule, cleanAll, PYTHON, tempDir } from "./support/run-dir.js";

const TOKEN = "tok-report-test";
let server: IngestServer;

beforeEach(async () => {
  server = await new IngestServer(TOKEN).start();
});
afterEach(() => server.stop());
afterAll(cleanAll);

interface PyResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Run Python code with runner.pyz on PYTHONPATH (as the runner arranges for training code). */
function python(code: string, env: Record<string, string>): Promise<PyResult> {
  const started = Date.now();
  const child = spawn(PYTHON, ["-c", code], {
    env: { PATH: process.env.PATH ?? "", PYTHONPATH: join(capsule().dir, "runner.pyz"), ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((ok) =>
    child.on("close", (c) => ok({ code: c, stdout, stderr, ms: Date.now() - started })),
  );
}

/** Every kind of call, including ones that are wrong; none may raise. */
const EVERYTHING = `
import sys
from starforge.report import init, log, log_hparams, finish
init()
log_hparams({"lr": 0.1, "model": {"layers": 2}})
for i in range(600):
    log({"train/loss": 1.0 / (i + 1)})
log({"train": {"acc": 0.5, "deep": {"er": 2}}}, step=1000)
log({"after": 1})
log({"bad": "a string", "nan": float("nan"), "none": None, "ok": True})
log("not a dict")
log({"neg": 1}, step=-5)
log_hparams(None)
finish()
finish()
log({"after_finish": 1})
print("training survived")
`;

describe("starforge.report", () => {
  it("posts metrics in batches of at most 256 points, flattening keys and auto-incrementing steps", async () => {
    const res = await python(EVERYTHING, {
      STARFORGE_ENDPOINT: server.endpoint,
      STARFORGE_RUN_ID: "run_report",
      STARFORGE_TOKEN: TOKEN,
    });
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    expect(res.stdout).toBe("training survived\n");

    const batches = server.accepted<{ run_id: string; points: MetricPoint[] }>("/metrics");
    expect(batches.every((b) => b.run_id === "run_report" && b.points.length <= 256)).toBe(true);
    expect(batches.length).toBeGreaterThanOrEqual(3);
    const loss = server.metrics("train/loss");
    expect(loss.map((p) => p.step)).toEqual(Array.from({ length: 600 }, (_, i) => i));
    expect(loss[9]?.value).toBeCloseTo(0.1);
    // Nested dicts flatten with ".", as in the original client.
    expect(server.metrics("train.acc")).toMatchObject([{ step: 1000, value: 0.5 }]);
    expect(server.metrics("train.deep.er")).toMatchObject([{ step: 1000, value: 2 }]);
    expect(server.metrics("after")).toMatchObject([{ step: 1001, value: 1 }]); // None after 1000 -> 1001
    expect(server.metrics("ok")).toMatchObject([{ step: 1002, value: 1 }]);
    // JSON has no NaN: it goes as "nan" (the control plane watches a loss for it, and does not chart it).
    expect(server.metrics("nan")).toMatchObject([{ step: 1002, value: "nan" }]);
    for (const key of ["bad", "none", "neg", "after_finish"]) expect(server.metrics(key)).toEqual([]);
    // ISO-8601 timestamps, as the original client sends them.
    expect(loss.every((p) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(String(p.ts)))).toBe(true);
    expect(server.accepted("/hparams")).toEqual([
      { run_id: "run_report", params: { lr: 0.1, model: { layers: 2 } } },
    ]);
    expect(server.requests.every((r) => r.token === TOKEN)).toBe(true);
  });

  it("init() arguments win over the environment", async () => {
    const code = `from starforge.report import init, log, finish
init(run_id="run_args", endpoint="${server.endpoint}", token="${TOKEN}")
log({"x": 1}, step=3)
finish()`;
    const res = await python(code, { STARFORGE_TOKEN: "wrong-token", STARFORGE_RUN_ID: "run_env" });
    expect(res.code, res.stderr).toBe(0);
    expect(server.accepted("/metrics")).toMatchObject([
      { run_id: "run_args", points: [{ key: "x", step: 3 }] },
    ]);
  });

  it("without a token every call is a no-op: nothing is sent, nothing is printed", async () => {
    const cases: Record<string, string>[] = [{}, { STARFORGE_TOKEN: TOKEN, STARFORGE_ENABLED: "0" }];
    for (const env of cases) {
      const res = await python(EVERYTHING, {
        STARFORGE_ENDPOINT: server.endpoint,
        STARFORGE_RUN_ID: "run_report",
        ...env,
      });
      expect(res.code).toBe(0);
      expect(res.stdout).toBe("training survived\n");
      expect(res.stderr).toBe("");
    }
    expect(server.requests).toEqual([]);
  });

  it("a dead endpoint never raises into training, and finish() gives up in bounded time", async () => {
    const deadPort = await new Promise<number>((ok) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const port = (s.address() as { port: number }).port;
        s.close(() => ok(port));
      });
    });
    const res = await python(EVERYTHING, {
      STARFORGE_ENDPOINT: `http://127.0.0.1:${deadPort}/v1/ingest`,
      STARFORGE_RUN_ID: "run_report",
      STARFORGE_TOKEN: TOKEN,
      SF_REPORT_FLUSH_TIMEOUT: "2",
    });
    expect(res.code).toBe(0);
    expect(res.stdout).toBe("training survived\n");
    expect(res.stderr).not.toMatch(/Traceback/);
    // One line about the trouble (not one per retry) and one about what was lost.
    expect(res.stderr).toMatch(
      /^starforge\.report: ingest \/environment failed \(.*Connection refused.*\), retrying$/m,
    );
    expect(res.stderr).toMatch(
      /^starforge\.report: not delivered: 605 metric points, 1 hparams, 1 environment probe, 1 node entry$/m,
    );
    expect(res.stderr.trim().split("\n")).toHaveLength(2);
    expect(res.ms).toBeLessThan(15_000);
  });

  it("a server that refuses the token (401) never makes it raise either", async () => {
    const res = await python(EVERYTHING, {
      STARFORGE_ENDPOINT: server.endpoint,
      STARFORGE_RUN_ID: "run_report",
      STARFORGE_TOKEN: "not-the-token",
    });
    expect(res.code).toBe(0);
    expect(res.stdout).toBe("training survived\n");
    expect(res.stderr).toMatch(/refused \(HTTP 401\)/);
    expect(server.requests.every((r) => r.status === 401)).toBe(true);
  });
});

const ENV = (extra: Record<string, string> = {}) => ({
  STARFORGE_ENDPOINT: server.endpoint,
  STARFORGE_RUN_ID: "run_report",
  STARFORGE_TOKEN: TOKEN,
  STARFORGE_FLUSH_INTERVAL: "0.2",
  ...extra,
});

describe("starforge.report: the original client's API", () => {
  it("init(hparams=…) returns True and records them; log(prefix=…); enabled(); finish()", async () => {
    const code = `
from starforge.report import init, log, log_hparams, finish, enabled
class Tensor:  # duck-typed like a torch tensor: a mean over its elements
    def __init__(self, xs): self.xs = xs
    def numel(self): return len(self.xs)
    def float(self): return self
    def mean(self): return Tensor([sum(self.xs) / len(self.xs)])
    def item(self): return self.xs[0]
print("before", enabled())
print("init", init(hparams={"lr": 3e-4, "sched": {"warmup": 10}, "nan": float("nan"), "obj": object}, monitor_hardware=False))
print("after", enabled())
log({"loss": 0.5, "acc": Tensor([0.25, 0.75]), "skip": [1, 2]}, prefix="eval")
log({"loss": 0.4}, prefix="train/")
log({"a": {"b": 1}}, step=7, prefix="p")
finish()
print("finished", enabled())
`;
    const res = await python(code, ENV());
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.split("\n").filter((l) => /^(before|init|after|finished) /.test(l))).toEqual([
      "before False",
      "init True",
      "after True",
      "finished False",
    ]);
    expect(server.metrics("eval.loss")).toMatchObject([{ step: 0, value: 0.5 }]);
    expect(server.metrics("eval.acc")).toMatchObject([{ step: 0, value: 0.5 }]);
    expect(server.metrics("eval.skip")).toEqual([]);
    expect(server.metrics("train/loss")).toMatchObject([{ step: 1, value: 0.4 }]);
    expect(server.metrics("p.a.b")).toMatchObject([{ step: 7, value: 1 }]);
    expect(server.accepted("/hparams")).toEqual([
      {
        run_id: "run_report",
        params: { lr: 3e-4, sched: { warmup: 10 }, nan: "nan", obj: "<class 'object'>" },
      },
    ]);
    expect(server.accepted("/hardware")).toEqual([]);
  });

  it("without a token init() returns False and enabled() stays False", async () => {
    const res = await python(
      "from starforge.report import init, enabled\nprint(init(hparams={'a': 1}), enabled())",
      {},
    );
    expect(res.stdout).toBe("False False\n");
    expect(server.requests).toEqual([]);
  });

  it("StarForgeCallback in a minimal trainer loop: args as hparams, logs and evals at the global step, world zero only", async () => {
    const code = `
from types import SimpleNamespace
from starforge.report import StarForgeCallback, finish, log
class Args:
    def to_dict(self): return {"learning_rate": 5e-5, "num_train_epochs": 2, "output_dir": "/tmp/o"}
def loop(cb, zero):
    args, control = Args(), SimpleNamespace(should_stop=False)
    state = SimpleNamespace(global_step=0, is_world_process_zero=zero)
    for event in ("on_init_end", "on_train_begin"):
        getattr(cb, event)(args, state, control)
    for step in range(1, 7):
        state.global_step = step
        cb.on_step_end(args, state, control)
        if step % 2 == 0:
            cb.on_log(args, state, control, logs={"loss": 1.0 / step, "learning_rate": 5e-5, "epoch": step / 3})
    cb.on_evaluate(args, state, control, metrics={"eval_loss": 0.3, "eval_runtime": 1.5})
    cb.on_save(args, state, control)
    cb.on_train_end(args, state, control)
loop(StarForgeCallback(monitor_hardware=False, prefix="hf"), zero=False)  # another rank: silent
loop(StarForgeCallback(monitor_hardware=False, prefix="hf"), zero=True)
log({"final": 1}, step=100)  # after on_train_end, reporting goes on until finish()
finish()
`;
    const res = await python(code, ENV());
    expect(res.code, res.stderr).toBe(0);
    expect(server.accepted("/hparams")).toEqual([
      { run_id: "run_report", params: { learning_rate: 5e-5, num_train_epochs: 2, output_dir: "/tmp/o" } },
    ]);
    expect(server.metrics("hf.loss").map((p) => [p.step, p.value])).toEqual([
      [2, 0.5],
      [4, 0.25],
      [6, 1 / 6],
    ]);
    expect(server.metrics("hf.eval_loss")).toMatchObject([{ step: 6, value: 0.3 }]);
    expect(server.metrics("final")).toMatchObject([{ step: 100, value: 1 }]);
  });

  it("samples CPU and memory from /proc and every visible GPU from nvidia-smi, as hardware points per host and GPU", async () => {
    // A stand-in nvidia-smi that answers the query the way the real one formats it (csv,noheader,nounits).
    const smi = tempDir("sf-smi-");
    writeFileSync(
      join(smi, "nvidia-smi"),
      `#!/usr/bin/env bash
[[ "$*" == *--query-gpu=index,uuid,name,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw* ]] || exit 9
echo "0, GPU-aaaa, NVIDIA H200, 87, 40960, 143771, 61, 512.5"
echo "1, GPU-bbbb, NVIDIA H200, [N/A], 1024, 143771, 40, 90.0"
echo "2, GPU-cccc, NVIDIA H200, 5, 10, 143771, 30, 80.0"
`,
      { mode: 0o755 },
    );
    const code = `
import time
from starforge.report import init, finish
init(monitor_interval=0.2)
time.sleep(1.2)
finish()
`;
    const res = await python(
      code,
      ENV({ PATH: `${smi}:${process.env.PATH}`, CUDA_VISIBLE_DEVICES: "0,GPU-bbbb" }),
    );
    expect(res.code, res.stderr).toBe(0);
    type Hw = {
      key: string;
      value: number;
      node_id: null;
      worker_id: string;
      gpu_idx: number | null;
      gpu_uuid: string | null;
    };
    const points = server.accepted<{ points: Hw[] }>("/hardware").flatMap((b) => b.points);
    const host = points.find((p) => p.key === "mem.used_bytes")!;
    expect(host).toMatchObject({
      node_id: null,
      gpu_idx: null,
      gpu_uuid: null,
      worker_id: expect.any(String),
    });
    expect(points.some((p) => p.key === "cpu.util" && p.value >= 0 && p.value <= 100)).toBe(true);
    expect(points.find((p) => p.key === "mem.util")!.value).toBeGreaterThan(0);
    const gpu = (key: string) => [
      ...new Set(points.filter((p) => p.key === key).map((p) => `${p.gpu_idx}/${p.gpu_uuid}/${p.value}`)),
    ];
    expect(gpu("gpu.util")).toEqual(["0/GPU-aaaa/87"]); // GPU 1 said [N/A]; GPU 2 is not this job's
    expect(gpu("gpu.mem_used_bytes")).toEqual([
      `0/GPU-aaaa/${40960 * 1048576}`,
      `1/GPU-bbbb/${1024 * 1048576}`,
    ]);
    expect(gpu("gpu.temp_c")).toEqual(["0/GPU-aaaa/61", "1/GPU-bbbb/40"]);
    expect(gpu("gpu.power_w")).toEqual(["0/GPU-aaaa/512.5", "1/GPU-bbbb/90"]);
    // The environment probe and this host's node entry name the same GPUs.
    const [probe] = server.accepted<{ hostname: string; gpus: Array<{ uuid: string }>; packages: object }>(
      "/environment",
    );
    expect(probe!.gpus.map((g) => g.uuid)).toEqual(["GPU-aaaa", "GPU-bbbb"]);
    expect(probe!.hostname).toBe(host.worker_id);
    const [nodes] = server.accepted<{ nodes: Array<{ hostname: string; gpu: unknown[] }> }>(
      "/environment/nodes",
    );
    expect(nodes!.nodes).toEqual([
      expect.objectContaining({ hostname: host.worker_id, gpu: expect.any(Array) }),
    ]);
  });

  it("ships what the training prints as unsequenced /logs chunks, with eof at finish, unless the runner ships it", async () => {
    const code = `
import sys
from starforge.report import init, finish
init(monitor_hardware=False)
for i in range(3000):
    print("line %d of the training's output" % i)
sys.stderr.write("a warning\\n")
sys.stdout.write("progress 50%")
sys.stdout.write(" ... done\\n")
finish()
print("after finish: not shipped")
`;
    const res = await python(code, ENV());
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.split("\n").length).toBeGreaterThan(3000); // the terminal still gets everything
    const batches = server.accepted<{ chunks: string[]; seq?: number; stream?: string; eof?: boolean }>(
      "/logs",
    );
    expect(
      batches.every((b) => b.seq === undefined && b.stream === undefined && b.chunks.length <= 256),
    ).toBe(true);
    expect(server.consoleChunks.every((c) => c.length <= 8192)).toBe(true);
    const text = server.consoleChunks.join("");
    const expected = `${Array.from({ length: 3000 }, (_, i) => `line ${i} of the training's output\n`).join("")}a warning\nprogress 50% ... done\n`;
    expect(text).toBe(expected);
    expect(server.consoleEof).toBe(true);

    server.requests.length = 0;
    const quiet = await python(code, ENV({ SF_RUNNER_SHIPS_OUTPUT: "1" }));
    expect(quiet.code).toBe(0);
    expect(server.requests.filter((r) => r.path === "/logs")).toEqual([]);
  });
});

describe("starforge.report: distributed runs", () => {
  /** Log one metric from a process of the given rank; returns every metric key that reached ingest. */
  async function keysFrom(env: Record<string, string>, init = "init(monitor_hardware=False)") {
    server.requests.length = 0;
    const code = `
from starforge.report import init, log, log_hparams, finish
${init}
log({"loss": 1})
log_hparams({"seen": True})  # proves this process reports at all, whatever happens to its metrics
finish()
`;
    const res = await python(code, ENV(env));
    expect(res.code, res.stderr).toBe(0);
    expect(server.accepted("/hparams")).toEqual([{ run_id: "run_report", params: { seen: true } }]);
    const points = server.accepted<{ points: MetricPoint[] }>("/metrics").flatMap((b) => b.points);
    expect(points.every((p) => p.step === 0 && p.value === 1)).toBe(true);
    return points.map((p) => p.key).sort();
  }

  it("only rank 0 reports metrics, under their own keys", async () => {
    expect(await keysFrom({ RANK: "1" })).toEqual([]);
    expect(server.requests.filter((r) => r.path === "/metrics")).toEqual([]);
    expect(await keysFrom({ RANK: "0" })).toEqual(["loss"]);
    expect(await keysFrom({ RANK: "3", LOCAL_RANK: "1" })).toEqual([]);
  });

  it("STARFORGE_ALL_RANKS=1: every rank also reports rank<R>/<key>; rank 0 both", async () => {
    expect(await keysFrom({ RANK: "1", STARFORGE_ALL_RANKS: "1" })).toEqual(["rank1/loss"]);
    expect(await keysFrom({ RANK: "0", STARFORGE_ALL_RANKS: "1" })).toEqual(["loss", "rank0/loss"]);
    expect(await keysFrom({ RANK: "12", STARFORGE_ALL_RANKS: "1" })).toEqual(["rank12/loss"]);
  });

  it("init(all_ranks=True) is the same as STARFORGE_ALL_RANKS=1, and the argument wins over it", async () => {
    const optIn = "init(monitor_hardware=False, all_ranks=True)";
    expect(await keysFrom({ RANK: "1" }, optIn)).toEqual(["rank1/loss"]);
    expect(await keysFrom({ RANK: "0" }, optIn)).toEqual(["loss", "rank0/loss"]);
    const optOut = "init(monitor_hardware=False, all_ranks=False)";
    expect(await keysFrom({ RANK: "1", STARFORGE_ALL_RANKS: "1" }, optOut)).toEqual([]);
    expect(await keysFrom({ RANK: "0", STARFORGE_ALL_RANKS: "1" }, optOut)).toEqual(["loss"]);
  });
});
