/**
 * Training progress as a user reads it back (metrics, logs, checkpoints) for the tests that pause, stop
 * and resume the stdlib char-LM: did the second run continue where the first one's checkpoint left it?
 */
import { expect } from "vitest";
import { type ControlPlane, call } from "./control-plane.js";
import { baseSpec, recipeDigest } from "./jobs.js";

export interface Point {
  step: number;
  value: number;
}

/** charlm sized to train for several seconds (~50 steps/s on one core), checkpointing every 50 steps. */
export async function submitCharlm(
  cp: ControlPlane,
  token: string,
  o: {
    fleet: string;
    name: string;
    maxSteps?: number;
    maxRetries?: number;
    gpus?: number;
    priorityClass?: string;
  },
): Promise<string> {
  const spec = baseSpec({
    name: o.name,
    fleet: o.fleet,
    ...(o.gpus ? { gpus: o.gpus } : {}),
    recipe: {
      name: "python/charlm",
      version: "1.0.0",
      digest: await recipeDigest(cp, token, "python/charlm"),
    },
    framework: { kind: "python", version: "3", runtime_id: "python3-stdlib", image: null },
    hyperparams: { max_steps: o.maxSteps ?? 600, batch_size: 1000, checkpoint_every: 50 },
  });
  if (o.maxRetries !== undefined || o.priorityClass !== undefined)
    spec.lifecycle = {
      max_retries: o.maxRetries ?? 2,
      retry_on_user_failure: false,
      ...(o.priorityClass ? { priority_class: o.priorityClass } : {}),
    };
  const r = await call(cp, token, "POST", "/v1/jobs", spec);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return (r.body.job as { id: string }).id;
}

export async function points(
  cp: ControlPlane,
  token: string,
  id: string,
  run: string,
  key = "train/loss",
): Promise<Point[]> {
  const r = await call(cp, token, "GET", `/v1/jobs/${id}/metrics?run=${run}&key=${encodeURIComponent(key)}`);
  return (r.body.points as Point[] | undefined) ?? [];
}

export async function waitForStep(
  cp: ControlPlane,
  token: string,
  id: string,
  run: string,
  step: number,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await points(cp, token, id, run)).some((p) => p.step >= step)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`job ${id} run ${run} did not reach step ${step} in ${timeoutMs} ms`);
}

export async function logText(cp: ControlPlane, token: string, id: string, run: string): Promise<string> {
  const r = await call(cp, token, "GET", `/v1/jobs/${id}/logs?run=${run}&limit=5000`);
  return (r.body.lines as Array<{ line: string }>).map((l) => l.line).join("\n");
}

/** Waits until the run released its GPUs (its agent confirmed the stop). */
export async function waitReleased(
  cp: ControlPlane,
  token: string,
  id: string,
  run: string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const r = await call(cp, token, "GET", `/v1/jobs/${id}`);
    const runs = r.body.runs as Array<{ id: string; ended_at: string | null }>;
    if (runs.find((x) => x.id === run)?.ended_at) return;
    await new Promise((r2) => setTimeout(r2, 200));
  }
  throw new Error(`run ${run} of ${id} was not released in ${timeoutMs} ms`);
}

/** The newest checkpoint step the run registered with stored bytes. */
export async function lastCheckpointStep(
  cp: ControlPlane,
  token: string,
  id: string,
  run: string,
): Promise<number> {
  const r = await call(cp, token, "GET", `/v1/jobs/${id}/artifacts?run=${run}`);
  const steps = (r.body.artifacts as Array<{ kind: string; step: number | null; stored: boolean }>)
    .filter((a) => a.kind === "checkpoint" && a.stored && a.step !== null)
    .map((a) => a.step as number);
  return Math.max(-1, ...steps);
}

/**
 * Checks a run that continued from a checkpoint: it says so in its log, its first trained step is the
 * one right after the checkpoint, and its first loss continues the curve (well under ln(vocab) ≈ 3.3).
 */
export async function expectContinued(
  cp: ControlPlane,
  token: string,
  id: string,
  run: string,
  fromStep: number,
  prevLoss: number,
): Promise<void> {
  expect(await logText(cp, token, id, run)).toContain(`at step ${fromStep}`);
  const pts = await points(cp, token, id, run);
  expect(pts.length).toBeGreaterThan(0);
  expect(pts[0]!.step).toBeGreaterThan(fromStep);
  expect(pts[0]!.step).toBeLessThanOrEqual(fromStep + 10); // charlm logs every 10 steps
  expect(pts[0]!.value).toBeLessThan(prevLoss + 0.3);
  expect(pts[0]!.value).toBeLessThan(2.8);
}

/**
 * What the closed-loop preemption tests need of a control plane: `low` jobs may be preempted at once (their
 * minimum runtime is 300 s by default; grace stays 60 s) and `user` may submit `high` ones.
 */
export async function allowPreemption(cp: ControlPlane, user: string): Promise<void> {
  const cls = await call(cp, cp.adminToken, "PUT", "/v1/priority-classes/low", { min_runtime_seconds: 0 });
  expect(cls.body.priority_class).toMatchObject({ name: "low", min_runtime_seconds: 0, grace_seconds: 60 });
  const quota = await call(cp, cp.adminToken, "PUT", `/v1/users/${user}/quota`, {
    max_gpus: 16,
    max_jobs: 20,
    daily_gpu_hours: 1000,
    max_priority_class: "high",
  });
  expect(quota.status, JSON.stringify(quota.body)).toBe(200);
}
