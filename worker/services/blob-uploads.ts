/**
 * Multipart uploads of large content-addressed blobs straight to object storage (contract/uploads.schema.ts
 * has the protocol; routes in routes/blobs.routes.ts). The Worker never sees the bytes going up: it opens
 * the S3 multipart upload, signs a PUT per part, records each part the client reports stored, and on
 * completion has S3 assemble the parts and moves the result under `blobs/sha256/<hex>` through the binding,
 * where R2 verifies the digest (staged-object.ts). One open upload per (digest, user), so asking again after
 * an interruption resumes it with the parts already stored. Uploads left open expire after UPLOAD_LIFE_MS;
 * R2 itself aborts incomplete multipart uploads after 7 days.
 */
import { and, asc, eq } from "drizzle-orm";
import { integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { newId, nowIso } from "../../contract/ids.js";
import {
  choosePartSize,
  type PartReport,
  partCount,
  partRange,
  type StartUploadResponse,
  type StoredPart,
} from "../../contract/uploads.schema.js";
import { db, schema } from "../../d1/client.js";
import type { Config } from "../env.js";
import { AppError } from "../errors.js";
import { blobKey } from "../submit/checks.js";
import { UPLOAD_TTL_SECONDS } from "./artifact-target.js";
import { errorFields, log } from "./log.js";
import type { S3Objects } from "./s3-objects.js";
import { acceptStaged, stagingKey } from "./staged-object.js";

/** Declared here, not in the ledger's schema: only this module reads or writes them (migrations/0010). */
export const blobUploads = sqliteTable(
  "blob_uploads",
  {
    id: text("id").primaryKey(),
    digest: text("digest").notNull(),
    size: integer("size").notNull(),
    partSize: integer("part_size").notNull(),
    partCount: integer("part_count").notNull(),
    s3Key: text("s3_key").notNull(),
    s3UploadId: text("s3_upload_id").notNull(),
    createdBy: text("created_by").notNull(),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [uniqueIndex("blob_uploads_digest_user").on(t.digest, t.createdBy)],
);

export const blobUploadParts = sqliteTable(
  "blob_upload_parts",
  {
    uploadId: text("upload_id").notNull(),
    number: integer("number").notNull(),
    size: integer("size").notNull(),
    etag: text("etag").notNull(),
    sha256: text("sha256").notNull(),
  },
  (t) => [primaryKey({ columns: [t.uploadId, t.number] })],
);

type Upload = typeof blobUploads.$inferSelect;

/** An open upload is resumed for a day; after that, asking again starts a new one. */
export const UPLOAD_LIFE_MS = 24 * 3600 * 1000;

export interface UploadEnv {
  DB: D1Database;
  BLOBS: R2Bucket;
}

/** The S3 side, loaded only when configured (the SDK is most of the bundle). */
async function s3For(cfg: Config): Promise<S3Objects | null> {
  if (!cfg.r2) return null;
  const { S3Objects } = await import("./s3-objects.js");
  return new S3Objects(cfg.r2);
}

async function recordExisting(env: UploadEnv, digest: string, size: number, userId: string): Promise<void> {
  await db(env.DB)
    .insert(schema.blobs)
    .values({ digest, size, createdBy: userId })
    .onConflictDoNothing()
    .run();
}

async function storedParts(env: UploadEnv, uploadId: string): Promise<StoredPart[]> {
  const rows = await db(env.DB)
    .select()
    .from(blobUploadParts)
    .where(eq(blobUploadParts.uploadId, uploadId))
    .orderBy(asc(blobUploadParts.number))
    .all();
  return rows.map((r) => ({ number: r.number, size: r.size, etag: r.etag, sha256: r.sha256 }));
}

/** Forgets an upload (its rows) and aborts it in S3, best effort: R2 aborts forgotten ones after 7 days. */
async function dropUpload(env: UploadEnv, s3: S3Objects | null, u: Upload): Promise<void> {
  await db(env.DB).batch([
    db(env.DB).delete(blobUploadParts).where(eq(blobUploadParts.uploadId, u.id)),
    db(env.DB).delete(blobUploads).where(eq(blobUploads.id, u.id)),
  ]);
  if (s3) {
    await s3
      .abortMultipart(u.s3Key, u.s3UploadId)
      .catch((e) => log("warn", "multipart upload not aborted", { upload_id: u.id, ...errorFields(e) }));
  }
}

/** POST /v1/blobs/:digest/uploads: the blob is there, goes through the Worker, or gets (or resumes) a multipart upload. */
export async function startUpload(
  env: UploadEnv,
  cfg: Config,
  userId: string,
  digest: string,
  size: number,
  now = Date.now(),
): Promise<StartUploadResponse> {
  if (size > cfg.maxBlobBytes) {
    throw new AppError("BLOB_TOO_LARGE", `blob is ${size} bytes; the limit is ${cfg.maxBlobBytes}`, {
      limit: cfg.maxBlobBytes,
    });
  }
  const key = blobKey(digest);
  const head = await env.BLOBS.head(key);
  if (head) {
    await recordExisting(env, digest, head.size, userId);
    return { mode: "exists", digest, size: head.size };
  }
  const s3 = await s3For(cfg);
  if (!s3) {
    if (size <= cfg.maxWorkerBodyBytes) return { mode: "worker", digest, size };
    throw new AppError(
      "BLOB_TOO_LARGE",
      `blob is ${size} bytes: larger than a request to this control plane may be (${cfg.maxWorkerBodyBytes}), ` +
        "and it has no direct upload to object storage configured (R2_* secrets, docs/deploy.md)",
      { limit: cfg.maxWorkerBodyBytes },
    );
  }

  const d = db(env.DB);
  const open = await d
    .select()
    .from(blobUploads)
    .where(and(eq(blobUploads.digest, digest), eq(blobUploads.createdBy, userId)))
    .get();
  let upload: Upload;
  let resumed = false;
  if (open && open.size === size && Date.parse(open.expiresAt) > now) {
    upload = open;
    resumed = true;
  } else {
    if (open) await dropUpload(env, s3, open);
    const id = newId("upl");
    const s3Key = stagingKey(`uploads/${id}`);
    const partSize = choosePartSize(size);
    upload = {
      id,
      digest,
      size,
      partSize,
      partCount: partCount(size, partSize),
      s3Key,
      s3UploadId: await s3.createMultipart(s3Key),
      createdBy: userId,
      createdAt: nowIso(now),
      expiresAt: nowIso(now + UPLOAD_LIFE_MS),
    };
    // Two racing starts for one digest and user: the second insert loses and resumes the first's upload.
    const inserted = await d.insert(blobUploads).values(upload).onConflictDoNothing().returning().get();
    if (!inserted) {
      await s3.abortMultipart(s3Key, upload.s3UploadId).catch(() => {});
      return startUpload(env, cfg, userId, digest, size, now);
    }
  }

  const stored = resumed ? await storedParts(env, upload.id) : [];
  const urls = await Promise.all(
    Array.from({ length: upload.partCount }, async (_, i) => {
      const n = i + 1;
      const { length } = partRange(upload.size, upload.partSize, n);
      return {
        number: n,
        url: await s3.presignPart(upload.s3Key, upload.s3UploadId, n, length, UPLOAD_TTL_SECONDS, now),
      };
    }),
  );
  return {
    mode: "multipart",
    digest,
    size,
    upload_id: upload.id,
    part_size: upload.partSize,
    part_count: upload.partCount,
    stored,
    urls,
    expires_at: nowIso(now + UPLOAD_TTL_SECONDS * 1000),
    resumed,
  };
}

async function openUpload(env: UploadEnv, userId: string, digest: string, uploadId: string): Promise<Upload> {
  const u = await db(env.DB)
    .select()
    .from(blobUploads)
    .where(
      and(eq(blobUploads.id, uploadId), eq(blobUploads.createdBy, userId), eq(blobUploads.digest, digest)),
    )
    .get();
  if (!u) {
    throw new AppError(
      "UPLOAD_NOT_FOUND",
      `no open upload ${uploadId} of ${digest} is yours: it was completed, aborted or never started`,
    );
  }
  return u;
}

/** PUT /v1/blobs/:digest/uploads/:upload/parts/:n: the client stored part n. */
export async function reportPart(
  env: UploadEnv,
  userId: string,
  digest: string,
  uploadId: string,
  n: number,
  report: PartReport,
): Promise<{ number: number; stored: number }> {
  const u = await openUpload(env, userId, digest, uploadId);
  if (!Number.isInteger(n) || n < 1 || n > u.partCount) {
    throw new AppError("BAD_REQUEST", `part ${n} is out of range: this upload has parts 1..${u.partCount}`);
  }
  const { length } = partRange(u.size, u.partSize, n);
  if (report.size !== length) {
    throw new AppError("BAD_REQUEST", `part ${n} has ${length} bytes in this upload, not ${report.size}`, {
      part: n,
      expected: length,
    });
  }
  const d = db(env.DB);
  await d
    .insert(blobUploadParts)
    .values({ uploadId: u.id, number: n, size: report.size, etag: report.etag, sha256: report.sha256 })
    .onConflictDoUpdate({
      target: [blobUploadParts.uploadId, blobUploadParts.number],
      set: { size: report.size, etag: report.etag, sha256: report.sha256 },
    })
    .run();
  return { number: n, stored: (await storedParts(env, u.id)).length };
}

/** POST /v1/blobs/:digest/uploads/:upload/complete: assemble, verify the digest, accept. */
export async function completeUpload(
  env: UploadEnv,
  cfg: Config,
  userId: string,
  digest: string,
  uploadId: string,
): Promise<{ digest: string; size: number; created: boolean }> {
  const u = await openUpload(env, userId, digest, uploadId);
  const parts = await storedParts(env, u.id);
  const have = new Set(parts.map((p) => p.number));
  const missing = Array.from({ length: u.partCount }, (_, i) => i + 1).filter((n) => !have.has(n));
  if (missing.length > 0) {
    throw new AppError(
      "UPLOAD_INCOMPLETE",
      `${missing.length} of ${u.partCount} parts are not stored yet (first: part ${missing[0]})`,
      { part: missing[0]!, missing: missing.length },
    );
  }
  const s3 = await s3For(cfg);
  if (!s3)
    throw new AppError("UPLOAD_NOT_FOUND", "this control plane has no direct upload configured any more");
  const key = blobKey(digest);
  const already = Boolean(await env.BLOBS.head(key));
  if (already) {
    // Someone else's upload of the same bytes finished first: this one is not needed.
    await dropUpload(env, s3, u);
  } else {
    await assemble(env, s3, u, parts);
    try {
      const size = await acceptStaged(s3, env.BLOBS, u.s3Key, key, digest);
      if (size === null) throw new AppError("UPLOAD_NOT_FOUND", `the assembled upload ${uploadId} is gone`);
    } catch (err) {
      // The assembled object is not that blob (or is gone): this upload cannot be completed; start over.
      await dropUpload(env, null, u);
      throw err;
    }
    await dropUpload(env, null, u);
  }
  await recordExisting(env, digest, u.size, userId);
  return { digest, size: u.size, created: !already };
}

/** S3 assembles the parts; its refusals become coded errors (a part it lacks, an upload it forgot). */
async function assemble(env: UploadEnv, s3: S3Objects, u: Upload, parts: StoredPart[]): Promise<void> {
  try {
    await s3.completeMultipart(u.s3Key, u.s3UploadId, parts);
  } catch (err) {
    const name = err instanceof Error ? err.name : "";
    if (name === "NoSuchUpload") {
      await dropUpload(env, null, u);
      throw new AppError(
        "UPLOAD_NOT_FOUND",
        `object storage no longer has upload ${u.id} (expired?); start again`,
      );
    }
    if (name === "InvalidPart" || name === "InvalidPartOrder" || name === "EntityTooSmall") {
      // What was reported is not what is stored: forget the reports so the next attempt sends every part.
      await db(env.DB).delete(blobUploadParts).where(eq(blobUploadParts.uploadId, u.id)).run();
      throw new AppError(
        "UPLOAD_INCOMPLETE",
        `object storage refused the parts of upload ${u.id} (${name}); send them again`,
      );
    }
    throw err;
  }
}

/** DELETE /v1/blobs/:digest/uploads/:upload: the client gives up; nothing of it is kept. */
export async function abortUpload(
  env: UploadEnv,
  cfg: Config,
  userId: string,
  digest: string,
  uploadId: string,
): Promise<{ aborted: string }> {
  const u = await openUpload(env, userId, digest, uploadId);
  await dropUpload(env, await s3For(cfg), u);
  return { aborted: u.id };
}
