/**
 * What the job read routes answer about a run's reports beyond logs and metrics: hyperparameters,
 * hardware samples, the run's timeline, its environment and its validation samples (docs/api.md). The
 * Worker builds these shapes and the CLI parses them; objects are loose so that a field added later does
 * not break an older client.
 */
import { z } from "zod";
import type { LogStream } from "./ingest.schema.js";

/** Any JSON value (what clients attach freely: hparams, probes, samples). */
export const Json = z.json();
export type Json = z.infer<typeof Json>;

export const HparamsView = z.looseObject({
  run_id: z.string(),
  /** Each top-level name with its JSON value, as the run last reported it. */
  params: z.record(z.string(), Json),
  updated_at: z.string().nullable(),
});
export type HparamsView = z.infer<typeof HparamsView>;

const HardwareIds = {
  node_id: z.string().nullable(),
  worker_id: z.string().nullable(),
  gpu_idx: z.number().nullable(),
  gpu_uuid: z.string().nullable(),
};
export const HardwareSample = z.looseObject({ ts: z.string(), value: z.number() });

/** Without `key`: one entry per series (key, node, worker, gpu) with its count and latest sample. */
export const HardwareSeriesList = z.looseObject({
  run_id: z.string(),
  series: z.array(
    z.looseObject({ key: z.string(), ...HardwareIds, count: z.number(), last: HardwareSample }),
  ),
});
export type HardwareSeriesList = z.infer<typeof HardwareSeriesList>;

/** With `key`: that key's series with their samples in time order; `next_after` pages on. */
export const HardwareSeriesPoints = z.looseObject({
  run_id: z.string(),
  key: z.string(),
  series: z.array(z.looseObject({ ...HardwareIds, points: z.array(HardwareSample) })),
  /** Pass as `after` for the next page (epoch ms of the last sample returned); null on the last page. */
  next_after: z.number().nullable(),
});
export type HardwareSeriesPoints = z.infer<typeof HardwareSeriesPoints>;

export const LifecycleReportView = z.looseObject({
  rank: z.number(),
  event: z.string(),
  ts: z.string(),
  exit_code: z.number().nullable(),
  reason: z.string().nullable(),
  received_at: z.string(),
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
  run_id: z.string(),
  run: z.looseObject({
    id: z.string(),
    attempt: z.number(),
    status: z.string(),
    allocated_at: z.string(),
    ended_at: z.string().nullable(),
    exit_code: z.number().nullable(),
    reason: z.string().nullable(),
  }),
  lifecycle: z.array(LifecycleReportView),
  /** The job's transitions from this run's dispatch to its end. */
  transitions: z.array(TransitionView),
});
export type RunEventsView = z.infer<typeof RunEventsView>;

export const EnvironmentProbeView = z.looseObject({
  hostname: z.string().nullable(),
  received_at: z.string(),
  /** The probe as the client sent it, without run_id. */
  probe: z.record(z.string(), Json),
});
export const EnvironmentNodeView = z.looseObject({
  hostname: z.string(),
  cpu: Json,
  gpu: Json,
  updated_at: z.string(),
});
export const EnvironmentView = z.looseObject({
  run_id: z.string(),
  probes: z.array(EnvironmentProbeView),
  nodes: z.array(EnvironmentNodeView),
});
export type EnvironmentView = z.infer<typeof EnvironmentView>;

export const ValidationStepView = z.looseObject({
  step: z.number(),
  total_chunks: z.number(),
  chunks_received: z.number(),
  total_samples: z.number(),
  samples_received: z.number(),
  /** Every chunk and every sample the client announced has arrived. */
  complete: z.boolean(),
  avg_reward: z.number().nullable(),
  dist: Json,
  updated_at: z.string(),
});
export type ValidationStepView = z.infer<typeof ValidationStepView>;

export const ValidationSampleView = z.looseObject({
  idx: z.number(),
  reward: z.number().nullable(),
  user: Json,
  assistant: Json,
  env: Json,
});
export type ValidationSampleView = z.infer<typeof ValidationSampleView>;

/** Without `step`: every step's summary. */
export const ValidationStepsView = z.looseObject({ run_id: z.string(), steps: z.array(ValidationStepView) });
export type ValidationStepsView = z.infer<typeof ValidationStepsView>;

/** With `step`: its summary and its samples by idx; `next_after` pages on (null on the last page). */
export const ValidationSamplesView = z.looseObject({
  run_id: z.string(),
  step: ValidationStepView,
  samples: z.array(ValidationSampleView),
  next_after: z.number().nullable(),
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
