/**
 * A training script that uses only the original platform's `starforge.report` API — init(hparams=…),
 * log(prefix=…), StarForgeCallback driven by a minimal fake trainer loop, finish — and what it must
 * read back, for the process runtime (tier 3) and the docker runtime (tier 4) alike.
 */
import { expect } from "vitest";
import { type ControlPlane, call } from "./control-plane.js";
import type { WorkspaceFile } from "./workspace.js";

const TRAIN_PY = `
import time
from types import SimpleNamespace
from starforge.report import init, log, finish, StarForgeCallback

assert init(hparams={"lr": 0.01, "model": {"layers": 2}}, monitor_interval=0.5) is True
for step in range(20):
    log({"loss": 1.0 / (step + 1), "stats": {"tokens": step * 100}}, step=step, prefix="train")
    print("step %d" % step)
    time.sleep(0.05)

class Args:  # what a HuggingFace TrainingArguments offers the callback
    def to_dict(self):
        return {"learning_rate": 5e-5, "num_train_epochs": 1}

cb = StarForgeCallback(prefix="hf")
args, control = Args(), SimpleNamespace(should_stop=False)
state = SimpleNamespace(global_step=0, is_world_process_zero=True)
cb.on_init_end(args, state, control)
cb.on_train_begin(args, state, control)
for step in range(1, 11):
    state.global_step = step
    cb.on_step_end(args, state, control)
    if step % 5 == 0:
        cb.on_log(args, state, control, logs={"loss": 2.0 / step, "epoch": step / 10})
    time.sleep(0.1)
cb.on_evaluate(args, state, control, metrics={"eval_loss": 0.25})
cb.on_train_end(args, state, control)
time.sleep(1.5)  # the hardware monitor samples every 0.5 s
finish()
print("original api job done")
`;

export function originalApiWorkspace(dir: string): WorkspaceFile[] {
  return [
    {
      path: `${dir}/train.sh`,
      content: "#!/usr/bin/env bash\nset -euo pipefail\nexec python3 train.py\n",
      mode: 0o755,
    },
    { path: `${dir}/train.py`, content: TRAIN_PY },
  ];
}

type Points = { points: Array<{ step: number; value: number }> };

/** The job's metrics, hparams and CPU/memory samples read back over the public API; its lines once. */
export async function expectOriginalApiReports(
  cp: ControlPlane,
  token: string,
  jobId: string,
): Promise<void> {
  const get = async <T>(path: string): Promise<T> => {
    const r = await call(cp, token, "GET", `/v1/jobs/${jobId}${path}`);
    expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(200);
    return r.body as T;
  };
  const series = async (key: string) =>
    (await get<Points>(`/metrics?key=${encodeURIComponent(key)}`)).points.map((p) => [p.step, p.value]);
  expect(await series("train.loss")).toEqual(Array.from({ length: 20 }, (_, s) => [s, 1 / (s + 1)]));
  expect(await series("train.stats.tokens")).toEqual(Array.from({ length: 20 }, (_, s) => [s, s * 100]));
  expect(await series("hf.loss")).toEqual([
    [5, 0.4],
    [10, 0.2],
  ]);
  expect(await series("hf.epoch")).toEqual([
    [5, 0.5],
    [10, 1],
  ]);
  expect(await series("hf.eval_loss")).toEqual([[10, 0.25]]);

  const hp = await get<{ params: Record<string, unknown> }>("/hparams");
  expect(hp.params).toEqual({ lr: 0.01, model: { layers: 2 }, learning_rate: 5e-5, num_train_epochs: 1 });

  type Series = {
    key: string;
    node_id: null;
    worker_id: string;
    gpu_idx: null;
    count: number;
    last: { value: number };
  };
  const hw = await get<{ series: Series[] }>("/hardware");
  const keys = hw.series.map((s) => s.key);
  for (const key of ["cpu.util", "mem.used_bytes", "mem.total_bytes", "mem.util"])
    expect(keys).toContain(key);
  const mem = hw.series.find((s) => s.key === "mem.used_bytes")!;
  expect(mem).toMatchObject({ node_id: null, gpu_idx: null, worker_id: expect.any(String) });
  expect(mem.count).toBeGreaterThanOrEqual(2);
  expect(mem.last.value).toBeGreaterThan(0);
  // One host: every host series names the same worker (the environment probe's hostname).
  expect(new Set(hw.series.map((s) => s.worker_id)).size).toBe(1);
  const env = await get<{ probes: Array<{ hostname: string }> }>("/environment");
  expect(env.probes.map((p) => p.hostname)).toContain(mem.worker_id);

  // The runner ships the output; report.init inside it sends no second copy (no console stream).
  const logs = await get<{ lines: Array<{ stream: string; line: string }> }>("/logs?limit=5000");
  const stdout = logs.lines.filter((l) => l.stream === "stdout").map((l) => l.line);
  expect(stdout).toEqual([...Array.from({ length: 20 }, (_, s) => `step ${s}`), "original api job done"]);
  expect(logs.lines.filter((l) => l.stream === "console")).toEqual([]);
}
