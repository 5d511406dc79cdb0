/**
 * Teams and their quotas (docs/scheduling.md "Teams: guarantees, borrowing and reclaim"). A team has
 * members (a user may belong to several; one is their primary team) and, per fleet and GPU series, a
 * quota: `guaranteed` GPUs that are the team's whenever it wants them, `borrow_limit` more it may use
 * while others leave theirs idle, `lend_limit` of its guarantee others may borrow while it is idle, and
 * a `weight` for sharing what is borrowed. A job runs for one team (`resources.team`, or its submitter's
 * primary team).
 *
 * Teams live in D1 (admin routes only); every fleet holds what it decides with, pushed whenever an admin
 * changes a team (`FleetTeams`): the names, the members and that fleet's quotas. No submit and no
 * scheduling decision reads D1 for them.
 */
import { z } from "zod";
import type { ErrorDetails } from "./errors.js";

export const TeamName = z
  .string()
  .regex(
    /^[a-z][a-z0-9-]{0,31}$/,
    "lowercase letters, digits and -, starting with a letter, at most 32 chars",
  );

const Gpus = z.number().int().min(0).max(1_000_000);

/** A team's share of one GPU series in one fleet. */
export const TeamQuota = z.object({
  /** GPUs that are the team's: its jobs get them back from borrowers (reclaim). */
  guaranteed: Gpus.describe(
    "GPUs that are the team's whenever it wants them: its jobs take them back from borrowers",
  ),
  /** GPUs beyond the guarantee it may use while others' are idle; null: no limit but the fleet's size. */
  borrow_limit: Gpus.nullable()
    .default(null)
    .describe(
      "GPUs beyond the guarantee it may borrow while others' are idle; null: no limit but the fleet's size",
    ),
  /** GPUs of its guarantee others may borrow while it does not use them; null: all of it. */
  lend_limit: Gpus.nullable()
    .default(null)
    .describe("GPUs of its guarantee others may borrow while it leaves them idle; null: all of it"),
  /** Its share of borrowed GPUs against other borrowers (more weight, more of them). */
  weight: z
    .number()
    .positive()
    .max(1000)
    .default(1)
    .describe("Its share of borrowed GPUs against other borrowing teams: more weight, more GPUs"),
});
export type TeamQuota = z.infer<typeof TeamQuota>;

/** PUT /v1/teams/:name */
export const SetTeamBody = z.object({
  description: z
    .string()
    .max(200)
    .optional()
    .describe("What the team is, free text; omitted: unchanged (empty for a new team)"),
});

/** PUT /v1/teams/:name/members/:user */
export const SetMemberBody = z.object({
  /** Make this the user's primary team (the team of their jobs that name none). */
  primary: z
    .boolean()
    .optional()
    .describe("`true`: make this the user's primary team, the one their jobs that name no team run for"),
});

/** One team as the API shows it. */
export interface TeamView {
  name: string;
  description: string;
  /** Its GPU-hour budget (docs/scheduling.md "Budgets"). */
  budget: TeamBudget;
  members: Array<{ user_id: string; user: string; primary: boolean }>;
  quotas: Array<{ fleet_id: string; fleet: string; series: string } & TeamQuota>;
  created_at: string;
}

/** What a fleet decides with: every team's name, every member, and this fleet's quotas. */
export const FleetTeams = z.object({
  teams: z.array(z.string()),
  /** Per user id: their teams and their primary one. */
  members: z.record(z.string(), z.object({ teams: z.array(z.string()), primary: z.string() })),
  /** Per team, per GPU series. */
  quotas: z.record(z.string(), z.record(z.string(), TeamQuota)),
});
export type FleetTeams = z.infer<typeof FleetTeams>;

export const NO_TEAMS: FleetTeams = { teams: [], members: {}, quotas: {} };

export type TeamRefusal = {
  code: "TEAM_UNKNOWN" | "TEAM_NOT_MEMBER";
  message: string;
  details: ErrorDetails;
};

/**
 * The team a job runs for: the one it names, which its submitter must belong to, or else the submitter's
 * primary team; null: the submitter is in no team (the job borrows wherever teams hold guarantees).
 */
export function resolveTeam(
  doc: FleetTeams,
  userId: string,
  requested: string | undefined,
): { team: string | null } | TeamRefusal {
  const member = doc.members[userId];
  if (requested === undefined) return { team: member?.primary ?? null };
  if (!doc.teams.includes(requested))
    return {
      code: "TEAM_UNKNOWN",
      message: `no team ${requested}; teams: ${doc.teams.join(", ") || "none"}`,
      details: { team: requested, teams: doc.teams },
    };
  if (!member?.teams.includes(requested))
    return {
      code: "TEAM_NOT_MEMBER",
      message: `you are not a member of team ${requested}${member ? `; your teams: ${member.teams.join(", ")}` : "; you are in no team"}`,
      details: { team: requested, your_teams: member?.teams ?? [] },
    };
  return { team: requested };
}

// GPU-hour budgets ---------------------------------------------------------------------------------

/** What happens to a team's work once its budget for the period is spent. */
export const BUDGET_POLICIES = ["refuse", "pause", "borrow_free"] as const;
export type BudgetPolicy = (typeof BUDGET_POLICIES)[number];

/** A budget's GPU-hours for one period; null: no budget for it; omitted: unchanged. */
const BudgetHours = z.number().min(0).max(100_000_000).nullable().optional();

/** PUT /v1/teams/:name/budget: GPU-hours per calendar month and/or ISO week (UTC); null: no budget. */
export const SetBudgetBody = z.object({
  monthly_gpu_hours: BudgetHours.describe(
    "GPU-hours the team may use per calendar month (UTC); null: no monthly budget; omitted: unchanged",
  ),
  weekly_gpu_hours: BudgetHours.describe(
    "GPU-hours the team may use per ISO week (from Monday, UTC); null: no weekly budget; omitted: unchanged",
  ),
  /**
   * refuse (default): new jobs of the team are refused, queued ones wait; pause: also its running jobs
   * pause at their next checkpoint (never killed); borrow_free: it runs only within its guarantee.
   */
  policy: z
    .enum(BUDGET_POLICIES)
    .optional()
    .describe(
      "Once spent: `refuse` new jobs, also `pause` running ones, or `borrow_free` (guarantee only); omitted: unchanged",
    ),
});

export interface TeamBudget {
  monthly_gpu_hours: number | null;
  weekly_gpu_hours: number | null;
  policy: BudgetPolicy;
}

/** A budget period: the calendar month or the ISO week (Monday 00:00 UTC) that holds `now`. */
export interface BudgetPeriod {
  kind: "month" | "week";
  /** `2026-12` or `2026-W49`. */
  key: string;
  start: number;
  end: number;
}

export function budgetPeriods(now: number): { month: BudgetPeriod; week: BudgetPeriod } {
  const d = new Date(now);
  const monthStart = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const monthEnd = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  const weekStart = day - ((d.getUTCDay() + 6) % 7) * 86_400_000;
  // The ISO week's year is that of its Thursday.
  const thursday = new Date(weekStart + 3 * 86_400_000);
  const yearStart = Date.UTC(thursday.getUTCFullYear(), 0, 1);
  const week = Math.floor((thursday.getTime() - yearStart) / (7 * 86_400_000)) + 1;
  return {
    month: {
      kind: "month",
      key: `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, "0")}`,
      start: monthStart,
      end: monthEnd,
    },
    week: {
      kind: "week",
      key: `${thursday.getUTCFullYear()}-W${String(week).padStart(2, "0")}`,
      start: weekStart,
      end: weekStart + 7 * 86_400_000,
    },
  };
}

/** A team whose budget for a period is spent, as every fleet is told (until `resets_at`, ms). */
export const BudgetState = z.object({
  policy: z.enum(BUDGET_POLICIES),
  period: z.string(),
  used_gpu_hours: z.number(),
  limit_gpu_hours: z.number(),
  resets_at: z.number(),
});
export type BudgetState = z.infer<typeof BudgetState>;

/** Per team: the budgets that are spent now (a team absent from it may run). */
export const FleetBudgets = z.record(z.string(), BudgetState);
export type FleetBudgets = z.infer<typeof FleetBudgets>;

/** Whether a spent budget still binds at `now` (it ends with its period). */
export function budgetBinds(b: BudgetState | undefined, now: number): b is BudgetState {
  return b !== undefined && now < b.resets_at;
}

export function budgetMessage(team: string, b: BudgetState): string {
  return `team ${team} used ${b.used_gpu_hours.toFixed(1)} of its ${b.limit_gpu_hours} GPU-hour budget for ${b.period}; it renews ${new Date(b.resets_at).toISOString()}`;
}

/** The period a key names (`2026-12`, `2026-W49`), or null for anything else. */
export function budgetPeriodOf(key: string): BudgetPeriod | null {
  const m = /^(\d{4})-(\d{2})$/.exec(key);
  if (m) {
    const [y, mo] = [Number(m[1]), Number(m[2])];
    if (mo < 1 || mo > 12) return null;
    return { kind: "month", key, start: Date.UTC(y, mo - 1, 1), end: Date.UTC(y, mo, 1) };
  }
  const w = /^(\d{4})-W(\d{2})$/.exec(key);
  if (!w) return null;
  const [y, n] = [Number(w[1]), Number(w[2])];
  const jan4 = Date.UTC(y, 0, 4);
  const week1 = jan4 - ((new Date(jan4).getUTCDay() + 6) % 7) * 86_400_000;
  const start = week1 + (n - 1) * 7 * 86_400_000;
  if (n < 1 || budgetPeriods(start).week.key !== key) return null;
  return { kind: "week", key, start, end: start + 7 * 86_400_000 };
}
