/**
 * Objects written straight to object storage through presigned S3 URLs (large workspace blobs, artifacts)
 * land on a staging key first. Accepting one copies it under its final key through the R2 binding while
 * hashing it, and keeps it only if it hashes to the digest the client announced: a presigned upload is
 * verified like one through the Worker, and nothing unverified is ever stored under a digest. The copy
 * goes in ranges of COPY_CHUNK bytes (a ranged GET each, an R2 multipart part each), so memory stays
 * bounded and no single subrequest streams for long. In production the staging key and the final key are
 * in the same bucket; in tests the staging side is a local S3-compatible server and the final side
 * Miniflare's R2, and the same code runs.
 */
import { AppError } from "../errors.js";
import { errorFields, log } from "./log.js";
import type { S3Objects } from "./s3-objects.js";

export { stagingKey } from "./artifact-target.js";

/** Bytes per ranged read and R2 part (R2 parts: at least 5 MiB except the last). */
export const COPY_CHUNK = 16 * 1024 * 1024;

/** Where the verified digest of a copied object is kept (a multipart write has no sha256 checksum). */
export const VERIFIED_SHA256 = "sha256";

function hex(buf: ArrayBuffer): string {
  return [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function sha256(bytes: Uint8Array): Promise<string> {
  return hex(await crypto.subtle.digest("SHA-256", bytes));
}

/**
 * Copies the object at `staged` to `key` if its bytes hash to `digest`; returns its size, or null when
 * nothing is staged there. A mismatch deletes the staged object and throws BLOB_DIGEST_MISMATCH; nothing is
 * written under `key` then.
 */
export async function acceptStaged(
  s3: S3Objects,
  bucket: R2Bucket,
  staged: string,
  key: string,
  digest: string,
  options: { customMetadata?: Record<string, string> } = {},
): Promise<number | null> {
  const size = await s3.size(staged);
  if (size === null) return null;
  const want = digest.slice("sha256:".length);
  const mismatch = async (got: string) => {
    await s3.delete(staged).catch(() => {});
    return new AppError(
      "BLOB_DIGEST_MISMATCH",
      `the uploaded bytes hash to sha256:${got}, not ${digest}; nothing was stored`,
    );
  };
  if (size <= COPY_CHUNK) {
    const bytes = size === 0 ? new Uint8Array(0) : await s3.range(staged, 0, size);
    const got = await sha256(bytes);
    if (got !== want) throw await mismatch(got);
    await bucket.put(key, bytes, { ...options, sha256: want });
  } else {
    const hasher = new crypto.DigestStream("SHA-256");
    const writer = hasher.getWriter();
    const upload = await bucket.createMultipartUpload(key, {
      customMetadata: { ...options.customMetadata, [VERIFIED_SHA256]: want },
    });
    try {
      const parts: R2UploadedPart[] = [];
      for (let n = 1, at = 0; at < size; n++, at += COPY_CHUNK) {
        const bytes = await s3.range(staged, at, Math.min(COPY_CHUNK, size - at));
        await writer.write(bytes);
        parts.push(await upload.uploadPart(n, bytes));
      }
      await writer.close();
      const got = hex(await hasher.digest);
      if (got !== want) throw await mismatch(got);
      await upload.complete(parts);
    } catch (err) {
      await upload.abort().catch(() => {});
      throw err;
    }
  }
  // The accepted copy is what is read from now on; a staged leftover only costs storage.
  await s3
    .delete(staged)
    .catch((e) => log("warn", "staged object not deleted", { key: staged, ...errorFields(e) }));
  return size;
}
