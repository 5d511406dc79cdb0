/** Real forgelet processes for tier-3/4 tests: enrolled through the API, run from the built bundle. */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type ControlPlane, call, groupAlive, waitGroupGone } from "./control-plane.js";

const ROOT = resolve(import.meta.dirname, "../..");
const BIN = join(ROOT, "dist", "forgelet.mjs");

export interface ForgeletProc {
  stateDir: string;
  nodeId: string;
  pgid: () => number;
  log: () => string;
  start: () => Promise<void>;
  /** SIGKILL the agent only; its workloads live in their own process groups and keep running. */
  kill: () => Promise<void>;
  /** SIGTERM: a clean agent shutdown. */
  stop: () => Promise<void>;
  /** Makes the agent drop its socket as a network failure would (SIGUSR1). */
  dropConnection: () => void;
  /** Process groups of workloads this agent started that are still alive. */
  liveWorkloads: () => number[];
  dispose: () => Promise<void>;
}

export async function enrollForgelet(
  cp: ControlPlane,
  fleet: string,
  o: {
    /** slurm, kuberay: the cluster says the GPUs (no --simulate-gpus); pass its flags in `args`. */
    runtime?: "process" | "docker" | "slurm" | "kuberay";
    gpus?: number;
    name: string;
    env?: Record<string, string>;
    /** More `forgelet run` flags (e.g. --advertise-addr). */
    args?: string[];
  },
): Promise<ForgeletProc> {
  const stateDir = mkdtempSync(join(tmpdir(), `sf-agent-${o.name}-`));
  const t = await call(cp, cp.adminToken, "POST", `/v1/fleets/${fleet}/enrollment-tokens`, {});
  const enrolled = spawnSync(
    process.execPath,
    [BIN, "enroll", "--server", cp.url, "--token", String(t.body.token), "--state-dir", stateDir],
    {
      encoding: "utf8",
    },
  );
  if (enrolled.status !== 0) throw new Error(`forgelet enroll failed: ${enrolled.stdout}${enrolled.stderr}`);
  const nodeId = JSON.parse(readFileSync(join(stateDir, "credential.json"), "utf8")).node_id as string;
  let child: ChildProcess | null = null;
  let out = "";
  const args = [
    BIN,
    "run",
    "--runtime",
    o.runtime ?? "process",
    ...(o.runtime === "slurm" || o.runtime === "kuberay" ? [] : ["--simulate-gpus", String(o.gpus ?? 4)]),
    "--gpu-series",
    "h200",
    "--name",
    o.name,
    "--state-dir",
    stateDir,
    ...(o.args ?? []),
  ];
  const proc: ForgeletProc = {
    stateDir,
    nodeId,
    pgid: () => child?.pid ?? 0,
    log: () => out,
    async start() {
      child = spawn(process.execPath, args, {
        cwd: ROOT,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, FORGELET_BACKOFF_MAX_MS: "1000", ...o.env },
      });
      await waitConnected(child, (text) => {
        out += text;
      });
    },
    async kill() {
      const pid = child?.pid;
      if (!pid || !groupAlive(pid)) return;
      process.kill(-pid, "SIGKILL");
      await waitGroupGone(pid, 5000);
    },
    async stop() {
      const pid = child?.pid;
      if (!pid || !groupAlive(pid)) return;
      process.kill(-pid, "SIGTERM");
      await waitGroupGone(pid, 10_000);
    },
    dropConnection() {
      if (child?.pid) process.kill(child.pid, "SIGUSR1");
    },
    liveWorkloads() {
      const runs = join(stateDir, "runs");
      if (!existsSync(runs)) return [];
      return readdirSync(runs)
        .map((d) => join(runs, d, ".starforge", "labels.json"))
        .filter((f) => existsSync(f))
        .map((f) => Number(JSON.parse(readFileSync(f, "utf8")).pgid))
        .filter((g) => g && groupAlive(g));
    },
    async dispose() {
      for (const g of proc.liveWorkloads()) process.kill(-g, "SIGKILL");
      await proc.kill();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
  await proc.start();
  return proc;
}

/**
 * Hands everything a forgelet process writes (stdout and stderr) to `onText`, and waits until it says it
 * connected; throws with its output when it exits first or `timeoutMs` passes.
 */
export async function waitConnected(
  child: ChildProcess,
  onText: (text: string) => void,
  timeoutMs = 20_000,
): Promise<void> {
  let seen = "";
  const take = (d: Buffer) => {
    seen += d.toString();
    onText(d.toString());
  };
  child.stdout?.on("data", take);
  child.stderr?.on("data", take);
  const deadline = Date.now() + timeoutMs;
  while (!seen.includes("connected to")) {
    if (child.exitCode !== null) throw new Error(`forgelet exited with ${child.exitCode}:\n${seen}`);
    if (Date.now() > deadline) throw new Error(`forgelet did not connect in ${timeoutMs / 1000} s:\n${seen}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
