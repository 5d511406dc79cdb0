/**
 * Blobs fetched from the control plane by digest, cached on disk by digest. Every download is hashed
 * as it streams and only lands in the cache if it matches; a cached file is trusted (it was verified).
 */
import { createHash } from "node:crypto";
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { DIGEST_RE } from "../contract/digest.js";
import { closedUnanswered, describeFetchError } from "./net-errors.js";

/** A blob's GET is sent at most this many times when its connection closes unanswered. */
const GET_ATTEMPTS = 3;
const GET_RETRY_MS = 200;
/** 503s a blob GET waits out (Retry-After each, at most MAX_RETRY_AFTER_MS) before it gives up. */
const UNAVAILABLE_ATTEMPTS = 5;
const MAX_RETRY_AFTER_MS = 3_000;

export class DigestMismatchError extends Error {
  constructor(
    readonly digest: string,
    readonly actual: string,
  ) {
    super(`blob ${digest} arrived with digest ${actual}; refusing to use it`);
    this.name = "DigestMismatchError";
  }
}

export class BlobFetchError extends Error {
  constructor(
    readonly digest: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "BlobFetchError";
  }
}

export class BlobCache {
  private readonly dir: string;
  /** Downloads in progress by digest: concurrent launches often need the same blob (the capsule). */
  private readonly inflight = new Map<string, Promise<string>>();

  constructor(
    stateDir: string,
    private readonly server: string,
    /** The node credential; renewed over the agent's socket (setCredential). */
    private credential: string,
  ) {
    this.dir = join(stateDir, "blobs", "sha256");
    mkdirSync(this.dir, { recursive: true });
  }

  setCredential(credential: string): void {
    this.credential = credential;
  }

  /**
   * Local path of the verified blob, downloading it first if needed: from `/v1/blobs/<digest>`, or from
   * `source` (a path on the control plane, e.g. a checkpoint of an earlier run) — verified the same way.
   */
  async path(digest: string, source?: string): Promise<string> {
    if (!DIGEST_RE.test(digest)) throw new BlobFetchError(digest, 0, `"${digest}" is not a digest`);
    const hex = digest.slice("sha256:".length);
    const final = join(this.dir, hex);
    if (existsSync(final)) return final;
    // One download per digest at a time, shared: two writers of one temp file would rename it under
    // each other (ENOENT) or hand out a file still being written.
    const running = this.inflight.get(digest);
    if (running) return running;
    const download = this.download(digest, final, source).finally(() => this.inflight.delete(digest));
    this.inflight.set(digest, download);
    return download;
  }

  /**
   * The blob's GET, sent again (up to GET_ATTEMPTS, after a short pause) when its connection closed before
   * any answer: nothing was read yet, and a GET changes nothing. A 503 (the control plane's ledger is a
   * moment behind its fleet: "retry shortly") is sent again too, after its Retry-After (at most
   * MAX_RETRY_AFTER_MS), up to UNAVAILABLE_ATTEMPTS: a launch must not fail on it.
   */
  private async get(digest: string, source?: string): Promise<Response> {
    for (let attempt = 1, unavailable = 1; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(`${this.server}${source ?? `/v1/blobs/${digest}`}`, {
          headers: { authorization: `Bearer ${this.credential}` },
        });
      } catch (err) {
        if (attempt >= GET_ATTEMPTS || !closedUnanswered(err)) {
          throw new BlobFetchError(digest, 0, `fetching blob ${digest} failed: ${describeFetchError(err)}`);
        }
        await new Promise((r) => setTimeout(r, GET_RETRY_MS * attempt));
        continue;
      }
      if (res.status !== 503 || unavailable >= UNAVAILABLE_ATTEMPTS) return res;
      unavailable++;
      await res.body?.cancel();
      const after = Number(res.headers.get("retry-after"));
      const wait = Number.isFinite(after) && after > 0 ? after * 1000 : GET_RETRY_MS * unavailable;
      await new Promise((r) => setTimeout(r, Math.min(wait, MAX_RETRY_AFTER_MS)));
    }
  }

  private async download(digest: string, final: string, source?: string): Promise<string> {
    const res = await this.get(digest, source);
    if (!res.ok || !res.body) {
      throw new BlobFetchError(
        digest,
        res.status,
        `fetching blob ${digest} failed: HTTP ${res.status} ${await res.text()}`,
      );
    }
    const tmp = `${final}.part-${process.pid}`;
    const hash = createHash("sha256");
    const body = Readable.fromWeb(res.body as import("node:stream/web").ReadableStream<Uint8Array>);
    body.on("data", (chunk: Buffer) => hash.update(chunk));
    try {
      await pipeline(body, createWriteStream(tmp, { mode: 0o600 }));
    } catch (err) {
      rmSync(tmp, { force: true });
      throw new BlobFetchError(
        digest,
        0,
        `fetching blob ${digest} was interrupted: ${describeFetchError(err)}`,
      );
    }
    const actual = `sha256:${hash.digest("hex")}`;
    if (actual !== digest) {
      rmSync(tmp, { force: true });
      throw new DigestMismatchError(digest, actual);
    }
    renameSync(tmp, final);
    return final;
  }
}
