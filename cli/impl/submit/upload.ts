/**
 * Uploads the blobs the server lacks: HEAD every distinct digest, then PUT the missing ones streamed from
 * disk with their Content-Length, a few at a time. An unchanged tree therefore sends 0 bytes. Blobs of
 * SF_DIRECT_UPLOAD_THRESHOLD_BYTES (64 MiB) or more go straight to object storage in parts where the server
 * offers it (multipart.ts), which also resumes an interrupted upload.
 */
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { type Api, readJson, route } from "../../api.js";
import { CliError, EXIT, fromServer } from "../../errors.js";
import { humanBytes, progress } from "../../output.js";
import { directThreshold, uploadLarge } from "./multipart.js";
import type { Pack } from "./pack.js";

export interface UploadStats {
  /** Blobs sent (files and the manifest). */
  files: number;
  /** Bytes sent. */
  bytes: number;
  /** Blobs the server already had. */
  skipped: number;
  /** Bytes of interrupted direct uploads that were stored already and not sent again. */
  resumed_bytes: number;
}

/** What this process has uploaded so far; a benchmark reads it (also printed as `upload` with --json). */
export const uploadCounter: UploadStats = { files: 0, bytes: 0, skipped: 0, resumed_bytes: 0 };

interface Blob {
  digest: string;
  size: number;
  /** A file to stream, or bytes in memory (the manifest). */
  source: { path: string } | { bytes: Buffer };
}

async function pool<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const run = async () => {
    for (let i = next++; i < items.length; i = next++) await work(items[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, run));
}

async function exists(api: Api, digest: string): Promise<boolean> {
  const res = await api.fetch("HEAD", route("/v1/blobs/{digest}", { digest }));
  if (res.status === 200) return true;
  if (res.status === 404) return false;
  const code =
    res.status === 401 ? "UNAUTHENTICATED" : res.status === 403 ? "FORBIDDEN" : `HTTP_${res.status}`;
  const why =
    res.status === 403
      ? "uploading a workspace needs the operator role"
      : `HEAD /v1/blobs answered ${res.status}`;
  throw fromServer(res.status, code, why);
}

async function put(api: Api, blob: Blob, onBytes: (n: number) => void): Promise<void> {
  let body: BodyInit;
  if ("bytes" in blob.source) {
    body = new Uint8Array(blob.source.bytes);
    onBytes(blob.size);
  } else {
    const counted = Readable.toWeb(createReadStream(blob.source.path)) as ReadableStream<Uint8Array>;
    body = counted.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, ctl) {
          onBytes(chunk.byteLength);
          ctl.enqueue(chunk);
        },
      }),
    );
  }
  const res = await api.fetch("PUT", route("/v1/blobs/{digest}", { digest: blob.digest }), undefined, {
    raw: body,
    headers: { "content-length": String(blob.size), "content-type": "application/octet-stream" },
  });
  try {
    await readJson(res);
  } catch (err) {
    if (err instanceof CliError && err.code === "BLOB_DIGEST_MISMATCH" && "path" in blob.source) {
      throw new CliError(`${blob.source.path} changed while it was being uploaded`, {
        code: err.code,
        exit: EXIT.REJECTED,
        hint: "submit again",
      });
    }
    throw err;
  }
}

/** Uploads what the server lacks of `pack`; returns (and adds to uploadCounter) what was sent. */
export async function uploadPack(api: Api, pack: Pack): Promise<UploadStats> {
  const blobs = new Map<string, Blob>();
  for (const f of pack.files) {
    if (!blobs.has(f.digest))
      blobs.set(f.digest, { digest: f.digest, size: f.size, source: { path: f.abs } });
  }
  blobs.set(pack.manifestDigest, {
    digest: pack.manifestDigest,
    size: pack.manifestBytes.length,
    source: { bytes: pack.manifestBytes },
  });

  const all = [...blobs.values()];
  const missing: Blob[] = [];
  await pool(all, 8, async (b) => {
    if (!(await exists(api, b.digest))) missing.push(b);
  });
  const total = missing.reduce((n, b) => n + b.size, 0);
  const bar = progress("uploading", total);
  const stats: UploadStats = { files: 0, bytes: 0, skipped: all.length - missing.length, resumed_bytes: 0 };
  const threshold = directThreshold();
  // The manifest goes last, so a manifest on the server always means its files are there too.
  const manifest = missing.find((b) => b.digest === pack.manifestDigest);
  const send = async (b: Blob) => {
    if (b.size >= threshold && "path" in b.source) {
      const r = await uploadLarge(api, { digest: b.digest, size: b.size, path: b.source.path }, bar);
      if (r.mode === "exists") {
        stats.skipped++;
        bar.skip(b.size);
        return;
      }
      if (r.mode === "multipart") {
        stats.files++;
        stats.bytes += r.sent;
        stats.resumed_bytes += r.resumedBytes;
        return;
      }
    }
    await put(api, b, (n) => bar.add(n));
    stats.files++;
    stats.bytes += b.size;
  };
  await pool(
    missing.filter((b) => b !== manifest),
    4,
    send,
  );
  if (manifest) await send(manifest);
  uploadCounter.files += stats.files;
  uploadCounter.bytes += stats.bytes;
  uploadCounter.skipped += stats.skipped;
  uploadCounter.resumed_bytes += stats.resumed_bytes;
  const resumed =
    stats.resumed_bytes > 0 ? `; resumed: ${humanBytes(stats.resumed_bytes)} were stored already` : "";
  bar.done(
    `uploaded ${stats.files} file${stats.files === 1 ? "" : "s"}, ${humanBytes(stats.bytes)} (${stats.skipped} already on the server${resumed})`,
  );
  return stats;
}
