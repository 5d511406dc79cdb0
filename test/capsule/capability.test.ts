/**
 * CAPABILITY_MISSING (67): the runner checks requires.framework before it runs anything and never
 * substitutes another workload. torch is simulated with a stand-in package on PYTHONPATH, so these
 * tests mean the same on a machine with or without a real torch.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CAPSULE_EXIT } from "../../contract/capsule.schema.js";
import { ingestServerForFile, MARKER_SCRIPT } from "./support/file-server.js";
import {
  type Finished,
  makeRunDir,
  PYTHON,
  type RunDir,
  type RunDirOptions,
  rankEnv,
  runBootstrap,
  tempDir,
  toolDir,
  which,
} from "./support/run-dir.js";

const TOKEN = "tok-capability-test";
const server = ingestServerForFile(TOKEN);

/** A directory to put on PYTHONPATH holding a package `torch` with the given __init__.py. */
function fakeTorch(init: string): string {
  const dir = tempDir("sf-fake-torch-");
  mkdirSync(join(dir, "torch"));
  writeFileSync(join(dir, "torch", "__init__.py"), init);
  return dir;
}

function run(extra: Partial<RunDirOptions>): RunDir {
  return makeRunDir({ endpoint: server.endpoint, workspace: { "train.sh": MARKER_SCRIPT }, ...extra });
}

async function boot(r: RunDir, env: Record<string, string> = {}): Promise<Finished> {
  return runBootstrap(r, { ...rankEnv(r, server.endpoint, TOKEN), ...env });
}

function expectMissing(r: RunDir, res: Finished, reason: RegExp): void {
  expect(res.code, res.stderr).toBe(CAPSULE_EXIT.CAPABILITY_MISSING);
  expect(res.stderr).toMatch(/^starforge-runner: CAPABILITY_MISSING: /m);
  expect(res.stderr).toMatch(reason);
  expect(existsSync(r.path("ran"))).toBe(false);
  expect(res.stdout).not.toContain("trained");
  // The failure is reported with its reason; the run never claimed to have started.
  const events = server.lifecycle();
  expect(events.map((e) => [e.event, e.exit_code])).toEqual([["failed", 67]]);
  expect(events[0]?.reason).toMatch(reason);
}

const torch = (version: string) => ({ kind: "torch", version, runtime_id: "torch" });

describe("requires.framework: torch", () => {
  it("torch not importable: 67, naming the import error", async () => {
    const r = run({ framework: torch("1.13") });
    const path = fakeTorch("raise ImportError('No module named torch (stand-in)')\n");
    expectMissing(
      r,
      await boot(r, { PYTHONPATH: path }),
      /torch >= 1\.13 is required, but `import torch` failed/,
    );
  });

  it("torch older than required: 67, naming what was found", async () => {
    const r = run({ framework: torch("1.13") });
    const path = fakeTorch("__version__ = '1.2.0+cpu'\n");
    expectMissing(
      r,
      await boot(r, { PYTHONPATH: path }),
      /torch >= 1\.13 is required; found torch 1\.2\.0\+cpu/,
    );
  });

  it("an absurd version is never satisfied, with or without a real torch", async () => {
    const r = run({ framework: torch("999.0") });
    expectMissing(r, await boot(r), /torch >= 999\.0 is required/);
  });

  it("a new enough torch passes (1.13.0a0 counts as 1.13) and the training runs", async () => {
    const r = run({ framework: torch("1.13") });
    const res = await boot(r, { PYTHONPATH: fakeTorch("__version__ = '1.13.0a0'\n") });
    expect(res.code, res.stderr).toBe(0);
    expect(existsSync(r.path("ran"))).toBe(true);
  });
});

describe("requires.framework: python, custom and the unknown", () => {
  it("python: the interpreter is older than the framework version", async () => {
    const r = run({ framework: { kind: "python", version: "99", runtime_id: "python3-stdlib" } });
    expectMissing(r, await boot(r), /Python >= 99 is required; found Python 3\.\d+\.\d+ at /);
  });

  it("custom: no bash on PATH", async () => {
    const r = run({});
    const path = toolDir({ python3: PYTHON, sha256sum: which("sha256sum") });
    expectMissing(r, await boot(r, { PATH: path }), /no bash on PATH/);
  });

  it("a framework kind the runner cannot check is refused, not guessed", async () => {
    const r = run({ framework: { kind: "jax", version: "0.4", runtime_id: "jax" } });
    expectMissing(r, await boot(r), /framework kind 'jax' is not one this runner can check/);
  });

  it("a python entrypoint whose module is not in runner.pyz", async () => {
    const r = run({
      entrypoint: { kind: "python", module: "nosuch.train" },
      framework: { kind: "python", version: "3", runtime_id: "python3-stdlib" },
    });
    expectMissing(r, await boot(r), /recipe module 'nosuch\.train' is not in this runner/);
  });
});
