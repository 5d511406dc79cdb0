/**
 * Job-side ingest's files, mounted under /v1/ingest by ingest.routes.ts (behind its run-token check): in
 * pull mode a workload fetches its inputs (referenced blobs, the checkpoint it resumes from), and a run
 * stores its artifacts (an upload target, the bytes through the Worker, the registration).
 */
import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { DIGEST_RE, Digest } from "../../contract/digest.js";
import {
  ArtifactRegistration,
  ArtifactUploadRequest,
  ArtifactUploadTarget,
} from "../../contract/ingest.schema.js";
import { Artifact } from "../../contract/responses.schema.js";
import { db, schema } from "../../d1/client.js";
import { type IngestCtx, type IngestEnv, requireSameRun } from "../auth/ingest-auth.js";
import { config } from "../env.js";
import { AppError } from "../errors.js";
import { parseValue } from "../http.js";
import { describe } from "../openapi/describe.js";
import { artifactKey, artifactStoreFor, checkArtifactPath } from "../services/artifact-store.js";
import { fleetStub } from "../services/fleets.service.js";
import { artifactDownload, blobResponse, CheckpointQuery, runStub } from "../services/runs.service.js";
import { acceptStaged, stagingKey } from "../services/staged-object.js";
import { declaredLength, putVerified, storedDigest } from "../services/verified-put.js";

import { BINARY, RUN_BODY_ERRORS, runBody, TOKEN_HEADER } from "./ingest-shared.js";

/** A referenced file's path as given; only NUL is refused (no file system allows it). */
function referencePath(path: string): string {
  if (path.includes("\u0000")) throw new AppError("BAD_REQUEST", "an artifact path cannot contain NUL");
  return path;
}

/** `/artifact/blob/<run>/<path…>`: the path after the run, decoded segment by segment. */
function blobPath(c: IngestCtx, runId: string): string {
  const raw = new URL(c.req.url).pathname;
  const marker = `/artifact/blob/${runId}/`;
  const at = raw.indexOf(marker);
  if (at < 0) throw new AppError("BAD_REQUEST", "expected /v1/ingest/artifact/blob/<run>/<path>");
  let decoded: string[];
  try {
    decoded = raw
      .slice(at + marker.length)
      .split("/")
      .map(decodeURIComponent);
  } catch {
    throw new AppError("BAD_REQUEST", "the artifact path is not valid percent-encoding");
  }
  return checkArtifactPath(decoded.join("/"));
}

/** The run's rights to fetch its own inputs (pull mode), or a coded refusal. */
async function pullRights(c: IngestCtx) {
  const claims = c.get("claims");
  const rights = await fleetStub(c.env, claims.fleet).pullRights(claims.sub);
  if (!rights) throw new AppError("NOT_FOUND", `run ${claims.sub} is not known to its fleet`);
  return rights;
}

/** PUT /artifact/blob/:run/* */
const ArtifactBlobStored = z.object({
  path: z.string().describe("The artifact's path in the run, decoded from the URL"),
  digest: z.string().describe("The bytes' digest, the `digest` sent"),
  size: z.number().int().describe("Their size in bytes"),
  created: z
    .boolean()
    .describe(
      "True when the bytes were written; false when those exact bytes were stored at this path already",
    ),
});

/** POST /artifact: the artifact as GET /v1/jobs/{id}/artifacts lists it. */
const ArtifactRegistered = z.looseObject({ artifact: Artifact });

/** An upload's body: raw bytes. */
const Bytes = z.file();

export const ingestFilesRoutes = new Hono<IngestEnv>()
  /**
   * Pull mode: a workload that cannot see its agent's disk fetches its inputs by digest with its run
   * token: its job's capsule files and workspace blobs (and nothing else), verified by the capsule.
   */
  .get(
    "/blobs/:digest",
    describe({
      id: "pullIngestBlob",
      tag: "Ingest",
      summary: "Pull mode: fetch a blob the run's job references",
      description:
        "For a workload that cannot see its agent's disk: one of the token's job's capsule files or " +
        "workspace blobs, by digest. 403 `FORBIDDEN`: the job does not reference it; 404 `NOT_FOUND`: the " +
        "fleet does not know the token's run; 404 `BLOB_NOT_FOUND`: the bytes are gone from storage.",
      auth: "ingest",
      headers: TOKEN_HEADER,
      ok: {
        200: {
          description: "The bytes",
          media: { type: "application/octet-stream", schema: BINARY },
          headers: { "Content-Length": "The blob's size in bytes", ETag: '`"<digest>"`' },
        },
      },
      errors: [...RUN_BODY_ERRORS, "INVALID_DIGEST", "NOT_FOUND", "BLOB_NOT_FOUND"],
    }),
    async (c) => {
      const digest = c.req.param("digest");
      if (!DIGEST_RE.test(digest)) {
        throw new AppError(
          "INVALID_DIGEST",
          `"${digest}" is not a digest; expected sha256:<64 lowercase hex>`,
        );
      }
      const rights = await pullRights(c);
      const referenced =
        rights.capsule.includes(digest) ||
        (await db(c.env.DB)
          .select({ x: schema.blobRefs.jobId })
          .from(schema.blobRefs)
          .where(and(eq(schema.blobRefs.digest, digest), eq(schema.blobRefs.jobId, rights.jobId)))
          .get()) !== undefined;
      if (!referenced) {
        throw new AppError("FORBIDDEN", `run ${c.get("claims").sub}'s job does not reference blob ${digest}`);
      }
      return blobResponse(c.env, digest);
    },
  )
  /** Pull mode: a checkpoint of an earlier run of the same job (the run's `resume_from`). */
  .get(
    "/checkpoint",
    describe({
      id: "pullIngestCheckpoint",
      tag: "Ingest",
      summary: "Pull mode: fetch a checkpoint of a run of the same job",
      description:
        "The run's `resume_from`, as GET /v1/agents/checkpoint serves it to agents. 403 `FORBIDDEN`: `run` " +
        "is not a run of the token's job; 404 `NOT_FOUND`: it registered no such checkpoint, or its bytes " +
        "were never uploaded; 404 `BLOB_NOT_FOUND`: they are gone from storage.",
      auth: "ingest",
      query: CheckpointQuery,
      headers: TOKEN_HEADER,
      ok: {
        200: {
          description: "The checkpoint's bytes",
          media: { type: "application/octet-stream", schema: BINARY },
          headers: {
            "Content-Length": "The file's size in bytes",
            "Content-Disposition": "`attachment`, with the file's name",
            ETag: '`"<digest>"`, when the checkpoint has a digest',
          },
        },
      },
      errors: [...RUN_BODY_ERRORS, "NOT_FOUND", "BLOB_NOT_FOUND"],
    }),
    async (c) => {
      const q = parseValue(CheckpointQuery, c.req.query());
      const rights = await pullRights(c);
      if (!rights.runs.includes(q.run)) {
        throw new AppError("FORBIDDEN", `run ${q.run} is not a run of job ${rights.jobId}`);
      }
      return artifactDownload(c.env, q.run, q.path, { kind: "checkpoint" });
    },
  )
  .post(
    "/artifact/upload",
    describe({
      id: "getIngestArtifactUploadTarget",
      tag: "Ingest",
      summary: "Where to PUT an artifact's bytes",
      description:
        "This Worker's PUT /v1/ingest/artifact/blob/{run}/{path} (with `X-StarForge-Token` in `headers`), " +
        "or with R2's S3 API configured a presigned PUT to a staging key, valid one hour, signed for " +
        "exactly `size_bytes`. 400 `BAD_REQUEST` also for a path that is absolute or has empty, `.` or " +
        "`..` segments, backslashes or control characters.",
      auth: "ingest",
      headers: TOKEN_HEADER,
      body: ArtifactUploadRequest,
      ok: { 200: ArtifactUploadTarget },
      errors: [...RUN_BODY_ERRORS],
    }),
    async (c) => {
      const body = await runBody(c, ArtifactUploadRequest);
      const cfg = config(c.env);
      const target = await (await artifactStoreFor(cfg)).uploadTarget({
        runId: body.run_id,
        path: checkArtifactPath(body.path),
        sizeBytes: body.size_bytes,
        digest: body.digest,
        token: c.get("token"),
      });
      return c.json(target);
    },
  )
  .put(
    "/artifact/blob/:run/*",
    describe({
      id: "putIngestArtifactBlob",
      tag: "Ingest",
      summary: "Upload an artifact's bytes (the Worker upload target)",
      description:
        "The path after the run is the artifact's path, percent-encoded per segment. The body streams to " +
        "storage, which refuses it unless it hashes to `digest`; a path uploaded again is overwritten, " +
        "the same bytes again are not rewritten (200, `created: false`). Up to `SF_MAX_BLOB_BYTES`. 400 " +
        "`BAD_REQUEST` also for an invalid path or a body shorter or longer than its Content-Length; 403 " +
        "`FORBIDDEN`: `run` is not the token's run.",
      auth: "ingest",
      query: z.object({ digest: Digest }),
      headers: {
        ...TOKEN_HEADER,
        "Content-Length": {
          description: "The body's exact size in bytes: the bytes are streamed, never buffered",
          required: true,
        },
      },
      body: { schema: Bytes, media: "application/octet-stream", description: "The artifact's bytes" },
      ok: {
        201: { description: "Stored", json: ArtifactBlobStored },
        200: {
          description: "Those exact bytes were stored already (`created: false`)",
          json: ArtifactBlobStored,
        },
      },
      errors: [
        ...RUN_BODY_ERRORS,
        "INVALID_DIGEST",
        "LENGTH_REQUIRED",
        "BLOB_TOO_LARGE",
        "BLOB_DIGEST_MISMATCH",
      ],
    }),
    async (c) => {
      const runId = c.req.param("run");
      requireSameRun(c, runId);
      const path = blobPath(c, runId);
      const digest = c.req.query("digest") ?? "";
      if (!DIGEST_RE.test(digest)) {
        throw new AppError("INVALID_DIGEST", `digest "${digest}" must be sha256:<64 lowercase hex>`);
      }
      const route = "PUT /v1/ingest/artifact/blob";
      const length = await declaredLength(c.req.raw, config(c.env).maxBlobBytes, route);
      const key = artifactKey(runId, path);
      const existing = await c.env.BLOBS.head(key);
      if (existing && storedDigest(existing) === digest) {
        // A retried upload of bytes already stored: nothing to write.
        await c.req.raw.body?.cancel();
        return c.json({ path, digest, size: existing.size, created: false });
      }
      await putVerified(c.env.BLOBS, key, c.req.raw.body, length, digest, {
        customMetadata: { run_id: runId, path },
      });
      return c.json({ path, digest, size: length, created: true }, 201);
    },
  )
  .post(
    "/artifact",
    describe({
      id: "ingestArtifact",
      tag: "Ingest",
      summary: "Register an artifact (a checkpoint, an export, a report)",
      description:
        "Without `digest` (the original client) a reference: `path` is recorded as given and nothing is " +
        "downloadable. With `digest` the bytes must have been uploaded (PUT to the target from " +
        "/artifact/upload), and hash to it. 422 `BLOB_MISSING`: no bytes were uploaded for `path`; 400 " +
        "`BLOB_DIGEST_MISMATCH`: they hash to another digest; 400 `BAD_REQUEST` also when their size is " +
        "not `size_bytes`, or an uploaded artifact's path breaks the upload path rules.",
      auth: "ingest",
      headers: TOKEN_HEADER,
      body: ArtifactRegistration,
      ok: { 200: ArtifactRegistered },
      errors: [...RUN_BODY_ERRORS, "BLOB_MISSING", "BLOB_DIGEST_MISMATCH"],
    }),
    async (c) => {
      const { run_id: runId, ...body } = await runBody(c, ArtifactRegistration);
      // A reference names a file where it lies (often an absolute path on the cluster): any path will
      // do. Only uploaded bytes, which get a storage key from their path, follow the upload path rules.
      const path = body.digest ? checkArtifactPath(body.path) : referencePath(body.path);
      let r2Key: string | null = null;
      let verified = false;
      let size = body.size_bytes;
      // With a digest the client says it uploaded the bytes: they must be there, and be those bytes.
      if (body.digest) {
        const key = artifactKey(runId, path);
        let head = await c.env.BLOBS.head(key);
        if (!head) {
          // Uploaded to its presigned URL: accept it from the staging key, R2 verifying its digest.
          const r2 = config(c.env).r2;
          if (r2) {
            const { S3Objects } = await import("../services/s3-objects.js");
            const moved = await acceptStaged(
              new S3Objects(r2),
              c.env.BLOBS,
              stagingKey(key),
              key,
              body.digest,
              {
                customMetadata: { run_id: runId, path },
              },
            );
            if (moved !== null) head = await c.env.BLOBS.head(key);
          }
        }
        if (!head) {
          throw new AppError(
            "BLOB_MISSING",
            `no bytes were uploaded for ${path}; PUT them to the target from /artifact/upload first`,
          );
        }
        const stored = storedDigest(head);
        if (stored !== null && stored !== body.digest) {
          throw new AppError(
            "BLOB_DIGEST_MISMATCH",
            `the stored bytes of ${path} hash to ${stored}, not ${body.digest}`,
          );
        }
        if (size != null && size !== head.size) {
          throw new AppError("BAD_REQUEST", `${path} was uploaded with ${head.size} bytes, not ${size}`);
        }
        r2Key = key;
        // Every upload path writes through the binding with its sha256, so R2 has verified the digest; an
        // object without one (written before that was so) is the client's word.
        verified = stored !== null;
        size = head.size;
      }
      const artifact = await runStub(c.env, runId).registerArtifact(runId, {
        ...body,
        path,
        size_bytes: size,
        r2Key,
        verified,
      });
      // Its fleet prefers to preempt the job that checkpointed last (docs/scheduling.md).
      if (body.kind === "checkpoint" && r2Key !== null)
        await fleetStub(c.env, c.get("claims").fleet).checkpointed(runId, body.step ?? null);
      return c.json({ artifact });
    },
  );
