/**
 * Reading back what a job's runs reported: metrics, logs (a page, or a live SSE tail), artifacts and
 * their bytes. Viewer role, and only the job's owner or an admin (readableJob). `run` picks one of the
 * job's runs; by default the current run, else the latest.
 */
import { Hono } from "hono";
import { z } from "zod";
import { type Ctx, type Env, requireRole } from "../auth/middleware.js";
import { db } from "../db/client.js";
import { parseValue } from "../http.js";
import { readableJob } from "../services/jobs.service.js";
import { artifactDownload, jobRun, type RunRef, runStub } from "../services/runs.service.js";

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
  stream: z.enum(["stdout", "stderr"]).optional(),
  follow: Flag,
});

const DownloadQuery = RunQuery.extend({ path: z.string().min(1).max(1024) });

/** A cursor the client last saw (SSE `Last-Event-ID`); the tail resumes right after it. */
const LastEventId = int(0, Number.MAX_SAFE_INTEGER);

async function runOf(c: Ctx, wanted: string | undefined): Promise<RunRef> {
  const d = db(c.env.DB);
  const job = await readableJob(d, c.get("principal"), c.req.param("id")!);
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
    return stub.fetch(url.toString());
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
