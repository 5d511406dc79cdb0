/**
 * Reading back what a job's runs reported: metrics, logs (a page, or a live SSE tail), hyperparameters,
 * hardware samples, the run's timeline, its environment, validation samples, artifacts and their bytes. Viewer role, and only the job's owner or an admin (readableJob). `run` picks one of the
 * job's runs; by default the current run, else the latest.
 */
import { Hono } from "hono";
import { z } from "zod";
import { LogStream } from "../../contract/ingest.schema.js";
import {
  EnvironmentView,
  HardwareSeriesList,
  HardwareSeriesPoints,
  HparamsView,
  RunEventsView,
  ValidationSamplesView,
  ValidationStepsView,
} from "../../contract/readback.schema.js";
import { ArtifactList, LogsPage, MetricKeys, MetricSeries } from "../../contract/responses.schema.js";
import { db } from "../../d1/client.js";
import { type Ctx, type Env, requireRole } from "../auth/middleware.js";
import { AppError } from "../errors.js";
import { parseValue } from "../http.js";
import { describe } from "../openapi/describe.js";
import { artifactDownload, jobRun, type RunRef, runStub, runTimeline } from "../services/runs.service.js";
import { freshJob, readableJobNow } from "../submit/read-your-writes.js";

/**
 * A decimal integer query parameter (z.coerce would read an empty `?rank=` as 0); the document calls it
 * the integer it is.
 */
function int(min: number, max: number) {
  return z
    .string()
    .regex(/^-?\d{1,16}$/, "expected an integer")
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .meta({ type: "integer", minimum: min, maximum: max });
}

const RunQuery = z.object({
  run: z
    .string()
    .startsWith("run_")
    .optional()
    .describe("One of the job's runs (`run_…`); default: its current run, else its latest"),
});

const MetricsQuery = RunQuery.extend({
  key: z.string().min(1).max(256).optional().describe("A metric key: its series (without it: the keys)"),
  after: int(-1, Number.MAX_SAFE_INTEGER)
    .default(-1)
    .describe("With `key`: the page starts after this step (an integer, default -1)"),
  limit: int(1, 10_000).default(5_000).describe("With `key`: 1–10000 points (default 5000)"),
});

const Flag = z
  .enum(["0", "1", "true", "false"])
  .transform((v) => v === "1" || v === "true")
  .default(false);

const LogsQuery = RunQuery.extend({
  offset: int(0, Number.MAX_SAFE_INTEGER).default(0).describe("The first cursor to return (default 0)"),
  limit: int(1, 5_000).default(1_000).describe("1–5000 lines (default 1000)"),
  rank: int(0, 1_000_000).optional().describe("Only this rank's lines"),
  stream: LogStream.optional().describe("Only this stream's lines"),
  follow: Flag.describe("`1`/`true`: a live tail (text/event-stream) instead of a page"),
});

const LogsDownloadQuery = RunQuery.extend({
  rank: int(0, 1_000_000).optional().describe("Only this rank's lines"),
  stream: LogStream.optional().describe("Only this stream's lines"),
});

/** Lines per read while a log download streams: the Run DO is asked for one page at a time. */
const DOWNLOAD_PAGE = 5_000;

const DownloadQuery = RunQuery.extend({
  path: z.string().min(1).max(4096).describe("The artifact's path, as registered"),
});

/** A point in time as epoch milliseconds or an ISO-8601 string. */
const Instant = z.string().transform((v, ctx) => {
  const ms = /^-?\d{1,16}$/.test(v) ? Number(v) : Date.parse(v);
  if (!Number.isFinite(ms)) {
    ctx.addIssue({ code: "custom", message: "expected epoch milliseconds or an ISO-8601 time" });
    return z.NEVER;
  }
  return ms;
});

const HardwareQuery = RunQuery.extend({
  key: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe("One key (`gpu.util`…): its samples (without it: the series)"),
  node: z.string().min(1).max(256).optional().describe("Only samples whose `node_id` or `worker_id` is this"),
  gpu: int(0, 1_000_000).optional().describe("Only this GPU index"),
  after: Instant.default(-1).describe("With `key`: samples after this time (epoch ms or ISO-8601)"),
  limit: int(1, 10_000).default(5_000).describe("With `key`: 1–10000 samples (default 5000)"),
});

const ValidationQuery = RunQuery.extend({
  step: int(0, Number.MAX_SAFE_INTEGER).optional().describe("One step: its samples (without it: every step)"),
  after: int(-1, Number.MAX_SAFE_INTEGER)
    .default(-1)
    .describe("With `step`: samples after this idx (default -1)"),
  limit: int(1, 1_000).default(100).describe("With `step`: 1–1000 samples (default 100)"),
});

/** A cursor the client last saw (SSE `Last-Event-ID`); the tail resumes right after it. */
const LastEventId = int(0, Number.MAX_SAFE_INTEGER);

/**
 * What every run-data route may answer besides its own: the job is unknown (or D1 does not hold it yet and
 * cannot catch up: 503), or `run` is not one of its runs, or it has not run yet (NOT_FOUND).
 */
const RUN_DATA_ERRORS = ["JOB_NOT_FOUND", "NOT_FOUND", "UNAVAILABLE"] as const;

const OWN_JOB =
  "Your own job's, or any job's for an admin; `run` picks one of its runs (default: the current run, else " +
  "the latest).";

async function runOf(c: Ctx, wanted: string | undefined): Promise<RunRef> {
  const d = db(c.env.DB);
  const job = await readableJobNow(c, c.req.param("id")!);
  return jobRun(d, job, wanted);
}

export const readbackRoutes = new Hono<Env>()
  .get(
    "/jobs/:id/metrics",
    describe({
      id: "getJobMetrics",
      tag: "Run data",
      summary: "A run's metric keys, or one key's series by step",
      description:
        `${OWN_JOB} Without \`key\`: every key with its point count and the point at its highest step. ` +
        "With `key`: that series by step, paged with `after` (a step) and `limit`; `next_after` is the " +
        "next page's `after`, null on the last.",
      role: "viewer",
      query: MetricsQuery,
      ok: { 200: z.union([MetricKeys, MetricSeries]) },
      errors: [...RUN_DATA_ERRORS],
    }),
    requireRole("viewer"),
    async (c) => {
      const q = parseValue(MetricsQuery, c.req.query());
      const run = await runOf(c, q.run);
      const stub = runStub(c.env, run.id);
      if (q.key === undefined) return c.json({ run_id: run.id, keys: await stub.metricKeys() });
      return c.json({ run_id: run.id, ...(await stub.readMetric(q.key, q.after, q.limit)) });
    },
  )
  .get(
    "/jobs/:id/logs",
    describe({
      id: "getJobLogs",
      tag: "Run data",
      summary: "A page of a run's log lines, or a live tail (SSE)",
      description:
        `${OWN_JOB} Lines in readback order from cursor \`offset\`, \`next_offset\` is the next page's. ` +
        "With `follow=1` the answer is `text/event-stream`: a `retry: 2000` line and a comment, then each " +
        "released line from `offset` on as an event whose `id` is its cursor and whose `data` is the " +
        "line object (JSON), pushed as new lines are released; a `: keep-alive` comment every 15 s while " +
        "idle; once the run is over, the remaining lines, then `event: end` with " +
        '`data: {"next_offset": N}`, and the stream closes. `Last-Event-ID` resumes after that cursor ' +
        "(over `offset`).",
      role: "viewer",
      query: LogsQuery,
      headers: {
        "Last-Event-ID": {
          description: "With `follow=1`: the last cursor received; the tail resumes right after it",
        },
      },
      ok: {
        200: {
          description: "A page of lines (JSON), or with `follow=1` the live tail (server-sent events)",
          json: LogsPage,
          media: { type: "text/event-stream", schema: { type: "string" } },
        },
      },
      errors: [...RUN_DATA_ERRORS],
    }),
    requireRole("viewer"),
    async (c) => {
      const q = parseValue(LogsQuery, c.req.query());
      const run = await runOf(c, q.run);
      const stub = runStub(c.env, run.id);
      if (!q.follow) {
        // The ledger may know the run is over before its runner said so (a stop): release what is held.
        if (run.over) await stub.markOver(run.id);
        const page = await stub.readLogs({
          offset: q.offset,
          limit: q.limit,
          rank: q.rank,
          stream: q.stream,
        });
        return c.json({ run_id: run.id, ...page });
      }
      const lastId = c.req.header("last-event-id");
      const from = lastId === undefined ? q.offset : parseValue(LastEventId, lastId) + 1;
      const url = new URL("https://run.internal/tail");
      url.searchParams.set("run", run.id);
      url.searchParams.set("from", String(from));
      url.searchParams.set("over", run.over ? "1" : "0");
      return stub.fetch(new Request(url));
    },
  )
  .get(
    "/jobs/:id/logs/download",
    describe({
      id: "downloadJobLogs",
      tag: "Run data",
      summary: "Every released log line of a run, as a text file",
      description:
        `${OWN_JOB} One line per log line in cursor order, written \`<rank> <stream> <text>\`; \`rank\` ` +
        "and `stream` keep only those lines. Streamed page by page; a run the ledger shows as over is " +
        "marked over first, so the file holds every line it will have.",
      role: "viewer",
      query: LogsDownloadQuery,
      ok: {
        200: {
          description: "The log as plain text",
          media: { type: "text/plain", schema: { type: "string" } },
          headers: { "Content-Disposition": '`attachment; filename="<run id>.log"`' },
        },
      },
      errors: [...RUN_DATA_ERRORS],
    }),
    requireRole("viewer"),
    async (c) => {
      const q = parseValue(LogsDownloadQuery, c.req.query());
      const run = await runOf(c, q.run);
      const stub = runStub(c.env, run.id);
      if (run.over) await stub.markOver(run.id);
      const enc = new TextEncoder();
      let offset = 0;
      // Streamed page by page from the Run DO: a long log never sits whole in the Worker's memory.
      const body = new ReadableStream<Uint8Array>({
        async pull(ctrl) {
          const page = await stub.readLogs({ offset, limit: DOWNLOAD_PAGE, rank: q.rank, stream: q.stream });
          if (page.lines.length === 0) {
            ctrl.close();
            return;
          }
          offset = page.next_offset;
          ctrl.enqueue(enc.encode(page.lines.map((l) => `${l.rank} ${l.stream} ${l.line}\n`).join("")));
        },
      });
      return new Response(body, {
        headers: {
          "content-type": "text/plain; charset=utf-8",
          "content-disposition": `attachment; filename="${run.id}.log"`,
          "cache-control": "no-store",
        },
      });
    },
  )
  .get(
    "/jobs/:id/hparams",
    describe({
      id: "getJobHparams",
      tag: "Run data",
      summary: "A run's hyperparameters as it last reported them",
      description: `${OWN_JOB} Each top-level name with its JSON value; \`updated_at\` null when none was reported.`,
      role: "viewer",
      query: RunQuery,
      ok: { 200: HparamsView },
      errors: [...RUN_DATA_ERRORS],
    }),
    requireRole("viewer"),
    async (c) => {
      const q = parseValue(RunQuery, c.req.query());
      const run = await runOf(c, q.run);
      return c.json({ run_id: run.id, ...(await runStub(c.env, run.id).readHparams()) });
    },
  )
  .get(
    "/jobs/:id/hardware",
    describe({
      id: "getJobHardware",
      tag: "Run data",
      summary: "A run's hardware series, or one key's samples",
      description:
        `${OWN_JOB} A series is (key, node_id, worker_id, gpu_idx). Without \`key\`: every series with ` +
        "its count and latest sample. With `key`: its samples in time order grouped by series, paged with " +
        "`after` (epoch ms or ISO-8601) and `limit`; `next_after` is null on the last page.",
      role: "viewer",
      query: HardwareQuery,
      ok: { 200: z.union([HardwareSeriesList, HardwareSeriesPoints]) },
      errors: [...RUN_DATA_ERRORS],
    }),
    requireRole("viewer"),
    async (c) => {
      const q = parseValue(HardwareQuery, c.req.query());
      const run = await runOf(c, q.run);
      return c.json(await runStub(c.env, run.id).readHardware(run.id, q));
    },
  )
  .get(
    "/jobs/:id/events",
    describe({
      id: "getJobRunEvents",
      tag: "Run data",
      summary: "A run's timeline: its ledger row, rank reports and the job's transitions",
      description:
        `${OWN_JOB} \`lifecycle\`: what its ranks reported (the first report of each event per rank); ` +
        "`transitions`: the job's state changes from this run's dispatch to its end.",
      role: "viewer",
      query: RunQuery,
      ok: { 200: RunEventsView },
      errors: [...RUN_DATA_ERRORS],
    }),
    requireRole("viewer"),
    async (c) => {
      const q = parseValue(RunQuery, c.req.query());
      const d = db(c.env.DB);
      const job = await freshJob(c, c.req.param("id"));
      const run = await jobRun(d, job, q.run);
      const [timeline, lifecycle] = await Promise.all([
        runTimeline(d, job.id, run.id),
        runStub(c.env, run.id).readLifecycle(),
      ]);
      return c.json({ run_id: run.id, ...timeline, lifecycle });
    },
  )
  .get(
    "/jobs/:id/environment",
    describe({
      id: "getJobEnvironment",
      tag: "Run data",
      summary: "A run's environment probes and nodes",
      description:
        `${OWN_JOB} \`probes\`: each distinct probe as the client sent it (without \`run_id\`); ` +
        "`nodes`: the job's nodes by hostname.",
      role: "viewer",
      query: RunQuery,
      ok: { 200: EnvironmentView },
      errors: [...RUN_DATA_ERRORS],
    }),
    requireRole("viewer"),
    async (c) => {
      const q = parseValue(RunQuery, c.req.query());
      const run = await runOf(c, q.run);
      return c.json(await runStub(c.env, run.id).readEnvironment(run.id));
    },
  )
  .get(
    "/jobs/:id/validation",
    describe({
      id: "getJobValidation",
      tag: "Run data",
      summary: "A run's validation steps, or one step's samples",
      description:
        `${OWN_JOB} Without \`step\`: every step's summary. With \`step\`: its summary and its samples ` +
        "by `idx`, paged with `after` (an idx) and `limit`; `next_after` is null on the last page. 404 " +
        "`NOT_FOUND` also when the run reported nothing for that step.",
      role: "viewer",
      query: ValidationQuery,
      ok: { 200: z.union([ValidationStepsView, ValidationSamplesView]) },
      errors: [...RUN_DATA_ERRORS],
    }),
    requireRole("viewer"),
    async (c) => {
      const q = parseValue(ValidationQuery, c.req.query());
      const run = await runOf(c, q.run);
      const page = await runStub(c.env, run.id).readValidation(run.id, q);
      if (!page)
        throw new AppError("NOT_FOUND", `run ${run.id} reported no validation samples for step ${q.step}`);
      return c.json(page);
    },
  )
  .get(
    "/jobs/:id/artifacts",
    describe({
      id: "listJobArtifacts",
      tag: "Run data",
      summary: "The artifacts a run registered",
      description:
        `${OWN_JOB} By step (unnumbered last), then path. \`stored\`: the bytes were uploaded and can ` +
        "be downloaded; `verified`: the server checked them against `digest`.",
      role: "viewer",
      query: RunQuery,
      ok: { 200: ArtifactList },
      errors: [...RUN_DATA_ERRORS],
    }),
    requireRole("viewer"),
    async (c) => {
      const q = parseValue(RunQuery, c.req.query());
      const run = await runOf(c, q.run);
      return c.json({ run_id: run.id, artifacts: await runStub(c.env, run.id).artifacts() });
    },
  )
  .get(
    "/jobs/:id/artifacts/download",
    describe({
      id: "downloadJobArtifact",
      tag: "Run data",
      summary: "An artifact's bytes",
      description:
        `${OWN_JOB} 404 \`NOT_FOUND\` also when the run registered no artifact at \`path\`, or ` +
        "registered it by path only (no bytes uploaded); 404 `BLOB_NOT_FOUND`: the bytes are gone from " +
        "storage.",
      role: "viewer",
      query: DownloadQuery,
      ok: {
        200: {
          description: "The bytes",
          media: { type: "application/octet-stream", schema: { type: "string", format: "binary" } },
          headers: {
            "Content-Length": "The artifact's size in bytes",
            "Content-Disposition": "`attachment`, with the file's name",
            ETag: '`"<digest>"`, when the artifact has a digest',
          },
        },
      },
      errors: [...RUN_DATA_ERRORS, "BLOB_NOT_FOUND"],
    }),
    requireRole("viewer"),
    async (c) => {
      const q = parseValue(DownloadQuery, c.req.query());
      const run = await runOf(c, q.run);
      return artifactDownload(c.env, run.id, q.path);
    },
  );
