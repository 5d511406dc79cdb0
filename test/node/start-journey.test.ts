/**
 * Tier 3: the "done when" journey against `npm start` itself (scripts/start.mjs → workerd),
 * over real HTTP on loopback, then a restart on the same state to prove nothing is lost.
 *
 * Its own control planes, not the project's shared one: what it tests is `npm start` itself, its first
 * start and a restart on the same state.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type ControlPlane, call, groupAlive, startControlPlane } from "../support/control-plane.js";
import { baseSpec, recipeDigest } from "../support/jobs.js";

const stateDir = mkdtempSync(join(tmpdir(), "sf-journey-"));
let cp: ControlPlane | null = null;

afterAll(async () => {
  await cp?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

describe("npm start", () => {
  it("brings up a control plane on which an admin can take a job from QUEUED to SUBMITTED", async () => {
    cp = await startControlPlane({ stateDir });
    expect(statSync(join(stateDir, "dev.vars")).mode & 0o777).toBe(0o600);

    const health = await call(cp, null, "GET", "/v1/health");
    expect(health).toMatchObject({ status: 200, body: { ok: true } });

    const admin = cp.adminToken;
    const local = await call(cp, admin, "GET", "/v1/fleets/local");
    expect(local.status).toBe(200);

    const user = await call(cp, admin, "POST", "/v1/users", { name: "dana", role: "operator" });
    expect(user.status).toBe(201);
    const firstToken = user.body.token as string;
    const second = await call(cp, firstToken, "POST", "/v1/tokens", { name: "laptop" });
    expect(second.status).toBe(201);
    const dana = second.body.token as string;

    expect(
      (
        await call(cp, admin, "POST", "/v1/fleets", {
          name: "gpu-lab",
          kind: "docker",
          image_allowlist: ["ghcr.io/acme/*"],
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await call(cp, admin, "PUT", "/v1/profiles/h200x4", {
          series: "h200",
          gpus_per_node: 4,
          default_gpus: 4,
          description: "4-GPU H200 boxes",
        })
      ).status,
    ).toBe(200);
    const recipe = {
      name: "acme/finetune",
      version: "0.1.0",
      description: "team recipe",
      frameworks: [{ kind: "custom", versions: ["1"], runtime_id: "bash", image: "ghcr.io/acme/base:1" }],
      params: { epochs: { type: "int", default: 1, min: 1, max: 10 } },
      entrypoint: { kind: "script", path: "train.sh" },
    };
    const published = await call(cp, admin, "POST", "/v1/catalog/recipes", recipe);
    expect(published.status).toBe(201);
    const digest = (published.body.recipe as { digest: string }).digest;

    const spec = {
      api_version: "starforge.dev/v1",
      metadata: { name: "first-job" },
      recipe: { name: "acme/finetune", version: "0.1.0", digest },
      framework: { kind: "custom", version: "1", runtime_id: "bash", image: null },
      source: { workspace: null },
      resources: {
        fleet: "gpu-lab",
        pools: [{ name: "default", profile: "h200x4", series: "h200", nodes: 1, gpus_per_node: 4 }],
      },
      hyperparams: { epochs: 3 },
      provenance: { git_commit: "0123abc", git_dirty: false, config_sha: `sha256:${"a".repeat(64)}` },
    };
    const submitted = await call(cp, dana, "POST", "/v1/jobs", spec);
    expect(submitted.status).toBe(201);
    const job = submitted.body.job as {
      id: string;
      status: string;
      pending_reasons: Array<{ code: string }>;
    };
    expect(job.status).toBe("QUEUED");
    expect(job.pending_reasons.map((r) => r.code)).toEqual(["NO_NODE_OF_SERIES"]);

    const node = await call(cp, admin, "POST", "/v1/fleets/gpu-lab/nodes", {
      name: "box-1",
      series: "h200",
      gpus: 4,
    });
    expect(node.status).toBe(201);

    const after = await call(cp, dana, "GET", `/v1/jobs/${job.id}`);
    expect((after.body.job as { status: string }).status).toBe("SUBMITTED");
    const runs = after.body.runs as Array<{ placement: Array<{ gpu_indices: number[] }> }>;
    expect(runs[0]?.placement[0]?.gpu_indices).toEqual([0, 1, 2, 3]);
    const fleet = await call(cp, admin, "GET", "/v1/fleets/gpu-lab");
    expect(fleet.body.totals).toMatchObject({ gpus: 4, allocated: 4, free: 0 });
  });

  it("keeps every row across a restart on the same state, and leaves no process behind", async () => {
    const before = cp!;
    const jobs = await call(before, before.adminToken, "GET", "/v1/jobs?all=1");
    await before.stop();
    expect(groupAlive(before.pgid)).toBe(false);
    cp = await startControlPlane({ stateDir });
    expect(cp.adminToken).toBe(before.adminToken);
    const again = await call(cp, cp.adminToken, "GET", "/v1/jobs?all=1");
    expect(again.body.jobs).toEqual(jobs.body.jobs);
    const fleet = await call(cp, cp.adminToken, "GET", "/v1/fleets/gpu-lab");
    expect(fleet.body.totals).toMatchObject({ gpus: 4, allocated: 4 });
  });

  it("admits every one of many concurrent submits that arrive just after a configuration change", async () => {
    // Each submit reads the changed configuration itself: on real workerd, a request may not wait on
    // another request's D1 read (an earlier cache shared in-flight reads and failed here with 500s).
    const c = cp!;
    const admin = c.adminToken;
    const user = await call(c, admin, "POST", "/v1/users", { name: "burst", role: "operator" });
    const token = user.body.token as string;
    const quota = { max_gpus: 16, max_jobs: 200, daily_gpu_hours: 100 };
    expect((await call(c, admin, "PUT", "/v1/users/burst/quota", quota)).status).toBe(200);
    const spec = baseSpec({
      name: "burst",
      fleet: "burst",
      recipe: {
        name: "python/charlm",
        version: "1.0.0",
        digest: await recipeDigest(c, token, "python/charlm"),
      },
      framework: { kind: "python", version: "3", runtime_id: "python3-stdlib" },
    });
    for (const round of [1, 2, 3]) {
      // A new fleet changes the configuration every cached admission depends on.
      expect(
        (await call(c, admin, "POST", "/v1/fleets", { name: `burst-${round}`, kind: "process" })).status,
      ).toBe(201);
      const s = { ...spec, resources: { ...spec.resources, fleet: `burst-${round}` } };
      const answers = await Promise.all(
        Array.from({ length: 24 }, () => call(c, token, "POST", "/v1/jobs", s)),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(24).fill(201));
    }
  });

  it("refuses a --host that is not an IPv4 address, before it creates any state", () => {
    const fresh = join(tmpdir(), `sf-journey-host-${process.pid}`);
    const r = spawnSync(
      process.execPath,
      [join(import.meta.dirname, "../../scripts/start.mjs"), "--host", "nope", "--state-dir", fresh],
      { encoding: "utf8", timeout: 30_000 },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--host takes an IPv4 address of this machine, got "nope"');
    expect(existsSync(fresh)).toBe(false);
  });

  it("takes --ratelimit NAME=LIMIT for a [[ratelimits]] binding: past the limit a failed login is locked out", async () => {
    const limited = await startControlPlane({ agent: false, ratelimits: { AUTH_FAILURES_BY_ADDRESS: 3 } });
    try {
      const answers: number[] = [];
      for (let i = 0; i < 5; i++)
        answers.push((await call(limited, "sfp_not-a-token", "GET", "/v1/me")).status);
      // Three failed logins are within the limit (401); the fourth passes it and locks the address out.
      expect(answers).toEqual([401, 401, 401, 429, 429]);
      const locked = await call(limited, limited.adminToken, "GET", "/v1/me");
      expect(locked.status).toBe(429);
      expect((locked.body.error as { code: string }).code).toBe("TOO_MANY_FAILED_LOGINS");
    } finally {
      await limited.stop();
    }
  });

  it("refuses a --ratelimit that is not NAME=LIMIT, or names no binding of wrangler.toml", () => {
    const start = (arg: string) =>
      spawnSync(
        process.execPath,
        [
          join(import.meta.dirname, "../../scripts/start.mjs"),
          "--ratelimit",
          arg,
          "--no-agent",
          "--state-dir",
          mkdtempSync(join(tmpdir(), "sf-journey-limit-")),
        ],
        { encoding: "utf8", timeout: 60_000 },
      );
    const bad = start("AUTH_FAILURES_BY_ADDRESS=0");
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain(
      '--ratelimit expects NAME=LIMIT with a binding NAME and a positive LIMIT, got "AUTH_FAILURES_BY_ADDRESS=0"',
    );
    const unknown = start("NO_SUCH_LIMIT=5");
    expect(unknown.status).not.toBe(0);
    expect(`${unknown.stdout}${unknown.stderr}`).toContain(
      "--ratelimit NO_SUCH_LIMIT=5: wrangler.toml has no [[ratelimits]] binding NO_SUCH_LIMIT",
    );
  });
});
