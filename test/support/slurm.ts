/**
 * The one-host Slurm cluster of scripts/start-slurm.sh, as the Slurm tests drive it: its settings, what
 * `squeue` shows, and the failures a real cluster has (a node's slurmd dying with its jobs, slurmrestd
 * restarting). Every daemon is stopped and started by the pid it recorded, never by name.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect } from "vitest";
import { type ControlPlane, call } from "./control-plane.js";
import { torchPythonDir } from "./ddp.js";
import { enrollForgelet, type ForgeletProc } from "./forgelet.js";
import { waitFor, waitGpuNodesReady } from "./lifecycle.js";

const ROOT = resolve(import.meta.dirname, "../..");
const STATE = process.env.SF_SLURM_STATE || "/var/lib/starforge-ci/slurm";

export const slurm = {
  state: STATE,
  conf: process.env.SLURM_CONF || join(STATE, "slurm.conf"),
  restd: process.env.SF_SLURMRESTD || "http://127.0.0.1:6820",
  /** The same slurmrestd on its unix socket. */
  restdSocket: process.env.SF_SLURMRESTD_SOCKET || `unix:${join(STATE, "restd", "slurmrestd.socket")}`,
  /** The shared directory of the test cluster: every node sees it (it is one host). */
  sharedDir: join(STATE, "jobs"),
};

/**
 * A Slurm fleet and its one forgelet, as on a login node, fronting both nodes of the test cluster (ready
 * when this returns). Its run directories go to `sharedDir`, or, in pull mode, stay in `workDir` while
 * each step builds its own in `nodeDir` (then slurmrestd is reached on its unix socket, as on a real login
 * node). The batch jobs' python3 is one with torch (Debian's python3-torch on CI).
 */
export async function startSlurmFleet(
  cp: ControlPlane,
  fleet: string,
  agentName: string,
  where: { sharedDir: string } | { workDir: string; nodeDir: string },
): Promise<ForgeletProc> {
  const f = await call(cp, cp.adminToken, "POST", "/v1/fleets", {
    name: fleet,
    kind: "slurm",
    network: { env: { GLOO_SOCKET_IFNAME: "lo" }, rendezvous_timeout_seconds: 90 },
  });
  expect(f.status, JSON.stringify(f.body)).toBe(201);
  const agent = await enrollForgelet(cp, fleet, {
    name: agentName,
    runtime: "slurm",
    env: { SLURM_CONF: slurm.conf },
    args: [
      ...("sharedDir" in where
        ? ["--slurmrestd", slurm.restd, "--shared-dir", where.sharedDir]
        : ["--slurmrestd", slurm.restdSocket, "--work-dir", where.workDir, "--node-dir", where.nodeDir]),
      "--slurm-path",
      `${torchPythonDir()}:${process.env.PATH}`,
      "--cluster-refresh",
      "2",
    ],
  });
  await waitGpuNodesReady(cp, fleet, 2);
  return agent;
}

function run(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: "utf8", env: { ...process.env, SLURM_CONF: slurm.conf } });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed: ${r.stderr || r.stdout}`);
  return r.stdout;
}

export interface SlurmJobRow {
  /** The job id; of a heterogeneous job's component, its leader's (`squeue` shows `<leader>+<offset>`). */
  id: number;
  /** A heterogeneous job's component offset (0…n-1), or null for a plain job. */
  component: number | null;
  name: string;
  state: string;
  nodes: string;
  reason: string;
  /** What each node gives the job or component, as `squeue %b` shows it (e.g. `gres:gpu:2`). */
  tres: string;
}

/** Every job slurmctld still knows (finished ones too, for MinJobAge); a heterogeneous job once per component. */
export function squeueAll(): SlurmJobRow[] {
  return run("squeue", ["-h", "-t", "all", "-o", "%i|%j|%T|%N|%r|%b"])
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const [id, name, state, nodes, reason, tres] = l.split("|");
      const [leader, offset] = id!.split("+");
      return {
        id: Number(leader),
        component: offset === undefined ? null : Number(offset),
        name: name!,
        state: state!,
        nodes: nodes!,
        reason: reason!,
        tres: tres!,
      };
    });
}

const LIVE = /^(PENDING|CONFIGURING|RUNNING|COMPLETING|SUSPENDED|REQUEUED|RESIZING|SIGNALING|STAGE_OUT)/;

/** StarForge's jobs Slurm still runs or holds (what `squeue` shows by default). */
export function liveStarforgeJobs(): SlurmJobRow[] {
  return squeueAll().filter((j) => j.name.startsWith("sf-") && LIVE.test(j.state));
}

/** The Slurm jobs (any state) a run was submitted as. */
export function jobsOfRun(runId: string): SlurmJobRow[] {
  return squeueAll().filter((j) => j.name === `sf-${runId}`);
}

/**
 * The Slurm jobs of a run once Slurm has finished them. The control plane may call a run SUCCEEDED as
 * soon as its runner reports the end, a moment before Slurm records the job COMPLETED.
 */
export async function endedJobsOfRun(runId: string, timeoutMs = 30_000): Promise<SlurmJobRow[]> {
  return waitFor(
    `Slurm to finish the jobs of run ${runId}`,
    () => {
      const jobs = jobsOfRun(runId);
      return jobs.length > 0 && jobs.every((j) => !LIVE.test(j.state)) ? jobs : undefined;
    },
    timeoutMs,
    250,
  ).catch(() => {
    throw new Error(`Slurm jobs of run ${runId} still live: ${JSON.stringify(jobsOfRun(runId))}`);
  });
}

/** Waits until no StarForge job is left in squeue (a stop's KillWait may still be running). */
export async function expectSqueueEmpty(timeoutMs = 60_000): Promise<void> {
  await waitFor(
    "squeue to hold no StarForge job",
    () => liveStarforgeJobs().length === 0,
    timeoutMs,
    250,
  ).catch(() => {
    throw new Error(`StarForge jobs left in squeue: ${JSON.stringify(liveStarforgeJobs())}`);
  });
}

/** Runs a plain (non-StarForge) batch job, e.g. to fill a node; returns its id. */
export function sbatch(args: string[]): number {
  const out = run("sbatch", ["--parsable", ...args]);
  return Number(out.trim().split(";")[0]);
}

/** Cancels a job, or one component of a heterogeneous job (`"<leader>+<offset>"`). */
export function scancel(id: number | string): void {
  run("scancel", [String(id)]);
}

export function scontrol(args: string[]): string {
  return run("scontrol", args);
}

function pidOf(file: string): number | null {
  const p = join(STATE, file);
  if (!existsSync(p)) return null;
  const pid = Number(readFileSync(p, "utf8").trim());
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return null;
  }
}

async function killPid(pid: number, signal: NodeJS.Signals): Promise<void> {
  try {
    process.kill(pid, signal);
  } catch {
    return;
  }
  await waitFor(
    `pid ${pid} to exit`,
    () => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    },
    20_000,
    50,
  );
}

/** Every process of one Slurm job on this host: its slurmstepds and all they started (by /proc). */
function jobProcesses(jobId: number): number[] {
  const out: number[] = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      const env = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
      if (cmd.startsWith(`slurmstepd: [${jobId}.`) || env.includes(`SLURM_JOB_ID=${jobId}`))
        out.push(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * A node dies with the job on it: its slurmd and every process of the (one-node) job are SIGKILLed by
 * pid, as a power loss would. slurmctld marks the node DOWN after SlurmdTimeout and the job NODE_FAIL.
 */
export async function killNode(node: string, jobId: number): Promise<void> {
  const pid = pidOf(`slurmd.${node}.pid`);
  if (pid !== null) await killPid(pid, "SIGKILL");
  for (const p of jobProcesses(jobId)) {
    try {
      process.kill(p, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
}

/** Brings the cluster back to whole (scripts/start-slurm.sh starts what is missing) and waits for idle nodes. */
export function startCluster(): void {
  const r = spawnSync("bash", [join(ROOT, "scripts/start-slurm.sh")], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`start-slurm.sh failed: ${r.stdout}${r.stderr}`);
}

/** Stops slurmrestd (by its pid file); the cluster itself keeps running. */
export async function stopSlurmrestd(): Promise<void> {
  const pid = pidOf("slurmrestd.pid");
  if (pid !== null) await killPid(pid, "SIGTERM");
}

/** A node as sinfo shows it: its state (idle, mix, alloc, down*, drain, …). */
export function nodeState(node: string): string {
  return run("sinfo", ["-h", "-N", "-n", node, "-o", "%t"]).trim();
}

export async function waitNodeIdle(node: string, timeoutMs = 60_000): Promise<void> {
  await waitFor(`${node} to be idle again`, () => /^(idle|mix)$/.test(nodeState(node)), timeoutMs, 500);
}
