/** Types the Fleet DO's RPC surface shares with the Worker. */
import type { JobView, Quota, TimeWindow } from "../contract/api.schema.js";
import type { Entrypoint } from "../contract/catalog.schema.js";
import type { JobSpec } from "../contract/jobspec.schema.js";
import type { Placement } from "../contract/launch-request.schema.js";
import type { PendingReason } from "../contract/pending-reasons.schema.js";

export interface FleetConfig {
  id: string;
  name: string;
  kind: string;
  windows: TimeWindow[];
  draining: boolean;
  drainNote: string | null;
}

export interface SubmitInput {
  jobId: string;
  userId: string;
  userName: string;
  spec: JobSpec;
  priority: number;
  quota: Quota;
  blobDigests: string[];
  /** The job capsule (file name → digest) current at admission, recorded with the job; null if none. */
  capsule: Record<string, string> | null;
  /** Resolved at admission from the catalog: how to start it and which image runs it. */
  launch: { entrypoint: Entrypoint; image: string | null };
}

export type JobAction = "stop" | "pause" | "resume";

export interface Actor {
  userId: string;
  name: string;
  admin: boolean;
}

export interface RunView {
  id: string;
  attempt: number;
  epoch: number;
  status: string;
  placement: Placement[];
  gpus: number;
  allocated_at: string;
  ended_at: string | null;
  exit_code: number | null;
  reason: string | null;
  /** The checkpoint this run continued from (set when its launch was first built), or null. */
  resumed_from: { run_id: string; step: number | null } | null;
}

/** The API's job view plus its runs, as the Fleet DO sees it right now. */
export interface JobDetail extends JobView {
  runs: RunView[];
}

export interface NodeView {
  id: string;
  name: string;
  series: string;
  /** ready | lost (an agent that went silent) */
  status: string;
  agent: boolean;
  lost_since: string | null;
  runtime: string | null;
  labels: Record<string, string>;
  gpus: Array<{ index: number; run_id: string | null; job_id: string | null }>;
}

export interface FleetInspect {
  fleet_id: string;
  draining: boolean;
  drain_note: string | null;
  windows: TimeWindow[];
  nodes: NodeView[];
  totals: { gpus: number; allocated: number; free: number; queued: number; running: number };
  queue: Array<{
    job_id: string;
    user_id: string;
    priority: number;
    gpus: number;
    pending_reasons: PendingReason[];
  }>;
}

/** One thing that happened to a rank of a run, from its agent or from the runner inside it. */
export interface RunEventInput {
  runId: string;
  epoch: number;
  rank: number;
  event:
    | "accepted"
    | "launched"
    | "started"
    | "exited"
    | "stopped"
    | "launch_failed"
    | "succeeded"
    | "failed";
  exitCode: number | null;
  reason: string | null;
  /** An infrastructure failure (node, runtime, host OOM) rather than the workload's own exit. */
  infra: boolean;
  source: "agent" | "runner";
}
