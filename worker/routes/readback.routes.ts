/**
 * Reading back what a job's runs reported: metrics, logs (a page, or a live SSE tail), hyperparameters,
 * hardware samples, the run's timeline, its environment, validation samples, artifacts and their bytes. Viewer role, and only the job's owner or an admin (readableJob). `run` picks one of the
 * job's runs; by default the current run, else the latest.
 */
import { Hono } from "hono";
import { z } from "zod";
import { LogStream } from "../../contract/ingest.schema.js";
import { db } from "../../d1/client.js";
import { type Ctx, type Env, requireRole } from "../auth/middleware.js";
import { AppError } from "../errors.js";
import { parseValue } from "../http.js";

import { artifactDownload, jobRun, type RunRef, runStub, runTimeline } from "../services/runs.service.js";
import { freshJob, readableJobNow } from "../submit/read-your-writes.js";

/** A decimal integer query parameter (z.coerce would read an empty `?rank=` as 0). */
function int(min: number, max: number) {
  return z
    .string()
    .regex(/^-?\d{1,16}$/, "expected an integer")
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
}

const RunQuery = z.object({ run: z.string().startsWith("run_").optional() });

const MetricsQuery = RunQuery.extend({
  key: z.string().min(1).max(256).optional(),
  after: int(-1, Number.MAX_SAFE_INTEGER).default(-1),
  limit: int(1, 10_000).default(5_000),
});

const Flag = z
  .enum(["0", "1", "true", "false"])
  .transform((v) => v === "1" || v === "true")
  .default(false);

const LogsQuery = RunQuery.extend({
  offset: int(0, Number.MAX_SAFE_INTEGER).default(0),
  limit: int(1, 5_000).default(1_000),
  rank: int(0, 1_000_000).optional(),
  stream: LogStream.optional(),
  follow: Flag,
});

const LogsDownloadQuery = RunQuery.extend({
  rank: int(0, 1_000_000).optional(),
  stream: LogStream.optional(),
});

/** Lines per read while a log download streams: the Run DO is asked for one page at a time. */
const DOWNLOAD_PAGE = 5_000;

const DownloadQuery = RunQuery.extend({ path: z.string().min(1).max(4096) });

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
  key: z.string().min(1).max(256).optional(),
  node: z.string().min(1).max(256).optional(),
  gpu: int(0, 1_000_000).optional(),
  after: Instant.default(-1),
  limit: int(1, 10_000).default(5_000),
});

const ValidationQuery = RunQuery.extend({
  step: int(0, Number.MAX_SAFE_INTEGER).optional(),
  after: int(-1, Number.MAX_SAFE_INTEGER).default(-1),
  limit: int(1, 1_000).default(100),
});

/** A cursor the client last saw (SSE `Last-Event-ID`); the tail resumes right after it. */
const LastEventId = int(0, Number.MAX_SAFE_INTEGER);

async function runOf(c: Ctx, wanted: string | undefined): Promise<RunRef> {
  const d = db(c.env.DB);
  const job = await readableJobNow(c, c.req.param("id")!);
  return jobRun(d, job, wanted);
}

export const readbackRoutes = new Hono<Env>()
  .get("/jobs/:id/metrics", requireRole("viewer"), async (c) => {
    const q = parseValue(MetricsQuery, c.req.query());
    const run = await runOf(c, q.run);
    const stub = runStub(c.env, run.id);
    if (q.key === undefined) return c.json({ run_id: run.id, keys: await stub.metricKeys() });
    return c.json({ run_id: run.id, ...(await stub.readMetric(q.key, q.after, q.limit)) });
  })
  .get("/jobs/:id/logs", requireRole("viewer"), async (c) => {
    const q = parseValue(LogsQuery, c.req.query());
    const run = await runOf(c, q.run);
    const stub = runStub(c.env, run.id);
    if (!q.follow) {
      // The ledger may know the run is over before its runner said so (a stop): release what is held.
      if (run.over) await stub.markOver(run.id);
      const page = await stub.readLogs({ offset: q.offset, limit: q.limit, rank: q.rank, stream: q.stream });
      return c.json({ run_id: run.id, ...page });
    }
    const lastId = c.req.header("last-event-id");
    const from = lastId === undefined ? q.offset : parseValue(LastEventId, lastId) + 1;
    const url = new URL("https://run.internal/tail");
    url.searchParams.set("run", run.id);
    url.searchParams.set("from", String(from));
    url.searchParams.set("over", run.over ? "1" : "0");
    return stub.fetch(new Request(url));
  })
  .get("/jobs/:id/logs/download", requireRole("viewer"), async (c) => {
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
  })
  .get("/jobs/:id/hparams", requireRole("viewer"), async (c) => {
    const q = parseValue(RunQuery, c.req.query());
    const run = await runOf(c, q.run);
    return c.json({ run_id: run.id, ...(await runStub(c.env, run.id).readHparams()) });
  })
  .get("/jobs/:id/hardware", requireRole("viewer"), async (c) => {
    const q = parseValue(HardwareQuery, c.req.query());
    const run = await runOf(c, q.run);
    return c.json(await runStub(c.env, run.id).readHardware(run.id, q));
  })
  .get("/jobs/:id/events", requireRole("viewer"), async (c) => {
    const q = parseValue(RunQuery, c.req.query());
    const d = db(c.env.DB);
    const job = await freshJob(c, c.req.param("id"));
    const run = await jobRun(d, job, q.run);
    const [timeline, lifecycle] = await Promise.all([
      runTimeline(d, job.id, run.id),
      runStub(c.env, run.id).readLifecycle(),
    ]);
    return c.json({ run_id: run.id, ...timeline, lifecycle });
  })
  .get("/jobs/:id/environment", requireRole("viewer"), async (c) => {
    const q = parseValue(RunQuery, c.req.query());
    const run = await runOf(c, q.run);
    return c.json(await runStub(c.env, run.id).readEnvironment(run.id));
  })
  .get("/jobs/:id/validation", requireRole("viewer"), async (c) => {
    const q = parseValue(ValidationQuery, c.req.query());
    const run = await runOf(c, q.run);
    const page = await runStub(c.env, run.id).readValidation(run.id, q);
    if (!page)
      throw new AppError("NOT_FOUND", `run ${run.id} reported no validation samples for step ${q.step}`);
    return c.json(page);
  })
  .get("/jobs/:id/artifacts", requireRole("viewer"), async (c) => {
    const q = parseValue(RunQuery, c.req.query());
    const run = await runOf(c, q.run);
    return c.json({ run_id: run.id, artifacts: await runStub(c.env, run.id).artifacts() });
  })
  .get("/jobs/:id/artifacts/download", requireRole("viewer"), async (c) => {
    const q = parseValue(DownloadQuery, c.req.query());
    const run = await runOf(c, q.run);
    return artifactDownload(c.env, run.id, q.path);
  });
