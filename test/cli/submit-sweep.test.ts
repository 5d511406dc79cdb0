/**
 * Tier 3: `sf sweep` submits the bounded cartesian product of its grid as jobs sharing one sweep id,
 * uploads the workspace once, and is all-or-none: too many combinations or one invalid value submits
 * nothing. Jobs go to a node-less fleet of this file's own on the shared control plane, where they stay
 * QUEUED.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { sharedControlPlane, unique } from "../support/shared-control-plane.js";
import { jobCount, jobDetail, makeProject, type Project, type Server, serverUser } from "./submit-fixture.js";

let s: Server;
let p: Project;
/** This file's experiment: its jobs are named `<EXP>-s<index>`. Its own user counts only its own jobs. */
const EXP = unique("exp");

beforeAll(async () => {
  const cp = sharedControlPlane();
  const empty = unique("empty");
  s = await serverUser(cp, unique("ada"), empty);
  p = await makeProject(s, { fleet: empty, exp: EXP, project: unique("sweep") });
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
      EXP,
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
      `${EXP}-s0`,
      `${EXP}-s1`,
      `${EXP}-s2`,
      `${EXP}-s3`,
      `${EXP}-s4`,
      `${EXP}-s5`,
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
    const r = await p.sf(["sweep", EXP, "--profile", "h200:1", "--set-grid", "batch_size=8,16"]);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trim().split("\n");
    expect(rows[0]).toMatch(/^JOB\s+NAME\s+STATE\s+PARAMS$/);
    expect(rows.slice(1).map((l) => l.replace(/^job_\S+\s+/, "").replace(/\s+/g, " "))).toEqual([
      `${EXP}-s0 QUEUED batch_size=8`,
      `${EXP}-s1 QUEUED batch_size=16`,
    ]);
    expect(r.stderr).toContain("uploaded 0 files, 0 B");
  });

  it("refuses more combinations than --max, submitting nothing", async () => {
    const before = await jobCount(s);
    const r = await p.sf([
      "sweep",
      EXP,
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
      EXP,
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
    const r = await p.sf(["sweep", EXP, "--profile", "h200:1", "--set-grid", "learning_rate=0.1,99"]);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain('"learning_rate" must be <= 10, got 99');
    expect(await jobCount(s)).toBe(before);
  });
});
