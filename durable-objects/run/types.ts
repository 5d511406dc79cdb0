/** Types the Run DO's RPC surface shares with the Worker (views are what the API returns). */
import type { ArtifactRegistration } from "../../contract/ingest.schema.js";

/** The views are the API's answers, declared in the contract; re-exported for the object's code. */
export type {
  ArtifactView,
  LogLineView,
  LogStreamView,
  LogsPage,
  MetricKeyView,
  MetricPointView,
  MetricSeries,
} from "../../contract/readback.schema.js";

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

export interface LogsQuery {
  offset: number;
  limit: number;
  rank?: number;
  stream?: LogStreamName;
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
