import { and, desc, eq, inArray, lt, type SQL } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { JobActionBody } from "../../contract/api.schema.js";
import { canonicalJson, sha256Hex } from "../../contract/digest.js";
import { newId } from "../../contract/ids.js";
import { JOB_STATES } from "../../contract/job-states.js";
import type { JobAction } from "../../durable-objects/fleet-engine.js";
import { type Ctx, currentUser, type Env, requireRole } from "../auth/middleware.js";
import { db, schema } from "../db/client.js";
import { config } from "../env.js";
import { AppError, unwrap } from "../errors.js";
import { parseValue } from "../http.js";
import { admit } from "../services/admission.js";
import { fleetByRef, fleetStub } from "../services/fleets.service.js";
import { httpHubClient } from "../services/hf-hub.js";
import { jobHistory, jobView, readableJob } from "../services/jobs.service.js";
import { userByName } from "../services/users.service.js";

const ListQuery = z.object({
  all: z.enum(["0", "1", "true", "false"]).optional(),
  user: z.string().optional(),
  status: z
    .string()
    .transform((s) => s.split(",").map((x) => x.trim().toUpperCase()))
    .pipe(z.array(z.enum(JOB_STATES)))
    .optional(),
  fleet: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z
    .string()
    .regex(/^job_[0-9a-z]{26}$/)
    .optional(),
});

const IdempotencyKey = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/, "printable ASCII without spaces");

async function readBody(c: Ctx): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    throw new AppError("INVALID_SPEC", "request body must be a JSON JobSpec");
  }
}

async function act(c: Ctx, action: JobAction) {
  const me = currentUser(c);
  const body = c.req.header("content-type")?.includes("json")
    ? parseValue(JobActionBody, await readBody(c))
    : {};
  const d = db(c.env.DB);
  const job = await readableJob(d, me, c.req.param("id")!);
  const detail = unwrap(
    await fleetStub(c.env, job.fleetId).jobAction(
      job.id,
      action,
      { userId: me.userId, name: me.name, admin: me.role === "admin" },
      body.reason,
    ),
  );
  return c.json({ job: detail });
}

export const jobsRoutes = new Hono<Env>()
  .post("/jobs", requireRole("operator"), async (c) => {
    const me = currentUser(c);
    const raw = await readBody(c);
    const keyHeader = c.req.header("idempotency-key");
    const d = db(c.env.DB);
    let idempotency: { key: string; requestHash: string } | null = null;
    if (keyHeader !== undefined) {
      const key = parseValue(IdempotencyKey, keyHeader);
      idempotency = { key, requestHash: await sha256Hex(canonicalJson(raw)) };
      // Fast path for a retry whose first attempt already reached the ledger; the DO re-checks atomically.
      const prior = await d
        .select()
        .from(schema.idempotencyKeys)
        .where(and(eq(schema.idempotencyKeys.userId, me.userId), eq(schema.idempotencyKeys.key, key)))
        .get();
      if (prior) {
        if (prior.requestHash !== idempotency.requestHash) {
          throw new AppError(
            "IDEMPOTENCY_KEY_REUSED",
            "this Idempotency-Key was already used for a different request",
            {
              job_id: prior.jobId,
            },
          );
        }
        const job = await readableJob(d, me, prior.jobId);
        c.header("Idempotent-Replayed", "true");
        return c.json({ job: jobView(job) }, 200);
      }
    }
    const cfg = config(c.env);
    const admitted = await admit(c.env, d, httpHubClient(cfg.hfEndpoint, cfg.hfToken), me, raw);
    const result = unwrap(
      await fleetStub(c.env, admitted.fleet.id).submit({
        ...admitted.submit,
        jobId: newId("job"),
        idempotency,
      }),
    );
    if (result.replayed) c.header("Idempotent-Replayed", "true");
    return c.json({ job: result.job }, result.replayed ? 200 : 201);
  })
  .get("/jobs", requireRole("viewer"), async (c) => {
    const me = currentUser(c);
    const q = parseValue(ListQuery, c.req.query());
    const d = db(c.env.DB);
    const wantAll = q.all === "1" || q.all === "true" || q.user !== undefined;
    if (wantAll && me.role !== "admin") throw new AppError("FORBIDDEN", "only admins list other users' jobs");
    const where: SQL[] = [];
    if (q.user) where.push(eq(schema.jobs.userId, (await userByName(d, q.user)).id));
    else if (!wantAll) where.push(eq(schema.jobs.userId, me.userId));
    if (q.status) where.push(inArray(schema.jobs.status, q.status));
    if (q.fleet) where.push(eq(schema.jobs.fleetId, (await fleetByRef(d, q.fleet)).id));
    if (q.cursor) where.push(lt(schema.jobs.id, q.cursor));
    const rows = await d
      .select()
      .from(schema.jobs)
      .where(and(...where))
      .orderBy(desc(schema.jobs.id))
      .limit(q.limit + 1)
      .all();
    const page = rows.slice(0, q.limit);
    return c.json({
      jobs: page.map(jobView),
      next_cursor: rows.length > q.limit ? page[page.length - 1]!.id : null,
    });
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
