import { Hono } from "hono";
import { z } from "zod";
import { currentUser, type Env, requireRole } from "../auth/middleware.js";
import { AppError } from "../errors.js";
import { parseJson } from "../http.js";
import { describe } from "../openapi/describe.js";
import { recordAudit } from "../services/audit.service.js";
import {
  CapsuleFiles,
  currentCapsule,
  PublishCapsuleBody,
  publishCapsule,
} from "../services/capsule.service.js";
import { blobKey } from "../submit/checks.js";

/** GET|PUT /v1/capsule: the published files, by name, as blob digests. */
const Capsule = z.looseObject({
  files: CapsuleFiles.describe(
    "The capsule new jobs get: `bootstrap.sh` and `runner.pyz`, each the digest of its blob",
  ),
});

export const capsuleRoutes = new Hono<Env>()
  .get(
    "/capsule",
    describe({
      id: "getCapsule",
      tag: "Capsule",
      summary: "The job capsule new jobs get",
      description: "The digests of `bootstrap.sh` and `runner.pyz`; 404 until one is published.",
      role: "viewer",
      ok: { 200: Capsule },
      errors: ["NOT_FOUND"],
    }),
    requireRole("viewer"),
    async (c) => {
      const files = await currentCapsule(c.env.DB);
      if (!files)
        throw new AppError(
          "NOT_FOUND",
          "no job capsule is published; npm start publishes one from dist/capsule",
        );
      return c.json({ files });
    },
  )
  /** Publishes the capsule new jobs get; every file must already be uploaded as a blob. */
  .put(
    "/capsule",
    describe({
      id: "publishCapsule",
      tag: "Capsule",
      summary: "Publish the job capsule new jobs get",
      description:
        "Exactly `bootstrap.sh` and `runner.pyz`, each already uploaded with PUT /v1/blobs/{digest} " +
        "(422 `BLOB_MISSING` names those that are not). Jobs already admitted keep the capsule they have.",
      role: "admin",
      body: PublishCapsuleBody,
      ok: { 200: Capsule },
      errors: ["BLOB_MISSING"],
    }),
    requireRole("admin"),
    async (c) => {
      const body = await parseJson(c, PublishCapsuleBody);
      const missing: string[] = [];
      for (const [name, digest] of Object.entries(body.files)) {
        if (!(await c.env.BLOBS.head(blobKey(digest)))) missing.push(`${name} (${digest})`);
      }
      if (missing.length > 0) {
        throw new AppError("BLOB_MISSING", `upload the capsule files first: ${missing.join(", ")}`, {
          missing: missing.join(", "),
        });
      }
      await publishCapsule(c.env.DB, body.files, currentUser(c).name);
      await recordAudit(c, {
        action: "capsule.publish",
        target: "capsule",
        details: { files: Object.keys(body.files).length },
      });
      return c.json({ files: body.files });
    },
  );
