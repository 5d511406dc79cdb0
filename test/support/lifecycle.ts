/**
 * Shared helpers for the tier-3 lifecycle proofs (test/node/lifecycle-*.test.ts): ticking workloads
 * (single-rank or gangs) that leave a launch marker outside the run directory, the live GPU ledger, a
 * machine-wide scan of /proc for workload processes, and the no-orphans check every such test ends with.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { expect } from "vitest";
import { type ControlPlane, call } from "./control-plane.js";
import type { ForgeletProc } from "./forgelet.js";
import { baseSpec, type JobState, jobState, recipeDigest } from "./jobs.js";
import { uploadWorkspace } from "./workspace.js";

export type Placement = { rank: number; pool: string; node_id: string; gpu_indices: number[] };

export interface FleetNodeView {
  id: string;
  name: string;
  status: string;
  gpus: Array<{ index: number; run_id: string | null; job_id: string | null }>;
}

export interface FleetView {
  nodes: FleetNodeView[];
  totals: { gpus: number; allocated: number; free: number; queued: number; running: number };
}

export interface RunDetail {
  id: string;
  attempt: number;
  epoch: number;
  status: string;
  placement: Placement[];
  allocated_at: string;
  ended_at: string | null;
  exit_code: number | null;
  reason: string | null;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until it returns a value other than undefined/false, or fails naming `what`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs: number,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${String(lastError)})` : ""}`,
      );
    }
    await sleep(intervalMs);
  }
}

export async function newFleet(cp: ControlPlane, name: string): Promise<void> {
  const r = await call(cp, cp.adminToken, "POST", "/v1/fleets", { name, kind: "process" });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
}

export async function newOperator(cp: ControlPlane, name: string): Promise<string> {
  const r = await call(cp, cp.adminToken, "POST", "/v1/users", { name, role: "operator" });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return String(r.body.token);
}

/** A profile of `gpusPerNode` h200 GPUs per node, so a gang of N small nodes is a valid shape. */
export async function smallNodeProfile(cp: ControlPlane, name: string, gpusPerNode: number): Promise<void> {
  const r = await call(cp, cp.adminToken, "PUT", `/v1/profiles/${name}`, {
    series: "h200",
    gpus_per_node: gpusPerNode,
    default_gpus: 1,
    description: `lifecycle tests: ${gpusPerNode} per node`,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

export async function fleetView(cp: ControlPlane, fleet: string): Promise<FleetView> {
  const r = await call(cp, cp.adminToken, "GET", `/v1/fleets/${fleet}`);
  if (r.status !== 200 || !Array.isArray(r.body.nodes) || typeof r.body.totals !== "object") {
    throw new Error(`GET /v1/fleets/${fleet}: ${r.status} ${JSON.stringify(r.body).slice(0, 500)}`);
  }
  return r.body as unknown as FleetView;
}

export async function allocatedGpus(cp: ControlPlane, fleet: string): Promise<number> {
  return (await fleetView(cp, fleet)).totals.allocated;
}

/**
 * bash for train.sh: BEGIN (also appended with the job, rank, pid and run to `markerFile`, outside every
 * run directory, so a second launch of the same rank is visible even if its log lines were deduplicated),
 * one numbered line per tick, END (also appended to `markerFile`: from then on the rank trains no more).
 * `quiet`: the ticks are not printed (a training between two log lines): it then never meets a closed
 * pipe or a removed run directory, so losing its runner does not end it by accident.
 */
export function tickingScript(o: {
  ticks: number;
  tickSeconds: number;
  markerFile: string;
  quiet?: boolean;
}): string {
  const sink = o.quiet ? " > /dev/null" : "";
  return [
    "#!/usr/bin/env bash",
    "set -euo pipefail",
    `echo "BEGIN $FORGE_JOB_ID $FORGE_RANK $$ $STARFORGE_RUN_ID" >> '${o.markerFile}'`,
    "echo BEGIN",
    `for i in $(seq 1 ${o.ticks}); do echo "tick $i"${sink}; sleep ${o.tickSeconds}; done`,
    `echo "END $FORGE_JOB_ID $FORGE_RANK $$ $STARFORGE_RUN_ID" >> '${o.markerFile}'`,
    "echo END",
    "",
  ].join("\n");
}

/** Uploads a ticking workspace once; the digest can be shared by many jobs. */
export async function tickingWorkspace(
  cp: ControlPlane,
  token: string,
  o: { ticks: number; tickSeconds: number; markerFile: string; quiet?: boolean },
): Promise<string> {
  return uploadWorkspace(cp.url, token, [{ path: "exp/train.sh", content: tickingScript(o), mode: 0o755 }]);
}

/** Submits a custom bash job running `workspace`; `nodes` > 1 asks for a gang of that many nodes. */
export async function submitCustom(
  cp: ControlPlane,
  token: string,
  o: {
    name: string;
    fleet: string;
    workspace: string;
    maxRetries: number;
    gpusPerNode?: number;
    nodes?: number;
    profile?: string;
    /** `lifecycle.max_runtime_seconds` (a cluster's time limit). */
    maxRuntimeSeconds?: number;
    /** The job's image, for docker fleets. */
    image?: string | null;
  },
): Promise<string> {
  const spec = baseSpec({
    name: o.name,
    fleet: o.fleet,
    recipe: {
      name: "custom/custom",
      version: "1.0.0",
      digest: await recipeDigest(cp, token, "custom/custom"),
    },
    framework: { kind: "custom", version: "1", runtime_id: "bash", image: o.image ?? null },
    workspace: o.workspace,
    experimentDir: "exp",
    gpus: o.gpusPerNode ?? 1,
  });
  spec.resources.pools = [
    {
      name: "default",
      profile: o.profile ?? "h200",
      series: "h200",
      nodes: o.nodes ?? 1,
      gpus_per_node: o.gpusPerNode ?? 1,
    },
  ];
  spec.lifecycle = {
    max_retries: o.maxRetries,
    retry_on_user_failure: false,
    ...(o.maxRuntimeSeconds === undefined ? {} : { max_runtime_seconds: o.maxRuntimeSeconds }),
  };
  const r = await call(cp, token, "POST", "/v1/jobs", spec);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return (r.body.job as { id: string }).id;
}

/** The job with its runs typed with their placements. */
export async function jobDetail(
  cp: ControlPlane,
  token: string,
  id: string,
): Promise<Omit<JobState, "runs"> & { runs: RunDetail[] }> {
  return (await jobState(cp, token, id)) as unknown as Omit<JobState, "runs"> & { runs: RunDetail[] };
}

export async function logLines(
  cp: ControlPlane,
  token: string,
  id: string,
  runId?: string,
): Promise<string[]> {
  const q = runId ? `&run=${runId}` : "";
  const r = await call(cp, token, "GET", `/v1/jobs/${id}/logs?limit=1000${q}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return (r.body.lines as Array<{ line: string }>).map((l) => l.line);
}

export interface Mark {
  kind: "BEGIN" | "END";
  job: string;
  rank: number;
  pid: number;
  run: string;
}

/** The `BEGIN`/`END` lines the workloads appended to their marker file, in order. */
export function marks(markerFile: string): Mark[] {
  if (!existsSync(markerFile)) return [];
  return readFileSync(markerFile, "utf8")
    .split("\n")
    .map((line) => /^(BEGIN|END) (\S+) (\d+) (\d+) (\S+)$/.exec(line))
    .filter((m) => m !== null)
    .map((m) => ({
      kind: m[1] as Mark["kind"],
      job: m[2]!,
      rank: Number(m[3]),
      pid: Number(m[4]),
      run: m[5]!,
    }));
}

/** How many `BEGIN` (or `END`) lines were appended, per "<job> <rank>". */
export function markCounts(markerFile: string, kind: Mark["kind"] = "BEGIN"): Map<string, number> {
  const counts = new Map<string, number>();
  for (const m of marks(markerFile)) {
    if (m.kind === kind) counts.set(`${m.job} ${m.rank}`, (counts.get(`${m.job} ${m.rank}`) ?? 0) + 1);
  }
  return counts;
}

// processes ------------------------------------------------------------------------------------------

export interface WorkloadProcess {
  pid: number;
  pgid: number;
  jobId: string;
  runId: string;
  rank: number;
  /** CUDA_VISIBLE_DEVICES the process runtime gave it. */
  gpus: number[];
  /** FORGE_RUN_ROOT: the run directory, which lives under its agent's state dir. */
  runRoot: string;
  /**
   * `launch`: the process runtime's wrapper group (bash wrapper, bootstrap.sh, the runner); `training`:
   * the group the runner starts the training in (its own session).
   */
  group: "launch" | "training";
}

function environOf(pid: string): Map<string, string> | null {
  try {
    const raw = readFileSync(`/proc/${pid}/environ`, "utf8");
    const env = new Map<string, string>();
    for (const kv of raw.split("\0")) {
      const i = kv.indexOf("=");
      if (i > 0) env.set(kv.slice(0, i), kv.slice(i + 1));
    }
    return env;
  } catch {
    return null; // gone meanwhile, or a kernel thread
  }
}

function pgidOf(pid: string): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // pid (comm) state ppid pgrp …; comm may contain spaces, so split after the last ')'.
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(rest[2]);
  } catch {
    return null;
  }
}

/**
 * Every live process on this machine that belongs to one of `jobIds` (by the FORGE_JOB_ID the agent put
 * in the workload's environment), whatever its agent believes. Zombies are not counted as alive.
 */
export function workloadProcesses(jobIds: ReadonlySet<string>): WorkloadProcess[] {
  const out: WorkloadProcess[] = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    const env = environOf(pid);
    const jobId = env?.get("FORGE_JOB_ID");
    if (!env || !jobId || !jobIds.has(jobId)) continue;
    try {
      if (/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"))) continue;
    } catch {
      continue;
    }
    const pgid = pgidOf(pid);
    if (pgid === null) continue;
    // The process runtime's wrapper is `bash -c <script> forgelet-run …` and leads the launch group.
    let leader = "";
    try {
      leader = readFileSync(`/proc/${pgid}/cmdline`, "utf8");
    } catch {
      // the leader is gone; its group may live on
    }
    out.push({
      pid: Number(pid),
      pgid,
      jobId,
      runId: env.get("STARFORGE_RUN_ID") ?? "",
      rank: Number(env.get("FORGE_RANK") ?? "-1"),
      gpus: (env.get("CUDA_VISIBLE_DEVICES") ?? "")
        .split(",")
        .filter((s) => s !== "")
        .map(Number),
      runRoot: env.get("FORGE_RUN_ROOT") ?? "",
      group: leader.split("\0").includes("forgelet-run") ? "launch" : "training",
    });
  }
  return out;
}

/** Per "<job> <rank>": the launch groups and training groups alive (one launch → one of each at most). */
export function groupsByRank(
  procs: readonly WorkloadProcess[],
): Map<string, { launch: Set<number>; training: Set<number> }> {
  const out = new Map<string, { launch: Set<number>; training: Set<number> }>();
  for (const p of procs) {
    const key = `${p.jobId} ${p.rank}`;
    const cur = out.get(key) ?? { launch: new Set<number>(), training: new Set<number>() };
    cur[p.group].add(p.pgid);
    out.set(key, cur);
  }
  return out;
}

/** Which agent's run directory a workload process lives in. */
export function agentOf(p: WorkloadProcess, agents: readonly ForgeletProc[]): ForgeletProc | undefined {
  return agents.find((a) => p.runRoot.startsWith(`${a.stateDir}/`));
}

/** Counts "connected to" in the agent's output (each successful dial logs it once). */
export function connections(agent: ForgeletProc): number {
  return (agent.log().match(/connected to /g) ?? []).length;
}

/** Starts a killed/stopped agent again and waits for its new connection (not an old one in the log). */
export async function restartAgent(agent: ForgeletProc, timeoutMs = 20_000): Promise<void> {
  const before = connections(agent);
  await agent.start();
  await waitFor(`${agent.nodeId} to reconnect`, () => connections(agent) > before, timeoutMs, 50);
}

/** Waits until the fleet has `n` ready nodes with GPUs (a cluster agent's nodes; the agent itself has none). */
export async function waitGpuNodesReady(cp: ControlPlane, fleet: string, n: number, timeoutMs = 30_000) {
  return waitFor(
    `${n} ready GPU nodes in ${fleet}`,
    async () =>
      (await fleetView(cp, fleet)).nodes.filter((x) => x.status === "ready" && x.gpus.length > 0).length ===
      n,
    timeoutMs,
    200,
  );
}

/** Waits until every node of the fleet is `ready` (its agent said hello and was reconciled). */
export async function waitNodesReady(cp: ControlPlane, fleet: string, n: number, timeoutMs = 30_000) {
  return waitFor(
    `${n} ready nodes in ${fleet}`,
    async () => {
      const v = await fleetView(cp, fleet);
      return v.nodes.filter((x) => x.status === "ready").length === n ? v : undefined;
    },
    timeoutMs,
    100,
  );
}

/**
 * The end of every lifecycle proof: no process of these jobs alive anywhere on the machine, no live
 * workload process group known to any agent, every process group ever seen gone, and 0 GPUs allocated.
 * Waits (bounded) for stops in flight; returns how long that took.
 */
export async function expectNoOrphans(
  cp: ControlPlane,
  fleet: string,
  agents: readonly ForgeletProc[],
  jobIds: ReadonlySet<string>,
  seenPgids: ReadonlySet<number> = new Set(),
  timeoutMs = 20_000,
): Promise<number> {
  const t0 = Date.now();
  const alive = (g: number) => {
    try {
      process.kill(-g, 0);
      return true;
    } catch {
      return false;
    }
  };
  const state = async () => ({
    processes: workloadProcesses(jobIds).map(
      (p) => `${p.pid} (job ${p.jobId} rank ${p.rank}) ${procInfo(p.pid)}`,
    ),
    agentGroups: agents.flatMap((a) => a.liveWorkloads().map((g) => `${a.nodeId}:${g}`)),
    seenGroupsAlive: [...seenPgids].filter(alive),
    allocated: await allocatedGpus(cp, fleet),
  });
  let last = await state();
  while (
    last.processes.length + last.agentGroups.length + last.seenGroupsAlive.length + last.allocated > 0 &&
    Date.now() - t0 < timeoutMs
  ) {
    await sleep(100);
    last = await state();
  }
  expect(last, "orphans after the test").toEqual({
    processes: [],
    agentGroups: [],
    seenGroupsAlive: [],
    allocated: 0,
  });
  return Date.now() - t0;
}

/** A process's state, wait channel and command line (why it is still there, in an orphan failure). */
function procInfo(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const st = /\) (\S)/.exec(stat)?.[1] ?? "?";
    const wchan = readFileSync(`/proc/${pid}/wchan`, "utf8");
    const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim().slice(0, 160);
    return `[${st} ${wchan || "-"}] ${cmd}`;
  } catch {
    return "[gone]";
  }
}

/** Progress lines with the seconds since the test began (they show where a slow or hung test stands). */
export function stepper(tag: string): (msg: string) => void {
  const t0 = Date.now();
  return (msg) => console.log(`[${tag} +${((Date.now() - t0) / 1000).toFixed(1)} s] ${msg}`);
}

/** Where jobs and agents stand (for failure messages): each job's status, runs and pending reasons, agent log tails. */
export async function describeState(
  cp: ControlPlane,
  token: string,
  ids: readonly string[],
  agents: readonly ForgeletProc[],
): Promise<string> {
  const jobs = await Promise.all(
    ids.map(async (id) => {
      const d = await jobDetail(cp, token, id).catch((e: unknown) => String(e));
      if (typeof d === "string") return `${id}: ${d}`;
      const runs = d.runs.map((r) => `${r.id} ${r.status} ${r.reason ?? ""}`).join("; ");
      const pending = (d.job as { pending_reasons?: unknown }).pending_reasons;
      return `${id}: ${d.job.status} runs [${runs}] pending ${JSON.stringify(pending ?? [])}`;
    }),
  );
  const logs = agents.map((a) => `--- ${a.nodeId} ---\n${a.log().split("\n").slice(-15).join("\n")}`);
  return `${jobs.join("\n")}\n${logs.join("\n")}`;
}
