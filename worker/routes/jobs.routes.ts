import { and, desc, eq, getTableColumns, inArray, lt, type SQL, sql } from "drizzle-orm";
import { Hono } from "hono";
import { JobActionBody, JobListQuery } from "../../contract/api.schema.js";
import { sha256Hex } from "../../contract/digest.js";
import type { JobAction } from "../../contract/fleet.schema.js";
import { ACTION_TARGETS, type JobState, RESTING_STATES } from "../../contract/job-states.js";
import { db, schema } from "../../d1/client.js";
import { userStub } from "../../durable-objects/user/stub.js";
import { type Ctx, currentUser, type Env, requireRole } from "../auth/middleware.js";
import { AppError, unwrap } from "../errors.js";
import { notTooDeep, parseValue } from "../http.js";
import { fleetByRef, fleetStub } from "../services/fleets.service.js";
import { jobHistory, jobView, stepsLost } from "../services/jobs.service.js";
import { userByName } from "../services/users.service.js";
import { freshJob, readYourWrites } from "../submit/read-your-writes.js";
import { submitJobs } from "../submit/submit.js";

/** `s` for a LIKE pattern with `\` as the escape: its own %, _ and \ match only themselves. */
function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/** Whether an If-None-Match header names `etag` (weak or strong, or `*`). */
function ifNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((t) => {
    const tag = t.trim().replace(/^W\//, "");
    return tag === "*" || tag === etag;
  });
}

async function readBody(c: Ctx, code: "INVALID_SPEC" | "BAD_REQUEST"): Promise<unknown> {
  try {
    // Deep nesting is refused before the Idempotency-Key hash walks the body (canonicalJson recurses).
    return notTooDeep(await c.req.json(), code);
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError(
      code,
      code === "INVALID_SPEC" ? "request body must be a JSON JobSpec" : "request body must be JSON",
    );
  }
}

async function act(c: Ctx, action: JobAction) {
  const me = currentUser(c);
  const body = c.req.header("content-type")?.includes("json")
    ? parseValue(JobActionBody, await readBody(c, "BAD_REQUEST"))
    : {};
  const job = await freshJob(c, c.req.param("id")!);
  // Resuming makes the job active again: it takes one of its owner's job slots, atomically, in the
  // owner's object. Only a resumable job takes one; anything else gets the fleet's INVALID_TRANSITION.
  let tookSlot = false;
  if (action === "resume" && ACTION_TARGETS.resume[job.status as JobState]) {
    const slot = await userStub(c.env, job.userId).reserveResume(job.userId, job.id, job.fleetId, Date.now());
    if (slot.kind === "over_quota") {
      throw new AppError(
        "QUOTA_EXCEEDED",
        `resuming would exceed the owner's limit of ${slot.max} active jobs`,
        {
          limit: "max_jobs",
          value: slot.max,
        },
      );
    }
    tookSlot = slot.kind === "reserved";
  }
  const result = await fleetStub(c.env, job.fleetId).jobAction(
    job.id,
    action,
    { userId: me.userId, name: me.name, admin: me.role === "admin" },
    body.reason,
  );
  if (!result.ok && tookSlot) await userStub(c.env, job.userId).releaseResume(job.id);
  return c.json({ job: unwrap(result) });
}

export const jobsRoutes = new Hono<Env>()
  .post("/jobs", requireRole("operator"), async (c) => submitJobs(c, await readBody(c, "INVALID_SPEC")))
  .get("/jobs", requireRole("viewer"), async (c) => {
    const me = currentUser(c);
    const q = parseValue(JobListQuery, c.req.query());
    await readYourWrites(c);
    const d = db(c.env.DB);
    const wantAll = q.all === "1" || q.all === "true" || (q.user !== undefined && q.user !== me.name);
    if (wantAll && me.role !== "admin") throw new AppError("FORBIDDEN", "only admins list other users' jobs");
    const [owner, fleet] = await Promise.all([
      q.user ? userByName(d, q.user) : null,
      q.fleet ? fleetByRef(d, q.fleet) : null,
    ]);
    const jobs = schema.jobs;
    const where: SQL[] = [];
    if (owner) where.push(eq(jobs.userId, owner.id));
    else if (!wantAll) where.push(eq(jobs.userId, me.userId));
    if (q.status) where.push(inArray(jobs.status, q.status));
    if (fleet) where.push(eq(jobs.fleetId, fleet.id));
    if (q.method) {
      // jobs.recipe is `name@version`: a bare name matches every version of it.
      where.push(
        q.method.includes("@")
          ? eq(jobs.recipe, q.method)
          : sql`${jobs.recipe} LIKE ${`${likeEscape(q.method)}@%`} ESCAPE '\\'`,
      );
    }
    if (q.q) where.push(sql`${jobs.name} LIKE ${`%${likeEscape(q.q)}%`} ESCAPE '\\'`);
    if (q.cursor) where.push(lt(jobs.id, q.cursor));
    // One query: the owner's name by join, profile from the spec, run timings by correlated aggregates
    // (runs_job index), so a page costs the same whatever it shows. The spec itself is not read out.
    const { spec: _spec, ...columns } = getTableColumns(jobs);
    const resting = [...RESTING_STATES];
    const rows = await d
      .select({
        ...columns,
        userName: schema.users.name,
        profile: sql<
          string | null
        >`(SELECT group_concat(p, ',') FROM (SELECT DISTINCT json_extract(value, '$.profile') AS p FROM json_each(${jobs.spec}, '$.resources.pools')))`,
        startedAt: sql<
          string | null
        >`(SELECT MIN(${schema.runs.allocatedAt}) FROM ${schema.runs} WHERE ${schema.runs.jobId} = ${jobs.id})`,
        endedAt: sql<
          string | null
        >`CASE WHEN ${inArray(jobs.status, resting)} THEN (SELECT MAX(${schema.runs.endedAt}) FROM ${schema.runs} WHERE ${schema.runs.jobId} = ${jobs.id}) END`,
      })
      .from(jobs)
      .leftJoin(schema.users, eq(schema.users.id, jobs.userId))
      .where(and(...where))
      .orderBy(desc(jobs.id))
      .limit(q.limit + 1)
      .all();
    const page = rows.slice(0, q.limit);
    const body = JSON.stringify({
      jobs: page.map(({ userName, profile, startedAt, endedAt, ...row }) =>
        jobView(row, { user: userName, profile, started_at: startedAt, ended_at: endedAt }),
      ),
      next_cursor: rows.length > q.limit ? page[page.length - 1]!.id : null,
    });
    // A poller (the console's jobs page) sends the ETag back and gets 304 while nothing it shows changed.
    const etag = `"${(await sha256Hex(body)).slice(0, 32)}"`;
    c.header("ETag", etag);
    c.header("Cache-Control", "private, no-cache");
    if (ifNoneMatch(c.req.header("if-none-match"), etag)) return c.body(null, 304);
    return c.body(body, 200, { "content-type": "application/json; charset=UTF-8" });
  })
  .get("/jobs/:id", requireRole("viewer"), async (c) => {
    const d = db(c.env.DB);
    const job = await freshJob(c, c.req.param("id"));
    const history = await jobHistory(d, job.id);
    const lost = await stepsLost(c.env, history);
    return c.json({
      job: { ...jobView(job), spec: JSON.parse(job.spec) as unknown },
      // Why its latest run failed (docs/operations.md "Failure diagnosis"), or null.
      diagnosis: history.runs.at(-1)?.diagnosis ?? null,
      ...history,
      runs: history.runs.map((r) => (lost.has(r.id) ? { ...r, steps_lost: lost.get(r.id) } : r)),
    });
  })
  .post("/jobs/:id/stop", requireRole("operator"), (c) => act(c, "stop"))
  .post("/jobs/:id/pause", requireRole("operator"), (c) => act(c, "pause"))
  .post("/jobs/:id/resume", requireRole("operator"), (c) => act(c, "resume"));
