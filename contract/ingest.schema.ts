/**
 * Job-side ingest: the original platform's wire format (paths relative to STARFORGE_ENDPOINT, auth
 * `X-StarForge-Token` or `Authorization: Bearer`), plus our additions that do not break it: optional
 * sequence numbers on log batches (exactly-once lines), `rank`, lifecycle exit codes, and checkpoint
 * upload URLs. Timestamps may be ISO-8601 strings (the original client) or epoch numbers.
 */
import { z } from "zod";
import { Digest } from "./digest.js";

export const Timestamp = z.union([z.string().min(1).max(64), z.number()]);

export const MAX_METRIC_POINTS = 256;
export const MAX_LOG_CHUNKS = 1000;
export const MAX_LOG_LINE = 16 * 1024;

export const MetricsBatch = z.object({
  run_id: z.string(),
  points: z
    .array(
      z.object({
        key: z.string().min(1).max(256),
        step: z.number().int().min(0),
        value: z.number(),
        ts: Timestamp.optional(),
      }),
    )
    .max(MAX_METRIC_POINTS),
});
export type MetricsBatch = z.infer<typeof MetricsBatch>;

export const LogsBatch = z.object({
  run_id: z.string(),
  chunks: z.array(z.string().max(MAX_LOG_LINE)).max(MAX_LOG_CHUNKS),
  eof: z.boolean().optional(),
  /** Ours: sequence number of chunks[0] for this rank/stream; retries with the same seq are idempotent. */
  seq: z.number().int().min(0).optional(),
  rank: z.number().int().min(0).default(0),
  stream: z.enum(["stdout", "stderr"]).default("stdout"),
});
export type LogsBatch = z.infer<typeof LogsBatch>;

export const LIFECYCLE_EVENTS = ["started", "succeeded", "failed"] as const;

export const LifecycleEvent = z.object({
  run_id: z.string(),
  event: z.enum(LIFECYCLE_EVENTS),
  ts: Timestamp.optional(),
  rank: z.number().int().min(0).default(0),
  exit_code: z.number().int().optional(),
  reason: z.string().max(2000).optional(),
});
export type LifecycleEvent = z.infer<typeof LifecycleEvent>;

export const HparamsBody = z.object({
  run_id: z.string(),
  params: z.record(z.string().max(256), z.unknown()),
});

export const HardwareBatch = z.object({
  run_id: z.string(),
  points: z
    .array(
      z.object({
        key: z.string().max(256),
        value: z.number(),
        node_id: z.string().max(128).optional(),
        gpu_idx: z.number().int().min(0).optional(),
        ts: Timestamp.optional(),
      }),
    )
    .max(MAX_METRIC_POINTS),
});

export const ARTIFACT_KINDS = ["checkpoint", "hf_export", "eval_report", "merged_model"] as const;

export const ArtifactRegistration = z.object({
  run_id: z.string(),
  kind: z.enum(ARTIFACT_KINDS),
  path: z.string().min(1).max(1024),
  step: z.number().int().min(0).optional(),
  size_bytes: z.number().int().min(0).optional(),
  metrics: z.record(z.string(), z.number()).optional(),
  /** Ours: the uploaded bytes' digest, when the artifact was uploaded through /artifact/upload. */
  digest: Digest.optional(),
});
export type ArtifactRegistration = z.infer<typeof ArtifactRegistration>;

/** Ours: ask where to PUT an artifact's bytes (the Worker itself locally, an R2 presigned URL in production). */
export const ArtifactUploadRequest = z.object({
  run_id: z.string(),
  path: z.string().min(1).max(1024),
  size_bytes: z.number().int().min(0),
  digest: Digest,
});
export const ArtifactUploadTarget = z.object({
  method: z.literal("PUT"),
  url: z.string().url(),
  headers: z.record(z.string(), z.string()),
  expires_at: z.string(),
});
export type ArtifactUploadTarget = z.infer<typeof ArtifactUploadTarget>;

/** Claims of the per-run ingest token (HS256 JWT): useless for any other run or route. */
export const IngestClaims = z.object({
  sub: z.string().startsWith("run_"),
  job: z.string().startsWith("job_"),
  fleet: z.string().startsWith("flt_"),
  epoch: z.number().int().min(1),
  scope: z.literal("ingest"),
});
export type IngestClaims = z.infer<typeof IngestClaims>;
