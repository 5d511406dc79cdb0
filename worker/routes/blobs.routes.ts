/**
 * Content-addressed blobs in R2 under `blobs/sha256/<hex>`. Writes are verified by R2 against the
 * digest in the URL (services/verified-put.ts), write-once (an existing digest is never rewritten) and
 * size-limited; bodies stream through with a fixed length and are never buffered whole.
 */
import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { DIGEST_RE } from "../../contract/digest.js";
import { PartReport, StartUploadRequest, UPLOAD_ID_RE } from "../../contract/uploads.schema.js";
import { type Db, db, schema } from "../../d1/client.js";
import { type Ctx, currentUser, type Env, isAdmin, requireRole } from "../auth/middleware.js";
import type { Principal } from "../auth/principal.js";
import { config } from "../env.js";
import { AppError } from "../errors.js";
import { parseJson } from "../http.js";
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
  .put("/blobs/:digest", requireRole("operator"), async (c) => {
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
  })
  // Large blobs: a multipart upload straight to object storage (contract/uploads.schema.ts).
  .post("/blobs/:digest/uploads", requireRole("operator"), async (c) => {
    const digest = digestParam(c);
    const { size } = await parseJson(c, StartUploadRequest);
    const answer = await startUpload(c.env, config(c.env), currentUser(c).userId, digest, size);
    return c.json(answer, answer.mode === "multipart" && !answer.resumed ? 201 : 200);
  })
  .put("/blobs/:digest/uploads/:upload/parts/:n", requireRole("operator"), async (c) => {
    const digest = digestParam(c);
    const id = uploadParam(c);
    const n = Number(c.req.param("n"));
    const report = await parseJson(c, PartReport);
    return c.json(await reportPart(c.env, currentUser(c).userId, digest, id, n, report));
  })
  .post("/blobs/:digest/uploads/:upload/complete", requireRole("operator"), async (c) => {
    const digest = digestParam(c);
    const id = uploadParam(c);
    return c.json(await completeUpload(c.env, config(c.env), currentUser(c).userId, digest, id), 201);
  })
  .delete("/blobs/:digest/uploads/:upload", requireRole("operator"), async (c) => {
    const digest = digestParam(c);
    const id = uploadParam(c);
    return c.json(await abortUpload(c.env, config(c.env), currentUser(c).userId, digest, id));
  })
  // Hono answers HEAD with the GET route; HEAD is the dedupe probe and needs no read right.
  .get("/blobs/:digest", async (c) => {
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
  });
