import { Hono } from "hono";
import { currentUser, type Env, requireRole } from "../auth/middleware.js";
import { AppError } from "../errors.js";
import { parseJson } from "../http.js";
import { recordAudit } from "../services/audit.service.js";
import { currentCapsule, PublishCapsuleBody, publishCapsule } from "../services/capsule.service.js";
import { blobKey } from "../submit/checks.js";

export const capsuleRoutes = new Hono<Env>()
  .get("/capsule", requireRole("viewer"), async (c) => {
    const files = await currentCapsule(c.env.DB);
    if (!files)
      throw new AppError(
        "NOT_FOUND",
        "no job capsule is published; npm start publishes one from dist/capsule",
      );
    return c.json({ files });
  })
  /** Publishes the capsule new jobs get; every file must already be uploaded as a blob. */
  .put("/capsule", requireRole("admin"), async (c) => {
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
  });
