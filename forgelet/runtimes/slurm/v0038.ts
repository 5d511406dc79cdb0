/**
 * slurmrestd's v0.0.38 API (Slurm 22.05), the tested default. Its quirks, found against the real daemon:
 * - the job's nodes are pinned with `nodelist` (accepted by the parser though the OpenAPI document does
 *   not list it; `required_nodes` is refused as a "disabled key"; `#SBATCH` lines are not read);
 * - `environment` is required (an object); `job_state` is one string; `exit_code` a raw wait status;
 * - an unknown job is a 500 with error 2017; errors may come with a 200 and a job id;
 * - `requeue` makes a job requeueable whatever its value (`false` included), so it is never sent: a job
 *   Slurm requeues anyway (JobRequeue=1, the default) is cancelled by the runtime (runtime.ts);
 * - a heterogeneous job is `script` plus a `jobs` array (one property object per component, the schema's
 *   "Properties of an HetJob") instead of `job`; the answer's `job_id` is the leader's. `GET …/job/{leader}`
 *   lists every component (`het_job_id` = the leader, `het_job_offset` 0…n-1; 0 for a plain job), and
 *   `DELETE …/job/{leader}` cancels them all. Components never share a node: Slurm excludes each
 *   component's nodes from the others (two components pinned to one node are refused, error 2018).
 *   Verified on Slurm 22.05.8.
 */
import type {
  SlurmApi,
  SlurmComponent,
  SlurmComponentInfo,
  SlurmJobInfo,
  SlurmNodeInfo,
  SlurmSubmission,
} from "./api.js";
import { nodeState, parseGres } from "./api.js";
import { SlurmRejected, type SlurmRest, slurmErrors } from "./rest.js";

const BASE = "/slurm/v0.0.38";
const UNKNOWN_JOB = 2017;

type Json = Record<string, unknown>;
const str = (v: unknown) => (typeof v === "string" ? v : "");
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** The properties of one component: what every component shares, and its own nodes and share of them. */
export function jobProperties(sub: SlurmSubmission, component: SlurmComponent = sub.components[0]!): Json {
  const n = component.nodelist.length;
  return {
    name: sub.name,
    comment: sub.comment,
    environment: sub.environment,
    current_working_directory: sub.cwd,
    standard_output: sub.stdout,
    standard_error: sub.stderr,
    nodes: [n, n],
    nodelist: component.nodelist.join(","),
    tasks: n,
    tasks_per_node: 1,
    ...(component.gpusPerNode > 0 ? { gres: `gpu:${component.gpusPerNode}` } : {}),
    ...(component.cpusPerTask ? { cpus_per_task: component.cpusPerTask } : {}),
    ...(component.memoryPerNodeMb ? { memory_per_node: component.memoryPerNodeMb } : {}),
    ...(sub.timeLimitMinutes !== null ? { time_limit: sub.timeLimitMinutes } : {}),
    ...(sub.partition ? { partition: sub.partition } : {}),
    ...(sub.account ? { account: sub.account } : {}),
    ...(sub.qos ? { qos: sub.qos } : {}),
  };
}

/** The body of `POST …/job/submit`: `job` for one component, `jobs` for a heterogeneous job. */
export function submitBody(sub: SlurmSubmission): Json {
  if (sub.components.length === 0) throw new Error(`Slurm job ${sub.name} has no component`);
  return sub.components.length === 1
    ? { script: sub.script, job: jobProperties(sub) }
    : { script: sub.script, jobs: sub.components.map((c) => jobProperties(sub, c)) };
}

function componentInfo(j: Json): SlurmComponentInfo {
  return {
    id: num(j.job_id) ?? 0,
    offset: num(j.het_job_offset) ?? 0,
    state: str(j.job_state).toUpperCase(),
    reason: str(j.state_reason),
    exitStatus: num(j.exit_code),
    nodes: str(j.nodes),
  };
}

export function jobInfo(j: Json): SlurmJobInfo {
  const c = componentInfo(j);
  return {
    id: c.id,
    name: str(j.name),
    comment: str(j.comment),
    state: c.state,
    reason: c.reason,
    exitStatus: c.exitStatus,
    nodes: c.nodes,
  };
}

/**
 * Slurm's job entries as jobs: a plain job as it is, the components of a heterogeneous job as their
 * leader carrying all of them. A component whose leader is not among the entries is left out (it is
 * read through its leader).
 */
export function groupJobs(entries: readonly Json[]): SlurmJobInfo[] {
  const out: SlurmJobInfo[] = [];
  const parts = new Map<number, Json[]>();
  for (const e of entries) {
    const leader = num(e.het_job_id) ?? 0;
    if (leader === 0) out.push(jobInfo(e));
    else if (parts.has(leader)) parts.get(leader)!.push(e);
    else parts.set(leader, [e]);
  }
  for (const [leader, es] of parts) {
    const head = es.find((e) => num(e.job_id) === leader);
    if (!head) continue;
    const components = es.map(componentInfo).sort((a, b) => a.offset - b.offset);
    out.push({ ...jobInfo(head), components });
  }
  return out.sort((a, b) => a.id - b.id);
}

export function nodeInfo(n: Json): SlurmNodeInfo {
  const flags = Array.isArray(n.state_flags) ? (n.state_flags as unknown[]).map(String) : [];
  const gres = parseGres(str(n.gres));
  const base = str(n.state);
  return {
    name: str(n.name),
    address: str(n.address) || str(n.hostname) || str(n.name),
    hostname: str(n.hostname),
    state: nodeState(base, flags),
    slurmState: [base, ...flags].filter(Boolean).join("+"),
    reason: str(n.reason),
    gpus: gres.count,
    gpuType: gres.type,
    partitions: Array.isArray(n.partitions) ? (n.partitions as unknown[]).map(String) : [],
    cpus: num(n.cpus) ?? 0,
    memoryMb: num(n.real_memory) ?? 0,
  };
}

export class V0038 implements SlurmApi {
  readonly version = "v0.0.38";

  constructor(private readonly rest: SlurmRest) {}

  async submit(sub: SlurmSubmission): Promise<number> {
    const a = await this.rest.call("POST", `${BASE}/job/submit`, submitBody(sub));
    const id = num(a.body.job_id);
    const { text, numbers } = slurmErrors(a.body);
    if (a.status === 200 && id !== null && id > 0) return id;
    throw new SlurmRejected(`Slurm refused the job: ${text || `HTTP ${a.status}`}`, numbers[0] ?? null);
  }

  async job(id: number): Promise<SlurmJobInfo | null> {
    const a = await this.rest.call("GET", `${BASE}/job/${id}`);
    const { text, numbers } = slurmErrors(a.body);
    if (numbers.includes(UNKNOWN_JOB)) return null;
    const jobs = Array.isArray(a.body.jobs) ? (a.body.jobs as Json[]) : [];
    if (a.status !== 200 || jobs.length === 0) {
      throw new SlurmRejected(
        `reading Slurm job ${id} failed: ${text || `HTTP ${a.status}`}`,
        numbers[0] ?? null,
      );
    }
    return groupJobs(jobs).find((j) => j.id === id) ?? jobInfo(jobs[0]!);
  }

  async jobs(): Promise<SlurmJobInfo[]> {
    const a = await this.rest.call("GET", `${BASE}/jobs`);
    if (a.status !== 200)
      throw new SlurmRejected(`listing Slurm jobs failed: ${slurmErrors(a.body).text}`, null);
    return groupJobs(Array.isArray(a.body.jobs) ? (a.body.jobs as Json[]) : []);
  }

  async cancel(id: number, signal?: string): Promise<void> {
    const q = signal ? `?signal=${encodeURIComponent(signal)}` : "";
    const a = await this.rest.call("DELETE", `${BASE}/job/${id}${q}`);
    const { text, numbers } = slurmErrors(a.body);
    // Cancelling a job that already ended (or was purged) is done, not an error.
    if (a.status === 200 || numbers.includes(UNKNOWN_JOB) || /already completing or completed/i.test(text))
      return;
    throw new SlurmRejected(
      `cancelling Slurm job ${id} failed: ${text || `HTTP ${a.status}`}`,
      numbers[0] ?? null,
    );
  }

  async nodes(): Promise<SlurmNodeInfo[]> {
    const a = await this.rest.call("GET", `${BASE}/nodes`);
    if (a.status !== 200)
      throw new SlurmRejected(`listing Slurm nodes failed: ${slurmErrors(a.body).text}`, null);
    return (Array.isArray(a.body.nodes) ? (a.body.nodes as Json[]) : []).map(nodeInfo);
  }
}
