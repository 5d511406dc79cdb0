/**
 * Content-addressed blobs in R2 under `blobs/sha256/<hex>`. Writes are verified by R2 against the
 * digest in the URL (services/verified-put.ts), write-once (an existing digest is never rewritten) and
 * size-limited; bodies stream through with a fixed length and are never buffered whole.
 */
import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { DIGEST_RE } from "../../contract/digest.js";
import {
  BlobStored,
  PartReport,
  PartReportResponse,
  StartUploadRequest,
  StartUploadResponse,
  UPLOAD_ID_RE,
} from "../../contract/uploads.schema.js";
import { type Db, db, schema } from "../../d1/client.js";
import { type Ctx, currentUser, type Env, isAdmin, requireRole } from "../auth/middleware.js";
import type { Principal } from "../auth/principal.js";
import { config } from "../env.js";
import { AppError } from "../errors.js";
import { parseJson } from "../http.js";
import { describe } from "../openapi/describe.js";
import { abortUpload, completeUpload, reportPart, startUpload } from "../services/blob-uploads.js";
import { blobResponse } from "../services/runs.service.js";
import { declaredLength, putVerified } from "../services/verified-put.js";
import { blobKey } from "../submit/checks.js";
import { catchUp } from "../submit/read-your-writes.js";

function digestParam(c: Ctx): string {
  const d = c.req.param("digest") ?? "";
  if (!DIGEST_RE.test(d))
    throw new AppError("INVALID_DIGEST", `"${d}" is not a digest; expected sha256:<64 lowercase hex>`);
  return d;
}

function uploadParam(c: Ctx): string {
  const id = c.req.param("upload") ?? "";
  if (!UPLOAD_ID_RE.test(id))
    throw new AppError("UPLOAD_NOT_FOUND", `"${id.slice(0, 64)}" is not an upload id`);
  return id;
}

/** Anyone who may upload may ask whether a digest exists (that is how uploads are deduplicated). */
function mayProbe(p: Principal): boolean {
  return p.kind === "agent" || p.role !== "viewer";
}

/** An upload's body: raw bytes. */
const Bytes = z.file();

/** DELETE /v1/blobs/:digest/uploads/:upload */
const AbortedUpload = z.looseObject({
  aborted: z.string().describe("The id of the upload given up, `upl_…`"),
});

const CONTENT_LENGTH = {
  "Content-Length": {
    description: "The body's exact size in bytes: the bytes are streamed to storage, never buffered",
    required: true,
  },
};

async function mayRead(d: Db, p: Principal, digest: string): Promise<boolean> {
  if (isAdmin(p)) return true;
  if (p.kind === "user") {
    const own = await d
      .select({ x: schema.blobs.digest })
      .from(schema.blobs)
      .where(and(eq(schema.blobs.digest, digest), eq(schema.blobs.createdBy, p.userId)))
      .get();
    if (own) return true;
  }
  const viaJob = await d
    .select({ x: schema.blobRefs.jobId })
    .from(schema.blobRefs)
    .innerJoin(schema.jobs, eq(schema.jobs.id, schema.blobRefs.jobId))
    .where(
      and(
        eq(schema.blobRefs.digest, digest),
        p.kind === "agent" ? eq(schema.jobs.fleetId, p.fleetId) : eq(schema.jobs.userId, p.userId),
      ),
    )
    .get();
  return Boolean(viaJob);
}

export const blobsRoutes = new Hono<Env>()
  .put(
    "/blobs/:digest",
    describe({
      id: "putBlob",
      tag: "Blobs",
      summary: "Upload a blob's bytes under their digest",
      description:
        "Raw bytes, streamed to storage with a fixed length, which verifies them against the digest in the " +
        "URL: nothing whose bytes hash otherwise is stored. Write-once: a digest already stored answers 200 " +
        "with `created: false` and its body is not read. Up to `SF_MAX_BLOB_BYTES`; larger blobs, and any " +
        "over the Worker's request limit, go through POST /v1/blobs/{digest}/uploads. 400 `BAD_REQUEST`: " +
        "the body had another length than its Content-Length.",
      role: "operator",
      body: { schema: Bytes, media: "application/octet-stream", description: "The blob's bytes" },
      headers: CONTENT_LENGTH,
      ok: {
        201: { description: "Stored: a new blob", json: BlobStored },
        200: { description: "The digest was stored already (`created: false`)", json: BlobStored },
      },
      errors: ["INVALID_DIGEST", "LENGTH_REQUIRED", "BLOB_TOO_LARGE", "BLOB_DIGEST_MISMATCH"],
    }),
    requireRole("operator"),
    async (c) => {
      const digest = digestParam(c);
      const length = await declaredLength(c.req.raw, config(c.env).maxBlobBytes, "PUT /v1/blobs");
      const key = blobKey(digest);
      const d = db(c.env.DB);
      const createdBy = currentUser(c).userId;

      const existing = await c.env.BLOBS.head(key);
      if (existing) {
        await c.req.raw.body?.cancel();
        await d
          .insert(schema.blobs)
          .values({ digest, size: existing.size, createdBy })
          .onConflictDoNothing()
          .run();
        return c.json({ digest, size: existing.size, created: false });
      }
      await putVerified(c.env.BLOBS, key, c.req.raw.body, length, digest);
      await d.insert(schema.blobs).values({ digest, size: length, createdBy }).onConflictDoNothing().run();
      return c.json({ digest, size: length, created: true }, 201);
    },
  )
  // Large blobs: a multipart upload straight to object storage (contract/uploads.schema.ts).
  .post(
    "/blobs/:digest/uploads",
    describe({
      id: "startBlobUpload",
      tag: "Blobs",
      summary: "Open or resume a direct multipart upload of a large blob",
      description:
        '`mode: "exists"`: the blob is stored already; `"worker"`: no direct upload is configured and the ' +
        'blob fits a request, PUT it to /v1/blobs/{digest}; `"multipart"`: a presigned PUT URL per part, ' +
        "and the parts an interrupted attempt already stored (`resumed: true`, answered 200). " +
        '(docs/api.md "Direct uploads")',
      role: "operator",
      body: StartUploadRequest,
      ok: {
        201: { description: "A new multipart upload", json: StartUploadResponse },
        200: {
          description: "The blob exists, goes through the Worker, or an open upload is resumed",
          json: StartUploadResponse,
        },
      },
      errors: ["INVALID_DIGEST", "BLOB_TOO_LARGE"],
    }),
    requireRole("operator"),
    async (c) => {
      const digest = digestParam(c);
      const { size } = await parseJson(c, StartUploadRequest);
      const answer = await startUpload(c.env, config(c.env), currentUser(c).userId, digest, size);
      return c.json(answer, answer.mode === "multipart" && !answer.resumed ? 201 : 200);
    },
  )
  .put(
    "/blobs/:digest/uploads/:upload/parts/:n",
    describe({
      id: "reportBlobUploadPart",
      tag: "Blobs",
      summary: "Record that a part of a multipart upload is stored",
      description:
        "With the ETag the part's presigned PUT answered and the sha256 of the bytes sent; reporting a part " +
        "again replaces its record. 400 `BAD_REQUEST`: `n` out of range, or a size other than the part's " +
        "(`details.expected`).",
      role: "operator",
      body: PartReport,
      ok: { 200: PartReportResponse },
      errors: ["INVALID_DIGEST", "UPLOAD_NOT_FOUND"],
    }),
    requireRole("operator"),
    async (c) => {
      const digest = digestParam(c);
      const id = uploadParam(c);
      const n = Number(c.req.param("n"));
      const report = await parseJson(c, PartReport);
      return c.json(await reportPart(c.env, currentUser(c).userId, digest, id, n, report));
    },
  )
  .post(
    "/blobs/:digest/uploads/:upload/complete",
    describe({
      id: "completeBlobUpload",
      tag: "Blobs",
      summary: "Assemble a multipart upload and accept it as the blob",
      description:
        "Object storage assembles the reported parts; the result is accepted only if it hashes to the " +
        "digest (on a mismatch nothing is kept and the upload is gone). `created: false` when another " +
        "upload stored the blob meanwhile. 409 `UPLOAD_INCOMPLETE`: parts not reported yet " +
        "(`details.part`, `details.missing`), or refused by object storage.",
      role: "operator",
      ok: { 201: BlobStored },
      errors: ["INVALID_DIGEST", "UPLOAD_NOT_FOUND", "UPLOAD_INCOMPLETE", "BLOB_DIGEST_MISMATCH"],
    }),
    requireRole("operator"),
    async (c) => {
      const digest = digestParam(c);
      const id = uploadParam(c);
      return c.json(await completeUpload(c.env, config(c.env), currentUser(c).userId, digest, id), 201);
    },
  )
  .delete(
    "/blobs/:digest/uploads/:upload",
    describe({
      id: "abortBlobUpload",
      tag: "Blobs",
      summary: "Give up a multipart upload",
      description: "Its records go and object storage is asked to abort it.",
      role: "operator",
      ok: { 200: AbortedUpload },
      errors: ["INVALID_DIGEST", "UPLOAD_NOT_FOUND"],
    }),
    requireRole("operator"),
    async (c) => {
      const digest = digestParam(c);
      const id = uploadParam(c);
      return c.json(await abortUpload(c.env, config(c.env), currentUser(c).userId, digest, id));
    },
  )
  // Hono answers HEAD with the GET route; HEAD is the dedupe probe and needs no read right.
  .get(
    "/blobs/:digest",
    describe({
      id: "getBlob",
      tag: "Blobs",
      summary: "Download a blob (HEAD: does it exist?)",
      description:
        "GET: the bytes, for an admin, the blob's first uploader, a user whose job references it, or an " +
        "agent of a fleet running a job that references it; read rights are checked before existence, so " +
        "a digest you may not read is 403 whether it exists or not. HEAD (served by this route) is the " +
        "upload dedupe probe for operators, admins and agents, with no per-blob right: 200 with " +
        "`Content-Length` and `ETag` when the blob exists, 404 when it does not, no body either way (403 " +
        "for viewers).",
      auth: "user_or_agent",
      ok: {
        200: {
          description: "The bytes (none on HEAD)",
          media: { type: "application/octet-stream", schema: { type: "string", format: "binary" } },
          headers: { "Content-Length": "The blob's size in bytes", ETag: '`"<digest>"`' },
        },
      },
      errors: ["INVALID_DIGEST", "FORBIDDEN", "BLOB_NOT_FOUND", "UNAVAILABLE"],
    }),
    async (c) => {
      const digest = digestParam(c);
      const p = c.get("principal");
      if (c.req.method === "HEAD") {
        if (!mayProbe(p)) throw new AppError("FORBIDDEN", "viewers cannot probe blobs");
        const head = await c.env.BLOBS.head(blobKey(digest));
        if (!head) return c.body(null, 404);
        return c.body(null, 200, { "content-length": String(head.size), etag: `"${digest}"` });
      }
      const d = db(c.env.DB);
      // A miss may be a job D1 does not hold yet (an agent launching what its fleet just dispatched, a
      // user reading what they just submitted): the fleet writes first, then the answer is final.
      if (!(await mayRead(d, p, digest)) && !(await catchUp(c).then(() => mayRead(d, p, digest)))) {
        throw new AppError("FORBIDDEN", "you may not read this blob: it belongs to no job you can read");
      }
      return blobResponse(c.env, digest);
    },
  );
