/**
 * Tier 3: inspecting a real python/charlm training run with `sf` (ls, status, metrics, artifacts and
 * their download) and `sf status`, against the shared control plane, with a forgelet of this file's own
 * (in its own fleet) that trains it. Its own user sees only this file's jobs.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api } from "../../cli/api.js";
import { formatNumber } from "../../cli/impl/job/format.js";
import { listJobs } from "../../cli/impl/job/list.js";
import { type ControlPlane, call } from "../support/control-plane.js";
import type { ForgeletProc } from "../support/forgelet.js";
import { baseSpec, recipeDigest, waitForStatus } from "../support/jobs.js";
import { newSfHome, sf, sfJson } from "../support/sf.js";
import {
  fleetWithAgent,
  newFleet,
  newUser,
  sharedControlPlane,
  unique,
} from "../support/shared-control-plane.js";

let cp: ControlPlane;
let token = "";
let home = "";
let jobId = "";
/** This file's user. */
let ines = "";
/** This file's fleet with one agent (8 simulated H200s), where the training runs. */
let fleet = "";
let agent: ForgeletProc | undefined;
/** The trained job's name, and the parked ones'. */
const TRAINED = unique("charlm-inspect");
const PARKED = unique("parked");
/** A fleet without nodes (made by the --limit test), where the parked jobs stay QUEUED. */
let idle = "";

const run = (args: string[], o: { cwd?: string } = {}) => sf(args, { home, server: cp.url, ...o });
const sha256 = (path: string) => `sha256:${createHash("sha256").update(readFileSync(path)).digest("hex")}`;

async function until(cond: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface Point {
  step: number;
  value: number;
}
interface Art {
  path: string;
  kind: string;
  step: number | null;
  digest: string | null;
}

beforeAll(async () => {
  cp = sharedControlPlane();
  ({ name: ines, token } = await newUser(cp, "ines"));
  ({ fleet, agent } = await fleetWithAgent(cp, "inspect", { gpus: 8 }));
  home = newSfHome();
  const login = await sf(["login", "--server", cp.url, "--token", token], { home });
  expect(login.code, login.stderr).toBe(0);
  const spec = baseSpec({
    name: TRAINED,
    fleet,
    recipe: {
      name: "python/charlm",
      version: "1.0.0",
      digest: await recipeDigest(cp, token, "python/charlm"),
    },
    framework: { kind: "python", version: "3", runtime_id: "python3-stdlib", image: null },
    hyperparams: { max_steps: 200, checkpoint_every: 100 },
  });
  const sub = await call(cp, token, "POST", "/v1/jobs", spec);
  expect(sub.status, JSON.stringify(sub.body)).toBe(201);
  jobId = (sub.body.job as { id: string }).id;
  const done = await waitForStatus(cp, token, jobId, ["SUCCEEDED", "FAILED", "STOPPED"], 150_000);
  expect(done.job.status, JSON.stringify(done.events)).toBe("SUCCEEDED");
});

afterAll(async () => {
  await agent?.dispose();
});

describe("sf job ls and sf job status", () => {
  it("lists the job with its status, GPUs, recipe and age; --json parses", async () => {
    const r = await run(["job", "ls"]);
    expect(r.code, r.stderr).toBe(0);
    const [header, row] = r.stdout.trimEnd().split("\n");
    expect(header).toMatch(/^ID\s+NAME\s+STATUS\s+GPUS\s+RECIPE\s+AGE$/);
    expect(row).toMatch(
      new RegExp(`^${jobId}\\s+${TRAINED}\\s+SUCCEEDED\\s+1\\s+python/charlm@1\\.0\\.0\\s+\\d+[smhd]$`),
    );

    const json = await sfJson<{ jobs: Array<{ id: string; status: string }> }>(["job", "ls"], {
      home,
      server: cp.url,
    });
    expect(json.jobs.map((j) => [j.id, j.status])).toEqual([[jobId, "SUCCEEDED"]]);
    const none = await sfJson<{ jobs: unknown[] }>(["job", "ls", "--status", "queued,running"], {
      home,
      server: cp.url,
    });
    expect(none.jobs).toEqual([]);
  });

  it("stops at --limit, follows next_cursor across pages, and filters by status and fleet", async () => {
    // Four more jobs on a fleet with no nodes stay QUEUED.
    idle = await newFleet(cp, "idle");
    expect((await call(cp, cp.adminToken, "GET", `/v1/fleets/${idle}`)).status).toBe(200);
    const spec = baseSpec({
      name: PARKED,
      fleet: idle,
      recipe: {
        name: "python/charlm",
        version: "1.0.0",
        digest: await recipeDigest(cp, token, "python/charlm"),
      },
      framework: { kind: "python", version: "3", runtime_id: "python3-stdlib", image: null },
    });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++)
      ids.unshift(((await call(cp, token, "POST", "/v1/jobs", spec)).body.job as { id: string }).id);
    type Listed = { jobs: Array<{ id: string }>; more: boolean };
    const three = await sfJson<Listed>(["job", "ls", "--limit", "3"], { home, server: cp.url });
    expect(three.jobs.map((j) => j.id)).toEqual(ids.slice(0, 3));
    expect(three.more).toBe(true);
    const queued = await run(["job", "ls", "--status", "QUEUED", "--fleet", idle]);
    expect(queued.stdout.trimEnd().split("\n")).toHaveLength(5);
    // Pages of 2 (the CLI asks for up to 200 at a time): the cursor is followed to the end, in order.
    const api = new Api(cp.url, token);
    const paged = await listJobs(api, { limit: 100, pageSize: 2 });
    expect(paged.jobs.map((j) => j.id)).toEqual([...ids, jobId]);
    expect(paged.more).toBe(false);
    expect((await listJobs(api, { limit: 3, pageSize: 2 })).jobs.map((j) => j.id)).toEqual(ids.slice(0, 3));
    for (const id of ids) expect((await call(cp, token, "POST", `/v1/jobs/${id}/stop`)).status).toBe(200);
    await until(async () => (await call(cp, token, "GET", "/v1/usage")).body.active_jobs === 0);
  });

  it("shows the job, its run (attempt, status, exit, placement) and its events", async () => {
    const r = await run(["job", "status", jobId]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^${jobId}\\s+${TRAINED}\\s+SUCCEEDED`));
    expect(r.stdout).toContain(`fleet ${fleet}`);
    expect(r.stdout).toMatch(/\n1\s+run_\w+\s+SUCCEEDED\s+0\s+.*nod_\w+\[\d\]/);
    expect(r.stdout).toMatch(/RUNNING → SUCCEEDED\s+succeeded/);
    const json = await sfJson<{
      job: { id: string; status: string };
      runs: Array<{ attempt: number; status: string }>;
      events: unknown[];
    }>(["job", "status", jobId], { home, server: cp.url });
    expect(json.job).toMatchObject({ id: jobId, status: "SUCCEEDED" });
    expect(json.runs.map((x) => [x.attempt, x.status])).toEqual([[1, "SUCCEEDED"]]);
    expect(json.events).toHaveLength(5);
  });
});

describe("sf job metrics", () => {
  it("lists the keys with their last value, and draws train/loss as a table, a sparkline and first→last", async () => {
    const api = (await call(cp, token, "GET", `/v1/jobs/${jobId}/metrics?key=train/loss`)).body
      .points as Point[];
    expect(api.length).toBeGreaterThan(5);

    const keys = await run(["job", "metrics", jobId]);
    expect(keys.code, keys.stderr).toBe(0);
    expect(keys.stdout).toMatch(new RegExp(`train/loss\\s+${api.length}\\s+${api.at(-1)!.step}\\s`));

    const r = await run(["job", "metrics", jobId, "--key", "train/loss", "--rows", "0"]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toMatch(/^STEP\s+VALUE$/);
    const rows = lines.slice(1, 1 + api.length).map((l) => l.split(/\s+/).map(Number));
    expect(rows.map(([step]) => step)).toEqual(api.map((p) => p.step));
    for (const [i, [, v]] of rows.entries()) expect(v).toBeCloseTo(api[i]!.value, 3);
    const spark = /^train\/loss {2}([▁▂▃▄▅▆▇█]+)$/m.exec(r.stdout)?.[1] ?? "";
    expect([...spark]).toHaveLength(api.length);
    // The loss falls: the curve starts at the top bar and ends in the lower half.
    expect(spark[0]).toBe("█");
    expect("▁▂▃▄").toContain(spark.at(-1) ?? "?");
    const [first, last] = [api[0]!, api.at(-1)!];
    expect(r.stdout).toContain(`train/loss  ${formatNumber(first.value)} → ${formatNumber(last.value)} (−`);
    expect(r.stdout).toMatch(new RegExp(`%\\) over steps ${first.step}–200\n`));

    const json = await sfJson<{ points: Point[] }>(["job", "metrics", jobId, "--key", "train/loss"], {
      home,
      server: cp.url,
    });
    expect(json.points).toEqual(api);
  });
});

describe("sf job artifacts", () => {
  it("lists path, kind, step, size and digest", async () => {
    const r = await run(["job", "artifacts", jobId]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^PATH\s+KIND\s+STEP\s+SIZE\s+DIGEST\s+STORED$/m);
    expect(r.stdout).toMatch(/checkpoints\/\S+\s+checkpoint\s+100\s+[\d.]+ KiB\s+sha256:[0-9a-f]{12}\s+yes/);
    expect(r.stdout).toMatch(/checkpoints\/\S+\s+checkpoint\s+200\s/);
  });

  it("--download writes the latest checkpoint atomically with the registered digest; --all writes every one", async () => {
    const arts = (await call(cp, token, "GET", `/v1/jobs/${jobId}/artifacts`)).body.artifacts as Art[];
    const latest = arts.find((a) => a.kind === "checkpoint" && a.step === 200)!;
    const out = mkdtempSync(join(tmpdir(), "sf-art-"));

    const r = await run(["job", "artifacts", jobId, "--download", "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(sha256(join(out, latest.path))).toBe(latest.digest);
    expect(readdirSync(join(out, "checkpoints"))).toEqual([latest.path.split("/").pop()]);
    expect(r.stderr).toMatch(/verified/);

    const again = await sfJson<{ downloaded: Array<{ skipped: boolean }> }>(
      ["job", "artifacts", jobId, "--download", "--out", out],
      {
        home,
        server: cp.url,
      },
    );
    expect(again.downloaded.map((d) => d.skipped)).toEqual([true]);

    const every = mkdtempSync(join(tmpdir(), "sf-art-all-"));
    const all = await sfJson<{ downloaded: Array<{ path: string; digest: string }> }>(
      ["job", "artifacts", jobId, "--download", "--all", "--out", every],
      { home, server: cp.url },
    );
    expect(all.downloaded.map((d) => d.path).sort()).toEqual(arts.map((a) => a.path).sort());
    for (const a of arts) expect(sha256(join(every, a.path))).toBe(a.digest);

    const missing = await run([
      "job",
      "artifacts",
      jobId,
      "--download",
      "checkpoints/nope.json",
      "--out",
      out,
    ]);
    expect(missing.code).toBe(4);
    expect(existsSync(join(out, "checkpoints/nope.json"))).toBe(false);
  });
});

describe("sf status", () => {
  it("shows my usage against my quota and each fleet's GPU totals", async () => {
    const r = await run(["status"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^${ines} on http`));
    expect(r.stdout).toMatch(/active jobs\s+0\s+20/);
    expect(r.stdout).toMatch(/GPUs in use\s+0\s+16/);
    expect(r.stdout).toMatch(/GPU-hours today \(UTC\)\s+[\d.e-]+\s+384/);
    expect(r.stdout).toMatch(/^FLEET\s+KIND\s+GPUS\s+ALLOCATED\s+FREE\s+QUEUED/m);
    expect(r.stdout).toMatch(new RegExp(`^${fleet}\\s+process\\s+8\\s+0\\s+8\\s+0\\s`, "m"));
    const json = await sfJson<{
      usage: { user: string; gpu_hours_total: number };
      fleets: Array<{ name: string; gpus: number; free: number; queued: number }>;
    }>(["status"], { home, server: cp.url });
    expect(json.usage.user).toBe(ines);
    expect(json.usage.gpu_hours_total).toBeGreaterThan(0);
    expect(json.fleets.find((f) => f.name === fleet)).toMatchObject({ gpus: 8, free: 8, queued: 0 });
    expect(json.fleets.find((f) => f.name === idle)).toMatchObject({ gpus: 0, queued: 0 });
  });
});
