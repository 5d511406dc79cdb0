/**
 * Artifact uploads straight to object storage through a presigned S3 PUT (see artifact-store.ts). Needs R2
 * API credentials (R2_ACCOUNT_ID, R2_ACCESS_KEY_ID, R2_SECRET_ACCESS_KEY, R2_BUCKET); signing is local, so
 * asking for a target costs no request to R2. The bytes land on a staging key: registering the artifact
 * moves them under the run's key through the binding, where R2 verifies their digest (staged-object.ts).
 */
import type { ArtifactUploadTarget } from "../../contract/ingest.schema.js";
import {
  type ArtifactStore,
  artifactKey,
  type R2PresignConfig,
  stagingKey,
  UPLOAD_TTL_SECONDS,
  type UploadTargetInput,
} from "./artifact-target.js";
import { S3Objects } from "./s3-objects.js";

export class R2PresignedArtifactStore implements ArtifactStore {
  readonly kind = "r2-presigned";
  private readonly s3: S3Objects;

  constructor(cfg: R2PresignConfig) {
    this.s3 = new S3Objects(cfg);
  }

  async uploadTarget(input: UploadTargetInput): Promise<ArtifactUploadTarget> {
    const now = input.now ?? Date.now();
    const key = stagingKey(artifactKey(input.runId, input.path));
    // Signed, so the upload must be exactly the announced size.
    const url = await this.s3.presignPut(key, input.sizeBytes, UPLOAD_TTL_SECONDS, now);
    return {
      method: "PUT",
      url,
      headers: {},
      expires_at: new Date(now + UPLOAD_TTL_SECONDS * 1000).toISOString(),
    };
  }
}
