import { and, desc, eq, getTableColumns, inArray, lt, type SQL, sql } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { JobActionBody, JobListQuery } from "../../contract/api.schema.js";
import { canonicalJson, sha256Hex } from "../../contract/digest.js";
import type { JobAction, JobDetail } from "../../contract/fleet.schema.js";
import { newId } from "../../contract/ids.js";
import { ACTION_TARGETS, type JobState, RESTING_STATES } from "../../contract/job-states.js";
import {
  type AdmissionRow,
  admissionOf,
  dropReservation,
  keyedAdmission,
  releaseResume,
  reserveAdmission,
  reserveResume,
  STALE_RESERVATION_MS,
  takeOverStale,
} from "../../durable-objects/ledger/admissions.js";
import { db, schema } from "../../durable-objects/ledger/client.js";
import { type Ctx, currentUser, type Env, reauthenticate, requireRole } from "../auth/middleware.js";
import { forgetToken } from "../auth/principal-cache.js";
import { config } from "../env.js";
import { AppError, unwrap } from "../errors.js";
import { notTooDeep, parseValue } from "../http.js";
import {
  type Checked,
  checkHub,
  checkQuota,
  checkSpec,
  maxJobsSql,
  submitterFacts,
  submitterRead,
  submitterValid,
} from "../services/admission.js";
import { configCache, configGeneration } from "../services/config-cache.js";
import { fleetByRef, fleetStub } from "../services/fleets.service.js";
import { httpHubClient } from "../services/hf-hub.js";
import { jobHistory, jobView, readableJob } from "../services/jobs.service.js";
import { requireSecrets, withHubToken } from "../services/secrets.service.js";
import { quotaOf, userByName } from "../services/users.service.js";

/** How long a retry waits for the in-flight request that holds its Idempotency-Key. */
const KEYED_WAIT_MS = 5_000;

const IdempotencyKey = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/, "printable ASCII without spaces");

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

/**
 * The job an earlier request with this key created, read from the fleet that holds it. A request still
 * in flight is waited for (briefly), so concurrent retries all answer with the one job.
 */
async function awaitKeyedJob(c: Ctx, prior: AdmissionRow): Promise<JobDetail | null> {
  const stub = fleetStub(c.env, prior.fleet_id);
  const deadline = Date.now() + KEYED_WAIT_MS;
  for (;;) {
    const job = await stub.getJob(prior.job_id);
    if (job || Date.now() > deadline) return job;
    await scheduler.wait(50);
  }
}

/** Answers a keyed request whose key is already taken: a replay, a conflict, or null (take it over). */
async function answerTakenKey(c: Ctx, prior: AdmissionRow, requestHash: string): Promise<JobDetail | null> {
  if (prior.request_hash !== requestHash) {
    throw new AppError(
      "IDEMPOTENCY_KEY_REUSED",
      "this Idempotency-Key was already used for a different request",
      {
        job_id: prior.job_id,
      },
    );
  }
  // A stale reservation's job never reached its fleet: no point waiting for it.
  const stale =
    prior.state === "reserved" && Date.parse(prior.created_at) < Date.now() - STALE_RESERVATION_MS;
  const job = stale
    ? await fleetStub(c.env, prior.fleet_id).getJob(prior.job_id)
    : await awaitKeyedJob(c, prior);
  if (job) return job;
  if (!stale)
    throw new AppError(
      "CONFLICT",
      "a request with this Idempotency-Key is still being processed; retry shortly",
    );
  return null;
}

function replayed(c: Ctx, job: JobDetail) {
  c.header("Idempotent-Replayed", "true");
  return c.json({ job }, 200);
}

async function act(c: Ctx, action: JobAction) {
  const me = currentUser(c);
  const body = c.req.header("content-type")?.includes("json")
    ? parseValue(JobActionBody, await readBody(c, "BAD_REQUEST"))
    : {};
  const d = db(c.env.DB);
  const job = await readableJob(d, me, c.req.param("id")!);
  // Resuming makes the job active again: it takes one of its owner's job slots, atomically.
  let tookSlot = false;
  // Only a resumable job takes a slot; anything else gets the DO's INVALID_TRANSITION.
  if (action === "resume" && ACTION_TARGETS.resume[job.status as JobState]) {
    const max = (await quotaOf(d, job.userId)).max_jobs;
    tookSlot = await reserveResume(c.env.DB, job.id, job.userId, max);
    if (!tookSlot && (await admissionOf(c.env.DB, job.id))?.state === "released") {
      throw new AppError("QUOTA_EXCEEDED", `resuming would exceed the owner's limit of ${max} active jobs`, {
        limit: "max_jobs",
        value: max,
      });
    }
  }
  const result = await fleetStub(c.env, job.fleetId).jobAction(
    job.id,
    action,
    { userId: me.userId, name: me.name, admin: me.role === "admin" },
    body.reason,
  );
  if (!result.ok && tookSlot) await releaseResume(c.env.DB, job.id);
  return c.json({ job: unwrap(result) });
}

export const jobsRoutes = new Hono<Env>()
  .post("/jobs", requireRole("operator"), async (c) => {
    const me = currentUser(c);
    const raw = await readBody(c, "INVALID_SPEC");
    const d = db(c.env.DB);
    const keyHeader = c.req.header("idempotency-key");
    const key = keyHeader === undefined ? null : parseValue(IdempotencyKey, keyHeader);
    const requestHash = key ? await sha256Hex(canonicalJson(raw)) : null;
    const cfg = config(c.env);
    const hub = httpHubClient(cfg.hfEndpoint);
    const checks = async () => {
      const checked = await checkSpec(c.env, d, raw);
      const { spec, token } = await withHubToken(
        c.env,
        d,
        { userId: me.userId, fleetId: checked.fleet.id },
        checked.spec,
      );
      await checkHub(hub, spec, token, checked.fleet.hfUnavailable === "admit" ? "open" : "closed");
      return { ...checked, spec };
    };

    // 1. The spec, against cached configuration. A retry of a finished submit is answered even if a check
    //    would now refuse it: the job exists, whatever the fleet, the hub or the catalog say now.
    let checked: Checked | null = null;
    let refusal: unknown = null;
    try {
      checked = await checks();
    } catch (err) {
      refusal = err;
    }
    if (!checked) {
      // The caller may be a user this isolate remembered: refusals go only to a token that is still good.
      await reauthenticate(c, "operator");
      // A refusal may rest on configuration cached before an admin changed it (a fleet drained, then
      // reopened): if the generation moved, the checks run again on fresh rows.
      if (configCache.sync(await configGeneration(c.env.DB))) {
        try {
          checked = await checks();
        } catch (err) {
          refusal = err;
        }
      }
    }
    if (!checked) {
      const prior = key ? await keyedAdmission(c.env.DB, me.userId, key) : null;
      if (prior && requestHash) {
        const job = await answerTakenKey(c, prior, requestHash);
        if (job) return replayed(c, job);
      }
      throw refusal;
    }

    // 2. One D1 round trip: the token is still good, the configuration generation, quota and usage, and
    //    the slot reserved (only if the token is good and the user under max_jobs; the key is unique).
    const now = Date.now();
    const jobId = newId("job");
    const slot = {
      jobId,
      userId: me.userId,
      fleetId: checked.fleet.id,
      key,
      requestHash,
      maxJobs: maxJobsSql(me.userId),
      guard: submitterValid(me, now),
    };
    const { reservation, reads } = await reserveAdmission(
      c.env.DB,
      slot,
      [submitterRead(c.env.DB, me, now)],
      now,
    );
    const facts = submitterFacts(reads[0]!, now);
    if (!facts.valid) {
      // The token or its user changed since this isolate resolved it: answer as a fresh lookup would.
      forgetToken(me.tokenId);
      await reauthenticate(c, "operator");
      throw new AppError(
        "UNAUTHENTICATED",
        "this token is no longer valid for submitting; check `sf whoami`",
      );
    }
    if (reservation.kind === "key_taken") {
      const job = await answerTakenKey(c, reservation.existing, requestHash!);
      if (job) return replayed(c, job);
      if (!(await takeOverStale(c.env.DB, reservation.existing.job_id, slot))) {
        throw new AppError(
          "CONFLICT",
          "a request with this Idempotency-Key is still being processed; retry shortly",
        );
      }
    }
    const { quota } = facts;
    // 3. What the slot's transaction saw decides: configuration that changed meanwhile is read again and
    //    checked again, then the quota. A refusal gives the slot and the key back.
    try {
      if (configCache.sync(facts.configGen)) checked = await checks();
      checkQuota(checked.spec, quota, facts.gpuHoursToday);
      const fleet = checked.fleet;
      await requireSecrets(
        d,
        { userId: me.userId, fleetId: fleet.id, fleetName: fleet.name },
        checked.spec.secrets,
      );
    } catch (err) {
      if (reservation.kind !== "over_quota") await dropReservation(c.env.DB, jobId);
      throw err;
    }
    if (reservation.kind === "over_quota") {
      throw new AppError(
        "QUOTA_EXCEEDED",
        `you have ${reservation.active} active jobs; your limit is ${quota.max_jobs}`,
        { limit: "max_jobs", value: quota.max_jobs },
      );
    }
    const { spec } = checked;
    const result = await fleetStub(c.env, checked.fleet.id).submit({
      jobId,
      userId: me.userId,
      userName: me.name,
      spec,
      quota,
      priority: Math.min(spec.lifecycle.priority ?? quota.priority, quota.priority),
      blobDigests: checked.blobDigests,
      capsule: checked.capsule,
      launch: checked.launch,
    });
    if (!result.ok) {
      // The fleet refused: give the slot and the key back so the rejected submit leaves nothing behind.
      // (An RPC that threw may still have queued the job; that reservation is kept and settles or goes stale.)
      await dropReservation(c.env.DB, jobId);
    }
    return c.json({ job: unwrap(result).job }, 201);
  })
  .get("/jobs", requireRole("viewer"), async (c) => {
    const me = currentUser(c);
    const q = parseValue(JobListQuery, c.req.query());
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
    const job = await readableJob(d, c.get("principal"), c.req.param("id"));
    return c.json({
      job: { ...jobView(job), spec: JSON.parse(job.spec) as unknown },
      ...(await jobHistory(d, job.id)),
    });
  })
  .post("/jobs/:id/stop", requireRole("operator"), (c) => act(c, "stop"))
  .post("/jobs/:id/pause", requireRole("operator"), (c) => act(c, "pause"))
  .post("/jobs/:id/resume", requireRole("operator"), (c) => act(c, "resume"));
