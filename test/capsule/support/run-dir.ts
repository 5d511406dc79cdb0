/**
 * Capsule test support: build the capsule once per test file, lay out a fresh run directory per test
 * (contract/capsule.schema.ts layout, capsule.json with real digests) and run bootstrap.sh in it as its
 * own process group, the way an agent would.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "../../..");
export const CAPSULE_DIR = ".starforge/capsule";
export const BASH = execFileSync("bash", ["-c", "command -v bash"], { encoding: "utf8" }).trim();
/** The real interpreter behind `python3` (not a version-manager shim), for PATHs built by hand. */
export const PYTHON = execFileSync("python3", ["-c", "import sys; print(sys.executable)"], {
  encoding: "utf8",
}).trim();

const temps: string[] = [];
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}
export function cleanTemps(): void {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
}

export function sha256(data: Buffer | string): string {
  return `sha256:${createHash("sha256").update(data).digest("hex")}`;
}

/** `python3 capsule/build.py --out <dir>`; returns the dir and the digests it printed. */
export function buildCapsule(out = tempDir("sf-capsule-build-")): {
  dir: string;
  files: Record<string, string>;
} {
  const printed = execFileSync("python3", [join(ROOT, "capsule/build.py"), "--out", out], {
    encoding: "utf8",
  });
  return { dir: out, files: JSON.parse(printed) as Record<string, string> };
}

let built: { dir: string; files: Record<string, string> } | null = null;
/** The capsule every run directory of this test file uses: built once (cleanAll removes it). */
export function capsule(): { dir: string; files: Record<string, string> } {
  built ??= buildCapsule(mkdtempSync(join(tmpdir(), "sf-capsule-")));
  return built;
}

/** For afterAll: the per-test temp dirs and the file's capsule build. */
export function cleanAll(): void {
  cleanTemps();
  if (built) rmSync(built.dir, { recursive: true, force: true });
  built = null;
}

export type Hyperparams = Record<string, string | number | boolean>;

export interface RunDirOptions {
  endpoint: string;
  /** Files under workspace/<experiment_dir>/ (train.sh gets mode 0755). */
  workspace?: Record<string, string>;
  entrypoint?: { kind: "script"; path: string } | { kind: "python"; module: string };
  framework?: { kind: string; version: string; runtime_id: string };
  requiresPython?: string;
  hyperparams?: Hyperparams;
  /** Last word on capsule.json before it is written (for broken manifests). */
  mutate?: (manifest: Record<string, unknown>) => void;
}

export interface RunDir {
  root: string;
  manifest: Record<string, unknown>;
  path: (rel: string) => string;
}

export const EXPERIMENT = "exp";

export function makeRunDir(opts: RunDirOptions): RunDir {
  const root = tempDir("sf-run-");
  const files: Record<string, string> = {};
  const put = (rel: string, content: Buffer | string, mode = 0o644): void => {
    const abs = join(root, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
    chmodSync(abs, mode);
    files[rel] = sha256(content);
  };
  const built = capsule();
  for (const name of ["bootstrap.sh", "runner.pyz"]) {
    put(`${CAPSULE_DIR}/${name}`, readFileSync(join(built.dir, name)), 0o755);
  }
  for (const [name, content] of Object.entries(opts.workspace ?? {})) {
    put(`workspace/${EXPERIMENT}/${name}`, content, name.endsWith(".sh") ? 0o755 : 0o644);
  }
  const manifest: Record<string, unknown> = {
    capsule_version: 1,
    run_id: "run_test",
    job_id: "job_test",
    attempt: 1,
    rank: 0,
    world_size: 1,
    recipe: {
      name: opts.entrypoint?.kind === "python" ? "python/charlm" : "custom/custom",
      version: "1.0.0",
      entrypoint: opts.entrypoint ?? { kind: "script", path: "train.sh" },
    },
    requires: {
      python: opts.requiresPython ?? "3.8",
      framework: opts.framework ?? { kind: "custom", version: "1", runtime_id: "bash" },
    },
    hyperparams: opts.hyperparams ?? {},
    experiment_dir: EXPERIMENT,
    files,
    ingest: { endpoint: opts.endpoint },
  };
  opts.mutate?.(manifest);
  mkdirSync(join(root, CAPSULE_DIR), { recursive: true });
  writeFileSync(join(root, CAPSULE_DIR, "capsule.json"), JSON.stringify(manifest, null, 2));
  return { root, manifest, path: (rel) => join(root, rel) };
}

/** The environment an agent gives a rank (contract rankEnv), for a one-rank run. */
export function rankEnv(run: RunDir, endpoint: string, token: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    FORGE_RUN_ROOT: run.root,
    STARFORGE_ENDPOINT: endpoint,
    STARFORGE_RUN_ID: "run_test",
    STARFORGE_TOKEN: token,
    STARFORGE_ENABLED: "1",
    FORGE_JOB_ID: "job_test",
    FORGE_RANK: "0",
    FORGE_WORLD_SIZE: "1",
    FORGE_MASTER_NODE: "nod_test",
    FORGE_CLUSTER_NUM_NODES: "1",
    FORGE_CLUSTER_GPUS_PER_NODE: "0",
    FORGE_GPU_INDICES: "",
    SF_INGEST_DRAIN_SECONDS: "20",
  };
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  child: ChildProcess;
  stdout: () => string;
  done: Promise<Finished>;
}

/** Start `bash bootstrap.sh` detached (its own process group, like a container's PID 1). */
export function startBootstrap(run: RunDir, env: Record<string, string>): Running {
  const child = spawn(BASH, [run.path(`${CAPSULE_DIR}/bootstrap.sh`)], {
    cwd: run.root,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => {
    stdout += d.toString("utf8");
  });
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString("utf8");
  });
  const done = new Promise<Finished>((ok) => {
    child.on("close", (code, signal) => ok({ code, signal, stdout, stderr }));
  });
  return { child, stdout: () => stdout, done };
}

export function runBootstrap(run: RunDir, env: Record<string, string>): Promise<Finished> {
  return startBootstrap(run, env).done;
}

/** Poll until `cond()` holds (or throw after `ms`). */
export async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A PATH of our own: a directory holding only the named tools (symlinks to the real ones). */
export function toolDir(tools: Record<string, string>): string {
  const dir = tempDir("sf-tools-");
  for (const [name, target] of Object.entries(tools)) {
    execFileSync("ln", ["-s", target, join(dir, name)]);
  }
  return dir;
}

export function which(tool: string): string {
  return execFileSync(BASH, ["-c", `command -v ${tool}`], { encoding: "utf8" }).trim();
}
