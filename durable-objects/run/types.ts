/** Types the Run DO's RPC surface shares with the Worker (views are what the API returns). */
import type { ArtifactRegistration } from "../../contract/ingest.schema.js";
import type { Json } from "../../contract/readback.schema.js";
import type { LogStreamName } from "./store.js";

export interface LogsAccepted {
  /** Lines stored by this request (new (rank, stream, seq) keys). */
  accepted: number;
  /** Lines already stored (a replayed batch). */
  duplicates: number;
  /** The seq of the batch's first line (assigned by the server when the batch had none). */
  first_seq: number;
  /** Every line of this (rank, stream) below this seq is visible to readers. */
  released_to: number;
  /** Lines of this (rank, stream) waiting for a missing predecessor. */
  held: number;
}

export interface LogLineView {
  cursor: number;
  rank: number;
  stream: LogStreamName;
  seq: number;
  ts: string;
  line: string;
}

export interface LogStreamView {
  rank: number;
  stream: LogStreamName;
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

export interface LogsQuery {
  offset: number;
  limit: number;
  rank?: number;
  stream?: LogStreamName;
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

/** What the Worker learned about an artifact's bytes before registering it. */
export interface ArtifactRecord extends Omit<ArtifactRegistration, "run_id"> {
  r2Key: string | null;
  verified: boolean;
}

/** A log batch after the Worker checked its chunks: the valid ones, each with its index in the batch. */
export interface LogsIngest {
  rank: number;
  stream: LogStreamName;
  /** The seq of the batch's chunk 0, or null for an unsequenced (console) batch. */
  seq: number | null;
  chunks: Array<{ index: number; text: string }>;
  /** How many chunks the batch had, rejected ones included. */
  count: number;
  eof: boolean;
}

/** Hardware readback: which samples (see RunReportsStore's HardwareFilter) and the page. */
export interface HardwareQuery {
  key?: string;
  node?: string;
  gpu?: number;
  after: number;
  limit: number;
}

/** A lifecycle report as the Run DO keeps it. */
export interface LifecycleRecord {
  rank: number;
  event: string;
  ts: string | number | null | undefined;
  exitCode: number | null;
  reason: string | null;
}
