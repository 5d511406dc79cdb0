/**
 * What both artifact stores share (artifact-store.ts, r2-presigned-store.ts): the store interface, its
 * input, the run-scoped key and the target's lifetime. Its own module so the presigned store, loaded
 * lazily, does not import the module that loads it.
 */
import type { ArtifactUploadTarget } from "../../contract/ingest.schema.js";

/** How long an upload target is meant to be used; a client asks again for a later retry. */
export const UPLOAD_TTL_SECONDS = 3600;

export interface UploadTargetInput {
  runId: string;
  /** Already checked with `checkArtifactPath`. */
  path: string;
  sizeBytes: number;
  digest: string;
  /** The run's ingest token (the Worker store hands it back as the upload's auth header). */
  token: string;
  now?: number;
}

export interface ArtifactStore {
  readonly kind: "worker" | "r2-presigned";
  uploadTarget(input: UploadTargetInput): Promise<ArtifactUploadTarget>;
}

export interface R2PresignConfig {
  accountId: string;
  accessKeyId: string;
  secretAccessKey: string;
  bucket: string;
  /** A stand-in's S3 endpoint (R2_S3_ENDPOINT); R2's own when absent. */
  endpoint?: string;
}

/** The S3 endpoint of a configuration: R2's for the account unless a stand-in is named. */
export function s3Endpoint(cfg: R2PresignConfig): string {
  return cfg.endpoint ?? `https://${cfg.accountId}.r2.cloudflarestorage.com`;
}

/** Every artifact's bytes live under its run, so one run's token can never touch another run's files. */
export function artifactKey(runId: string, path: string): string {
  return `artifacts/${runId}/${path}`;
}

/**
 * Where a presigned upload puts its bytes until they are accepted under `key` (staged-object.ts moves
 * them there through the binding, which verifies their digest).
 */
export function stagingKey(key: string): string {
  return `staging/${key}`;
}
