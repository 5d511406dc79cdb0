/**
 * The Fleet's shapes shared across layers: what the Worker hands the Fleet DO (config, submit input,
 * actions, run events) and what the DO answers, which the API returns and the CLI parses (job detail,
 * runs, nodes, the fleet view, drain reports). Views are zod schemas (loose, so a field added later does
 * not break an older client); RPC inputs are plain types.
 */

import { z } from "zod";
import { Orphan } from "./agent-frames.schema.js";
import { FleetNetwork, JobView, PendingReasons, type Quota, TimeWindow } from "./api.schema.js";
import type { Entrypoint } from "./catalog.schema.js";
import { DiagnosisView, FleetDiagnosis } from "./diagnosis-policy.js";
import type { JobSpec } from "./jobspec.schema.js";
import { Placement } from "./launch-request.schema.js";
import type { PlacementCandidate } from "./placement.js";

export const FleetConfig = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.string(),
  windows: z.array(TimeWindow),
  draining: z.boolean(),
  drainNote: z.string().nullable(),
  /** Absent in configurations stored before distributed jobs: the defaults then. */
  network: FleetNetwork.optional(),
  /**
   * The images a job may name (contract/image-allowlist.ts), checked again by the Fleet DO when it queues
   * a job, so a narrowed list binds every submit answered after the change. Absent in configurations
   * stored before: the fleet then leaves the check to admission alone.
   */
  imageAllowlist: z.array(z.string()).optional(),
  /** What admission does when the HuggingFace hub cannot answer; checked again when the job is queued. */
  hfUnavailable: z.enum(["admit", "refuse"]).optional(),
  /** Preemptions that may start per minute (rules/preempt.ts); absent in older configurations: 10. */
  preemptionsPerMinute: z.number().int().min(0).optional(),
  /** The fleet's failure rules and retry overrides (contract/diagnosis-policy.ts); absent: the built-ins. */
  diagnosis: FleetDiagnosis.optional(),
});
export type FleetConfig = z.infer<typeof FleetConfig>;

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
  /** The image is the catalog framework's own default (an admin published it): no allowlist applies. */
  imageFromCatalog?: boolean;
  /**
   * Why the HuggingFace preflight could not check the job's repos (the hub did not answer and the fleet, as
   * the submitting isolate cached it, admits unchecked); the Fleet DO refuses it if the fleet refuses now.
   */
  hfUnchecked?: string;
  /**
   * A job placed over several fleets (worker/submit/placement.ts): every candidate and why it was or was
   * not chosen, recorded on its `admitted` event.
   */
  placement?: PlacementCandidate[];
  /** The request's Idempotency-Key and body hash, recorded with the admission D1 projects. */
  idemKey?: string | null;
  requestHash?: string | null;
  /**
   * Queued while the user's object is asked at the same time: the job waits, unplaced and unprojected,
   * for the reservation's confirmation (FleetDO.confirmAdmissions) or its withdrawal.
   */
  unconfirmed?: boolean;
}

export const JOB_ACTIONS = ["stop", "pause", "resume"] as const;
export type JobAction = (typeof JOB_ACTIONS)[number];

export interface Actor {
  userId: string;
  name: string;
  admin: boolean;
}

export const RunView = z.looseObject({
  id: z.string().describe("The run's id, `run_` plus a lowercase ULID"),
  attempt: z.number().describe("Which attempt of the job it is, counting from 1"),
  epoch: z
    .number()
    .describe("The lease epoch of its dispatch: agent reports carrying another epoch are refused as stale"),
  status: z
    .string()
    .describe(
      "`SUBMITTED`, then `RUNNING` once started; once ended, the job's resting state, e.g. `STOPPED`",
    ),
  placement: z
    .array(Placement)
    .describe("Where each rank runs: its pool, node and the exact GPU indices it was given"),
  gpus: z.number().describe("GPUs the run holds in all"),
  allocated_at: z.string().describe("When it took its GPUs, ISO 8601 UTC"),
  ended_at: z
    .string()
    .nullable()
    .describe("When it released its GPUs (every rank gone), ISO 8601 UTC; null while it holds them"),
  exit_code: z
    .number()
    .nullable()
    .describe("Its exit code (0 when every rank exited 0); null while it runs or if none was reported"),
  reason: z
    .string()
    .nullable()
    .describe("Why it ended, in words, e.g. `stop by ada`; null while it runs or if none was given"),
  /** The checkpoint this run continued from (set when its launch was first built), or null. */
  resumed_from: z
    .looseObject({
      run_id: z.string().describe("The run (`run_…`) that stored the checkpoint"),
      step: z.number().nullable().describe("The checkpoint's training step; null if it has none"),
    })
    .nullable()
    .describe("The checkpoint it continued from; null: it started fresh"),
  /** It ran beyond its team's guarantee, on GPUs borrowed from idle teams (docs/scheduling.md "Teams"). */
  borrowed: z
    .boolean()
    .default(false)
    .describe("True when it ran beyond its team's guarantee, on GPUs borrowed from idle teams"),
  /**
   * GET /v1/jobs/:id, a preempted run once released: the steps its training reported past its newest
   * stored checkpoint (work lost to the preemption); null when it reported no steps.
   */
  steps_lost: z
    .number()
    .nullable()
    .optional()
    .describe(
      "A preempted run once released: steps trained past the job's newest checkpoint; null: none reported",
    ),
  /** Why a failed run failed (docs/operations.md "Failure diagnosis"); null until diagnosed, or if it did not fail. */
  diagnosis: DiagnosisView.nullable()
    .default(null)
    .describe("Why it failed (`class`, `summary`, `hint`…); null until diagnosed, or if it did not fail"),
});
export type RunView = z.infer<typeof RunView>;

/** The API's job view plus its runs, as the Fleet DO sees it right now. */
export const JobDetail = z.looseObject({
  ...JobView.shape,
  runs: z.array(RunView).describe("The job's runs, one per attempt, oldest first"),
});
export type JobDetail = z.infer<typeof JobDetail>;

export const NodeView = z.looseObject({
  id: z.string().describe("The node's id, `nod_` plus a lowercase ULID"),
  name: z.string().describe("The node's name in the fleet"),
  series: z.string().describe("The series of its GPUs, e.g. `h100`"),
  /** ready | lost (an agent that went silent) */
  status: z
    .string()
    .describe("`ready`, `lost` (its agent went silent), or a cluster node's `drain` or `down`"),
  agent: z
    .boolean()
    .describe("True for a node that dials in (an agent or a cluster node one fronts); false: an admin node"),
  lost_since: z
    .string()
    .nullable()
    .describe("When its agent went silent, ISO 8601 UTC; null unless `status` is `lost`"),
  runtime: z
    .string()
    .nullable()
    .describe(
      "How it runs jobs, e.g. `docker`, `process`, `slurm`; null: not said (an admin node registered without)",
    ),
  /** The address its peers reach this node at (an agent's --advertise-addr); null for admin nodes. */
  advertise_addr: z
    .string()
    .nullable()
    .describe("The address its peers reach it at (its agent's `--advertise-addr`); null: none given"),
  /** A cluster node: the agent (node id) that fronts it; null for an agent's own host or an admin node. */
  agent_id: z
    .string()
    .nullable()
    .describe(
      "A cluster node: the node id of the agent that fronts it; null for an agent's own host or an admin node",
    ),
  /** Why it takes no new runs, in its cluster's words (e.g. "drain: bad fan"); null when ready. */
  status_reason: z
    .string()
    .nullable()
    .describe("Why it takes no new runs, in its cluster's words, e.g. `drain: bad fan`; null when ready"),
  /** What it runs: `image` (jobs with an image), `bare` (image-less jobs); admin nodes run both. */
  workloads: z
    .array(z.string())
    .describe("What it runs: `image` (jobs with an image), `bare` (jobs without)"),
  labels: z.record(z.string(), z.string()).describe("Its labels, key → value, e.g. `rack`"),
  gpus: z
    .array(
      z.looseObject({
        index: z.number().describe("The GPU's index on the node, from 0"),
        run_id: z.string().nullable().describe("The run (`run_…`) holding this GPU; null: free"),
        job_id: z.string().nullable().describe("The job (`job_…`) of the run holding this GPU; null: free"),
      }),
    )
    .describe("Its GPUs by index, with the run and job holding each"),
  /** An admin took it out of scheduling (cordon, drain, revoke): no new runs; running ones go on. */
  cordoned: z
    .boolean()
    .default(false)
    .describe(
      "True when an admin took it out of scheduling (cordon, drain, revoke): no new runs; running ones go on",
    ),
  cordon_note: z
    .string()
    .nullable()
    .default(null)
    .describe("The admin's note on the cordon; null when not cordoned or no note was given"),
  /** Its agent was revoked: refused from then on; its runs are handled like a lost agent's. */
  revoked: z
    .boolean()
    .default(false)
    .describe(
      "True when its agent was revoked: refused from then on; its runs are handled as a lost agent's",
    ),
  /** Workloads its agent's last start-up sweep found that nothing claimed (stopped, or reported). */
  orphans: z
    .array(Orphan)
    .default([])
    .describe("Workloads its agent's last start-up sweep found that no run claimed, stopped or reported"),
});
export type NodeView = z.infer<typeof NodeView>;

/** What an admin does to one node (docs/api.md "Nodes"). */
export const NODE_ACTIONS = ["cordon", "uncordon", "drain", "revoke", "remove"] as const;
export type NodeAction = (typeof NODE_ACTIONS)[number];

export const FleetInspect = z.looseObject({
  fleet_id: z.string().describe("The fleet's id, `flt_` plus a lowercase ULID"),
  draining: z.boolean().describe("True while the fleet drains for maintenance: submits are refused"),
  drain_note: z.string().nullable().describe("Why it drains, the admin's note; null when it is not draining"),
  windows: z
    .array(TimeWindow)
    .describe(
      "When each GPU series may run jobs: they start only inside a window and are stopped when it closes (queued again when it reopens); a series no window names is always open",
    ),
  nodes: z.array(NodeView).describe("Its nodes, each with its GPUs and the runs holding them"),
  totals: z
    .looseObject({
      gpus: z.number().describe("GPUs on all its nodes"),
      allocated: z.number().describe("GPUs held by runs"),
      free: z
        .number()
        .describe("GPUs no run holds, `gpus` minus `allocated` (those of cordoned or lost nodes included)"),
      queued: z.number().describe("Its jobs in `QUEUED`"),
      running: z.number().describe("Its jobs holding GPUs: in `SUBMITTED`, `PENDING` or `RUNNING`"),
    })
    .describe("Its GPUs and jobs, counted now"),
  queue: z
    .array(
      z.looseObject({
        job_id: z.string().describe("The job's id (`job_…`)"),
        user_id: z.string().describe("The id (`usr_…`) of its owner"),
        priority: z.number().describe("Its priority within its class, higher first"),
        priority_class: z
          .string()
          .describe("Its priority class (`lifecycle.priority_class`, default `normal`)"),
        team: z
          .string()
          .nullable()
          .describe("The team it runs for, settled at admission; null: its submitter was in no team"),
        gpus: z.number().describe("GPUs it needs in all"),
        pending_reasons: PendingReasons.describe("Why it is not running yet"),
      }),
    )
    .describe(
      "Its `QUEUED` jobs in queue order (by admission: a job queued again keeps its place), which is not the order they start in; each with why it waits",
    ),
});
export type FleetInspect = z.infer<typeof FleetInspect>;

export const DrainBlocker = z.looseObject({
  job_id: z.string().describe("The job's id (`job_…`)"),
  name: z.string().describe("The job's name"),
  status: z.string().describe("Its status, e.g. `RUNNING`, or `PAUSED` while its agent confirms the stop"),
  reason: z
    .string()
    .describe(
      "Why it still holds GPUs and what to do, in words, e.g. that it cannot resume from a checkpoint",
    ),
});
export type DrainBlocker = z.infer<typeof DrainBlocker>;

export const DrainReport = z.looseObject({
  config: FleetConfig,
  /** Jobs the drain holds now: paused while running, or held while queued (all calls so far). */
  paused: z.array(z.string()),
  held: z.array(z.string()),
  /** Jobs still holding GPUs that the drain will not pause. Maintenance must wait for them. */
  blockers: z.array(DrainBlocker),
  /** On resume: the jobs re-queued, in queue order. */
  resumed: z.array(z.string()),
});
export type DrainReport = z.infer<typeof DrainReport>;

/** One thing that happened to a rank of a run, from its agent or from the runner inside it. */
export interface RunEventInput {
  runId: string;
  epoch: number;
  rank: number;
  event:
    | "accepted"
    | "waiting"
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
  /** The agent whose frame this is: it may only report ranks on the nodes it serves. */
  agentId?: string;
}

/**
 * What a run event did. `runOver`: the run has ended on the control plane (released, or no longer in a
 * running state), so ingest knows it without reading the ledger back.
 */
export type RunEventOutcome =
  | {
      kind: "applied" | "ignored";
      stopWorkload: boolean;
      runOver: boolean;
      /** The rank already ended successfully: let the workload finish by itself before stopping it. */
      finishing?: true;
    }
  | { kind: "stale_epoch" | "unknown_run"; stopWorkload: true; runOver: boolean };

/**
 * What a submit would do now (POST /v1/jobs?dry_run=1): for each job, whether it would start at once,
 * preempt running jobs (which), or wait (why). Nothing is queued, reserved or changed.
 */
export const DryRunJob = z.looseObject({
  would: z
    .enum(["start", "preempt", "wait"])
    .describe("What the submit would do now: `start`, `preempt` running jobs, or `wait`"),
  /** Where it would start (would = start), by rank. */
  placement: z
    .array(Placement)
    .describe("Where it would start, by rank (`would` = `start`); empty otherwise"),
  pending_reasons: PendingReasons.describe(
    "Why it would not start at once (`would` = `wait` or `preempt`); empty when it would start",
  ),
  /** The running jobs it would stop with a checkpoint (would = preempt). */
  preempts: z
    .array(
      z.looseObject({
        job_id: z.string().describe("The running job's id (`job_…`)"),
        name: z.string().describe("Its name"),
        user_id: z.string().describe("The id (`usr_…`) of its owner"),
        priority_class: z.string().describe("Its priority class"),
        gpus: z.number().describe("GPUs it holds"),
      }),
    )
    .describe("The running jobs it would stop with a checkpoint (`would` = `preempt`); empty otherwise"),
});
export type DryRunJob = z.infer<typeof DryRunJob>;
