import { and, eq, gte, inArray, isNull, sql } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { ACTIVE_STATES } from "../../contract/job-states.js";
import { TeamUsage, Usage } from "../../contract/responses.schema.js";
import { budgetPeriodOf, budgetPeriods } from "../../contract/teams.js";
import { DAY_MS, splitByUtcDay, utcDay } from "../../contract/time.js";
import { db, schema } from "../../d1/client.js";
import { currentUser, type Env, requireRole } from "../auth/middleware.js";
import { AppError } from "../errors.js";
import { parseValue } from "../http.js";
import { describe } from "../openapi/describe.js";
import { budgetUse } from "../services/budgets.service.js";
import { teamUsageCsv, teamUsageRows } from "../services/team-usage.js";
import { gpuHoursTodayInLedger, quotaOf, userByName } from "../services/users.service.js";
import { readYourWrites } from "../submit/read-your-writes.js";

/** GET /v1/usage query parameters: `days` (1–366) adds the per-day series. */
const UsageQuery = z.object({
  user: z.string().optional().describe("Another user's usage (admins; or your own name)"),
  days: z.coerce
    .number()
    .int()
    .min(1)
    .max(366)
    .optional()
    .describe("Add `daily`: GPU-hours of each UTC day of the last `days` days, today included"),
});

/** GET /v1/usage as the route sends it: Usage and the node capacity of every fleet. */
const UsageAnswer = Usage.extend({
  fleets: z
    .array(
      z.looseObject({
        fleet_id: z.string().describe("The fleet's id (`flt_…`)"),
        gpus: z.number().describe("GPUs on its nodes"),
        allocated: z.number().describe("Of those, GPUs held by runs, as the ledger last recorded them"),
        nodes: z.number().describe("How many nodes it has"),
      }),
    )
    .describe("The node capacity of every fleet that has nodes, not only the user's"),
});

export interface UsageDay {
  /** The UTC day, `YYYY-MM-DD`. */
  date: string;
  gpu_hours: number;
}

/**
 * GPU-hours per UTC day for the `days` days up to and including today (oldest first, every day present):
 * finished allocations as the ledger split them per day (run_usage), plus each open run split at UTC
 * midnights from its start (or the window's first day) up to `now`.
 */
export function dailyGpuHours(
  done: ReadonlyArray<{ day: string; gpuSeconds: number }>,
  open: ReadonlyArray<{ gpus: number; at: string }>,
  now: number,
  days: number,
): UsageDay[] {
  const todayStart = Math.floor(now / DAY_MS) * DAY_MS;
  const from = todayStart - (days - 1) * DAY_MS;
  const seconds = new Map<string, number>();
  for (let t = from; t <= todayStart; t += DAY_MS) seconds.set(utcDay(t), 0);
  const add = (day: string, s: number) => {
    const v = seconds.get(day);
    if (v !== undefined) seconds.set(day, v + s);
  };
  for (const d of done) add(d.day, d.gpuSeconds);
  for (const r of open) {
    const start = Date.parse(r.at);
    if (Number.isNaN(start)) continue;
    for (const part of splitByUtcDay(Math.max(start, from), now, r.gpus)) add(part.day, part.gpuSeconds);
  }
  return [...seconds].map(([date, s]) => ({ date, gpu_hours: s / 3600 }));
}

const TeamUsageQuery = z.object({
  /** `2026-12` (a calendar month, UTC) or `2026-W49` (an ISO week); default: this month. */
  period: z
    .string()
    .optional()
    .describe("`2026-12` (a calendar month, UTC) or `2026-W49` (an ISO week); default: this month"),
  format: z.enum(["json", "csv"]).default("json").describe("`csv`: the rows as a CSV download"),
});

export const usageRoutes = new Hono<Env>()
  .get(
    "/usage/teams",
    describe({
      id: "getTeamUsage",
      tag: "Usage",
      summary: "GPU usage per team and fleet in a budget period",
      description:
        "From the ledger: finished allocations by UTC day, plus open runs up to now. Admins see every team " +
        "and the jobs of no team (`team: null`); others only the teams they are members of. `lost_*` is the " +
        "part of the GPU time preempted runs trained past their last checkpoint (within `gpu_seconds`).",
      role: "viewer",
      query: TeamUsageQuery,
      ok: {
        200: {
          description: "The period's usage; with `format=csv`, its rows as a CSV attachment",
          json: TeamUsage,
          media: { type: "text/csv", schema: { type: "string" } },
          headers: {
            "Content-Disposition": 'With `format=csv`: `attachment; filename="usage-<period>.csv"`',
          },
        },
      },
    }),
    requireRole("viewer"),
    async (c) => {
      const q = parseValue(TeamUsageQuery, c.req.query());
      const now = Date.now();
      const period = q.period ? budgetPeriodOf(q.period) : budgetPeriods(now).month;
      if (!period)
        throw new AppError(
          "BAD_REQUEST",
          `period is a month (2026-12) or an ISO week (2026-W49), not "${q.period}"`,
        );
      const me = currentUser(c);
      const d = db(c.env.DB);
      let rows = await teamUsageRows(d, period, now);
      if (me.role !== "admin") {
        const mine = new Set(
          (
            await d
              .select({ team: schema.teamMembers.team })
              .from(schema.teamMembers)
              .where(eq(schema.teamMembers.userId, me.userId))
              .all()
          ).map((r) => r.team),
        );
        rows = rows.filter((r) => r.team !== null && mine.has(r.team));
      }
      if (q.format === "csv") {
        c.header("content-type", "text/csv; charset=utf-8");
        c.header("content-disposition", `attachment; filename="usage-${period.key}.csv"`);
        return c.body(teamUsageCsv(rows));
      }
      const budgets = new Map((await budgetUse(d, now)).map((b) => [b.team, b]));
      const teams = [...new Set(rows.map((r) => r.team))].map((team) => {
        const own = rows.filter((r) => r.team === team);
        const seconds = own.reduce((s, r) => s + r.gpu_seconds, 0);
        const b = team ? budgets.get(team) : undefined;
        const use = b?.uses.find((u) => u.period === period.key);
        return {
          team,
          gpu_hours: seconds / 3600,
          borrowed_gpu_hours: own.reduce((s, r) => s + r.borrowed_gpu_seconds, 0) / 3600,
          lost_gpu_hours: own.reduce((s, r) => s + r.lost_gpu_seconds, 0) / 3600,
          budget_gpu_hours: use?.limit_gpu_hours ?? null,
          budget_percent:
            use && use.limit_gpu_hours > 0 ? (use.used_gpu_hours / use.limit_gpu_hours) * 100 : null,
          budget_policy: b?.policy ?? null,
        };
      });
      return c.json({
        period: period.key,
        start: new Date(period.start).toISOString(),
        end: new Date(period.end).toISOString(),
        teams,
        rows,
        total_gpu_seconds: rows.reduce((s, r) => s + r.gpu_seconds, 0),
      });
    },
  )
  .get(
    "/usage",
    describe({
      id: "getUsage",
      tag: "Usage",
      summary: "A user's GPU usage, active jobs and quota",
      description:
        "The caller's, or another user's with `user` (admins only, unless it is the caller's own name). Your " +
        "own usage is read-your-writes, as GET /v1/jobs (503 `UNAVAILABLE` while D1 refuses writes). " +
        "GPU-hour figures include open runs up to now; `fleets` is every fleet's node capacity.",
      role: "viewer",
      query: UsageQuery,
      ok: { 200: UsageAnswer },
      errors: ["USER_NOT_FOUND", "UNAVAILABLE"],
    }),
    requireRole("viewer"),
    async (c) => {
      const me = currentUser(c);
      const d = db(c.env.DB);
      const q = parseValue(UsageQuery, c.req.query());
      const who = q.user;
      if (who && who !== me.name && me.role !== "admin")
        throw new AppError("FORBIDDEN", "only admins read other users' usage");
      const user = who ? await userByName(d, who) : await userByName(d, me.name);
      // Your own usage counts what you just submitted (read-your-writes, as GET /v1/jobs).
      if (user.name === me.name) await readYourWrites(c);
      const now = Date.now();
      const firstDay = q.days ? utcDay(Math.floor(now / DAY_MS) * DAY_MS - (q.days - 1) * DAY_MS) : null;

      const [open, activeJobs, total, fleets, perDay] = await Promise.all([
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
        firstDay
          ? d
              .select({
                day: schema.runUsage.day,
                gpuSeconds: sql<number>`coalesce(sum(${schema.runUsage.gpuSeconds}), 0)`,
              })
              .from(schema.runUsage)
              .where(and(eq(schema.runUsage.userId, user.id), gte(schema.runUsage.day, firstDay)))
              .groupBy(schema.runUsage.day)
              .all()
          : Promise.resolve(null),
      ]);
      const liveSeconds = open.reduce((s, r) => s + (Math.max(0, now - Date.parse(r.at)) / 1000) * r.gpus, 0);
      return c.json({
        user: user.name,
        active_gpus: open.reduce((s, r) => s + r.gpus, 0),
        active_jobs: activeJobs?.n ?? 0,
        gpu_hours_today: await gpuHoursTodayInLedger(d, user.id, now),
        gpu_hours_total: ((total?.s ?? 0) + liveSeconds) / 3600,
        quota: await quotaOf(d, user.id),
        fleets,
        ...(perDay && q.days ? { daily: dailyGpuHours(perDay, open, now, q.days) } : {}),
      });
    },
  );
