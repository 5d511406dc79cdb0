/**
 * The torch/ddp recipe in tier-3/4 tests: submitting a multi-node job, and what a user checks that it
 * trained as one process group (every rank joined, the loss identical on every rank and falling, rank 0's
 * checkpoint downloadable).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { dirname } from "node:path";
import { expect } from "vitest";
import { type ControlPlane, call } from "./control-plane.js";
import { baseSpec, recipeDigest, waitForStatus } from "./jobs.js";
import { jobDetail, waitFor } from "./lifecycle.js";

/**
 * A python3 that can import torch (Debian's python3-torch at /usr/bin/python3 on the CI machine), as the
 * PATH directory to put first for the agents' workloads. `npm run test:multinode` installs it; without it
 * the tests fail saying so rather than skip.
 */
export function torchPythonDir(): string {
  for (const candidate of ["python3", "/usr/bin/python3"]) {
    const probe = spawnSync(candidate, ["-c", "import sys, torch; print(sys.executable)"], {
      encoding: "utf8",
    });
    if (probe.status === 0) return dirname(probe.stdout.trim());
  }
  throw new Error(
    "no python3 here can import torch: the multi-node tests train with PyTorch. `npm run test:multinode` installs Debian's python3-torch (as root); or `apt-get install python3-torch`",
  );
}

export interface DdpPool {
  name: string;
  nodes: number;
  gpusPerNode: number;
  profile: string;
}

export async function submitDdp(
  cp: ControlPlane,
  token: string,
  o: {
    name: string;
    fleet: string;
    hyperparams?: Record<string, number>;
    maxRetries?: number;
    /** Container fleets: the torch image to run in (the recipe has no default image). */
    image?: string;
    priorityClass?: string;
  } & (
    | { nodes: number; gpusPerNode: number; profile: string }
    /** Several pools instead of one `default` pool, each with the role of its name. */
    | { pools: ReadonlyArray<DdpPool> }
  ),
): Promise<string> {
  const spec = baseSpec({
    name: o.name,
    fleet: o.fleet,
    recipe: { name: "torch/ddp", version: "1.0.0", digest: await recipeDigest(cp, token, "torch/ddp") },
    framework: { kind: "torch", version: "1.13", runtime_id: "torch", image: o.image ?? null },
    hyperparams: o.hyperparams ?? {},
  });
  const pools: ReadonlyArray<DdpPool> = "pools" in o ? o.pools : [{ ...o, name: "default" }];
  spec.resources.pools = pools.map((p) => ({
    name: p.name,
    profile: p.profile,
    series: "h200",
    nodes: p.nodes,
    gpus_per_node: p.gpusPerNode,
  }));
  spec.resources.roles = Object.fromEntries(spec.resources.pools.map((p) => [p.name, p.name]));
  spec.lifecycle = {
    max_retries: o.maxRetries ?? 0,
    retry_on_user_failure: false,
    ...(o.priorityClass ? { priority_class: o.priorityClass } : {}),
  };
  const r = await call(cp, token, "POST", "/v1/jobs", spec);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return (r.body.job as { id: string }).id;
}

export interface RankLine {
  rank: number;
  stream: string;
  line: string;
}

/** Every released log line of a run (all pages), with the rank that printed it. */
export async function runLines(
  cp: ControlPlane,
  token: string,
  id: string,
  runId: string,
): Promise<RankLine[]> {
  const out: RankLine[] = [];
  let offset = 0;
  for (;;) {
    const r = await call(cp, token, "GET", `/v1/jobs/${id}/logs?run=${runId}&offset=${offset}&limit=1000`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const lines = r.body.lines as RankLine[];
    if (lines.length === 0) return out;
    out.push(...lines);
    offset = r.body.next_offset as number;
  }
}

/** "step N/M  loss X" lines per rank: rank → (step → loss as printed). */
export function lossByRank(lines: readonly RankLine[]): Map<number, Map<number, string>> {
  const out = new Map<number, Map<number, string>>();
  for (const l of lines) {
    const m = /^step (\d+)\/\d+ {2}loss (\S+)/.exec(l.line);
    if (!m) continue;
    const steps = out.get(l.rank) ?? new Map<number, string>();
    steps.set(Number(m[1]), m[2]!);
    out.set(l.rank, steps);
  }
  return out;
}

export async function metric(
  cp: ControlPlane,
  token: string,
  id: string,
  runId: string,
  key: string,
): Promise<Array<{ step: number; value: number }>> {
  const r = await call(
    cp,
    token,
    "GET",
    `/v1/jobs/${id}/metrics?run=${runId}&key=${encodeURIComponent(key)}`,
  );
  return (r.body.points ?? []) as Array<{ step: number; value: number }>;
}

/**
 * The job SUCCEEDED as one process group of `world` ranks: every rank logged that it joined and saw the
 * whole group (in its pool, when `pools` gives each rank's), the loss printed by every rank is identical
 * step for step and falls, rank 0 alone reported the metric, and rank 0's last checkpoint downloads with
 * the digest it was registered with.
 */
export async function expectDdpTrained(
  cp: ControlPlane,
  token: string,
  id: string,
  world: number,
  timeoutMs = 240_000,
  pools?: readonly string[],
): Promise<void> {
  const done = await waitForStatus(cp, token, id, ["SUCCEEDED", "FAILED", "STOPPED"], timeoutMs);
  expect(done.job.status, JSON.stringify(done.runs)).toBe("SUCCEEDED");
  const runId = done.runs[0]!.id;
  const lines = await runLines(cp, token, id, runId);
  const ranks = Array.from({ length: world }, (_, r) => r);
  for (const r of ranks) {
    const mine = lines.filter((l) => l.rank === r).map((l) => l.line);
    const pool = pools ? `, pool ${pools[r]}\\)` : "";
    expect(
      mine.some((l) => new RegExp(`^ddp: rank ${r} of ${world} .*${pool} joined the process group`).test(l)),
      `rank ${r} joined${pools ? ` in pool ${pools[r]}` : ""} (its lines: ${mine.slice(0, 5).join(" | ")})`,
    ).toBe(true);
    expect(mine.some((l) => l.startsWith(`ddp: process group complete: ${world} ranks`))).toBe(true);
  }
  const loss = lossByRank(lines);
  expect([...loss.keys()].sort()).toEqual(ranks);
  const zero = loss.get(0)!;
  expect(zero.size).toBeGreaterThanOrEqual(3);
  for (const r of ranks)
    expect(Object.fromEntries(loss.get(r)!), `rank ${r}'s loss = rank 0's`).toEqual(Object.fromEntries(zero));
  const steps = [...zero.keys()].sort((a, b) => a - b);
  expect(Number(zero.get(steps.at(-1)!))).toBeLessThan(Number(zero.get(steps[0]!)));

  const points = await metric(cp, token, id, runId, "train/loss");
  expect(points.map((p) => p.step)).toEqual(steps);
  const keys = (await call(cp, token, "GET", `/v1/jobs/${id}/metrics?run=${runId}`)).body.keys as Array<{
    key: string;
  }>;
  expect(
    keys.map((k) => k.key).filter((k) => k.startsWith("rank")),
    "per-rank metrics are opt-in",
  ).toEqual([]);

  const arts = (await call(cp, token, "GET", `/v1/jobs/${id}/artifacts?run=${runId}`)).body
    .artifacts as Array<{
    kind: string;
    path: string;
    digest: string;
    step: number | null;
  }>;
  const ckpts = arts.filter((a) => a.kind === "checkpoint");
  expect(ckpts.length, JSON.stringify(arts)).toBeGreaterThan(0);
  const last = ckpts.reduce((a, b) => ((a.step ?? 0) >= (b.step ?? 0) ? a : b));
  const res = await fetch(
    `${cp.url}/v1/jobs/${id}/artifacts/download?path=${encodeURIComponent(last.path)}`,
    {
      headers: { authorization: `Bearer ${token}` },
    },
  );
  expect(res.status).toBe(200);
  const bytes = Buffer.from(await res.arrayBuffer());
  expect(`sha256:${createHash("sha256").update(bytes).digest("hex")}`).toBe(last.digest);
}

/** Waits until rank 0 reported train/loss at `step` or later. */
export async function untilStep(
  cp: ControlPlane,
  token: string,
  id: string,
  runId: string,
  step: number,
  timeoutMs = 120_000,
): Promise<void> {
  await waitFor(
    `${id} to report train/loss at step ${step}`,
    async () => (await metric(cp, token, id, runId, "train/loss")).some((p) => p.step >= step),
    timeoutMs,
    250,
  );
}

/** The step a gang stopped at (its stored checkpoint), checking that each of `ranks` said it stopped there. */
export async function gangStopStep(
  cp: ControlPlane,
  token: string,
  id: string,
  runId: string,
  ranks: readonly number[],
): Promise<number> {
  const arts = (await call(cp, token, "GET", `/v1/jobs/${id}/artifacts?run=${runId}`)).body
    .artifacts as Array<{ kind: string; step: number | null; stored: boolean }>;
  const stopStep = Math.max(
    ...arts.filter((a) => a.kind === "checkpoint" && a.stored).map((a) => a.step ?? -1),
  );
  const lines = await runLines(cp, token, id, runId);
  for (const r of ranks) {
    expect(
      lines.some((l) => l.rank === r && l.line === `rank ${r} stopped by signal at step ${stopStep}`),
      `rank ${r} stopped at step ${stopStep}`,
    ).toBe(true);
  }
  return stopStep;
}

/**
 * The job's second run continues from `stopStep` (its first loss point is `stopStep + 1`, every one of
 * `ranks` said it resumed there); then the job is stopped. Returns the second run's id.
 */
export async function continuesThenStop(
  cp: ControlPlane,
  token: string,
  id: string,
  stopStep: number,
  ranks: readonly number[] = [],
): Promise<string> {
  const run2 = (await waitFor("run 2", async () => (await jobDetail(cp, token, id)).runs[1], 60_000)).id;
  await untilStep(cp, token, id, run2, stopStep + 10);
  const points = await metric(cp, token, id, run2, "train/loss");
  expect(points[0]!.step).toBe(stopStep + 1);
  const lines = await runLines(cp, token, id, run2);
  for (const r of ranks) {
    expect(
      lines.some(
        (l) => l.rank === r && new RegExp(`^rank ${r} resumed from .* at step ${stopStep}$`).test(l.line),
      ),
      `rank ${r} resumed at step ${stopStep}`,
    ).toBe(true);
  }
  expect((await call(cp, token, "POST", `/v1/jobs/${id}/stop`)).status).toBe(200);
  await waitFor(
    "the job to stop",
    async () => (await jobDetail(cp, token, id)).job.status === "STOPPED",
    60_000,
  );
  return run2;
}
