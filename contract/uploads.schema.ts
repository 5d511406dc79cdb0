/**
 * Large blobs go straight to object storage (docs/api.md "Direct uploads"): the client asks the Worker for
 * a multipart upload of one content-addressed blob, PUTs each part to its presigned S3 URL (R2's S3 API in
 * production, a local S3-compatible server in tests), tells the Worker each part it stored, and completes.
 * The Worker then moves the object under its digest, and R2 verifies the digest on that write: nothing
 * whose bytes do not hash to the digest is ever accepted. An interrupted upload is resumed by asking again
 * for the same digest: the answer lists the parts already stored, so only the others are sent.
 */
import { z } from "zod";

/** S3's rules: at most 10,000 parts, each at least 5 MiB except the last. */
export const MAX_PARTS = 10_000;
export const MIN_PART_BYTES = 5 * 1024 * 1024;
/** The part size the Worker chooses unless the blob needs larger ones to fit MAX_PARTS. */
export const DEFAULT_PART_BYTES = 16 * 1024 * 1024;

export const UPLOAD_ID_RE = /^upl_[0-9a-z]{26}$/;
const Hex64 = z.string().regex(/^[0-9a-f]{64}$/, "expected 64 lowercase hex characters");

/** POST /v1/blobs/:digest/uploads */
export const StartUploadRequest = z.strictObject({
  size: z.number().int().nonnegative().describe("The blob's size in bytes"),
});
export type StartUploadRequest = z.infer<typeof StartUploadRequest>;

/** A part the Worker has been told is stored. */
export const StoredPart = z.object({
  number: z.number().int().min(1).max(MAX_PARTS).describe("The part's number, from 1"),
  size: z.number().int().nonnegative().describe("The part's size in bytes, as reported"),
  /** The S3 ETag the part's PUT answered (quotes kept as S3 sent them). */
  etag: z.string().describe("The ETag the part's presigned PUT answered, quotes kept as S3 sent them"),
  /** sha256 hex of the part's bytes, as the client computed them while sending. */
  sha256: Hex64.describe(
    "sha256 of the part's bytes as the client sent them, in 64 lowercase hex characters",
  ),
});
export type StoredPart = z.infer<typeof StoredPart>;

const BLOB_DIGEST = "The blob's digest, `sha256:` plus 64 lowercase hex characters";
const ASKED_SIZE = "The blob's size in bytes, as asked for";

export const StartUploadResponse = z.discriminatedUnion("mode", [
  /** The blob is stored already: nothing to send. */
  z.object({
    mode: z.literal("exists").describe("`exists`: the blob is stored already, there is nothing to send"),
    digest: z.string().describe(BLOB_DIGEST),
    size: z.number().describe("The stored blob's size in bytes"),
  }),
  /** No direct upload here, and the blob fits a Worker request: PUT /v1/blobs/:digest. */
  z.object({
    mode: z
      .literal("worker")
      .describe(
        "`worker`: no direct upload is configured and the blob fits a request; PUT it to /v1/blobs/{digest}",
      ),
    digest: z.string().describe(BLOB_DIGEST),
    size: z.number().describe(ASKED_SIZE),
  }),
  z.object({
    mode: z
      .literal("multipart")
      .describe("`multipart`: PUT each part to its URL, report it, then complete the upload"),
    digest: z.string().describe(BLOB_DIGEST),
    size: z.number().describe(ASKED_SIZE),
    upload_id: z.string().regex(UPLOAD_ID_RE).describe("The upload's id, `upl_` plus a lowercase ULID"),
    part_size: z
      .number()
      .int()
      .positive()
      .describe("Every part's size in bytes but the last's (the remainder): 16 MiB, or more for a huge blob"),
    part_count: z
      .number()
      .int()
      .nonnegative()
      .describe("How many parts the blob is cut into, numbered 1 to `part_count` (an empty blob has one)"),
    /** Parts stored by an earlier, interrupted attempt. */
    stored: z
      .array(StoredPart)
      .describe("The parts an earlier, interrupted attempt reported stored: send only the others"),
    /** One presigned PUT per part number 1..part_count, each good until expires_at. */
    urls: z
      .array(
        z.object({
          number: z.number().int().describe("The part's number, from 1"),
          url: z
            .string()
            .url()
            .describe("A presigned S3 URL that takes one PUT of exactly that part's bytes"),
        }),
      )
      .describe("One presigned PUT URL per part, 1 to `part_count`, each good until `expires_at`"),
    expires_at: z
      .string()
      .describe("When the URLs expire (an hour after this answer), ISO 8601 UTC; ask again for fresh ones"),
    resumed: z
      .boolean()
      .describe("True when your open upload of this digest was resumed (200); false for a new one (201)"),
  }),
]);
export type StartUploadResponse = z.infer<typeof StartUploadResponse>;

/** PUT /v1/blobs/:digest/uploads/:upload/parts/:n */
export const PartReport = z.strictObject({
  size: z
    .number()
    .int()
    .nonnegative()
    .describe("The part's size in bytes: `part_size`, or the remainder for the last part"),
  etag: z
    .string()
    .min(1)
    .max(200)
    .describe("The ETag the part's presigned PUT answered, quotes included, as S3 sent it"),
  sha256: Hex64.describe("sha256 of the part's bytes as sent, in 64 lowercase hex characters"),
});
export type PartReport = z.infer<typeof PartReport>;

export const PartReportResponse = z.object({
  number: z.number().describe("The part's number, as in the URL"),
  stored: z.number().describe("How many of the upload's parts are now recorded as stored"),
});

/** POST /v1/blobs/:digest/uploads/:upload/complete (and PUT /v1/blobs/:digest) */
export const BlobStored = z.object({
  digest: z.string().describe(BLOB_DIGEST),
  size: z.number().describe("The blob's size in bytes"),
  created: z
    .boolean()
    .describe("True when this request stored the blob; false when it was stored already (nothing rewritten)"),
});

/** Part `n` (1-based) of a blob of `size` bytes cut in `partSize` pieces: its offset and length. */
export function partRange(size: number, partSize: number, n: number): { start: number; length: number } {
  const start = (n - 1) * partSize;
  return { start, length: Math.max(0, Math.min(partSize, size - start)) };
}

/** How many parts a blob of `size` bytes has (an empty blob still has one, empty, part). */
export function partCount(size: number, partSize: number): number {
  return Math.max(1, Math.ceil(size / partSize));
}

/** The part size for a blob: DEFAULT_PART_BYTES, or larger (whole MiB) when that would need over MAX_PARTS. */
export function choosePartSize(size: number): number {
  const mib = 1024 * 1024;
  const needed = Math.ceil(size / MAX_PARTS / mib) * mib;
  return Math.max(DEFAULT_PART_BYTES, needed);
}
