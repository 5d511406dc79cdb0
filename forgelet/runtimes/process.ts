/**
 * The process runtime: runs the capsule directly on the host, each run in its own process group, for
 * laptops and the embedded default. No isolation. A small bash wrapper records the workload's exit
 * status in the run directory, so an agent that restarted can still learn how a run it no longer
 * parents ended.
 */
import { spawn } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { LaunchError, type RunExit, type RunSpec, type Runtime, type RuntimeRef } from "../runtime.js";

const WRAPPER = [
  // A handler (not an ignore) for TERM: bash keeps waiting for the workload, which gets the signal itself.
  "trap 'true' TERM INT",
  'bash "$1"',
  "code=$?",
  'printf "%s" "$code" > "$2.tmp" && mv "$2.tmp" "$2"',
  'exit "$code"',
].join("\n");

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Processes of one run rank by the environment the agent gave it (Linux /proc; elsewhere none are
 * found). The runner starts the training in a session of its own, so when the runner's process group
 * dies without it (SIGKILL from outside, the OOM killer, a stop's SIGKILL) the training lives on there.
 */
function processesOf(runId: string, rank: number): number[] {
  if (!existsSync("/proc/self/environ")) return [];
  const want = [`STARFORGE_RUN_ID=${runId}`, `FORGE_RANK=${rank}`];
  const out: number[] = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    let env: string[];
    try {
      env = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
    } catch {
      continue; // gone meanwhile, or not ours to read
    }
    if (want.every((w) => env.includes(w))) out.push(Number(pid));
  }
  return out;
}

function describe(code: number): string {
  return code > 128 ? `killed by signal ${code - 128} (exit ${code})` : `exited with code ${code}`;
}

export class ProcessRuntime implements Runtime {
  readonly kind = "process" as const;

  constructor(
    private readonly runsRoot: string,
    private readonly opts: { keepRuns?: boolean; pollMs?: number } = {},
  ) {}

  async preflight(): Promise<void> {
    mkdirSync(this.runsRoot, { recursive: true });
    const probe = spawn("bash", ["-c", "exit 0"]);
    const code = await new Promise<number | null>((ok) => {
      probe.on("error", () => ok(null));
      probe.on("exit", ok);
    });
    if (code !== 0) throw new Error("the process runtime needs bash on PATH");
  }

  async launch(spec: RunSpec): Promise<RuntimeRef> {
    const meta = join(spec.runDir, ".starforge");
    mkdirSync(meta, { recursive: true });
    const bootstrap = join(meta, "capsule", "bootstrap.sh");
    if (!existsSync(bootstrap)) throw new LaunchError(`capsule bootstrap missing at ${bootstrap}`, true);
    const exitFile = join(meta, "exit_code");
    rmSync(exitFile, { force: true });
    const log = openSync(join(meta, "process.log"), "a");
    const env = {
      ...process.env,
      // Before the rank's own variables, so a secret can never shadow one StarForge sets.
      ...spec.secrets,
      ...spec.env,
      FORGE_RUN_ROOT: spec.runDir,
      CUDA_VISIBLE_DEVICES: spec.gpuIndices.join(","),
    };
    try {
      const child = spawn("bash", ["-c", WRAPPER, "forgelet-run", bootstrap, exitFile], {
        cwd: spec.runDir,
        env,
        detached: true,
        stdio: ["ignore", log, log],
      });
      const started = await new Promise<number>((ok, ko) => {
        child.once("error", (err) => ko(new LaunchError(`could not start bash: ${err.message}`, true)));
        child.once("spawn", () => ok(child.pid!));
      });
      child.unref();
      writeFileSync(join(meta, "labels.json"), JSON.stringify({ ...spec.labels, pgid: String(started) }));
      return { kind: "process", id: String(started) };
    } finally {
      closeSync(log);
    }
  }

  async alive(ref: RuntimeRef): Promise<boolean> {
    return groupAlive(Number(ref.id));
  }

  async wait(ref: RuntimeRef, spec: RunSpec): Promise<RunExit> {
    const pgid = Number(ref.id);
    while (groupAlive(pgid)) await sleep(this.opts.pollMs ?? 250);
    // The rank is over only when nothing of it runs any more: what outlived the group is ended first,
    // so the GPUs are never released under a training that is still running.
    await this.endLeftovers(spec);
    const exitFile = join(spec.runDir, ".starforge", "exit_code");
    if (!existsSync(exitFile)) {
      return {
        exitCode: null,
        reason: "the process group ended without an exit status (killed from outside)",
        infra: true,
      };
    }
    const code = Number(readFileSync(exitFile, "utf8"));
    return { exitCode: code, reason: describe(code), infra: false };
  }

  async stop(ref: RuntimeRef, graceMs: number): Promise<void> {
    const pgid = Number(ref.id);
    if (!groupAlive(pgid)) return;
    try {
      process.kill(-pgid, "SIGTERM");
    } catch {
      return;
    }
    const deadline = Date.now() + graceMs;
    while (groupAlive(pgid) && Date.now() < deadline) await sleep(100);
    if (groupAlive(pgid)) {
      try {
        process.kill(-pgid, "SIGKILL");
      } catch {
        // gone meanwhile
      }
      while (groupAlive(pgid)) await sleep(50);
    }
  }

  async cleanup(ref: RuntimeRef | null, spec: RunSpec): Promise<void> {
    if (ref && groupAlive(Number(ref.id))) await this.stop(ref, 0);
    await this.endLeftovers(spec);
    if (!this.opts.keepRuns) rmSync(spec.runDir, { recursive: true, force: true });
  }

  /** SIGKILLs every process of the run rank that left its process group (see processesOf). */
  private async endLeftovers(spec: Pick<RunSpec, "runId" | "rank">): Promise<void> {
    const deadline = Date.now() + 5000;
    for (let left = processesOf(spec.runId, spec.rank); left.length > 0; ) {
      for (const pid of left) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone meanwhile
        }
      }
      if (Date.now() > deadline) return;
      await sleep(50);
      left = processesOf(spec.runId, spec.rank);
    }
  }

  async list(): Promise<Array<{ ref: RuntimeRef; labels: Record<string, string> }>> {
    if (!existsSync(this.runsRoot)) return [];
    const out: Array<{ ref: RuntimeRef; labels: Record<string, string> }> = [];
    for (const dir of readdirSync(this.runsRoot)) {
      const file = join(this.runsRoot, dir, ".starforge", "labels.json");
      if (!existsSync(file)) continue;
      const labels = JSON.parse(readFileSync(file, "utf8")) as Record<string, string>;
      const pgid = Number(labels.pgid);
      if (pgid && groupAlive(pgid)) out.push({ ref: { kind: "process", id: String(pgid) }, labels });
    }
    return out;
  }
}
