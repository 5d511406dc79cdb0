/**
 * slurmrestd's v0.0.38 API (Slurm 22.05), the tested default. Its quirks, found against the real daemon:
 * - the job's nodes are pinned with `nodelist` (accepted by the parser though the OpenAPI document does
 *   not list it; `required_nodes` is refused as a "disabled key"; `#SBATCH` lines are not read);
 * - `environment` is required (an object); `job_state` is one string; `exit_code` a raw wait status;
 * - an unknown job is a 500 with error 2017; errors may come with a 200 and a job id;
 * - `requeue` makes a job requeueable whatever its value (`false` included), so it is never sent: a job
 *   Slurm requeues anyway (JobRequeue=1, the default) is cancelled by the runtime (runtime.ts).
 */
import type { SlurmApi, SlurmJobInfo, SlurmNodeInfo, SlurmSubmission } from "./api.js";
import { nodeState, parseGres } from "./api.js";
import { SlurmRejected, type SlurmRest, slurmErrors } from "./rest.js";

const BASE = "/slurm/v0.0.38";
const UNKNOWN_JOB = 2017;

type Json = Record<string, unknown>;
const str = (v: unknown) => (typeof v === "string" ? v : "");
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** The `job` object of a v0.0.38 submission. */
export function jobProperties(sub: SlurmSubmission): Json {
  const n = sub.nodelist.length;
  return {
    name: sub.name,
    comment: sub.comment,
    environment: sub.environment,
    current_working_directory: sub.cwd,
    standard_output: sub.stdout,
    standard_error: sub.stderr,
    nodes: [n, n],
    nodelist: sub.nodelist.join(","),
    tasks: n,
    tasks_per_node: 1,
    ...(sub.gpusPerNode > 0 ? { gres: `gpu:${sub.gpusPerNode}` } : {}),
    ...(sub.cpusPerTask ? { cpus_per_task: sub.cpusPerTask } : {}),
    ...(sub.memoryPerNodeMb ? { memory_per_node: sub.memoryPerNodeMb } : {}),
    ...(sub.timeLimitMinutes !== null ? { time_limit: sub.timeLimitMinutes } : {}),
    ...(sub.partition ? { partition: sub.partition } : {}),
    ...(sub.account ? { account: sub.account } : {}),
    ...(sub.qos ? { qos: sub.qos } : {}),
  };
}

export function jobInfo(j: Json): SlurmJobInfo {
  return {
    id: num(j.job_id) ?? 0,
    name: str(j.name),
    comment: str(j.comment),
    state: str(j.job_state).toUpperCase(),
    reason: str(j.state_reason),
    exitStatus: num(j.exit_code),
    nodes: str(j.nodes),
  };
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
    const a = await this.rest.call("POST", `${BASE}/job/submit`, {
      script: sub.script,
      job: jobProperties(sub),
    });
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
    return jobInfo(jobs[0]!);
  }

  async jobs(): Promise<SlurmJobInfo[]> {
    const a = await this.rest.call("GET", `${BASE}/jobs`);
    if (a.status !== 200)
      throw new SlurmRejected(`listing Slurm jobs failed: ${slurmErrors(a.body).text}`, null);
    return (Array.isArray(a.body.jobs) ? (a.body.jobs as Json[]) : []).map(jobInfo);
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
