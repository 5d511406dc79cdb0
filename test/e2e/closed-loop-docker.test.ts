/**
 * Tier 4, the closed loop with containers (the seed's e2e): a real Worker (npm start), a real forgelet
 * with the docker runtime, real dockerd and locally built images. Only GPU attach is simulated
 * (FORGE_LOCAL_GPU_PASSTHROUGH=0). On failure it dumps the control plane's and the agent's logs and the
 * containers' logs; SF_E2E_KEEP=1 (`npm run test:e2e -- --keep`) leaves the scene in place.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { allowPreemption } from "../support/checkpoints.js";
import { type ControlPlane, call, startControlPlane } from "../support/control-plane.js";
import { enrollForgelet, type ForgeletProc } from "../support/forgelet.js";
import { baseSpec, recipeDigest, waitForStatus } from "../support/jobs.js";
import { expectOriginalApiReports, originalApiWorkspace } from "../support/original-api-job.js";
import { uploadWorkspace } from "../support/workspace.js";

const KEEP = process.env.SF_E2E_KEEP === "1";
const FLEET = "docker-local";
let cp: ControlPlane;
let agent: ForgeletProc;
let op = "";

const docker = (...args: string[]) => execFileSync("docker", args, { encoding: "utf8" }).trim();
const managed = () =>
  docker("ps", "-aq", "--filter", "label=starforge.managed=true").split("\n").filter(Boolean);

/** Waits (bounded) until no container, running or exited, carries `label`; then asserts it. */
async function expectNoContainers(label: string, timeoutMs: number): Promise<void> {
  const left = () => docker("ps", "-aq", "--filter", `label=${label}`);
  const deadline = Date.now() + timeoutMs;
  while (left() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
  expect(left(), `containers labelled ${label} left behind`).toBe("");
}

beforeAll(async () => {
  cp = await startControlPlane({ agent: false });
  op = String(
    (await call(cp, cp.adminToken, "POST", "/v1/users", { name: "e2e", role: "operator" })).body.token,
  );
  const f = await call(cp, cp.adminToken, "POST", "/v1/fleets", {
    name: FLEET,
    kind: "docker",
    image_allowlist: ["starforge/*"],
  });
  expect(f.status).toBe(201);
  agent = await enrollForgelet(cp, FLEET, {
    runtime: "docker",
    gpus: 4,
    name: "dock-1",
    env: { FORGE_LOCAL_GPU_PASSTHROUGH: "0" },
  });
});

afterEach((ctx) => {
  if (ctx.task.result?.state !== "fail") return;
  console.error(`--- control plane (tail)\n${cp.output().split("\n").slice(-60).join("\n")}`);
  console.error(`--- forgelet (tail)\n${agent.log().split("\n").slice(-60).join("\n")}`);
  for (const id of managed()) console.error(`--- container ${id}\n${docker("logs", "--tail", "80", id)}`);
  if (KEEP)
    console.error(`kept: control plane ${cp.url} (state ${cp.stateDir}), agent state ${agent.stateDir}`);
});

afterAll(async () => {
  if (KEEP) return;
  await agent?.dispose();
  await cp?.stop();
  expect(managed(), "containers left behind").toEqual([]);
});

/** A custom/custom job running `dir/train.sh` of `workspace` in the minimal python image. */
async function customSpec(name: string, workspace: string, dir: string, gpus: number) {
  return baseSpec({
    name,
    fleet: FLEET,
    recipe: { name: "custom/custom", version: "1.0.0", digest: await recipeDigest(cp, op, "custom/custom") },
    framework: { kind: "custom", version: "1", runtime_id: "bash", image: "starforge/python:bookworm" },
    workspace,
    experimentDir: dir,
    gpus,
  });
}

/** A torch/tinylm job on this fleet (the torch image). */
async function tinylmSpec(name: string, hyperparams: Record<string, number>, gpus?: number) {
  return baseSpec({
    name,
    fleet: FLEET,
    recipe: { name: "torch/tinylm", version: "1.0.0", digest: await recipeDigest(cp, op, "torch/tinylm") },
    framework: { kind: "torch", version: "1.13", runtime_id: "torch-cpu", image: null },
    hyperparams,
    ...(gpus ? { gpus } : {}),
  });
}

/** A run's train/loss points. */
async function lossOf(id: string, run: string) {
  return (await call(cp, op, "GET", `/v1/jobs/${id}/metrics?run=${run}&key=train/loss`)).body
    .points as Array<{
    step: number;
    value: number;
  }>;
}

/** Waits until the run reported a loss at `step` or later. */
async function waitForLossStep(id: string, run: string, step: number) {
  const deadline = Date.now() + 120_000;
  while (!(await lossOf(id, run)).some((p) => p.step >= step)) {
    if (Date.now() > deadline) throw new Error(`${id} did not reach step ${step} in 120 s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The highest step a run stored a checkpoint of. */
async function storedCheckpointStep(id: string, run: string) {
  const arts = (await call(cp, op, "GET", `/v1/jobs/${id}/artifacts?run=${run}`)).body.artifacts as Array<{
    kind: string;
    step: number | null;
    stored: boolean;
  }>;
  return Math.max(...arts.filter((a) => a.kind === "checkpoint" && a.stored).map((a) => a.step ?? -1));
}

async function expectTrained(id: string, minSteps: number) {
  const done = await waitForStatus(cp, op, id, ["SUCCEEDED", "FAILED", "STOPPED"], 300_000);
  expect(done.job.status, JSON.stringify(done.events)).toBe("SUCCEEDED");
  expect(done.events.map((e) => e.to)).toEqual(["QUEUED", "SUBMITTED", "PENDING", "RUNNING", "SUCCEEDED"]);
  const points = (await call(cp, op, "GET", `/v1/jobs/${id}/metrics?key=train/loss`)).body.points as Array<{
    step: number;
    value: number;
  }>;
  expect(points.length).toBeGreaterThanOrEqual(minSteps);
  expect(points.at(-1)!.value).toBeLessThan(points[0]!.value);
  const lines = (await call(cp, op, "GET", `/v1/jobs/${id}/logs?limit=5000`)).body.lines as Array<{
    seq: number;
    stream: string;
  }>;
  const stdout = lines.filter((l) => l.stream === "stdout");
  expect(stdout.length).toBeGreaterThan(0);
  expect(stdout.map((l) => l.seq)).toEqual(stdout.map((_, i) => i));
  const arts = (await call(cp, op, "GET", `/v1/jobs/${id}/artifacts`)).body.artifacts as Array<{
    kind: string;
    path: string;
    digest: string;
  }>;
  const ckpt = arts.find((a) => a.kind === "checkpoint");
  expect(ckpt, JSON.stringify(arts)).toBeDefined();
  const res = await fetch(
    `${cp.url}/v1/jobs/${id}/artifacts/download?path=${encodeURIComponent(ckpt!.path)}`,
    {
      headers: { authorization: `Bearer ${op}` },
    },
  );
  const bytes = Buffer.from(await res.arrayBuffer());
  expect(`sha256:${createHash("sha256").update(bytes).digest("hex")}`).toBe(ckpt!.digest);
  return done;
}

describe("closed loop with docker", () => {
  it("runs a simulated workload (~10 s) in a container through to SUCCEEDED with metrics, logs and a checkpoint", async () => {
    const trainPy = [
      "import json, math, os, time",
      "from starforge import report",
      "report.init()",
      "out = os.path.join(os.environ['FORGE_OUT_DIR'], 'checkpoints')",
      "os.makedirs(out, exist_ok=True)",
      "for step in range(1, 21):",
      "    loss = 3.0 * math.exp(-step / 8)",
      "    report.log({'train/loss': loss}, step=step)",
      "    print(f'step {step} loss {loss:.4f}', flush=True)",
      "    time.sleep(0.5)",
      "tmp = os.path.join(out, '.step-000020.json.tmp')",
      "json.dump({'step': 20, 'loss': loss}, open(tmp, 'w'))",
      "os.rename(tmp, os.path.join(out, 'step-000020.json'))",
      "report.finish()",
    ].join("\n");
    const workspace = await uploadWorkspace(cp.url, op, [
      {
        path: "sim/train.sh",
        content: "#!/usr/bin/env bash\nset -euo pipefail\nexec python3 train.py\n",
        mode: 0o755,
      },
      { path: "sim/train.py", content: trainPy },
    ]);
    const spec = await customSpec("sim-docker", workspace, "sim", 2);
    const sub = await call(cp, op, "POST", "/v1/jobs", spec);
    expect(sub.status, JSON.stringify(sub.body)).toBe(201);
    await expectTrained((sub.body.job as { id: string }).id, 20);
  });

  it("runs a job written for the original starforge.report API unchanged: metrics, hparams and CPU/memory samples read back", async () => {
    const workspace = await uploadWorkspace(cp.url, op, originalApiWorkspace("orig"));
    const spec = await customSpec("original-api-docker", workspace, "orig", 1);
    const sub = await call(cp, op, "POST", "/v1/jobs", spec);
    expect(sub.status, JSON.stringify(sub.body)).toBe(201);
    const id = (sub.body.job as { id: string }).id;
    const done = await waitForStatus(cp, op, id, ["SUCCEEDED", "FAILED", "STOPPED"], 180_000);
    expect(done.job.status, JSON.stringify(done.runs)).toBe("SUCCEEDED");
    await expectOriginalApiReports(cp, op, id);
    // The probe saw the container's image.
    const env = (await call(cp, op, "GET", `/v1/jobs/${id}/environment`)).body as {
      probes: Array<{ probe: { image: { ref: string | null } } }>;
    };
    expect(env.probes.map((p) => p.probe.image.ref)).toContain("starforge/python:bookworm");
  });

  it("trains torch/tinylm for real in the torch image: the loss falls and the checkpoint is downloadable", async () => {
    const spec = baseSpec({
      name: "tinylm-docker",
      fleet: FLEET,
      recipe: { name: "torch/tinylm", version: "1.0.0", digest: await recipeDigest(cp, op, "torch/tinylm") },
      framework: { kind: "torch", version: "1.13", runtime_id: "torch-cpu", image: null },
      hyperparams: { max_steps: 200, checkpoint_every: 100 },
    });
    const sub = await call(cp, op, "POST", "/v1/jobs", spec);
    expect(sub.status, JSON.stringify(sub.body)).toBe(201);
    await expectTrained((sub.body.job as { id: string }).id, 5);
  });

  it("pause → resume in containers: torch/tinylm checkpoints on SIGTERM, the next container continues at step S+1; 0 containers left", async () => {
    const spec = await tinylmSpec("tinylm-pause", {
      max_steps: 3000,
      checkpoint_every: 500,
      batch_size: 256,
    });
    const sub = await call(cp, op, "POST", "/v1/jobs", spec);
    expect(sub.status, JSON.stringify(sub.body)).toBe(201);
    const id = (sub.body.job as { id: string }).id;
    const run1 = (await waitForStatus(cp, op, id, ["RUNNING"], 120_000)).job.current_run_id!;
    const loss = (run: string) => lossOf(id, run);
    await waitForLossStep(id, run1, 50);
    expect((await call(cp, op, "POST", `/v1/jobs/${id}/pause`)).status).toBe(200);
    // The container exits (checkpoint written and uploaded) and the GPUs are released.
    const released = Date.now() + 60_000;
    for (;;) {
      const j = await call(cp, op, "GET", `/v1/jobs/${id}`);
      if ((j.body.runs as Array<{ ended_at: string | null }>)[0]!.ended_at) break;
      if (Date.now() > released) throw new Error("the paused run was not released in 60 s");
      await new Promise((r) => setTimeout(r, 250));
    }
    // The agent removes the container once the control plane acknowledged the run's end.
    await expectNoContainers(`starforge.run_id=${run1}`, 20_000);
    const stopStep = await storedCheckpointStep(id, run1);
    expect(stopStep).toBeGreaterThanOrEqual(50);
    expect(stopStep % 500, "the stop wrote its own checkpoint, not only a periodic one").not.toBe(0);
    const lastLoss = (await loss(run1)).at(-1)!.value;

    expect((await call(cp, op, "POST", `/v1/jobs/${id}/resume`)).status).toBe(200);
    const run2 = (
      await waitForStatus(cp, op, id, ["RUNNING", "SUCCEEDED"], 120_000).then(async () => {
        for (;;) {
          const j = await call(cp, op, "GET", `/v1/jobs/${id}`);
          const runs = j.body.runs as Array<{ id: string }>;
          if (runs.length === 2) return runs[1]!;
          await new Promise((r) => setTimeout(r, 250));
        }
      })
    ).id;
    const seen = Date.now() + 120_000;
    while ((await loss(run2)).length === 0) {
      if (Date.now() > seen) throw new Error("the resumed run reported no loss in 120 s");
      await new Promise((r) => setTimeout(r, 250));
    }
    const first = (await loss(run2))[0]!;
    expect(first.step).toBeGreaterThan(stopStep);
    expect(first.step).toBeLessThanOrEqual(stopStep + 10);
    expect(first.value).toBeLessThan(lastLoss + 0.5);
    const logs = (await call(cp, op, "GET", `/v1/jobs/${id}/logs?run=${run2}&limit=5000`)).body
      .lines as Array<{
      line: string;
    }>;
    expect(logs.map((l) => l.line).join("\n")).toContain(`at step ${stopStep}`);
    // Done with it: stop, and nothing is left running.
    expect((await call(cp, op, "POST", `/v1/jobs/${id}/stop`)).status).toBe(200);
    await expectNoContainers(`starforge.job_id=${id}`, 60_000);
  });

  it("preemption in containers: a high job takes the GPUs of a low torch/tinylm job, which checkpoints, resumes at step S+1 and succeeds; 0 containers left", async () => {
    await allowPreemption(cp, "e2e");
    const spec = await tinylmSpec(
      "tinylm-low",
      { max_steps: 800, checkpoint_every: 400, batch_size: 256 },
      4,
    );
    spec.lifecycle = { max_retries: 2, retry_on_user_failure: false, priority_class: "low" };
    const sub = await call(cp, op, "POST", "/v1/jobs", spec);
    expect(sub.status, JSON.stringify(sub.body)).toBe(201);
    const low = (sub.body.job as { id: string }).id;
    const run1 = (await waitForStatus(cp, op, low, ["RUNNING"], 120_000)).job.current_run_id!;
    const loss = (run: string) => lossOf(low, run);
    await waitForLossStep(low, run1, 50);

    const workspace = await uploadWorkspace(cp.url, op, [
      { path: "hi/train.sh", content: "#!/usr/bin/env bash\necho urgent work\nsleep 2\n", mode: 0o755 },
    ]);
    const urgent = await customSpec("urgent", workspace, "hi", 4);
    urgent.lifecycle = { max_retries: 0, retry_on_user_failure: false, priority_class: "high" };
    const asked = Date.now();
    const high = await call(cp, op, "POST", "/v1/jobs", urgent);
    expect(high.status, JSON.stringify(high.body)).toBe(201);
    const highId = (high.body.job as { id: string }).id;
    await waitForStatus(cp, op, highId, ["RUNNING", "SUCCEEDED"], 75_000);
    expect(Date.now() - asked, "the high job runs within the victim's grace (60 s) + 15 s").toBeLessThan(
      75_000,
    );
    await expectNoContainers(`starforge.run_id=${run1}`, 20_000);
    const stopStep = await storedCheckpointStep(low, run1);
    expect(stopStep).toBeGreaterThanOrEqual(50);
    const lastLoss = (await loss(run1)).at(-1)!.value;

    expect((await waitForStatus(cp, op, highId, ["SUCCEEDED", "FAILED"], 120_000)).job.status).toBe(
      "SUCCEEDED",
    );
    const done = await waitForStatus(cp, op, low, ["SUCCEEDED", "FAILED"], 300_000);
    expect(done.job.status, JSON.stringify(done.events)).toBe("SUCCEEDED");
    expect(done.runs.map((r) => [r.attempt, r.status])).toEqual([
      [1, "PAUSED"],
      [2, "SUCCEEDED"],
    ]);
    expect(done.events.some((e) => e.to === "FAILED")).toBe(false);
    const first = (await loss(done.runs[1]!.id))[0]!;
    expect(first.step).toBeGreaterThan(stopStep);
    expect(first.step).toBeLessThanOrEqual(stopStep + 10);
    expect(first.value).toBeLessThan(lastLoss + 0.5);
    await expectNoContainers(`starforge.job_id=${low}`, 60_000);
  });

  it("fails a run whose container is killed mid-run, in bounded time, with its reason; GPUs freed, no container left", async () => {
    const workspace = await uploadWorkspace(cp.url, op, [
      { path: "long/train.sh", content: "#!/usr/bin/env bash\necho started\nsleep 600\n", mode: 0o755 },
    ]);
    const spec = await customSpec("killed", workspace, "long", 4);
    const id = ((await call(cp, op, "POST", "/v1/jobs", spec)).body.job as { id: string }).id;
    const running = await waitForStatus(cp, op, id, ["RUNNING"], 120_000);
    const runId = running.job.current_run_id!;
    const [container] = docker("ps", "-q", "--filter", `label=starforge.run_id=${runId}`).split("\n");
    expect(container).toBeTruthy();
    const killedAt = Date.now();
    docker("kill", container!);
    const done = await waitForStatus(cp, op, id, ["FAILED", "SUCCEEDED"], 30_000);
    expect(Date.now() - killedAt).toBeLessThan(30_000);
    expect(done.job.status).toBe("FAILED");
    expect(done.runs[0]!.reason).toMatch(/killed|signal 9|137/);
    const totals = (await call(cp, cp.adminToken, "GET", `/v1/fleets/${FLEET}`)).body.totals as {
      allocated: number;
    };
    expect(totals.allocated).toBe(0);
    await expectNoContainers(`starforge.run_id=${runId}`, 20_000);
  });
});
