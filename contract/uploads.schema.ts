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
  number: z.number().int().min(1).max(MAX_PARTS),
  size: z.number().int().nonnegative(),
  /** The S3 ETag the part's PUT answered (quotes kept as S3 sent them). */
  etag: z.string(),
  /** sha256 hex of the part's bytes, as the client computed them while sending. */
  sha256: Hex64,
});
export type StoredPart = z.infer<typeof StoredPart>;

export const StartUploadResponse = z.discriminatedUnion("mode", [
  /** The blob is stored already: nothing to send. */
  z.object({ mode: z.literal("exists"), digest: z.string(), size: z.number() }),
  /** No direct upload here, and the blob fits a Worker request: PUT /v1/blobs/:digest. */
  z.object({ mode: z.literal("worker"), digest: z.string(), size: z.number() }),
  z.object({
    mode: z.literal("multipart"),
    digest: z.string(),
    size: z.number(),
    upload_id: z.string().regex(UPLOAD_ID_RE),
    part_size: z.number().int().positive(),
    part_count: z.number().int().nonnegative(),
    /** Parts stored by an earlier, interrupted attempt. */
    stored: z.array(StoredPart),
    /** One presigned PUT per part number 1..part_count, each good until expires_at. */
    urls: z.array(z.object({ number: z.number().int(), url: z.string().url() })),
    expires_at: z.string(),
    resumed: z.boolean(),
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

export const PartReportResponse = z.object({ number: z.number(), stored: z.number() });

/** POST /v1/blobs/:digest/uploads/:upload/complete (and PUT /v1/blobs/:digest) */
export const BlobStored = z.object({ digest: z.string(), size: z.number(), created: z.boolean() });

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
