/**
 * Team GPU-hour budgets (docs/scheduling.md "Budgets"): metered from the ledger (D1 `run_usage`, the
 * GPU-seconds of every finished allocation per UTC day, plus the open runs up to now), evaluated every
 * minute (the Worker's cron) and after an admin changes a budget. A team at 80 % and at 100 % of a
 * period's budget gets one webhook each per period (`team.budget_warning`, `team.budget_exhausted`, to its
 * members' endpoints that subscribe); the teams whose budget is spent are pushed to every Fleet DO, which
 * applies the team's policy in its own decisions (no D1 on any submit's path).
 */

import { and, eq, gte, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
import { nowIso } from "../../contract/ids.js";
import {
  type BudgetPeriod,
  type BudgetPolicy,
  type BudgetState,
  budgetPeriods,
  type FleetBudgets,
} from "../../contract/teams.js";
import { utcDay } from "../../contract/time.js";
import type { BudgetEventPayload } from "../../contract/webhook-payloads.schema.js";
import { BUDGET_EXHAUSTED_EVENT, BUDGET_WARNING_EVENT } from "../../contract/webhooks.schema.js";
import { type Db, db, schema } from "../../d1/client.js";
import { fleetStub } from "../../durable-objects/fleet/stub.js";
import { pokeWebhookDispatcher } from "../../durable-objects/webhooks/stub.js";
import type { AppEnv } from "../env.js";

/** One team's use of one period's budget. */
export interface BudgetUse {
  period: string;
  kind: "month" | "week";
  used_gpu_hours: number;
  limit_gpu_hours: number;
  resets_at: number;
}

/**
 * GPU-seconds per team in each period's [start, now): finished allocations by UTC day, and open runs up
 * to now. One read of the open runs serves every period.
 */
async function teamSeconds(
  d: Db,
  periods: readonly BudgetPeriod[],
  now: number,
): Promise<Array<Map<string, number>>> {
  const { runUsage, runs, jobs } = schema;
  const open = d
    .select({ team: jobs.team, gpus: runs.gpus, at: runs.allocatedAt })
    .from(runs)
    .innerJoin(jobs, sql`${jobs.id} = ${runs.jobId}`)
    .where(and(isNull(runs.endedAt), isNotNull(jobs.team)));
  const done = periods.map((p) =>
    d
      .select({ team: runUsage.team, s: sql<number>`sum(${runUsage.gpuSeconds})` })
      .from(runUsage)
      .where(
        and(isNotNull(runUsage.team), gte(runUsage.day, utcDay(p.start)), lt(runUsage.day, utcDay(p.end))),
      )
      .groupBy(runUsage.team),
  );
  const [openRows, ...doneRows] = await d.batch([open, ...done] as [typeof open, ...(typeof done)[number][]]);
  return periods.map((p, i) => {
    const out = new Map<string, number>();
    for (const r of doneRows[i]!) if (r.team) out.set(r.team, (out.get(r.team) ?? 0) + r.s);
    for (const r of openRows) {
      if (!r.team) continue;
      const from = Math.max(Date.parse(r.at), p.start);
      out.set(r.team, (out.get(r.team) ?? 0) + (Math.max(0, now - from) / 1000) * r.gpus);
    }
    return out;
  });
}

/** Every team with a budget, and its use of each budgeted period now. */
export async function budgetUse(
  d: Db,
  now: number,
): Promise<Array<{ team: string; policy: BudgetPolicy; uses: BudgetUse[] }>> {
  const teams = await d
    .select()
    .from(schema.teams)
    .where(or(isNotNull(schema.teams.monthlyGpuHours), isNotNull(schema.teams.weeklyGpuHours)))
    .all();
  if (teams.length === 0) return [];
  const { month, week } = budgetPeriods(now);
  const [m, w] = await teamSeconds(d, [month, week], now);
  return teams.map((t) => {
    const uses: BudgetUse[] = [];
    const add = (p: BudgetPeriod, limit: number | null, secs: Map<string, number>) => {
      if (limit === null) return;
      uses.push({
        period: p.key,
        kind: p.kind,
        used_gpu_hours: (secs.get(t.name) ?? 0) / 3600,
        limit_gpu_hours: limit,
        resets_at: p.end,
      });
    };
    add(month, t.monthlyGpuHours, m!);
    add(week, t.weeklyGpuHours, w!);
    return { team: t.name, policy: t.budgetPolicy, uses };
  });
}

/** The teams whose budget is spent now, with the period that binds longest. */
export function spentBudgets(
  all: ReadonlyArray<{ team: string; policy: BudgetPolicy; uses: BudgetUse[] }>,
): FleetBudgets {
  const out: FleetBudgets = {};
  for (const t of all) {
    const spent = t.uses.filter((u) => u.used_gpu_hours >= u.limit_gpu_hours);
    if (spent.length === 0) continue;
    const binding = spent.reduce((a, b) => (b.resets_at > a.resets_at ? b : a));
    const state: BudgetState = {
      policy: t.policy,
      period: binding.period,
      used_gpu_hours: binding.used_gpu_hours,
      limit_gpu_hours: binding.limit_gpu_hours,
      resets_at: binding.resets_at,
    };
    out[t.team] = state;
  }
  return out;
}

/**
 * Meters every budget, sends the 80 % and 100 % webhooks not sent yet for this period, and tells every
 * fleet which teams' budgets are spent. Idempotent: run it as often as you like. Every fleet hears it
 * every time (a fleet created since, or one that missed a push, catches up within a minute); a fleet
 * decides again only when which teams are spent, or how, changed (rules/budgets.ts).
 */
export async function evaluateBudgets(env: AppEnv, now = Date.now()): Promise<FleetBudgets> {
  const d = db(env.DB);
  const all = await budgetUse(d, now);
  const poke = new Set<string>();
  for (const t of all)
    for (const u of t.uses)
      for (const threshold of [80, 100]) {
        if (u.limit_gpu_hours > 0 && (u.used_gpu_hours / u.limit_gpu_hours) * 100 < threshold) continue;
        if (u.limit_gpu_hours === 0 && threshold === 80) continue;
        for (const user of await alertOnce(d, t.team, t.policy, u, threshold, now)) poke.add(user);
      }
  const spent = spentBudgets(all);
  const fleets = await d.select({ id: schema.fleets.id }).from(schema.fleets).all();
  await Promise.all(fleets.map((f) => fleetStub(env, f.id).setBudgets(spent)));
  await Promise.all([...poke].map((u) => pokeWebhookDispatcher(env, u)));
  return spent;
}

/**
 * Records a threshold crossed in a period, once: the first time, a delivery for each member endpoint that
 * subscribes to its event. Answers the users with new deliveries.
 */
async function alertOnce(
  d: Db,
  team: string,
  policy: BudgetPolicy,
  u: BudgetUse,
  threshold: number,
  now: number,
): Promise<string[]> {
  const { budgetAlerts, teamMembers, webhooks, webhookDeliveries } = schema;
  const fresh = await d
    .insert(budgetAlerts)
    .values({ team, period: u.period, threshold, at: nowIso(now) })
    .onConflictDoNothing()
    .returning()
    .all();
  if (fresh.length === 0) return [];
  const type = threshold >= 100 ? BUDGET_EXHAUSTED_EVENT : BUDGET_WARNING_EVENT;
  const eventId = `evt_budget_${team}_${u.period}_${threshold}`;
  const body: BudgetEventPayload = {
    id: eventId,
    type,
    created_at: nowIso(now),
    data: {
      team,
      period: u.period,
      threshold_percent: threshold,
      used_gpu_hours: u.used_gpu_hours,
      limit_gpu_hours: u.limit_gpu_hours,
      policy,
      resets_at: nowIso(u.resets_at),
    },
  };
  const payload = JSON.stringify(body);
  // The endpoints of the team's members that name the event (budget events are subscribed to by name).
  const hooks = await d
    .select({ id: webhooks.id, userId: webhooks.userId })
    .from(webhooks)
    .innerJoin(teamMembers, eq(teamMembers.userId, webhooks.userId))
    .where(
      and(
        eq(teamMembers.team, team),
        sql`EXISTS (SELECT 1 FROM json_each(${webhooks.events}) WHERE json_each.value = ${type})`,
      ),
    )
    .all();
  if (hooks.length === 0) return [];
  await d
    .insert(webhookDeliveries)
    .values(
      hooks.map((w) => ({
        webhookId: w.id,
        eventId,
        userId: w.userId,
        jobId: null,
        type,
        payload,
        state: "pending" as const,
        // Due now in real time (a test may meter at another clock).
        nextAttemptAt: Date.now(),
        createdAt: nowIso(),
      })),
    )
    .onConflictDoNothing()
    .run();
  return [...new Set(hooks.map((w) => w.userId))];
}
