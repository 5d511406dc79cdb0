import { and, desc, eq, getTableColumns, inArray, lt, type SQL, sql } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { JobActionBody, JobListQuery } from "../../contract/api.schema.js";
import { sha256Hex } from "../../contract/digest.js";
import type { JobAction } from "../../contract/fleet.schema.js";
import { ACTION_TARGETS, type JobState, RESTING_STATES } from "../../contract/job-states.js";
import { JobSpec } from "../../contract/jobspec.schema.js";
import {
  DryRunAnswer,
  JobAnswer,
  JobDetailResponse,
  JobList,
  JobsAnswer,
} from "../../contract/responses.schema.js";
import { db, schema } from "../../d1/client.js";
import { userStub } from "../../durable-objects/user/stub.js";
import { type Ctx, currentUser, type Env, requireRole } from "../auth/middleware.js";
import { AppError, unwrap } from "../errors.js";
import { ifNoneMatch, notTooDeep, parseValue } from "../http.js";
import { describe } from "../openapi/describe.js";
import { fleetByRef, fleetStub } from "../services/fleets.service.js";
import { jobHistory, jobView, stepsLost } from "../services/jobs.service.js";
import { userByName } from "../services/users.service.js";
import { freshJob, readYourWrites } from "../submit/read-your-writes.js";
import { MAX_JOB_ARRAY, submitJobs } from "../submit/submit.js";

/** `s` for a LIKE pattern with `\` as the escape: its own %, _ and \ match only themselves. */
function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (ch) => `\\${ch}`);
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

/** A job read fresh from its fleet (freshJob): not found, or 503 while the ledger refuses writes. */
const FRESH_JOB_ERRORS = ["JOB_NOT_FOUND", "UNAVAILABLE"] as const;
/** An action: those, the fleet's refusal of the transition, or an admission not confirmed yet. */
const JOB_ACTION_ERRORS = [...FRESH_JOB_ERRORS, "INVALID_TRANSITION", "CONFLICT"] as const;

/** POST /jobs/:id/{stop,pause,resume}: one description, the verb changes. */
const describeAction = (verb: "stop" | "pause" | "resume", what: string) =>
  describe({
    id: `${verb}Job`,
    tag: "Jobs",
    summary: `${verb[0]!.toUpperCase()}${verb.slice(1)} a job`,
    description: what,
    role: "operator",
    body: { schema: JobActionBody, optional: true },
    ok: { 200: JobAnswer },
    errors: verb === "resume" ? [...JOB_ACTION_ERRORS, "QUOTA_EXCEEDED"] : [...JOB_ACTION_ERRORS],
  });

export const jobsRoutes = new Hono<Env>()
  .post(
    "/jobs",
    describe({
      id: "submitJob",
      tag: "Jobs",
      summary: "Submit a job, or a job array admitted all or none",
      description:
        'The body is a JobSpec, or `{ "jobs": [JobSpec, …] }` (what `sf sweep` sends). Admission runs its ' +
        'checks cheapest first and a refusal leaves nothing behind (docs/api.md "POST /v1/jobs"). ' +
        "`?dry_run=1` decides the submit as the fleet would now and undoes it.",
      role: "operator",
      body: z.union([
        JobSpec,
        z.object({
          jobs: z
            .array(JobSpec)
            .min(1)
            .max(MAX_JOB_ARRAY)
            .describe("A job array: its JobSpecs, admitted all or none, on one fleet"),
        }),
      ]),
      query: z.object({
        dry_run: z
          .enum(["0", "1", "true", "false"])
          .optional()
          .describe("`1`/`true`: check and decide, change nothing"),
      }),
      headers: {
        "Idempotency-Key": {
          description: 'Makes a retried submit answer the first one\'s jobs (docs/api.md "Idempotency")',
        },
      },
      ok: {
        201: {
          description: "Admitted: the job (or the array's jobs, in the order sent)",
          json: z.union([JobAnswer, JobsAnswer]),
        },
        200: {
          description: "A replay of an Idempotency-Key's submit (`Idempotent-Replayed: true`), or a dry run",
          json: z.union([JobAnswer, JobsAnswer, DryRunAnswer]),
          headers: { "Idempotent-Replayed": "`true` on a replay" },
        },
      },
      errors: [
        "INVALID_SPEC",
        "INVALID_HYPERPARAMS",
        "INVALID_PROFILE",
        "FLEET_NOT_FOUND",
        "PROFILE_NOT_FOUND",
        "FLEET_DRAINING",
        "RECIPE_NOT_FOUND",
        "RECIPE_VERSION_NOT_FOUND",
        "RECIPE_LOCK_STALE",
        "FRAMEWORK_VERSION_UNSUPPORTED",
        "IMAGE_REQUIRED",
        "IMAGE_NOT_ALLOWED",
        "BLOB_MISSING",
        "HF_NOT_FOUND",
        "HF_REVISION_NOT_FOUND",
        "HF_TOKEN_REQUIRED",
        "HF_ACCESS_DENIED",
        "HF_UNAVAILABLE",
        "SECRET_MISSING",
        "PROFILE_NOT_ALLOWED",
        "QUOTA_EXCEEDED",
        "PRIORITY_CLASS_UNKNOWN",
        "PRIORITY_CLASS_NOT_ALLOWED",
        "TEAM_UNKNOWN",
        "TEAM_NOT_MEMBER",
        "BUDGET_EXHAUSTED",
        "NO_ELIGIBLE_FLEET",
        "IDEMPOTENCY_KEY_REUSED",
        "CONFLICT",
        "SECRETS_UNAVAILABLE",
        "UNAVAILABLE",
      ],
    }),
    requireRole("operator"),
    async (c) => submitJobs(c, await readBody(c, "INVALID_SPEC")),
  )
  .get(
    "/jobs",
    describe({
      id: "listJobs",
      tag: "Jobs",
      summary: "List jobs, newest first",
      description:
        "Your jobs by default; `all=1` or another `user` (admins) lists others'. Pages by `cursor` " +
        "(the previous page's `next_cursor`). Answers carry an ETag; `If-None-Match` gets 304 while nothing changed.",
      role: "viewer",
      query: JobListQuery,
      headers: { "If-None-Match": { description: "The ETag of the page last read" } },
      ok: { 200: JobList, 304: { description: "Not modified since the ETag sent" } },
      errors: ["USER_NOT_FOUND", "FLEET_NOT_FOUND", "UNAVAILABLE"],
    }),
    requireRole("viewer"),
    async (c) => {
      const me = currentUser(c);
      const q = parseValue(JobListQuery, c.req.query());
      await readYourWrites(c);
      const d = db(c.env.DB);
      const wantAll = q.all === "1" || q.all === "true" || (q.user !== undefined && q.user !== me.name);
      if (wantAll && me.role !== "admin")
        throw new AppError("FORBIDDEN", "only admins list other users' jobs");
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
    },
  )
  .get(
    "/jobs/:id",
    describe({
      id: "getJob",
      tag: "Jobs",
      summary: "A job: its spec, runs, events and why it failed",
      role: "viewer",
      ok: { 200: JobDetailResponse },
      errors: [...FRESH_JOB_ERRORS],
    }),
    requireRole("viewer"),
    async (c) => {
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
    },
  )
  .post(
    "/jobs/:id/stop",
    describeAction("stop", "Stops the job's run (with a checkpoint attempt) and ends the job STOPPED."),
    requireRole("operator"),
    (c) => act(c, "stop"),
  )
  .post(
    "/jobs/:id/pause",
    describeAction("pause", "Stops the run with a checkpoint and holds the job PAUSED, keeping no GPUs."),
    requireRole("operator"),
    (c) => act(c, "pause"),
  )
  .post(
    "/jobs/:id/resume",
    describeAction("resume", "Queues a paused job again; it continues from its last checkpoint."),
    requireRole("operator"),
    (c) => act(c, "resume"),
  );
