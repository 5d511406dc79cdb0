/**
 * Job-side ingest, mounted at /v1/ingest (= STARFORGE_ENDPOINT): the original platform's wire format plus
 * our compatible additions (contract/ingest.schema.ts, docs/ingest.md). Every request carries a per-run
 * token and may only write that run. Data goes to the run's own Durable Object, so ingest never touches
 * D1 or the Fleet DO on its hot path; only lifecycle reports, which change the job, reach the fleet. The
 * files a run fetches and stores are ingest-files.routes.ts, mounted here behind the same token check.
 */
import { Hono } from "hono";
import { z } from "zod";
import { canonicalJson } from "../../contract/digest.js";
import {
  BatchAccepted,
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
  LogStream,
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
  RendezvousAnswer,
  RendezvousBody,
  SequencedChunk,
  StopNotice,
  utf8Length,
  ValidationChunk,
  ValidationSample,
} from "../../contract/ingest.schema.js";
import { runIsOver } from "../../contract/job-states.js";
import { authenticateRun, type IngestEnv } from "../auth/ingest-auth.js";
import { AppError } from "../errors.js";
import { describe } from "../openapi/describe.js";
import { fleetStub } from "../services/fleets.service.js";
import { runStub } from "../services/runs.service.js";

import { ingestFilesRoutes } from "./ingest-files.routes.js";
import { RUN_BODY_ERRORS, runBody, TOKEN_HEADER } from "./ingest-shared.js";

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

/** POST /logs: lines stored, replays, and where the (rank, stream) stands. */
const LogsAccepted = BatchAccepted.extend({
  accepted: z
    .number()
    .int()
    .describe("How many lines were stored (a console chunk counts the lines it was split into)"),
  duplicates: z.number().int().describe("How many of the batch's lines were stored already (a replay)"),
  first_seq: z
    .number()
    .int()
    .describe("The seq of the batch's first line: `seq` as sent, or the server's for a console batch"),
  released_to: z
    .number()
    .int()
    .describe("Every line of this (rank, stream) below this seq is readable (or was given up on)"),
  held: z
    .number()
    .int()
    .describe("Lines of this (rank, stream) stored but waiting for a missing predecessor"),
  stream: LogStream.describe("The stream the lines went to: `stdout` or `stderr` with `seq`, else `console`"),
});

/** POST /environment: `duplicate` when this exact probe was stored already (absent past the limits). */
const EnvironmentAccepted = BatchAccepted.extend({
  duplicate: z
    .boolean()
    .optional()
    .describe("True when this exact probe was stored already (it is kept once); absent when it was refused"),
});

/** POST /lifecycle: what the fleet made of the report. */
const LifecycleAnswer = z.object({
  outcome: z
    .enum(["applied", "ignored"])
    .describe(
      "`applied`: the report was applied (a repeat changes nothing); `ignored`: the run was over or the rank had exited",
    ),
  stop: z
    .boolean()
    .describe(
      "True when the control plane wants this workload gone (e.g. a run no longer the job's current one)",
    ),
  run_over: z.boolean().describe("True when the run has ended (by this report or before it)"),
});

/** GET /notice */
const NoticeAnswer = z.object({
  notice: StopNotice.nullable().describe(
    "Why and by when the run is being stopped; null while nobody asked it to, and once it released its GPUs",
  ),
});

const BATCH =
  "Only a body that is not JSON or a wrong envelope fails the request (400); items are checked one by " +
  "one, the valid ones stored and the others listed in `rejected` with `INVALID_ITEM` or `OVER_LIMIT`.";

export const ingestRoutes = new Hono<IngestEnv>()
  .use("*", authenticateRun)
  /**
   * Why and by when this run is being stopped (contract StopNotice), for its runner when SIGTERM comes;
   * `{ notice: null }` while nobody asked it to stop.
   */
  .get(
    "/notice",
    describe({
      id: "getIngestStopNotice",
      tag: "Ingest",
      summary: "Why and by when the run is being stopped",
      description:
        "For the runner when SIGTERM comes: `notice` is null while nobody asked the run to stop; once a " +
        "stop, pause, drain, window or preemption did, its reason, cause and the SIGKILL deadline.",
      auth: "ingest",
      headers: TOKEN_HEADER,
      ok: { 200: NoticeAnswer },
      errors: ["TOKEN_REVOKED"],
    }),
    async (c) => {
      const claims = c.get("claims");
      return c.json({ notice: await fleetStub(c.env, claims.fleet).stopNotice(claims.sub) });
    },
  )
  .post(
    "/metrics",
    describe({
      id: "ingestMetrics",
      tag: "Ingest",
      summary: "Report metric points",
      description:
        '`points`: up to 256 of `{ key, step, value, ts? }`, `value` a number or `"nan"`, `"inf"`, ' +
        '`"-inf"`. Each finite point is stored under (key, step), a rewrite replacing it; a non-finite ' +
        `loss is the run's NAN_LOSS anomaly. ${BATCH}`,
      auth: "ingest",
      headers: TOKEN_HEADER,
      body: MetricsBatch,
      ok: { 200: BatchAccepted },
      errors: [...RUN_BODY_ERRORS],
    }),
    async (c) => {
      const body = await runBody(c, MetricsBatch);
      const items = checkItems(body.points, MetricPoint, MAX_METRIC_POINTS);
      const points = items.valid.map((v) => v.value);
      // The run's fleet rides along: its Run DO reports live anomalies there (run/monitor.ts).
      const fleet = c.get("claims").fleet;
      const r = points.length
        ? await runStub(c.env, body.run_id).ingestMetrics(body.run_id, points, fleet)
        : null;
      return c.json(answer(r?.accepted ?? 0, items.rejected));
    },
  )
  .post(
    "/logs",
    describe({
      id: "ingestLogs",
      tag: "Ingest",
      summary: "Report log lines",
      description:
        "With `seq` (the capsule's runner): each chunk is one line (≤ 16 KiB) of `stdout` (default) or " +
        "`stderr`, chunk i being line `seq + i`, and a replay stores nothing new. Without `seq` (the " +
        "original client): terminal text (chunks ≤ 64 KiB) for the rank's `console` stream, split into " +
        "lines. Up to 1000 chunks; `accepted` counts lines. 400 `BAD_REQUEST` also for `seq` with " +
        `\`stream: "console"\`, or another stream without \`seq\`. ${BATCH}`,
      auth: "ingest",
      headers: TOKEN_HEADER,
      body: LogsBatch,
      ok: { 200: LogsAccepted },
      errors: [...RUN_BODY_ERRORS],
    }),
    async (c) => {
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
    },
  )
  .post(
    "/hparams",
    describe({
      id: "ingestHparams",
      tag: "Ingest",
      summary: "Report hyperparameters",
      description:
        "Each top-level name is stored with its JSON value; a later report overwrites the names it " +
        "repeats and keeps the others.",
      auth: "ingest",
      headers: TOKEN_HEADER,
      body: HparamsBody,
      ok: { 200: BatchAccepted },
      errors: [...RUN_BODY_ERRORS],
    }),
    async (c) => {
      const body = await runBody(c, HparamsBody);
      const r = await runStub(c.env, body.run_id).setHparams(body.run_id, body.params);
      return c.json(answer(r.accepted, []));
    },
  )
  .post(
    "/hardware",
    describe({
      id: "ingestHardware",
      tag: "Ingest",
      summary: "Report hardware samples",
      description:
        "`points`: up to 256 of `{ key, value, node_id?, worker_id?, gpu_idx?, gpu_uuid?, ts? }`, stored " +
        `under (key, node_id, worker_id, gpu_idx, ts), so a retried batch is idempotent. ${BATCH}`,
      auth: "ingest",
      headers: TOKEN_HEADER,
      body: HardwareBatch,
      ok: { 200: BatchAccepted },
      errors: [...RUN_BODY_ERRORS],
    }),
    async (c) => {
      const body = await runBody(c, HardwareBatch);
      const items = checkItems(body.points, HardwarePoint, MAX_METRIC_POINTS);
      const points = items.valid.map((v) => v.value);
      const r = points.length ? await runStub(c.env, body.run_id).ingestHardware(body.run_id, points) : null;
      return c.json(answer(r?.accepted ?? 0, items.rejected));
    },
  )
  .post(
    "/environment",
    describe({
      id: "ingestEnvironment",
      tag: "Ingest",
      summary: "Report an environment probe",
      description:
        "`run_id` and whatever the client found (image, packages, Python, hostname…), stored whole (≤ 256 " +
        "KiB of JSON) once per distinct content, up to 1000 per run. Past those limits `accepted` is 0 " +
        "and `rejected` says why (`OVER_LIMIT`).",
      auth: "ingest",
      headers: TOKEN_HEADER,
      body: EnvironmentProbe,
      ok: { 200: EnvironmentAccepted },
      errors: [...RUN_BODY_ERRORS],
    }),
    async (c) => {
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
    },
  )
  .post(
    "/environment/nodes",
    describe({
      id: "ingestEnvironmentNodes",
      tag: "Ingest",
      summary: "Report the run's nodes",
      description:
        "`nodes`: up to 1024 of `{ hostname, cpu?, gpu?, … }`, each stored by hostname (a later entry " +
        `replaces it). ${BATCH}`,
      auth: "ingest",
      headers: TOKEN_HEADER,
      body: EnvironmentNodes,
      ok: { 200: BatchAccepted },
      errors: [...RUN_BODY_ERRORS],
    }),
    async (c) => {
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
    },
  )
  .post(
    "/validation",
    describe({
      id: "ingestValidation",
      tag: "Ingest",
      summary: "Report a chunk of a step's validation samples",
      description:
        "`samples`: up to 256 of `{ idx, reward?, user?, assistant?, env? }` (≤ 512 KiB each), stored under " +
        "(step, idx) so a retried chunk is idempotent. 400 `BAD_REQUEST` also for `chunk_index` ≥ " +
        `\`total_chunks\` or a \`dist\` over 512 KiB. ${BATCH}`,
      auth: "ingest",
      headers: TOKEN_HEADER,
      body: ValidationChunk,
      ok: { 200: BatchAccepted },
      errors: [...RUN_BODY_ERRORS],
    }),
    async (c) => {
      const { run_id: runId, samples: raw, ...chunk } = await runBody(c, ValidationChunk);
      if (chunk.dist !== undefined && utf8Length(JSON.stringify(chunk.dist)) > MAX_SAMPLE_BYTES) {
        throw new AppError("BAD_REQUEST", `dist is larger than ${MAX_SAMPLE_BYTES} bytes of JSON`);
      }
      const items = checkItems(raw, ValidationSample, MAX_VALIDATION_SAMPLES, { maxBytes: MAX_SAMPLE_BYTES });
      const samples = items.valid.map((v) => v.value);
      const r = await runStub(c.env, runId).recordValidation(runId, chunk, samples);
      return c.json(answer(r.accepted, items.rejected));
    },
  )
  .post(
    "/lifecycle",
    describe({
      id: "ingestLifecycle",
      tag: "Ingest",
      summary: "Report that a rank started, succeeded or failed",
      description:
        "Goes to the job's fleet first (with the token's epoch), then into the run's record; a replayed " +
        "report changes nothing. `outcome`: `applied` or `ignored` (the run was over, or the rank had " +
        "exited); `stop`: the control plane wants this workload gone. 409 `CONFLICT` " +
        "(`details.outcome: \"stale_epoch\"`): the token's epoch is not the run's current one; 404 " +
        "`NOT_FOUND`: the fleet does not know this run or rank.",
      auth: "ingest",
      headers: TOKEN_HEADER,
      body: LifecycleEvent,
      ok: { 200: LifecycleAnswer },
      errors: [...RUN_BODY_ERRORS, "CONFLICT", "NOT_FOUND"],
    }),
    async (c) => {
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
    },
  )
  .post(
    "/rendezvous",
    describe({
      id: "ingestRendezvous",
      tag: "Ingest",
      summary: "Register a node rank and wait for the run's world",
      description:
        "Stores this node rank's address (rank 0 also its port) for the token's lease epoch, then waits " +
        "up to `wait_ms` for every rank: `waiting` (with `missing`), `complete` (with `master` and " +
        "`hosts`), or `failed` when the run is over. 400 `BAD_REQUEST` also for a `node_rank` outside the " +
        "run's nodes, an `nnodes` that is not the run's, or rank 0 without `port`; 409 `CONFLICT`: the " +
        "token's epoch is stale; 404 `NOT_FOUND`: the fleet does not know this run.",
      auth: "ingest",
      headers: TOKEN_HEADER,
      body: RendezvousBody,
      ok: { 200: RendezvousAnswer },
      errors: [...RUN_BODY_ERRORS, "CONFLICT", "NOT_FOUND"],
    }),
    async (c) => {
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
        throw new AppError(
          "BAD_REQUEST",
          `node_rank ${body.node_rank} is outside this run's ${nnodes} nodes`,
        );
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
      const me = {
        node_rank: body.node_rank,
        addr: body.addr,
        port: body.node_rank === 0 ? body.port! : null,
      };
      return c.json(
        await runStub(c.env, body.run_id).rendezvous(body.run_id, claims.epoch, nnodes, me, body.wait_ms),
      );
    },
  )
  // Pull mode and artifacts, behind the same run-token check.
  .route("/", ingestFilesRoutes);
