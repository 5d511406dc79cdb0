/**
 * Direct uploads of large blobs (contract/uploads.schema.ts), the parts that need no object storage: which
 * path a blob takes, the refusal of a blob too large for a Worker request when no direct upload is
 * configured, and the bookkeeping of an open upload (part ranges and sizes, completion with parts missing,
 * upload ids that are not the caller's). The S3 side runs for real in test/cli/direct-upload.test.ts.
 */
import { describe, expect, it } from "vitest";
import { digestOf } from "../../contract/digest.js";
import { newId, nowIso } from "../../contract/ids.js";
import { db } from "../../d1/client.js";
import { config } from "../../worker/env.js";
import { AppError } from "../../worker/errors.js";
import { blobUploads, startUpload } from "../../worker/services/blob-uploads.js";
import { api, createUser, putBlob } from "./helpers.js";
import { testEnv } from "./test-env.js";

const MiB = 1024 * 1024;

async function userIdOf(token: string): Promise<string> {
  return (await api(token, "GET", "/v1/me")).body.user.id as string;
}

/** An open upload of `size` bytes for `userId`, as POST /uploads would record it with object storage. */
async function seedUpload(userId: string, digest: string, size: number): Promise<string> {
  const id = newId("upl");
  await db(testEnv.DB)
    .insert(blobUploads)
    .values({
      id,
      digest,
      size,
      partSize: 16 * MiB,
      partCount: Math.ceil(size / (16 * MiB)),
      s3Key: `staging/uploads/${id}`,
      s3UploadId: "stand-in",
      createdBy: userId,
      createdAt: nowIso(),
      expiresAt: nowIso(Date.now() + 3600_000),
    })
    .run();
  return id;
}

const part = (size: number) => ({ size, etag: '"0123"', sha256: "a".repeat(64) });

describe("direct uploads", () => {
  it("sends a blob through the Worker when no direct upload is configured and it fits a request", async () => {
    const op = await createUser("up-worker");
    const digest = await digestOf("not stored yet");
    const r = await api(op, "POST", `/v1/blobs/${digest}/uploads`, { size: 5000 });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ mode: "worker", digest, size: 5000 });
  });

  it("answers exists for a blob already stored, with its stored size", async () => {
    const op = await createUser("up-exists");
    const digest = await putBlob(op, "stored already\n");
    const r = await api(op, "POST", `/v1/blobs/${digest}/uploads`, { size: 999 });
    expect(r.body).toEqual({ mode: "exists", digest, size: 15 });
  });

  it("refuses a blob over the Worker's request limit when no direct upload is configured, saying why", async () => {
    const op = await createUser("up-toolarge");
    const digest = await digestOf("too large");
    const cfg = { ...config(testEnv), r2: null, maxWorkerBodyBytes: 1000 };
    const err = await startUpload(testEnv, cfg, await userIdOf(op), digest, 5000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("BLOB_TOO_LARGE");
    expect((err as AppError).message).toContain("no direct upload to object storage configured");
    expect((err as AppError).details).toEqual({ limit: 1000 });
    // Over SF_MAX_BLOB_BYTES is refused whatever the configuration, through the route too.
    const r = await api(op, "POST", `/v1/blobs/${digest}/uploads`, {
      size: config(testEnv).maxBlobBytes + 1,
    });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe("BLOB_TOO_LARGE");
  });

  it("refuses bad bodies and digests with their codes", async () => {
    const op = await createUser("up-bad");
    const digest = await digestOf("x");
    expect((await api(op, "POST", `/v1/blobs/${digest}/uploads`, { size: -1 })).body.error.code).toBe(
      "BAD_REQUEST",
    );
    expect((await api(op, "POST", `/v1/blobs/${digest}/uploads`, { bytes: 1 })).body.error.code).toBe(
      "BAD_REQUEST",
    );
    expect((await api(op, "POST", "/v1/blobs/sha256:nope/uploads", { size: 1 })).body.error.code).toBe(
      "INVALID_DIGEST",
    );
    const viewer = await createUser("up-viewer", "viewer");
    expect((await api(viewer, "POST", `/v1/blobs/${digest}/uploads`, { size: 1 })).status).toBe(403);
  });

  it("records parts of an open upload, within its range and at their exact size", async () => {
    const op = await createUser("up-parts");
    const digest = await digestOf("parts");
    const id = await seedUpload(await userIdOf(op), digest, 40 * MiB);
    const base = `/v1/blobs/${digest}/uploads/${id}/parts`;
    expect((await api(op, "PUT", `${base}/1`, part(16 * MiB))).body).toEqual({ number: 1, stored: 1 });
    // The last part is the remainder: 40 - 2 * 16 = 8 MiB.
    const wrong = await api(op, "PUT", `${base}/3`, part(16 * MiB));
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details).toEqual({ part: 3, expected: 8 * MiB });
    expect((await api(op, "PUT", `${base}/3`, part(8 * MiB))).body).toEqual({ number: 3, stored: 2 });
    // Reporting a part again replaces it.
    expect((await api(op, "PUT", `${base}/1`, part(16 * MiB))).body).toEqual({ number: 1, stored: 2 });
    expect((await api(op, "PUT", `${base}/4`, part(1))).status).toBe(400);
    expect((await api(op, "PUT", `${base}/0`, part(1))).status).toBe(400);

    const done = await api(op, "POST", `/v1/blobs/${digest}/uploads/${id}/complete`);
    expect(done.status).toBe(409);
    expect(done.body.error).toMatchObject({ code: "UPLOAD_INCOMPLETE", details: { part: 2, missing: 1 } });
  });

  it("knows no upload that is not the caller's, or not of that digest", async () => {
    const owner = await createUser("up-owner");
    const other = await createUser("up-other");
    const digest = await digestOf("owned");
    const id = await seedUpload(await userIdOf(owner), digest, 20 * MiB);
    const notFound = async (token: string, path: string, method = "PUT", body: unknown = part(16 * MiB)) =>
      (await api(token, method, path, body)).body.error?.code;
    expect(await notFound(other, `/v1/blobs/${digest}/uploads/${id}/parts/1`)).toBe("UPLOAD_NOT_FOUND");
    expect(await notFound(other, `/v1/blobs/${digest}/uploads/${id}/complete`, "POST", {})).toBe(
      "UPLOAD_NOT_FOUND",
    );
    expect(await notFound(other, `/v1/blobs/${digest}/uploads/${id}`, "DELETE", undefined)).toBe(
      "UPLOAD_NOT_FOUND",
    );
    const elsewhere = await digestOf("another blob");
    expect(await notFound(owner, `/v1/blobs/${elsewhere}/uploads/${id}/parts/1`)).toBe("UPLOAD_NOT_FOUND");
    expect(await notFound(owner, `/v1/blobs/${digest}/uploads/not-an-id/parts/1`)).toBe("UPLOAD_NOT_FOUND");
    // Its owner gives it up: nothing of it is left.
    const gone = await api(owner, "DELETE", `/v1/blobs/${digest}/uploads/${id}`);
    expect(gone.body).toEqual({ aborted: id });
    expect(await notFound(owner, `/v1/blobs/${digest}/uploads/${id}/parts/1`)).toBe("UPLOAD_NOT_FOUND");
  });
});
