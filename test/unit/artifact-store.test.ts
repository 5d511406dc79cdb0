/**
 * Upload targets for artifacts. There is no local S3 endpoint for R2, so the presigned URL is checked by
 * shape and by recomputing its SigV4 signature independently: a URL R2 would accept, for exactly one PUT
 * of one run-scoped key, with no checksum the client could not supply.
 */
import { createHash, createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ArtifactUploadTarget } from "../../contract/ingest.schema.js";
import {
  artifactKey,
  artifactStoreFor,
  checkArtifactPath,
  MAX_ARTIFACT_PATH_BYTES,
  WorkerArtifactStore,
} from "../../worker/services/artifact-store.js";
import { R2PresignedArtifactStore } from "../../worker/services/r2-presigned-store.js";

const R2 = {
  accountId: "0123456789abcdef0123456789abcdef",
  accessKeyId: "AKIDEXAMPLE0001",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
  bucket: "starforge-blobs",
};
const NOW = Date.parse("2026-11-02T03:04:05.000Z");
const INPUT = {
  runId: "run_01jz0000000000000000000000",
  path: "checkpoints/step 10/model.pt",
  sizeBytes: 1234,
  digest: `sha256:${"a".repeat(64)}`,
  token: "eyJ.run.token",
  now: NOW,
};

const hmac = (key: Buffer | string, data: string) => createHmac("sha256", key).update(data).digest();
const sha256 = (data: string) => createHash("sha256").update(data).digest("hex");
const rfc3986 = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);

/** AWS SigV4 for a presigned S3 request, written from the spec rather than taken from the SDK. */
function expectedSignature(url: URL, method: string, headers: Record<string, string>): string {
  const params = [...url.searchParams.entries()].filter(([k]) => k !== "X-Amz-Signature");
  const query = params
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const signed = url.searchParams.get("X-Amz-SignedHeaders")!.split(";");
  const canonicalHeaders = signed.map((h) => `${h}:${headers[h]}\n`).join("");
  const request = [method, url.pathname, query, canonicalHeaders, signed.join(";"), "UNSIGNED-PAYLOAD"].join(
    "\n",
  );
  const [, day, region, service] = url.searchParams.get("X-Amz-Credential")!.split("/");
  const scope = `${day}/${region}/${service}/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", url.searchParams.get("X-Amz-Date"), scope, sha256(request)].join("\n");
  let key = hmac(`AWS4${R2.secretAccessKey}`, day!);
  key = hmac(key, region!);
  key = hmac(key, service!);
  key = hmac(key, "aws4_request");
  return createHmac("sha256", key).update(toSign).digest("hex");
}

describe("R2 presigned artifact uploads", () => {
  it("signs a PUT of the run-scoped key's staging key on the account's R2 host, path-style", async () => {
    const target = ArtifactUploadTarget.parse(await new R2PresignedArtifactStore(R2).uploadTarget(INPUT));
    expect(target.method).toBe("PUT");
    expect(target.headers).toEqual({});
    expect(target.expires_at).toBe("2026-11-02T04:04:05.000Z");
    const url = new URL(target.url);
    expect(url.protocol).toBe("https:");
    expect(url.host).toBe(`${R2.accountId}.r2.cloudflarestorage.com`);
    // The staging key of the run-scoped key: registering the artifact moves it there, R2 verifying its digest.
    expect(url.pathname).toBe(
      `/${R2.bucket}/staging/artifacts/${INPUT.runId}/checkpoints/step%2010/model.pt`,
    );
    expect(decodeURIComponent(url.pathname)).toBe(
      `/${R2.bucket}/staging/${artifactKey(INPUT.runId, INPUT.path)}`,
    );
    const q = url.searchParams;
    expect(q.get("X-Amz-Algorithm")).toBe("AWS4-HMAC-SHA256");
    expect(q.get("X-Amz-Credential")).toBe(`${R2.accessKeyId}/20261102/auto/s3/aws4_request`);
    expect(q.get("X-Amz-Date")).toBe("20261102T030405Z");
    expect(q.get("X-Amz-Expires")).toBe("3600");
    expect(q.get("X-Amz-SignedHeaders")).toBe("content-length;host");
    expect(q.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);
  });

  it("carries no checksum parameter, so a plain PUT of the bytes is what it signs", async () => {
    const target = await new R2PresignedArtifactStore(R2).uploadTarget(INPUT);
    const url = new URL(target.url);
    const names = [...url.searchParams.keys()];
    expect(names.filter((n) => /checksum|crc|sdk/i.test(n))).toEqual([]);
    expect(names.sort()).toEqual([
      "X-Amz-Algorithm",
      "X-Amz-Content-Sha256",
      "X-Amz-Credential",
      "X-Amz-Date",
      "X-Amz-Expires",
      "X-Amz-Signature",
      "X-Amz-SignedHeaders",
      "x-id",
    ]);
    expect(url.searchParams.get("X-Amz-Content-Sha256")).toBe("UNSIGNED-PAYLOAD");
    expect(url.searchParams.get("x-id")).toBe("PutObject");
  });

  it("has a signature that verifies for the announced size and fails for any other", async () => {
    const target = await new R2PresignedArtifactStore(R2).uploadTarget(INPUT);
    const url = new URL(target.url);
    const host = url.host;
    const sig = url.searchParams.get("X-Amz-Signature");
    expect(expectedSignature(url, "PUT", { host, "content-length": "1234" })).toBe(sig);
    expect(expectedSignature(url, "PUT", { host, "content-length": "1235" })).not.toBe(sig);
    expect(expectedSignature(url, "GET", { host, "content-length": "1234" })).not.toBe(sig);
  });

  it("is chosen when R2 credentials are configured, the Worker store otherwise", async () => {
    expect((await artifactStoreFor({ publicUrl: "http://x.test", r2: R2 })).kind).toBe("r2-presigned");
    expect((await artifactStoreFor({ publicUrl: "http://x.test", r2: null })).kind).toBe("worker");
  });
});

describe("Worker artifact uploads", () => {
  it("points at the Worker's own upload route, authorised by the run token", async () => {
    const store = new WorkerArtifactStore("https://sf.example.com/");
    const target = ArtifactUploadTarget.parse(await store.uploadTarget(INPUT));
    const url = new URL(target.url);
    expect(url.origin).toBe("https://sf.example.com");
    expect(url.pathname).toBe(`/v1/ingest/artifact/blob/${INPUT.runId}/checkpoints/step%2010/model.pt`);
    expect(url.searchParams.get("digest")).toBe(INPUT.digest);
    expect(target.headers).toEqual({ "X-StarForge-Token": INPUT.token });
  });
});

describe("artifact paths", () => {
  it("accepts relative paths and refuses ones that could name another place", () => {
    expect(checkArtifactPath("checkpoints/step-10/model.pt")).toBe("checkpoints/step-10/model.pt");
    for (const bad of ["/abs/path", "a/../b", "./a", "a//b", "a/", "..", "a\\b", "a\u0000b", "a\nb"]) {
      expect(() => checkArtifactPath(bad), bad).toThrow(/artifact path/);
    }
  });

  // Regression (fuzz-ingest): a 3000-character path made R2 refuse the key, and the upload answered 500.
  it("refuses a path whose storage key R2 would refuse (over 1024 bytes with its run prefix)", () => {
    expect(checkArtifactPath("a".repeat(MAX_ARTIFACT_PATH_BYTES))).toHaveLength(MAX_ARTIFACT_PATH_BYTES);
    expect(() => checkArtifactPath("a".repeat(3_000))).toThrow(/at most 900/);
    expect(() => checkArtifactPath("é".repeat(451))).toThrow(/902 bytes/);
  });
});
