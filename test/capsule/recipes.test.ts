/**
 * The built-in recipes inside runner.pyz, run through the real bootstrap.sh against a loopback ingest:
 * charlm really learns, its checkpoints are uploaded and registered with matching digests, and a run
 * resumed from a checkpoint continues the step counter exactly where the checkpoint left off.
 *
 * tinylm needs torch. Its test is registered only when some python3 here can `import torch` (checked
 * when this file is collected); elsewhere it does not exist rather than being reported as skipped.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { IngestServer, type IngestServer as Server } from "./support/ingest-server.js";
import {
  cleanAll,
  cleanTemps,
  type Hyperparams,
  makeRunDir,
  type RunDir,
  rankEnv,
  runBootstrap,
  sha256,
} from "./support/run-dir.js";

const TOKEN = "tok-recipes-test";
let server: Server;

beforeEach(async () => {
  server = await new IngestServer(TOKEN).start();
});
afterEach(async () => {
  await server.stop();
  cleanTemps();
});
afterAll(cleanAll);

const CHARLM_DEFAULTS: Hyperparams = {
  learning_rate: 0.1,
  max_steps: 300,
  batch_size: 32,
  context: 2,
  checkpoint_every: 100,
  seed: 0,
};

function charlmRun(hp: Hyperparams): RunDir {
  return makeRunDir({
    endpoint: server.endpoint,
    entrypoint: { kind: "python", module: "charlm.train" },
    framework: { kind: "python", version: "3", runtime_id: "python3-stdlib" },
    hyperparams: { ...CHARLM_DEFAULTS, ...hp },
  });
}

interface Registered {
  kind: string;
  path: string;
  step?: number;
  size_bytes?: number;
  digest?: string;
}

/** Every registered checkpoint was uploaded first, with the same bytes as the file in out/. */
function expectCheckpoints(run: RunDir, steps: number[], ext: string): void {
  const regs = server.accepted<Registered>("/artifact");
  expect(regs.map((r) => [r.kind, r.path, r.step])).toEqual(
    steps.map((s) => ["checkpoint", `checkpoints/step-${String(s).padStart(6, "0")}.${ext}`, s]),
  );
  const uploads = [...server.uploads.values()];
  expect(uploads).toHaveLength(steps.length);
  for (const reg of regs) {
    const bytes = readFileSync(run.path(`out/${reg.path}`));
    expect(reg.digest).toBe(sha256(bytes));
    expect(reg.size_bytes).toBe(bytes.length);
    const upload = uploads.find((u) => u.digest === reg.digest);
    expect(upload?.bytes.equals(bytes)).toBe(true);
    expect(upload?.headers["x-upload-id"]).toBe(upload?.id); // the headers /artifact/upload asked for
  }
  // The upload target was asked for before each registration, with the same path and digest.
  const asked = server.accepted<{ path: string; digest: string }>("/artifact/upload");
  expect(asked.map((a) => [a.path, a.digest])).toEqual(regs.map((r) => [r.path, r.digest]));
}

describe("recipe charlm (pure Python)", () => {
  it("learns with the catalog defaults: train/loss falls well below where it started", async () => {
    const run = charlmRun({});
    const started = Date.now();
    const res = await runBootstrap(run, rankEnv(run, server.endpoint, TOKEN));
    expect(res.code, res.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(20_000);

    const loss = server.metrics("train/loss");
    expect(loss.length).toBeGreaterThanOrEqual(10);
    expect(loss.map((p) => p.step)).toEqual([...loss.map((p) => p.step)].sort((a, b) => a - b));
    expect(loss[0]?.step).toBe(1);
    expect(loss.at(-1)?.step).toBe(300);
    const first = loss[0]!.value;
    const last = loss.at(-1)!.value;
    expect(first).toBeGreaterThan(Math.log(20)); // about ln(vocabulary) at the start
    expect(last).toBeLessThan(0.7 * first);
    expect(loss.every((p) => typeof p.ts === "string" && !Number.isNaN(Date.parse(p.ts)))).toBe(true);
    expect(server.metrics("val/loss").map((p) => p.step)).toEqual([100, 200, 300]);

    expectCheckpoints(run, [100, 200, 300], "json");
    expect(server.logLines("stdout").some((l) => l.startsWith(`step 300/300  loss ${last.toFixed(4)}`))).toBe(
      true,
    );
    expect(server.logLines("stdout").some((l) => l.startsWith("sample: "))).toBe(true);
    expect(server.lifecycle().map((e) => e.event)).toEqual(["started", "succeeded"]);
  });

  it("resumes from SF_RESUME_FROM where the checkpoint left off, exactly as if never stopped", async () => {
    const first = charlmRun({ max_steps: 100, checkpoint_every: 50 });
    expect((await runBootstrap(first, rankEnv(first, server.endpoint, TOKEN))).code).toBe(0);
    const checkpoint = first.path("out/checkpoints/step-000100.json");
    server.requests.length = 0;
    server.uploads.clear();

    const resumed = charlmRun({ max_steps: 200, checkpoint_every: 50 });
    const res = await runBootstrap(resumed, {
      ...rankEnv(resumed, server.endpoint, TOKEN),
      SF_RESUME_FROM: checkpoint,
    });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(`resumed from ${checkpoint} at step 100`);
    const steps = server.metrics("train/loss").map((p) => p.step);
    expect(steps[0]).toBe(110);
    expect(steps.at(-1)).toBe(200);
    expectCheckpoints(resumed, [150, 200], "json");

    // The same 200 steps without a stop: identical weights, optimizer and RNG state, byte for byte.
    const straight = charlmRun({ max_steps: 200, checkpoint_every: 50 });
    expect((await runBootstrap(straight, rankEnv(straight, server.endpoint, TOKEN))).code).toBe(0);
    expect(readFileSync(resumed.path("out/checkpoints/step-000200.json"))).toEqual(
      readFileSync(straight.path("out/checkpoints/step-000200.json")),
    );
  });
});

/** A python3 that can import torch, if this machine has one (PATH first, then the system's). */
function pythonWithTorch(): string | null {
  for (const candidate of ["python3", "/usr/bin/python3"]) {
    const probe = spawnSync(candidate, ["-c", "import sys, torch; print(sys.executable)"], {
      encoding: "utf8",
    });
    if (probe.status === 0) return probe.stdout.trim();
  }
  return null;
}

const torchPython = pythonWithTorch();
if (torchPython) {
  describe(`recipe tinylm (torch, via ${torchPython})`, () => {
    it("learns, checkpoints with torch.save and resumes the step counter", async () => {
      const make = (hp: Hyperparams): RunDir =>
        makeRunDir({
          endpoint: server.endpoint,
          entrypoint: { kind: "python", module: "tinylm.train" },
          framework: { kind: "torch", version: "1.13", runtime_id: "torch" },
          hyperparams: { max_steps: 120, checkpoint_every: 60, ...hp },
        });
      const env = (run: RunDir): Record<string, string> => {
        const base = rankEnv(run, server.endpoint, TOKEN);
        return { ...base, PATH: `${dirname(torchPython)}:${base.PATH}`, OMP_NUM_THREADS: "1" };
      };
      const run = make({});
      const res = await runBootstrap(run, env(run));
      expect(res.code, res.stderr).toBe(0);
      const loss = server.metrics("train/loss");
      expect(loss.at(-1)!.value).toBeLessThan(0.7 * loss[0]!.value);
      expectCheckpoints(run, [60, 120], "pt");

      server.requests.length = 0;
      server.uploads.clear();
      const resumed = make({ max_steps: 180 });
      const again = await runBootstrap(resumed, {
        ...env(resumed),
        SF_RESUME_FROM: run.path("out/checkpoints/step-000120.pt"),
      });
      expect(again.code, again.stderr).toBe(0);
      expect(server.metrics("train/loss")[0]?.step).toBe(130);
      expectCheckpoints(resumed, [180], "pt");
    });
  });
}
