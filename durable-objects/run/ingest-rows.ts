/**
 * The Run DO's ingest RPC arguments as the rows its stores keep: reported times as epoch milliseconds
 * (policy.ts normalizeTs), absent ids as the keys' placeholders (reports-store.ts NO_ID, NO_GPU), JSON
 * as text.
 */
import type {
  HardwarePoint,
  MetricPoint,
  ValidationChunk,
  ValidationSample,
} from "../../contract/ingest.schema.js";
import { normalizeTs } from "./policy.js";
import { type HardwareRow, NO_GPU, NO_ID, type RunReportsStore } from "./reports-store.js";
import type { ArtifactRow, EventRow, MetricRow } from "./store.js";
import type { ArtifactRecord, LifecycleRecord } from "./types.js";

/** A point with a number (NaN and infinities are not charted: run/monitor.ts watches for them). */
export function metricRow(p: MetricPoint & { value: number }, now: number): MetricRow {
  return { key: p.key, step: p.step, value: p.value, ts: normalizeTs(p.ts, now) };
}

export function hardwareRow(p: HardwarePoint, now: number): HardwareRow {
  return {
    key: p.key,
    node_id: p.node_id ?? NO_ID,
    worker_id: p.worker_id ?? NO_ID,
    gpu_idx: p.gpu_idx ?? NO_GPU,
    ts: normalizeTs(p.ts, now),
    value: p.value,
    gpu_uuid: p.gpu_uuid ?? null,
  };
}

export function validationChunkRow(
  chunk: Omit<ValidationChunk, "run_id" | "samples">,
  now: number,
): Parameters<RunReportsStore["upsertValidationChunk"]>[0] {
  return {
    step: chunk.step,
    chunk_index: chunk.chunk_index,
    total_chunks: chunk.total_chunks,
    total_samples: chunk.total_samples,
    avg_reward: chunk.avg_reward ?? null,
    dist: chunk.dist === undefined || chunk.dist === null ? null : JSON.stringify(chunk.dist),
    now,
  };
}

/** A sample's index and reward as columns, the rest of it as its JSON body. */
export function sampleRow({ idx, reward, ...rest }: ValidationSample): {
  idx: number;
  reward: number | null;
  body: string;
} {
  return { idx, reward: reward ?? null, body: JSON.stringify(rest) };
}

export function eventRow(e: LifecycleRecord, now: number): EventRow {
  return {
    rank: e.rank,
    event: e.event,
    ts: normalizeTs(e.ts, now),
    exit_code: e.exitCode,
    reason: e.reason,
    received_at: now,
  };
}

export function artifactRow(a: ArtifactRecord, now: number): ArtifactRow {
  return {
    path: a.path,
    kind: a.kind,
    step: a.step ?? null,
    size: a.size_bytes ?? null,
    digest: a.digest ?? null,
    verified: a.verified ? 1 : 0,
    r2_key: a.r2Key,
    metrics: a.metrics ? JSON.stringify(a.metrics) : null,
    registered_at: now,
  };
}
