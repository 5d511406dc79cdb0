/**
 * Streams a request body into R2 under a digest it must match: content-addressed blobs and uploaded
 * artifacts share this. Bodies stream through with a fixed length and are never buffered whole; R2
 * refuses the write unless the sha256 matches (so nothing wrong is ever stored), and our own count and
 * hash of the stream say why a refused write failed.
 */
import { AppError } from "../errors.js";

/** The declared body length, within `max`; a body that breaks either rule is cancelled unread. */
export async function declaredLength(req: Request, max: number, route: string): Promise<number> {
  const header = req.headers.get("content-length");
  const length = header === null ? Number.NaN : Number(header);
  if (!Number.isInteger(length) || length < 0) {
    await req.body?.cancel();
    throw new AppError(
      "LENGTH_REQUIRED",
      `${route} needs a Content-Length (bodies are streamed, not buffered)`,
    );
  }
  if (length > max) {
    await req.body?.cancel();
    throw new AppError("BLOB_TOO_LARGE", `blob is ${length} bytes; the limit is ${max}`, { limit: max });
  }
  return length;
}

/** Writes `body` (exactly `length` bytes hashing to `digest`) to `key`, or throws a coded AppError. */
export async function putVerified(
  bucket: R2Bucket,
  key: string,
  body: ReadableStream<Uint8Array> | null,
  length: number,
  digest: string,
  options: Omit<R2PutOptions, "sha256"> = {},
): Promise<void> {
  const hasher = new crypto.DigestStream("SHA-256");
  const hashWriter = hasher.getWriter();
  let seen = 0;
  const tap = new TransformStream<Uint8Array, Uint8Array>({
    async transform(chunk, ctl) {
      seen += chunk.byteLength;
      await hashWriter.write(chunk);
      ctl.enqueue(chunk);
    },
    async flush() {
      await hashWriter.close();
    },
  });
  const fixed = new FixedLengthStream(length);
  const piping = (body ?? new Response("").body!)
    .pipeThrough(tap)
    .pipeTo(fixed.writable)
    .catch(() => undefined);
  try {
    await bucket.put(key, fixed.readable, { ...options, sha256: digest.slice("sha256:".length) });
  } catch (err) {
    await piping;
    if (seen !== length) {
      throw new AppError(
        "BAD_REQUEST",
        `the body had ${seen} bytes, not its Content-Length of ${length}; nothing was stored`,
      );
    }
    const got = `sha256:${hex(await hasher.digest)}`;
    if (got !== digest) {
      throw new AppError(
        "BLOB_DIGEST_MISMATCH",
        `the uploaded bytes hash to ${got}, not ${digest}; nothing was stored`,
      );
    }
    throw err;
  }
  await piping;
}

/**
 * The verified sha256 of a stored object, as a digest; null if none: the one R2 checked on a write with the
 * `sha256` option, or the one the Worker checked while copying a staged upload (staged-object.ts, whose
 * multipart writes carry no checksum and record it in custom metadata, which only the Worker writes).
 */
export function storedDigest(obj: R2Object): string | null {
  const sum = obj.checksums.sha256;
  if (sum) return `sha256:${hex(sum)}`;
  const copied = obj.customMetadata?.sha256;
  return copied && /^[0-9a-f]{64}$/.test(copied) ? `sha256:${copied}` : null;
}

function hex(buf: ArrayBuffer): string {
  return [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
