import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { Hono } from "hono";
import { ACTIVE_STATES } from "../../contract/job-states.js";
import { db, schema } from "../../durable-objects/ledger/client.js";
import { currentUser, type Env, requireRole } from "../auth/middleware.js";
import { AppError } from "../errors.js";
import { gpuHoursToday } from "../services/admission.js";
import { quotaOf, userByName } from "../services/users.service.js";

export const usageRoutes = new Hono<Env>().get("/usage", requireRole("viewer"), async (c) => {
  const me = currentUser(c);
  const d = db(c.env.DB);
  const who = c.req.query("user");
  if (who && who !== me.name && me.role !== "admin")
    throw new AppError("FORBIDDEN", "only admins read other users' usage");
  const user = who ? await userByName(d, who) : await userByName(d, me.name);
  const now = Date.now();

  const [open, activeJobs, total, fleets] = await Promise.all([
    d
      .select({ gpus: schema.runs.gpus, at: schema.runs.allocatedAt })
      .from(schema.runs)
      .where(and(eq(schema.runs.userId, user.id), isNull(schema.runs.endedAt)))
      .all(),
    d
      .select({ n: sql<number>`count(*)` })
      .from(schema.jobs)
      .where(and(eq(schema.jobs.userId, user.id), inArray(schema.jobs.status, [...ACTIVE_STATES])))
      .get(),
    d
      .select({ s: sql<number>`coalesce(sum(${schema.runUsage.gpuSeconds}), 0)` })
      .from(schema.runUsage)
      .where(eq(schema.runUsage.userId, user.id))
      .get(),
    d
      .select({
        fleet_id: schema.nodes.fleetId,
        gpus: sql<number>`sum(${schema.nodes.gpus})`,
        allocated: sql<number>`sum(${schema.nodes.gpusAllocated})`,
        nodes: sql<number>`count(*)`,
      })
      .from(schema.nodes)
      .groupBy(schema.nodes.fleetId)
      .all(),
  ]);
  const liveSeconds = open.reduce((s, r) => s + (Math.max(0, now - Date.parse(r.at)) / 1000) * r.gpus, 0);
  return c.json({
    user: user.name,
    active_gpus: open.reduce((s, r) => s + r.gpus, 0),
    active_jobs: activeJobs?.n ?? 0,
    gpu_hours_today: await gpuHoursToday(d, user.id, now),
    gpu_hours_total: ((total?.s ?? 0) + liveSeconds) / 3600,
    quota: await quotaOf(d, user.id),
    fleets,
  });
});
