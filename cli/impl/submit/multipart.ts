/**
 * Large blobs go straight to object storage (contract/uploads.schema.ts): ask the control plane for a
 * multipart upload, PUT each part to its presigned URL (never through the Worker, whose request bodies are
 * capped), report each stored part, complete. Asking again for the same blob resumes: parts already stored
 * whose bytes still hash the same are not sent again. An interrupted `sf submit` is therefore continued by
 * running it again.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import {
  BlobStored,
  PartReportResponse,
  partRange,
  StartUploadResponse,
  type StoredPart,
} from "../../../contract/uploads.schema.js";
import { type Api, route } from "../../api.js";
import { CliError, EXIT } from "../../errors.js";

/** Blobs at least this large ask for a direct upload (SF_DIRECT_UPLOAD_THRESHOLD_BYTES changes it). */
export const DEFAULT_DIRECT_THRESHOLD = 64 * 1024 * 1024;

export function directThreshold(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.SF_DIRECT_UPLOAD_THRESHOLD_BYTES;
  if (raw === undefined || raw === "") return DEFAULT_DIRECT_THRESHOLD;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0)
    throw new CliError(`SF_DIRECT_UPLOAD_THRESHOLD_BYTES must be a whole number of bytes, got "${raw}"`, {
      code: "BAD_ENV",
      exit: EXIT.USAGE,
    });
  return n;
}

/** Parts sent at once, and attempts per part before the upload stops (to be resumed). */
const PART_WIDTH = 4;
const PART_ATTEMPTS = 3;
/** A part PUT with no byte moving and no answer for this long is abandoned (and retried). */
const PART_IDLE_MS = 120_000;

export interface LargeBlob {
  digest: string;
  size: number;
  path: string;
}

export interface Progress {
  add: (n: number) => void;
  skip: (n: number) => void;
}

export type LargeUploadResult =
  | { mode: "exists" | "worker" }
  | { mode: "multipart"; sent: number; resumedBytes: number; parts: number; resumedParts: number };

function partBody(path: string, start: number, length: number, onChunk: (c: Buffer) => void) {
  const stream =
    length === 0 ? Readable.from([]) : createReadStream(path, { start, end: start + length - 1 });
  return stream.on("data", (c: string | Buffer) => onChunk(c as Buffer));
}

async function sha256Of(path: string, start: number, length: number): Promise<string> {
  const h = createHash("sha256");
  for await (const c of partBody(path, start, length, () => {})) h.update(c as Buffer);
  return h.digest("hex");
}

/** One PUT of part bytes to a presigned URL: its ETag and the sha256 of what was sent. */
async function putPart(
  url: string,
  path: string,
  start: number,
  length: number,
  onBytes: (n: number) => void,
): Promise<{ etag: string; sha256: string }> {
  const h = createHash("sha256");
  const ac = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const touch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => ac.abort(), PART_IDLE_MS);
    timer.unref();
  };
  touch();
  const body = partBody(path, start, length, (c) => {
    h.update(c);
    onBytes(c.byteLength);
    touch();
  });
  try {
    const res = await fetch(url, {
      method: "PUT",
      body: Readable.toWeb(body) as ReadableStream<Uint8Array>,
      headers: { "content-length": String(length) },
      signal: ac.signal,
      duplex: "half",
    } as RequestInit);
    const text = await res.text();
    if (!res.ok) {
      const s3code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1] ?? `HTTP ${res.status}`;
      throw new PartError(
        `object storage refused the part: ${s3code}`,
        res.status >= 500 || res.status === 429,
      );
    }
    const etag = res.headers.get("etag");
    if (!etag) throw new PartError("object storage stored the part but sent no ETag", false);
    return { etag, sha256: h.digest("hex") };
  } catch (err) {
    if (err instanceof PartError) throw err;
    const why = ac.signal.aborted ? `no progress for ${PART_IDLE_MS / 1000} s` : errText(err);
    throw new PartError(`could not send the part: ${why}`, true);
  } finally {
    clearTimeout(timer);
    body.destroy();
  }
}

class PartError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

function errText(err: unknown): string {
  if (err instanceof Error) return err.cause instanceof Error ? err.cause.message : err.message;
  return String(err);
}

async function pool<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed: unknown = null;
  const run = async () => {
    for (let i = next++; i < items.length && failed === null; i = next++) {
      try {
        await work(items[i]!);
      } catch (err) {
        failed ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, run));
  if (failed !== null) throw failed;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Uploads one large blob straight to object storage if the server offers it: "exists" (nothing to send),
 * "worker" (no direct upload here: PUT it through the API as small blobs are), or what was sent.
 */
export async function uploadLarge(api: Api, blob: LargeBlob, bar: Progress): Promise<LargeUploadResult> {
  const digest = blob.digest;
  let start: StartUploadResponse;
  try {
    start = await api.post(route("/v1/blobs/{digest}/uploads", { digest }), StartUploadResponse, {
      size: blob.size,
    });
  } catch (err) {
    // A server from before direct uploads has no such route: upload through the API as before.
    if (err instanceof CliError && err.code === "NOT_FOUND") return { mode: "worker" };
    throw err;
  }
  if (start.mode !== "multipart") return { mode: start.mode };

  const id = start.upload_id;
  const stored = new Map<number, StoredPart>(start.stored.map((p) => [p.number, p]));
  const todo: number[] = [];
  let resumedBytes = 0;
  for (let n = 1; n <= start.part_count; n++) {
    const { start: at, length } = partRange(blob.size, start.part_size, n);
    const had = stored.get(n);
    // A part stored earlier counts only if this file still has those very bytes there.
    if (had && had.size === length && had.sha256 === (await sha256Of(blob.path, at, length))) {
      resumedBytes += length;
      bar.skip(length);
    } else {
      todo.push(n);
    }
  }
  const urls = new Map(start.urls.map((u) => [u.number, u.url]));
  let sent = 0;
  await pool(todo, PART_WIDTH, async (n) => {
    const { start: at, length } = partRange(blob.size, start.part_size, n);
    const url = urls.get(n);
    if (!url) throw new CliError(`the server sent no upload URL for part ${n}`, { code: "BAD_RESPONSE" });
    for (let attempt = 1; ; attempt++) {
      let moved = 0;
      try {
        const part = await putPart(url, blob.path, at, length, (b) => {
          moved += b;
          bar.add(b);
        });
        await api.put(
          route("/v1/blobs/{digest}/uploads/{upload}/parts/{n}", { digest, upload: id, n }),
          PartReportResponse,
          { size: length, ...part },
        );
        sent += length;
        return;
      } catch (err) {
        bar.skip(-moved);
        if (!(err instanceof PartError) || !err.retryable || attempt >= PART_ATTEMPTS) {
          if (err instanceof PartError && err.retryable) {
            throw new CliError(`uploading ${blob.path}: part ${n}: ${err.message}`, {
              code: "UPLOAD_INTERRUPTED",
              exit: EXIT.UNAVAILABLE,
              hint: "run the same command again: the upload resumes with the parts already stored",
            });
          }
          if (err instanceof PartError) {
            // Object storage refused the part itself: resuming would meet the same refusal. Give the
            // upload up, so no part of it lingers, and say what was refused.
            await api
              .fetch("DELETE", route("/v1/blobs/{digest}/uploads/{upload}", { digest, upload: id }))
              .catch(() => undefined);
            throw new CliError(`uploading ${blob.path}: part ${n}: ${err.message}`, {
              code: "UPLOAD_REFUSED",
              exit: EXIT.UNAVAILABLE,
              hint: "the upload was abandoned; check the control plane's R2 settings (docs/deploy.md) and submit again",
            });
          }
          throw err;
        }
        await sleep(1000 * 2 ** (attempt - 1));
      }
    }
  });
  try {
    await api.post(route("/v1/blobs/{digest}/uploads/{upload}/complete", { digest, upload: id }), BlobStored);
  } catch (err) {
    if (err instanceof CliError && err.code === "BLOB_DIGEST_MISMATCH") {
      throw new CliError(
        `the bytes of ${blob.path} that reached object storage do not hash to its digest: nothing was stored`,
        {
          code: err.code,
          exit: EXIT.REJECTED,
          hint: "the file changed while it was uploaded, or a part was corrupted on the way; submit again",
        },
      );
    }
    throw err;
  }
  return {
    mode: "multipart",
    sent,
    resumedBytes,
    parts: start.part_count,
    resumedParts: start.part_count - todo.length,
  };
}
