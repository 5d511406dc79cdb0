/**
 * Tier 3, live anomalies on the real stack (issue 29): a real forgelet (process runtime) runs custom jobs
 * whose training reports through the capsule's `starforge.report` — one whose loss becomes NaN, one that
 * stops making steps — and the control plane raises NAN_LOSS and HANG while they run (a `job.anomaly`
 * event), stops them under `lifecycle.on_anomaly: stop`, and diagnoses the failure with that class.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, call } from "../support/control-plane.js";
import { expectSfShows, type RunDiagnosis } from "../support/diagnosis.js";
import type { ForgeletProc } from "../support/forgelet.js";
import { baseSpec, recipeDigest, waitForStatus } from "../support/jobs.js";
import { fleetWithAgent, newUser, sharedControlPlane } from "../support/shared-control-plane.js";
import { uploadWorkspace } from "../support/workspace.js";

let cp: ControlPlane;
let op = "";
let fleet = "";
let agent: ForgeletProc | undefined;

beforeAll(async () => {
  cp = sharedControlPlane();
  ({ fleet, agent } = await fleetWithAgent(cp, "dg-live"));
  op = (await newUser(cp, "dg-live")).token;
});

afterAll(async () => {
  await agent?.dispose();
});

/** A custom job whose exp/train.py is `python`, run by exp/train.sh, with these lifecycle settings. */
async function submitPython(name: string, python: string, lifecycle: Record<string, unknown>) {
  const workspace = await uploadWorkspace(cp.url, op, [
    { path: "exp/train.sh", content: "#!/usr/bin/env bash\nexec python3 -u train.py\n", mode: 0o755 },
    { path: "exp/train.py", content: python, mode: 0o644 },
  ]);
  const spec = baseSpec({
    name,
    fleet,
    recipe: { name: "custom/custom", version: "1.0.0", digest: await recipeDigest(cp, op, "custom/custom") },
    framework: { kind: "custom", version: "1", runtime_id: "bash", image: null },
    workspace,
    experimentDir: "exp",
  });
  spec.lifecycle = { max_retries: 0, retry_on_user_failure: false, ...lifecycle };
  const r = await call(cp, op, "POST", "/v1/jobs", spec);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return (r.body.job as { id: string }).id;
}

interface Anomaly {
  class: string;
  summary: string;
  policy: string;
  step: number;
  silent_seconds?: number;
  bound_seconds?: number;
}

async function detail(id: string) {
  const r = await call(cp, op, "GET", `/v1/jobs/${id}`);
  return r.body as {
    diagnosis: { class: string; action: { retried: boolean; why: string } } | null;
    events: Array<{ edge: string; to: string; detail: { anomaly?: Anomaly } }>;
  };
}

async function diagnosed(id: string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const d = await detail(id);
    if (d.diagnosis) return d;
    if (Date.now() > deadline) throw new Error(`job ${id} has no diagnosis: ${JSON.stringify(d)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe("live anomalies (process runtime)", () => {
  it("a loss that becomes NaN stops the run under on_anomaly stop: FAILED, NAN_LOSS, not retried", async () => {
    const id = await submitPython(
      "nan-loss",
      `import time
from starforge.report import init, log, finish
init()
for step in range(6):
    log({"train/loss": 2.0 - 0.1 * step}, step=step)
    time.sleep(0.2)
log({"train/loss": float("nan")}, step=6)
print("step 6 loss nan", flush=True)
time.sleep(120)
finish()
`,
      { on_anomaly: "stop" },
    );
    const submitted = Date.now();
    const done = await waitForStatus(cp, op, id, ["FAILED", "SUCCEEDED"], 90_000);
    // It did not sleep its two minutes out: the anomaly stopped it.
    expect(Date.now() - submitted).toBeLessThan(60_000);
    expect(done.job.status).toBe("FAILED");
    const d = await diagnosed(id);
    expect(d.diagnosis).toMatchObject({ class: "NAN_LOSS", action: { retried: false } });
    await expectSfShows(cp, op, id, d.diagnosis as RunDiagnosis);
    const anomaly = d.events.find((e) => e.edge === "anomaly")?.detail.anomaly;
    expect(anomaly).toMatchObject({ class: "NAN_LOSS", policy: "stop", step: 6 });
    const failed = d.events.find((e) => e.to === "FAILED");
    expect(failed?.detail).toMatchObject({ code: "NAN_LOSS" });
  }, 120_000);

  it("a run that stops making steps is a HANG raised within its bound (hang_floor_seconds), then stopped", async () => {
    const id = await submitPython(
      "hang",
      `import time
from starforge.report import init, log, finish
init()
for step in range(16):
    log({"train/loss": 1.0 / (step + 1)}, step=step)
    print("step", step, flush=True)
    time.sleep(0.5)
print("waiting on a peer that never answers", flush=True)
time.sleep(300)
finish()
`,
      { on_anomaly: "stop", hang_factor: 2, hang_floor_seconds: 8 },
    );
    await waitForStatus(cp, op, id, ["RUNNING"], 60_000);
    const started = Date.now();
    const done = await waitForStatus(cp, op, id, ["FAILED", "SUCCEEDED"], 90_000);
    expect(done.job.status).toBe("FAILED");
    // Its 16 steps take ~8 s, reported every 1.5 s (the capsule's flush interval: the intervals the median
    // is taken over); the bound is the 8 s floor: the hang is seen at about 16 s, far from 300.
    expect(Date.now() - started).toBeLessThan(60_000);
    const d = await diagnosed(id);
    const anomaly = d.events.find((e) => e.edge === "anomaly")?.detail.anomaly;
    expect(anomaly).toMatchObject({ class: "HANG", policy: "stop", step: 15, bound_seconds: 8 });
    expect(anomaly!.silent_seconds).toBeGreaterThanOrEqual(8);
    expect(anomaly!.silent_seconds).toBeLessThan(20);
    expect(d.diagnosis).toMatchObject({ class: "HANG", action: { retried: false } });
    expect(d.diagnosis!.action.why).toMatch(/retries are spent/);
    await expectSfShows(cp, op, id, d.diagnosis as RunDiagnosis);
  }, 120_000);
});
