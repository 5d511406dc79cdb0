/**
 * Tier 3: `sf submit` end to end on a fleet of this file's own (the shared control plane + a forgelet of
 * this file's, process runtime): a real python/charlm run reaches SUCCEEDED, the workspace holds exactly
 * the whitelist, an unchanged re-submit uploads 0 bytes, and `--follow` streams the run and exits 0, or 7
 * when the job fails.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "../support/control-plane.js";
import type { ForgeletProc } from "../support/forgelet.js";
import { waitForStatus } from "../support/jobs.js";
import { fleetWithAgent, sharedControlPlane, unique } from "../support/shared-control-plane.js";
import { jobDetail, makeProject, type Project, type Server, serverUser, sha256 } from "./submit-fixture.js";

let s: Server;
let p: Project;
/** This file's fleet with one agent (8 simulated H200s), named by every project here. */
let fleet = "";
let agent: ForgeletProc | undefined;
/** This file's experiments (the names of its jobs) and project. */
const EXP = unique("exp");
const BOOM = unique("boom");
const PROJECT = unique("run");

interface SubmitJson {
  job: { id: string; name: string; status: string };
  upload: { files: number; bytes: number; skipped: number; resumed_bytes: number };
}

beforeAll(async () => {
  const cp = sharedControlPlane();
  ({ fleet, agent } = await fleetWithAgent(cp, "run", { gpus: 8 }));
  s = await serverUser(cp, unique("ada"));
  p = await makeProject(s, {
    fleet,
    project: PROJECT,
    exp: EXP,
    files: {
      [`experiments/${EXP}/prep.sh`]: "#!/usr/bin/env bash\necho prep\n",
      [`experiments/${EXP}/scratch.ignored`]: "ignored by .gitignore\n",
      [`experiments/${EXP}/outputs/old.ckpt`]: "ignored directory\n",
    },
  });
  p.write(`experiments/${EXP}/prep.sh`, p.read(`experiments/${EXP}/prep.sh`), 0o755);
  p.commit("exec bit");
});

afterAll(async () => {
  await agent?.dispose();
});

const done = ["SUCCEEDED", "FAILED", "STOPPED"];

describe("sf submit on a fleet with an agent", () => {
  let first: SubmitJson;

  it("submits python/charlm with typed --set values and provenance, and the run reaches SUCCEEDED", async () => {
    const r = await p.sf(["submit", EXP, "--profile", "h200:1", "--set", "max_steps=30", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    first = JSON.parse(r.stdout) as SubmitJson;
    expect(first.job.id).toMatch(/^job_[0-9a-z]{26}$/);
    expect(first.upload.files).toBeGreaterThan(0);
    expect(first.upload.bytes).toBeGreaterThan(0);

    const end = await waitForStatus(s.cp, s.token, first.job.id, done, 150_000);
    expect(end.job.status, JSON.stringify(end.events)).toBe("SUCCEEDED");

    const spec = (await jobDetail(s, first.job.id)).job.spec;
    expect(spec.metadata).toMatchObject({ name: EXP, experiment: EXP, project: PROJECT });
    expect(spec.hyperparams).toMatchObject({ max_steps: 30, checkpoint_every: 10, learning_rate: 0.1 });
    expect(spec.resources).toMatchObject({ fleet });
    expect(spec.source).toMatchObject({ experiment_dir: `experiments/${EXP}` });
    expect(spec.provenance).toEqual({
      git_commit: p.git("rev-parse", "HEAD"),
      git_dirty: false,
      config_sha: sha256(p.read(`experiments/${EXP}/config.yaml`)),
    });
  });

  it("packs only the whitelist (tracked + untracked-not-ignored), paths from the project root, modes kept", async () => {
    const spec = (await jobDetail(s, first.job.id)).job.spec;
    const res = await fetch(`${s.cp.url}/v1/blobs/${spec.source.workspace}`, {
      headers: { authorization: `Bearer ${s.token}` },
    });
    expect(res.status).toBe(200);
    const manifest = (await res.json()) as { files: Array<{ path: string; mode: number; digest: string }> };
    expect(manifest.files.map((f) => [f.path, f.mode])).toEqual([
      ["common/util.py", 0o644],
      ["configs/base.yaml", 0o644],
      [`experiments/${EXP}/config.yaml`, 0o644],
      [`experiments/${EXP}/prep.sh`, 0o755],
      [`experiments/${EXP}/recipe.lock.json`, 0o644],
    ]);
    expect(manifest.files[0]!.digest).toBe(sha256(p.read("common/util.py")));
  });

  it("uploads 0 bytes when the tree is unchanged, and says so", async () => {
    const again = await p.sf(["submit", EXP, "--profile", "h200:1", "--set", "max_steps=5", "--json"]);
    expect(again.code, again.stderr).toBe(0);
    const second = JSON.parse(again.stdout) as SubmitJson;
    expect(second.upload).toEqual({
      files: 0,
      bytes: 0,
      skipped: first.upload.files + first.upload.skipped,
      resumed_bytes: 0,
    });
    expect(second.job.id).not.toBe(first.job.id);
    await waitForStatus(s.cp, s.token, second.job.id, done, 150_000);

    const human = await p.sf(["submit", EXP, "--profile", "h200:1", "--set", "max_steps=5"]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stderr).toContain(`uploaded 0 files, 0 B (${second.upload.skipped} already on the server)`);
    const id = /job_[0-9a-z]{26}/.exec(human.stdout)![0];
    await waitForStatus(s.cp, s.token, id, done, 150_000);
  });

  it("--priority-class names the job's class; one above the user's quota is refused with its code", async () => {
    const low = await p.sf([
      "submit",
      EXP,
      "--profile",
      "h200:1",
      "--set",
      "max_steps=5",
      "--priority-class",
      "low",
      "--json",
    ]);
    expect(low.code, low.stderr).toBe(0);
    const job = (JSON.parse(low.stdout) as SubmitJson).job;
    const read = await call(s.cp, s.token, "GET", `/v1/jobs/${job.id}`);
    expect((read.body.job as { priority_class: string }).priority_class).toBe("low");
    await waitForStatus(s.cp, s.token, job.id, done, 150_000);
    const high = await p.sf(["submit", EXP, "--profile", "h200:1", "--priority-class", "high"]);
    // A refusal of this submit (5), like a quota's or a team's, not a login problem (3).
    expect(high.code).toBe(5);
    expect(high.stderr).toContain("PRIORITY_CLASS_NOT_ALLOWED");
  });

  it("--dry-run says what would happen and submits nothing", async () => {
    const before = (await call(s.cp, s.token, "GET", "/v1/jobs?limit=200")).body.jobs as unknown[];
    const r = await p.sf(["submit", EXP, "--profile", "h200:1", "--dry-run", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as { dry_run: boolean; job: { would: string; placement: unknown[] } };
    expect(plan.dry_run).toBe(true);
    expect(plan.job.would).toBe("start");
    expect(plan.job.placement).toHaveLength(1);
    const human = await p.sf(["submit", EXP, "--profile", "h200:1", "--dry-run"]);
    expect(human.stdout).toContain("would start now on 1 node(s); nothing was submitted");
    const after = (await call(s.cp, s.token, "GET", "/v1/jobs?limit=200")).body.jobs as unknown[];
    expect(after).toHaveLength(before.length);
  });

  it("--follow streams the run's logs and exits 0 when it succeeds", async () => {
    const r = await p.sf(["submit", EXP, "--profile", "h200:1", "--set", "max_steps=20", "--follow"], {});
    expect(r.code, r.stderr).toBe(0);
    const id = /job_[0-9a-z]{26}/.exec(r.stdout)![0];
    expect(r.stderr).toContain(`${id} SUCCEEDED`);
    expect(r.stdout.split("\n").length).toBeGreaterThan(3);
    expect((await call(s.cp, s.token, "GET", `/v1/jobs/${id}`)).body.job).toMatchObject({
      status: "SUCCEEDED",
    });
  });

  it("--follow exits 7 when the job ends FAILED", async () => {
    const custom = await makeProject(s, {
      exp: BOOM,
      method: "custom/custom",
      config: "method: custom/custom\nlifecycle:\n  max_retries: 0\n",
      fleet,
      project: PROJECT,
      files: { [`experiments/${BOOM}/train.sh`]: "#!/usr/bin/env bash\necho about to fail\nexit 3\n" },
    });
    const r = await custom.sf(["submit", BOOM, "--profile", "h200:1", "--follow"]);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(7);
    expect(r.stdout).toContain("about to fail");
    expect(r.stderr).toContain("FAILED");
  });
});
