/**
 * Team GPU-hour budgets in a fleet (docs/scheduling.md "Budgets"): the Worker meters them and pushes the
 * teams whose budget is spent; these rules hold their work back as each team's policy says. What a spent
 * budget moves (pause at a checkpoint, resume at renewal) is in rules/lifecycle.ts.
 */
import type { PendingReason } from "../../../contract/pending-reasons.schema.js";
import { type BudgetState, budgetBinds, budgetMessage, FleetBudgets } from "../../../contract/teams.js";
import { BUDGETS_KEY } from "../keys.js";
import type { JobRow } from "../rows.js";
import type { FleetState } from "../state.js";
import { BUDGET_TIMER } from "../timers.js";
import type { Tx } from "../tx.js";

let parsedBudgets: { raw: string | null; doc: FleetBudgets } | null = null;

/** The teams whose budget is spent, as the Worker last metered them. */
export function budgetsOf(s: FleetState): FleetBudgets {
  const raw = s.meta(BUDGETS_KEY);
  if (parsedBudgets?.raw !== raw)
    parsedBudgets = { raw, doc: raw ? FleetBudgets.parse(JSON.parse(raw)) : {} };
  return parsedBudgets.doc;
}

/** The spent budget that binds a job now, or null. */
export function budgetOf(s: FleetState, job: Pick<JobRow, "team">, now: number): BudgetState | null {
  const b = job.team ? budgetsOf(s)[job.team] : undefined;
  return budgetBinds(b, now) ? b : null;
}

/** Why a job of a team whose budget is spent waits. */
export function budgetReason(team: string, b: BudgetState): PendingReason {
  return {
    code: "BUDGET_EXHAUSTED",
    message:
      b.policy === "borrow_free"
        ? `${budgetMessage(team, b)}: until then it runs only within its guarantee`
        : `${budgetMessage(team, b)}: it waits for the next period`,
    details: {
      team,
      period: b.period,
      policy: b.policy,
      used_gpu_hours: Math.round(b.used_gpu_hours * 1000) / 1000,
      limit_gpu_hours: b.limit_gpu_hours,
      resets_at: new Date(b.resets_at).toISOString(),
    },
  };
}

/**
 * What a pushed budget document decides by: each spent team's policy, period, limit and renewal. The hours
 * used move every time the Worker meters (each minute) and decide nothing once a budget is spent.
 */
function decidingPart(doc: FleetBudgets): string {
  return JSON.stringify(
    Object.entries(doc)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([team, b]) => [team, b.policy, b.period, b.limit_gpu_hours, b.resets_at]),
  );
}

/**
 * The Worker metered the budgets: the teams whose budget is spent now. What changed is decided again now
 * (jobs held back, jobs paused by a budget that renewed); the next renewal wakes the fleet. A push that
 * changes nothing that decides (the same teams spent, only their hours moved) writes and schedules
 * nothing: the Worker pushes every minute to every fleet.
 */
export function setBudgets(t: Tx, doc: FleetBudgets): void {
  if (decidingPart(budgetsOf(t.s)) === decidingPart(doc)) return;
  if (Object.keys(doc).length === 0) t.deleteMeta(BUDGETS_KEY);
  else t.setMeta(BUDGETS_KEY, JSON.stringify(doc));
  const renewals = Object.values(doc)
    .map((b) => b.resets_at)
    .filter((at) => at > t.now);
  if (renewals.length > 0) t.setTimer(BUDGET_TIMER, Math.min(...renewals));
  t.schedule();
}
