/**
 * Tier 3: `sf sweep` submits the bounded cartesian product of its grid as jobs sharing one sweep id,
 * uploads the workspace once, and is all-or-none: too many combinations or one invalid value submits
 * nothing. Jobs go to a node-less fleet, where they stay QUEUED.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startControlPlane } from "../support/control-plane.js";
import { jobCount, jobDetail, makeProject, type Project, type Server, serverUser } from "./submit-fixture.js";

let s: Server;
let p: Project;

beforeAll(async () => {
  const cp = await startControlPlane({ agent: false });
  s = await serverUser(cp, "ada", "empty");
  p = await makeProject(s, { fleet: "empty" });
});

afterAll(async () => {
  await s?.cp.stop();
});

interface SweepJson {
  sweep: { id: string; size: number };
  jobs: Array<{ job: { id: string; name: string; status: string }; params: Record<string, unknown> }>;
  upload: { files: number; bytes: number; skipped: number };
}

describe("sf sweep", () => {
  it("submits every combination with shared sweep metadata, named <exp>-s<index>, uploading once", async () => {
    const before = await jobCount(s);
    const r = await p.sf([
      "sweep",
      "exp1",
      "--profile",
      "h200:1",
      "--set-grid",
      "learning_rate=0.05,0.2",
      "--set-grid",
      "seed=1,2,3",
      "--set",
      "max_steps=7",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as SweepJson;
    expect(out.sweep.size).toBe(6);
    expect(out.sweep.id).toMatch(/^swp_/);
    expect(out.jobs.map((j) => j.job.name)).toEqual([
      "exp1-s0",
      "exp1-s1",
      "exp1-s2",
      "exp1-s3",
      "exp1-s4",
      "exp1-s5",
    ]);
    expect(out.jobs.map((j) => j.params)).toEqual([
      { learning_rate: 0.05, seed: 1 },
      { learning_rate: 0.05, seed: 2 },
      { learning_rate: 0.05, seed: 3 },
      { learning_rate: 0.2, seed: 1 },
      { learning_rate: 0.2, seed: 2 },
      { learning_rate: 0.2, seed: 3 },
    ]);
    expect(out.upload.files).toBeGreaterThan(0);
    expect(await jobCount(s)).toBe(before + 6);

    const workspaces = new Set<unknown>();
    for (const [index, { job, params }] of out.jobs.entries()) {
      const spec = (await jobDetail(s, job.id)).job.spec;
      expect(spec.metadata.sweep).toEqual({ id: out.sweep.id, index, params });
      expect(spec.hyperparams).toMatchObject({ ...params, max_steps: 7 });
      workspaces.add(spec.source.workspace);
    }
    expect(workspaces.size).toBe(1);
  });

  it("prints a table of job ids and params for people", async () => {
    const r = await p.sf(["sweep", "exp1", "--profile", "h200:1", "--set-grid", "batch_size=8,16"]);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trim().split("\n");
    expect(rows[0]).toMatch(/^JOB\s+NAME\s+STATE\s+PARAMS$/);
    expect(rows.slice(1).map((l) => l.replace(/^job_\S+\s+/, "").replace(/\s+/g, " "))).toEqual([
      "exp1-s0 QUEUED batch_size=8",
      "exp1-s1 QUEUED batch_size=16",
    ]);
    expect(r.stderr).toContain("uploaded 0 files, 0 B");
  });

  it("refuses more combinations than --max, submitting nothing", async () => {
    const before = await jobCount(s);
    const r = await p.sf([
      "sweep",
      "exp1",
      "--profile",
      "h200:1",
      "--set-grid",
      "seed=1,2,3",
      "--set-grid",
      "context=1,2",
      "--max",
      "5",
    ]);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain("this sweep has 6 combinations; the limit is 5");
    expect(r.stderr).toContain("[SWEEP_TOO_LARGE]");
    const big = await p.sf([
      "sweep",
      "exp1",
      "--profile",
      "h200:1",
      "--set-grid",
      `seed=${Array.from({ length: 33 }, (_, i) => i).join(",")}`,
    ]);
    expect(big.code, big.stderr).toBe(5);
    expect(big.stderr).toContain("the limit is 32");
    expect(await jobCount(s)).toBe(before);
  });

  it("is all or none: one invalid value in the grid submits no job", async () => {
    const before = await jobCount(s);
    const r = await p.sf(["sweep", "exp1", "--profile", "h200:1", "--set-grid", "learning_rate=0.1,99"]);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain('"learning_rate" must be <= 10, got 99');
    expect(await jobCount(s)).toBe(before);
  });
});
