/**
 * What the Worker does with R2's S3 API (or a local S3-compatible stand-in, R2_S3_ENDPOINT): presigned
 * PUTs (artifacts, parts of multipart uploads) and the few calls it makes itself (create, complete and
 * abort a multipart upload; read and delete a staged object). Loaded only when R2's S3 API is configured:
 * the AWS SDK is most of the bundle and need not be evaluated on every cold start.
 *
 * The SDK only signs (getSignedUrl); the Worker sends each request itself with fetch. The SDK's own
 * response parsing needs DOMParser, which workerd lacks, and the few answers read here are one field each.
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { type R2PresignConfig, s3Endpoint } from "./artifact-target.js";

export class S3Objects {
  private readonly client: S3Client;

  constructor(private readonly cfg: R2PresignConfig) {
    this.client = new S3Client({
      region: "auto",
      endpoint: s3Endpoint(cfg),
      // Path style keeps the host the account's, whatever the bucket is called (no wildcard DNS/TLS).
      forcePathStyle: true,
      credentials: { accessKeyId: cfg.accessKeyId, secretAccessKey: cfg.secretAccessKey },
      // Newer SDKs add a CRC32 of the (empty) body being signed to every PutObject; the real body then
      // fails that checksum. Only send checksums an operation requires.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
  }

  /** Signing options: requests the Worker sends itself are signed for 5 minutes from now. */
  private static at(ttlSeconds = 300, now = Date.now()) {
    return { expiresIn: ttlSeconds, signingDate: new Date(now) };
  }

  /** A presigned PUT of exactly `size` bytes to `key`, good for `ttlSeconds` from `now`. */
  presignPut(key: string, size: number, ttlSeconds: number, now: number): Promise<string> {
    const command = new PutObjectCommand({ Bucket: this.cfg.bucket, Key: key, ContentLength: size });
    return getSignedUrl(this.client, command, S3Objects.at(ttlSeconds, now));
  }

  async createMultipart(key: string): Promise<string> {
    const url = await getSignedUrl(
      this.client,
      new CreateMultipartUploadCommand({ Bucket: this.cfg.bucket, Key: key }),
      S3Objects.at(),
    );
    const text = await expectOk(await fetch(url, { method: "POST" }), "CreateMultipartUpload");
    const id = xmlField(text, "UploadId");
    if (!id) throw new Error("CreateMultipartUpload answered without an UploadId");
    return id;
  }

  /** A presigned PUT of part `n` (exactly `size` bytes) of an open multipart upload. */
  presignPart(
    key: string,
    uploadId: string,
    n: number,
    size: number,
    ttlSeconds: number,
    now: number,
  ): Promise<string> {
    const command = new UploadPartCommand({
      Bucket: this.cfg.bucket,
      Key: key,
      UploadId: uploadId,
      PartNumber: n,
      ContentLength: size,
    });
    return getSignedUrl(this.client, command, S3Objects.at(ttlSeconds, now));
  }

  async completeMultipart(
    key: string,
    uploadId: string,
    parts: { number: number; etag: string }[],
  ): Promise<void> {
    const url = await getSignedUrl(
      this.client,
      new CompleteMultipartUploadCommand({ Bucket: this.cfg.bucket, Key: key, UploadId: uploadId }),
      S3Objects.at(),
    );
    const body = `<CompleteMultipartUpload>${parts
      .map((p) => `<Part><PartNumber>${p.number}</PartNumber><ETag>${xmlEscape(p.etag)}</ETag></Part>`)
      .join("")}</CompleteMultipartUpload>`;
    const res = await fetch(url, { method: "POST", body, headers: { "content-type": "application/xml" } });
    // S3 may answer 200 and still fail, with an <Error> body (documented for CompleteMultipartUpload).
    const text = await expectOk(res, "CompleteMultipartUpload");
    if (/<Error>/.test(text))
      throw new S3Error(xmlField(text, "Code") ?? "InternalError", "CompleteMultipartUpload", 200);
  }

  async abortMultipart(key: string, uploadId: string): Promise<void> {
    const url = await getSignedUrl(
      this.client,
      new AbortMultipartUploadCommand({ Bucket: this.cfg.bucket, Key: key, UploadId: uploadId }),
      S3Objects.at(),
    );
    await expectOk(await fetch(url, { method: "DELETE" }), "AbortMultipartUpload");
  }

  /** The object's size, or null when there is no such object. */
  async size(key: string): Promise<number | null> {
    const url = await getSignedUrl(
      this.client,
      new HeadObjectCommand({ Bucket: this.cfg.bucket, Key: key }),
      S3Objects.at(),
    );
    const res = await fetch(url, { method: "HEAD" });
    if (res.status === 404) return null;
    if (!res.ok) throw new S3Error(`HTTP${res.status}`, "HeadObject", res.status);
    return Number(res.headers.get("content-length") ?? 0);
  }

  /** `length` bytes of the object from `start` (one ranged GET, read whole: callers keep ranges small). */
  async range(key: string, start: number, length: number): Promise<Uint8Array> {
    const url = await getSignedUrl(
      this.client,
      new GetObjectCommand({ Bucket: this.cfg.bucket, Key: key }),
      S3Objects.at(),
    );
    const res = await fetch(url, { headers: { range: `bytes=${start}-${start + length - 1}` } });
    if (res.status !== 206 && res.status !== 200) await expectOk(res, "GetObject");
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (bytes.byteLength !== length) {
      throw new S3Error("IncompleteBody", "GetObject", res.status);
    }
    return bytes;
  }

  async delete(key: string): Promise<void> {
    const url = await getSignedUrl(
      this.client,
      new DeleteObjectCommand({ Bucket: this.cfg.bucket, Key: key }),
      S3Objects.at(),
    );
    await expectOk(await fetch(url, { method: "DELETE" }), "DeleteObject");
  }
}

/** An S3 error answer: `name` is S3's code (NoSuchUpload, InvalidPart, …). */
export class S3Error extends Error {
  constructor(
    code: string,
    readonly operation: string,
    readonly status: number,
  ) {
    super(`${operation}: ${code} (HTTP ${status})`);
    this.name = code;
  }
}

async function expectOk(res: Response, operation: string): Promise<string> {
  const text = await res.text();
  if (!res.ok) throw new S3Error(xmlField(text, "Code") ?? `HTTP${res.status}`, operation, res.status);
  return text;
}

function xmlField(xml: string, name: string): string | null {
  const m = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml);
  return m
    ? m[1]!
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, "<")
        .replace(/&gt;/g, ">")
        .replace(/&amp;/g, "&")
    : null;
}

function xmlEscape(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
