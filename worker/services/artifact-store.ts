/**
 * Where a training job PUTs an artifact's bytes (POST /v1/ingest/artifact/upload). Two stores behind one
 * interface, so the job-side client never knows which one answered:
 *  - WorkerArtifactStore: a URL on this Worker (PUT /v1/ingest/artifact/blob/:run/*), authorised by the
 *    run's token; the Worker streams the bytes into R2 and R2 verifies their digest. Used locally and
 *    wherever no R2 S3 credentials are configured.
 *  - R2PresignedArtifactStore (r2-presigned-store.ts): an R2 presigned PUT (S3 API), so checkpoints of
 *    many GiB go straight to R2 without passing through a Worker (whose request bodies are size-limited).
 *    Its own module, loaded only when configured: the AWS SDK is most of the bundle and need not be
 *    evaluated on every cold start.
 * Both write the same run-scoped key, so registration and download do not care which was used.
 * Pure of Worker bindings on purpose: the presigned URL's shape is unit-tested in Node.
 */
import type { ArtifactUploadTarget } from "../../contract/ingest.schema.js";
import { AppError } from "../errors.js";
import {
  type ArtifactStore,
  type R2PresignConfig,
  UPLOAD_TTL_SECONDS,
  type UploadTargetInput,
} from "./artifact-target.js";

export {
  type ArtifactStore,
  artifactKey,
  type R2PresignConfig,
  UPLOAD_TTL_SECONDS,
  type UploadTargetInput,
} from "./artifact-target.js";

/**
 * The longest artifact path, in UTF-8 bytes. R2 refuses keys over 1024 bytes (an error that became a 500,
 * found by fuzz-ingest), and the key adds `artifacts/<run id>/` in front of the path.
 */
export const MAX_ARTIFACT_PATH_BYTES = 900;

/**
 * Artifact paths are relative, '/'-separated, with no empty, '.' or '..' segment and no control
 * characters: R2 keys are flat strings, but a key must still read as exactly one place under its run.
 */
export function checkArtifactPath(path: string): string {
  const bytes = new TextEncoder().encode(path).length;
  if (bytes > MAX_ARTIFACT_PATH_BYTES) {
    throw new AppError(
      "BAD_REQUEST",
      `artifact path is ${bytes} bytes; at most ${MAX_ARTIFACT_PATH_BYTES} (storage keys are limited)`,
    );
  }
  const segments = path.split("/");
  const bad =
    path.includes("\\") ||
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    /[\u0000-\u001f\u007f]/.test(path) ||
    segments.some((s) => s === "" || s === "." || s === "..");
  if (bad) {
    throw new AppError(
      "BAD_REQUEST",
      `artifact path "${path}" must be relative, '/'-separated, without empty, '.' or '..' segments`,
    );
  }
  return path;
}

/** The path part of an upload URL: each segment percent-encoded, slashes kept. */
export function encodePath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

export class WorkerArtifactStore implements ArtifactStore {
  readonly kind = "worker";

  constructor(private readonly publicUrl: string) {}

  async uploadTarget(input: UploadTargetInput): Promise<ArtifactUploadTarget> {
    const now = input.now ?? Date.now();
    const base = this.publicUrl.replace(/\/+$/, "");
    const url = new URL(`${base}/v1/ingest/artifact/blob/${input.runId}/${encodePath(input.path)}`);
    url.searchParams.set("digest", input.digest);
    return {
      method: "PUT",
      url: url.toString(),
      // The URL itself grants nothing: the run's token does, so it is good for as long as the token is.
      headers: { "X-StarForge-Token": input.token },
      expires_at: new Date(now + UPLOAD_TTL_SECONDS * 1000).toISOString(),
    };
  }
}

/** The presigned store when R2's S3 API is configured, else uploads go through the Worker. */
export async function artifactStoreFor(cfg: {
  publicUrl: string;
  r2: R2PresignConfig | null;
}): Promise<ArtifactStore> {
  if (!cfg.r2) return new WorkerArtifactStore(cfg.publicUrl);
  const { R2PresignedArtifactStore } = await import("./r2-presigned-store.js");
  return new R2PresignedArtifactStore(cfg.r2);
}
