/**
 * Job-side ingest, mounted at /v1/ingest (= STARFORGE_ENDPOINT): the original platform's wire format plus
 * our compatible additions (contract/ingest.schema.ts, docs/ingest.md). Every request carries a per-run
 * token and may only write that run. Data goes to the run's own Durable Object, so ingest never touches
 * D1 or the Fleet DO on its hot path; only lifecycle reports, which change the job, reach the fleet.
 */
import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import type { z } from "zod";
import { canonicalJson, DIGEST_RE } from "../../contract/digest.js";
import {
  ArtifactRegistration,
  ArtifactUploadRequest,
  type BatchAccepted,
  ConsoleChunk,
  checkItems,
  EnvironmentNode,
  EnvironmentNodes,
  EnvironmentProbe,
  HardwareBatch,
  HardwarePoint,
  HparamsBody,
  type IngestRejection,
  LifecycleEvent,
  LogsBatch,
  logTarget,
  MAX_ENV_NODES,
  MAX_ENVIRONMENT_BYTES,
  MAX_LOG_CHUNKS,
  MAX_METRIC_POINTS,
  MAX_SAMPLE_BYTES,
  MAX_VALIDATION_SAMPLES,
  MetricPoint,
  MetricsBatch,
  type RendezvousAnswer,
  RendezvousBody,
  SequencedChunk,
  utf8Length,
  ValidationChunk,
  ValidationSample,
} from "../../contract/ingest.schema.js";
import { runIsOver } from "../../contract/job-states.js";
import { db, schema } from "../../d1/client.js";
import { authenticateRun, type IngestCtx, type IngestEnv, requireSameRun } from "../auth/ingest-auth.js";
import { config } from "../env.js";
import { AppError } from "../errors.js";
import { parseValue } from "../http.js";
import { artifactKey, artifactStoreFor, checkArtifactPath } from "../services/artifact-store.js";
import { fleetStub } from "../services/fleets.service.js";
import { parsePythonJson } from "../services/python-json.js";
import { artifactDownload, blobResponse, CheckpointQuery, runStub } from "../services/runs.service.js";
import { acceptStaged, stagingKey } from "../services/staged-object.js";
import { declaredLength, putVerified, storedDigest } from "../services/verified-put.js";

/**
 * A JSON body (Python's NaN/Infinity read as null) through its schema, then the check that its run_id
 * is the token's run. Only these two whole-body failures answer 4xx; items are checked one by one.
 */
async function runBody<S extends z.ZodType<{ run_id: string }>>(
  c: IngestCtx,
  schema: S,
): Promise<z.infer<S>> {
  let raw: unknown;
  try {
    raw = parsePythonJson(await c.req.text());
  } catch {
    throw new AppError("BAD_REQUEST", "request body must be JSON");
  }
  const body = parseValue(schema, raw);
  requireSameRun(c, body.run_id);
  return body;
}

function answer(accepted: number, rejected: IngestRejection[], extra: object = {}): BatchAccepted {
  return { accepted, rejected, ...extra };
}

async function sha256(text: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return `sha256:${[...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** The host a probe describes, wherever the client put it. */
function probeHost(probe: Record<string, unknown>): string | null {
  for (const v of [probe.hostname, (probe.host as { hostname?: unknown } | undefined)?.hostname]) {
    if (typeof v === "string" && v.length > 0) return v.slice(0, 256);
  }
  return null;
}

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

export const ingestRoutes = new Hono<IngestEnv>()
  .use("*", authenticateRun)
  /**
   * Pull mode: a workload that cannot see its agent's disk fetches its inputs by digest with its run
   * token: its job's capsule files and workspace blobs (and nothing else), verified by the capsule.
   */
  .get("/blobs/:digest", async (c) => {
    const digest = c.req.param("digest");
    if (!DIGEST_RE.test(digest)) {
      throw new AppError("INVALID_DIGEST", `"${digest}" is not a digest; expected sha256:<64 lowercase hex>`);
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
  })
  /**
   * Why and by when this run is being stopped (contract StopNotice), for its runner when SIGTERM comes;
   * `{ notice: null }` while nobody asked it to stop.
   */
  .get("/notice", async (c) => {
    const claims = c.get("claims");
    return c.json({ notice: await fleetStub(c.env, claims.fleet).stopNotice(claims.sub) });
  })
  /** Pull mode: a checkpoint of an earlier run of the same job (the run's `resume_from`). */
  .get("/checkpoint", async (c) => {
    const q = parseValue(CheckpointQuery, c.req.query());
    const rights = await pullRights(c);
    if (!rights.runs.includes(q.run)) {
      throw new AppError("FORBIDDEN", `run ${q.run} is not a run of job ${rights.jobId}`);
    }
    return artifactDownload(c.env, q.run, q.path, { kind: "checkpoint" });
  })
  .post("/metrics", async (c) => {
    const body = await runBody(c, MetricsBatch);
    const items = checkItems(body.points, MetricPoint, MAX_METRIC_POINTS);
    const points = items.valid.map((v) => v.value);
    // The run's fleet rides along: its Run DO reports live anomalies there (run/monitor.ts).
    const fleet = c.get("claims").fleet;
    const r = points.length
      ? await runStub(c.env, body.run_id).ingestMetrics(body.run_id, points, fleet)
      : null;
    return c.json(answer(r?.accepted ?? 0, items.rejected));
  })
  .post("/logs", async (c) => {
    const body = await runBody(c, LogsBatch);
    const target = logTarget(body);
    const items = checkItems(body.chunks, target.sequenced ? SequencedChunk : ConsoleChunk, MAX_LOG_CHUNKS);
    const r = await runStub(c.env, body.run_id).ingestLogs(body.run_id, {
      rank: target.rank,
      stream: target.stream,
      seq: body.seq ?? null,
      chunks: items.valid.map((v) => ({ index: v.index, text: v.value })),
      count: body.chunks.length,
      eof: body.eof === true,
    });
    return c.json({ ...r, stream: target.stream, rejected: items.rejected });
  })
  .post("/hparams", async (c) => {
    const body = await runBody(c, HparamsBody);
    const r = await runStub(c.env, body.run_id).setHparams(body.run_id, body.params);
    return c.json(answer(r.accepted, []));
  })
  .post("/hardware", async (c) => {
    const body = await runBody(c, HardwareBatch);
    const items = checkItems(body.points, HardwarePoint, MAX_METRIC_POINTS);
    const points = items.valid.map((v) => v.value);
    const r = points.length ? await runStub(c.env, body.run_id).ingestHardware(body.run_id, points) : null;
    return c.json(answer(r?.accepted ?? 0, items.rejected));
  })
  .post("/environment", async (c) => {
    const { run_id: runId, ...probe } = await runBody(c, EnvironmentProbe);
    const text = canonicalJson(probe);
    const bytes = utf8Length(text);
    if (bytes > MAX_ENVIRONMENT_BYTES) {
      const message = `the probe is ${bytes} bytes of JSON; at most ${MAX_ENVIRONMENT_BYTES}`;
      return c.json(answer(0, [{ index: 0, code: "OVER_LIMIT", message }]));
    }
    const r = await runStub(c.env, runId).recordEnvironment(runId, {
      digest: await sha256(text),
      hostname: probeHost(probe),
      body: text,
    });
    if (r.full) {
      const message = "this run already holds the most environment probes it keeps";
      return c.json(answer(0, [{ index: 0, code: "OVER_LIMIT", message }]));
    }
    return c.json(answer(1, [], { duplicate: !r.stored }));
  })
  .post("/environment/nodes", async (c) => {
    const body = await runBody(c, EnvironmentNodes);
    const items = checkItems(body.nodes, EnvironmentNode, MAX_ENV_NODES, { maxBytes: MAX_SAMPLE_BYTES });
    const nodes = items.valid.map((v) => v.value);
    const { kept } = nodes.length
      ? await runStub(c.env, body.run_id).recordNodes(body.run_id, nodes)
      : { kept: [] as boolean[] };
    const rejected = [...items.rejected];
    kept.forEach((k, i) => {
      if (!k) {
        const message = `this run already holds ${MAX_ENV_NODES} nodes`;
        rejected.push({ index: items.valid[i]!.index, code: "OVER_LIMIT", message });
      }
    });
    rejected.sort((a, b) => a.index - b.index);
    return c.json(answer(kept.filter(Boolean).length, rejected));
  })
  .post("/validation", async (c) => {
    const { run_id: runId, samples: raw, ...chunk } = await runBody(c, ValidationChunk);
    if (chunk.dist !== undefined && utf8Length(JSON.stringify(chunk.dist)) > MAX_SAMPLE_BYTES) {
      throw new AppError("BAD_REQUEST", `dist is larger than ${MAX_SAMPLE_BYTES} bytes of JSON`);
    }
    const items = checkItems(raw, ValidationSample, MAX_VALIDATION_SAMPLES, { maxBytes: MAX_SAMPLE_BYTES });
    const samples = items.valid.map((v) => v.value);
    const r = await runStub(c.env, runId).recordValidation(runId, chunk, samples);
    return c.json(answer(r.accepted, items.rejected));
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
      infra: body.event === "failed" && body.infra,
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
    // The fleet says whether its decision ended the run, so no ledger read is needed here.
    const over = outcome.runOver;
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
  .post("/rendezvous", async (c) => {
    const body = await runBody(c, RendezvousBody);
    const claims = c.get("claims");
    // The Fleet DO owns the run: its lease epoch, its world (the placement) and whether it is over.
    const run = await fleetStub(c.env, claims.fleet).run(body.run_id);
    if (!run) throw new AppError("NOT_FOUND", `fleet ${claims.fleet} has no run ${body.run_id}`);
    if (run.epoch !== claims.epoch) {
      throw new AppError(
        "CONFLICT",
        `epoch ${claims.epoch} of run ${body.run_id} is stale; stop this workload`,
      );
    }
    const nnodes = run.placement.length;
    if (body.node_rank >= nnodes) {
      throw new AppError("BAD_REQUEST", `node_rank ${body.node_rank} is outside this run's ${nnodes} nodes`);
    }
    if (body.nnodes != null && body.nnodes !== nnodes) {
      throw new AppError("BAD_REQUEST", `this run has ${nnodes} nodes, not ${body.nnodes}`);
    }
    if (body.node_rank === 0 && body.port == null) {
      throw new AppError("BAD_REQUEST", "node rank 0 registers the port it listens on (MASTER_PORT)");
    }
    if (runIsOver(run.status, run.ended_at)) {
      const answer: RendezvousAnswer = {
        state: "failed",
        nnodes,
        joined: [],
        missing: [],
        master: null,
        hosts: null,
        reason: `the run is ${run.status}: ${run.reason ?? "it ended"}`,
      };
      return c.json(answer);
    }
    const me = { node_rank: body.node_rank, addr: body.addr, port: body.node_rank === 0 ? body.port! : null };
    return c.json(
      await runStub(c.env, body.run_id).rendezvous(body.run_id, claims.epoch, nnodes, me, body.wait_ms),
    );
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
  });
