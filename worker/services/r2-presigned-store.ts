/**
 * Artifact uploads straight to R2 through a presigned S3 PUT (see artifact-store.ts). Needs R2 API
 * credentials (R2_ACCOUNT_ID, R2_ACCESS_KEY_ID, R2_SECRET_ACCESS_KEY, R2_BUCKET); signing is local, so
 * asking for a target costs no request to R2.
 */
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import type { ArtifactUploadTarget } from "../../contract/ingest.schema.js";
import {
  type ArtifactStore,
  artifactKey,
  type R2PresignConfig,
  UPLOAD_TTL_SECONDS,
  type UploadTargetInput,
} from "./artifact-target.js";

export class R2PresignedArtifactStore implements ArtifactStore {
  readonly kind = "r2-presigned";
  private readonly client: S3Client;

  constructor(private readonly cfg: R2PresignConfig) {
    this.client = new S3Client({
      region: "auto",
      endpoint: `https://${cfg.accountId}.r2.cloudflarestorage.com`,
      // Path style keeps the host the account's, whatever the bucket is called (no wildcard DNS/TLS).
      forcePathStyle: true,
      credentials: { accessKeyId: cfg.accessKeyId, secretAccessKey: cfg.secretAccessKey },
      // Newer SDKs add a CRC32 of the (empty) body being signed to every PutObject; the real body then
      // fails that checksum. Only send checksums an operation requires.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
  }

  async uploadTarget(input: UploadTargetInput): Promise<ArtifactUploadTarget> {
    const now = input.now ?? Date.now();
    const command = new PutObjectCommand({
      Bucket: this.cfg.bucket,
      Key: artifactKey(input.runId, input.path),
      // Signed, so the upload must be exactly the announced size.
      ContentLength: input.sizeBytes,
    });
    const url = await getSignedUrl(this.client, command, {
      expiresIn: UPLOAD_TTL_SECONDS,
      signingDate: new Date(now),
    });
    return {
      method: "PUT",
      url,
      headers: {},
      expires_at: new Date(now + UPLOAD_TTL_SECONDS * 1000).toISOString(),
    };
  }
}
