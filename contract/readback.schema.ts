/**
 * What the job read routes answer about a run's reports beyond logs and metrics: hyperparameters,
 * hardware samples, the run's timeline, its environment and its validation samples (docs/api.md). The
 * Worker builds these shapes and the CLI parses them; objects are loose so that a field added later does
 * not break an older client.
 */
import { z } from "zod";
import { RunView } from "./fleet.schema.js";
import type { LogStream } from "./ingest.schema.js";

/** Any JSON value (what clients attach freely: hparams, probes, samples). */
export const Json = z.json();
export type Json = z.infer<typeof Json>;

/** The run a read route answered about. */
const RUN_ID = "The run read: the one `run` names (`run_…`), else the job's current run, else its latest";

export const HparamsView = z.looseObject({
  run_id: z.string().describe(RUN_ID),
  params: z
    .record(z.string(), Json)
    .describe("Each top-level name with its JSON value, as the run last reported it"),
  updated_at: z
    .string()
    .nullable()
    .describe("When the latest report arrived, ISO 8601 UTC; null when the run reported none"),
});
export type HparamsView = z.infer<typeof HparamsView>;

const HardwareIds = {
  node_id: z
    .string()
    .nullable()
    .describe("The Ray node that sampled; null outside Ray (or if none was sent)"),
  worker_id: z
    .string()
    .nullable()
    .describe("The worker that sampled (outside Ray the host or process); null if none was sent"),
  gpu_idx: z.number().nullable().describe("The GPU's index; null for host keys (`cpu.*`, `mem.*`)"),
  gpu_uuid: z
    .string()
    .nullable()
    .describe("The GPU's UUID as the client sent it, e.g. `GPU-5c1e…`; null if none"),
};
export const HardwareSample = z.looseObject({
  ts: z
    .string()
    .describe("When it was sampled, ISO 8601 UTC: the client's time, else when the server received it"),
  value: z.number().describe("The sampled value"),
});

/** Without `key`: one entry per series (key, node, worker, gpu) with its count and latest sample. */
export const HardwareSeriesList = z.looseObject({
  run_id: z.string().describe(RUN_ID),
  series: z
    .array(
      z.looseObject({
        key: z.string().describe("What is sampled, e.g. `gpu.util`"),
        ...HardwareIds,
        count: z.number().describe("How many samples the series holds"),
        last: HardwareSample.describe("Its newest sample"),
      }),
    )
    .describe("Every series (key, node_id, worker_id, gpu_idx) the filters keep, by key"),
});
export type HardwareSeriesList = z.infer<typeof HardwareSeriesList>;

/** With `key`: that key's series with their samples in time order; `next_after` pages on. */
export const HardwareSeriesPoints = z.looseObject({
  run_id: z.string().describe(RUN_ID),
  key: z.string().describe("The key asked for"),
  series: z
    .array(
      z.looseObject({
        ...HardwareIds,
        points: z.array(HardwareSample).describe("The page's samples of this series, in time order"),
      }),
    )
    .describe("The page's samples grouped by series (node_id, worker_id, gpu_idx)"),
  /** Pass as `after` for the next page (epoch ms of the last sample returned); null on the last page. */
  next_after: z
    .number()
    .nullable()
    .describe("The next page's `after`: the page's last sample time in epoch ms; null on the last page"),
});
export type HardwareSeriesPoints = z.infer<typeof HardwareSeriesPoints>;

export const LifecycleReportView = z.looseObject({
  rank: z.number().describe("The rank that reported"),
  event: z.string().describe("What it reported: `started`, `succeeded` or `failed`"),
  ts: z
    .string()
    .describe("When it happened, ISO 8601 UTC: the rank's time, else when the server received the report"),
  exit_code: z.number().nullable().describe("The exit code the rank reported; null if it sent none"),
  reason: z.string().nullable().describe("Why the rank ended, as it reported it; null if it sent none"),
  received_at: z.string().describe("When the server received the report, ISO 8601 UTC"),
});
export type LifecycleReportView = z.infer<typeof LifecycleReportView>;

export const TransitionView = z.looseObject({
  seq: z.number().describe("The event's number in its job's event log, increasing with each event"),
  ts: z.string().describe("When the transition happened (ISO 8601 UTC)"),
  from: z
    .string()
    .nullable()
    .describe("The job's status before, e.g. `QUEUED`; null for the `admitted` event that created it"),
  to: z.string().describe("The job's status after (the same as `from` for `anomaly` and `rerouted` events)"),
  edge: z
    .string()
    .describe("The transition's name, e.g. `admitted`, `dispatch`, `failed`, `retry`, `anomaly`"),
  actor: z
    .string()
    .describe("Who caused it: `user:<name>`, `agent:<node id>` or `runner:<node id>`, or `system:<part>`"),
  detail: Json,
});

/** A run's timeline: the ledger's view of it, what its ranks reported, and the job's state changes. */
export const RunEventsView = z.looseObject({
  run_id: z.string().describe(RUN_ID),
  run: RunView.pick({
    id: true,
    attempt: true,
    status: true,
    allocated_at: true,
    ended_at: true,
    exit_code: true,
    reason: true,
  }).describe("The run as the ledger records it"),
  lifecycle: z
    .array(LifecycleReportView)
    .describe("What its ranks reported: the first report of each event per rank, in the order received"),
  transitions: z
    .array(TransitionView)
    .describe("The job's transitions from this run's dispatch to its end (all of them: GET /v1/jobs/{id})"),
});
export type RunEventsView = z.infer<typeof RunEventsView>;

export const EnvironmentProbeView = z.looseObject({
  hostname: z
    .string()
    .nullable()
    .describe("The host the probe describes (its `hostname` or `host.hostname`); null if it names none"),
  received_at: z.string().describe("When the server first received this probe, ISO 8601 UTC"),
  probe: z.record(z.string(), Json).describe("The probe as the client sent it, without `run_id`"),
});
export const EnvironmentNodeView = z.looseObject({
  hostname: z.string().describe("The node's host name, which its entry is stored by"),
  cpu: Json,
  gpu: Json,
  updated_at: z.string().describe("When its latest entry arrived, ISO 8601 UTC"),
});
export const EnvironmentView = z.looseObject({
  run_id: z.string().describe(RUN_ID),
  probes: z
    .array(EnvironmentProbeView)
    .describe("Each distinct environment probe the run sent (an identical one is kept once), oldest first"),
  nodes: z
    .array(EnvironmentNodeView)
    .describe("The run's nodes by host name, each entry as last sent plus `updated_at`"),
});
export type EnvironmentView = z.infer<typeof EnvironmentView>;

export const ValidationStepView = z.looseObject({
  step: z.number().describe("The training step the samples were validated at"),
  total_chunks: z
    .number()
    .describe("How many chunks the step's samples are sent in, as the latest chunk said"),
  chunks_received: z.number().describe("How many distinct chunks of the step arrived"),
  total_samples: z.number().describe("How many samples the step has, as the latest chunk said"),
  samples_received: z.number().describe("How many distinct samples (by `idx`) of the step are stored"),
  complete: z.boolean().describe("True when every chunk and every sample the client announced has arrived"),
  avg_reward: z
    .number()
    .nullable()
    .describe("The step's average reward, from the latest chunk that sent one; null if none did"),
  dist: Json,
  updated_at: z.string().describe("When the step's latest chunk arrived, ISO 8601 UTC"),
});
export type ValidationStepView = z.infer<typeof ValidationStepView>;

export const ValidationSampleView = z.looseObject({
  idx: z.number().describe("The sample's index in its step"),
  reward: z.number().nullable().describe("The sample's reward; null if none was sent"),
  user: Json,
  assistant: Json,
  env: Json,
});
export type ValidationSampleView = z.infer<typeof ValidationSampleView>;

/** Without `step`: every step's summary. */
export const ValidationStepsView = z.looseObject({
  run_id: z.string().describe(RUN_ID),
  steps: z.array(ValidationStepView).describe("Every step the run sent validation samples for, by step"),
});
export type ValidationStepsView = z.infer<typeof ValidationStepsView>;

/** With `step`: its summary and its samples by idx; `next_after` pages on (null on the last page). */
export const ValidationSamplesView = z.looseObject({
  run_id: z.string().describe(RUN_ID),
  step: ValidationStepView.describe("The step's summary"),
  samples: z.array(ValidationSampleView).describe("The page's samples of the step, by `idx`"),
  next_after: z
    .number()
    .nullable()
    .describe("The next page's `after`: the `idx` of the page's last sample; null on the last page"),
});
export type ValidationSamplesView = z.infer<typeof ValidationSamplesView>;

// Run data as the read routes answer it (the Run DO builds these; the console renders them) ----------

export interface LogLineView {
  cursor: number;
  rank: number;
  stream: LogStream;
  seq: number;
  ts: string;
  line: string;
}

export interface LogStreamView {
  rank: number;
  stream: LogStream;
  released_to: number;
  held: number;
  /** One past the last line, once the client said eof; null before. */
  eof_seq: number | null;
}

export interface LogsPage {
  lines: LogLineView[];
  next_offset: number;
  /** The run is over: no line will be held back any more. */
  ended: boolean;
  streams: LogStreamView[];
}

export interface MetricPointView {
  step: number;
  value: number;
  ts: string;
}

export interface MetricSeries {
  key: string;
  points: MetricPointView[];
  /** Pass as `after` for the next page; null on the last page. */
  next_after: number | null;
}

export interface MetricKeyView {
  key: string;
  count: number;
  last: MetricPointView;
}

export interface ArtifactView {
  path: string;
  kind: string;
  step: number | null;
  size_bytes: number | null;
  digest: string | null;
  /** The server checked the stored bytes against `digest` (true for uploads through the Worker). */
  verified: boolean;
  /** Bytes are stored and downloadable (false for an artifact registered by path only). */
  stored: boolean;
  /** Whatever JSON the client attached (evaluation scores, …). */
  metrics: Record<string, Json> | null;
  registered_at: string;
}
