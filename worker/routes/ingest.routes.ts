/**
 * Job-side ingest, mounted at /v1/ingest (= STARFORGE_ENDPOINT): the original platform's wire format plus
 * our compatible additions (contract/ingest.schema.ts, docs/ingest.md). Every request carries a per-run
 * token and may only write that run. Data goes to the run's own Durable Object, so ingest never touches
 * D1 or the Fleet DO on its hot path; only lifecycle reports, which change the job, reach the fleet.
 */
import { Hono } from "hono";
import type { z } from "zod";
import { DIGEST_RE } from "../../contract/digest.js";
import {
  ArtifactRegistration,
  ArtifactUploadRequest,
  HardwareBatch,
  HparamsBody,
  LifecycleEvent,
  LogsBatch,
  MetricsBatch,
} from "../../contract/ingest.schema.js";
import { authenticateRun, type IngestCtx, type IngestEnv, requireSameRun } from "../auth/ingest-auth.js";
import { db } from "../db/client.js";
import { config } from "../env.js";
import { AppError } from "../errors.js";
import { parseJson } from "../http.js";
import { artifactKey, artifactStoreFor, checkArtifactPath } from "../services/artifact-store.js";
import { fleetStub } from "../services/fleets.service.js";
import { ledgerRunOver, runStub } from "../services/runs.service.js";
import { declaredLength, putVerified, storedDigest } from "../services/verified-put.js";

/** A JSON body through its schema, then the check that its run_id is the token's run. */
async function runBody<S extends z.ZodType<{ run_id: string }>>(
  c: IngestCtx,
  schema: S,
): Promise<z.infer<S>> {
  const body = await parseJson(c, schema);
  requireSameRun(c, body.run_id);
  return body;
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

export const ingestRoutes = new Hono<IngestEnv>()
  .use("*", authenticateRun)
  .post("/metrics", async (c) => {
    const body = await runBody(c, MetricsBatch);
    return c.json(await runStub(c.env, body.run_id).ingestMetrics(body.run_id, body));
  })
  .post("/logs", async (c) => {
    const body = await runBody(c, LogsBatch);
    return c.json(await runStub(c.env, body.run_id).ingestLogs(body.run_id, body));
  })
  .post("/hparams", async (c) => {
    const body = await runBody(c, HparamsBody);
    return c.json(await runStub(c.env, body.run_id).setHparams(body.run_id, body.params));
  })
  .post("/hardware", async (c) => {
    const body = await runBody(c, HardwareBatch);
    return c.json(await runStub(c.env, body.run_id).ingestHardware(body.run_id, body));
  })
  .post("/lifecycle", async (c) => {
    const body = await runBody(c, LifecycleEvent);
    const claims = c.get("claims");
    // The fleet decides what the report means for the job (and refuses a stale epoch) before the run's
    // own record is written, so the record never claims what the control plane did not accept.
    const outcome = await fleetStub(c.env, claims.fleet).runEvent({
      runId: body.run_id,
      epoch: claims.epoch,
      rank: body.rank,
      event: body.event,
      exitCode: body.exit_code ?? null,
      reason: body.reason ?? null,
      infra: false,
      source: "runner",
    });
    if (outcome.kind === "stale_epoch") {
      throw new AppError(
        "CONFLICT",
        `epoch ${claims.epoch} of run ${body.run_id} is stale; stop this workload`,
        {
          outcome: outcome.kind,
        },
      );
    }
    if (outcome.kind === "unknown_run") {
      throw new AppError("NOT_FOUND", `fleet ${claims.fleet} has no run ${body.run_id} rank ${body.rank}`);
    }
    // The fleet flushes its ledger to D1 before answering, so D1 says whether the run is over (should that
    // flush fail, the Run DO learns it later from the ledger: on the next log read or tail keep-alive).
    const over = (await ledgerRunOver(db(c.env.DB), body.run_id)) ?? false;
    const recorded = await runStub(c.env, body.run_id).recordLifecycle(
      body.run_id,
      {
        rank: body.rank,
        event: body.event,
        ts: body.ts,
        exitCode: body.exit_code ?? null,
        reason: body.reason ?? null,
      },
      over,
    );
    return c.json({ outcome: outcome.kind, stop: outcome.stopWorkload, run_over: recorded.ended });
  })
  .post("/artifact/upload", async (c) => {
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
  })
  .put("/artifact/blob/:run/*", async (c) => {
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
  })
  .post("/artifact", async (c) => {
    const { run_id: runId, ...body } = await runBody(c, ArtifactRegistration);
    const path = checkArtifactPath(body.path);
    let r2Key: string | null = null;
    let verified = false;
    let size = body.size_bytes;
    // With a digest the client says it uploaded the bytes: they must be there, and be those bytes.
    if (body.digest) {
      const key = artifactKey(runId, path);
      const head = await c.env.BLOBS.head(key);
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
      if (size !== undefined && size !== head.size) {
        throw new AppError("BAD_REQUEST", `${path} was uploaded with ${head.size} bytes, not ${size}`);
      }
      r2Key = key;
      // Presigned uploads carry no checksum R2 could check, so their digest is the client's word.
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
    return c.json({ artifact });
  });
