/** @jsxImportSource hono/jsx */
/**
 * Usage: the signed-in user's quota against what they use now (GET /v1/usage?days=30), GPU-hours per UTC
 * day for the last 30 days (a uPlot bar chart drawn by client/usage-chart.ts from the `data-series`
 * attribute, and the same numbers as a table for screen readers and no-JS), and their running and queued
 * jobs (GET /v1/jobs). An admin may look at another user with `?user=`.
 *
 * Below them, usage by team for a budget period (GET /v1/usage/teams, this month unless `?period=` names
 * a month or an ISO week): per team, GPU-hours within its guarantee and borrowed, its budget for the
 * period and how much of it is used. As the API: an admin sees every team (and the GPU-hours of no team),
 * anyone else only their own teams, whoever's usage the page is about.
 */
import { Hono } from "hono";
import type { FC } from "hono/jsx";
import type { JobView } from "../../../contract/api.schema.js";
import type { Usage } from "../../../contract/responses.schema.js";
import {
  type BudgetPeriod,
  type BudgetPolicy,
  budgetPeriodOf,
  budgetPeriods,
  type TeamBudget,
  type TeamView,
} from "../../../contract/teams.js";
import type { TeamUsageRow } from "../../services/team-usage.js";
import { ApiFailure, apiGet, type ConsoleEnv } from "../api.js";
import { DataTable, Layout, Notice, Time } from "../layout.js";
import type { Session } from "../session.js";

export const USAGE_DAYS = 30;

/** Hours with two decimals (a GPU-minute is 0.02). */
export function hours(h: number): string {
  return (Math.round(h * 100) / 100).toFixed(2);
}

/** A number as typed (500, 0.5), without float noise. */
function num(n: number): string {
  return String(Math.round(n * 10_000) / 10_000);
}

/** A team's budget in a few words: "500 GPU-h / month · refuse", "—" for none. */
export function budgetLabel(b: TeamBudget): string {
  const parts = [
    b.monthly_gpu_hours === null ? "" : `${num(b.monthly_gpu_hours)} GPU-h / month`,
    b.weekly_gpu_hours === null ? "" : `${num(b.weekly_gpu_hours)} GPU-h / week`,
  ].filter(Boolean);
  return parts.length === 0 ? "—" : `${parts.join(", ")} · ${b.policy}`;
}

/** GET /v1/usage/teams as JSON. */
interface TeamUsageAnswer {
  period: string;
  start: string;
  end: string;
  teams: Array<{
    team: string | null;
    gpu_hours: number;
    borrowed_gpu_hours: number;
    budget_gpu_hours: number | null;
    budget_percent: number | null;
    budget_policy: BudgetPolicy | null;
  }>;
  rows: TeamUsageRow[];
  total_gpu_seconds: number;
}

/** One row of the "Usage by team" table. */
interface TeamLine {
  /** null: the jobs of no team (admins only). */
  team: string | null;
  gpuHours: number;
  inGuaranteeHours: number;
  borrowedHours: number;
  /** Of gpuHours, what preempted runs trained past their last checkpoint. */
  lostHours: number;
  /** The team's budget for this kind of period (monthly or weekly), null: none. */
  budget: number | null;
  percent: number | null;
  policy: BudgetPolicy | null;
}

/**
 * The table's rows: every team the viewer may see (an admin: all; anyone else: those they are a member
 * of), with zeros when it used nothing, plus any team the ledger has usage of (a team deleted since), and
 * for an admin "no team" last.
 */
export function teamLines(
  answer: TeamUsageAnswer,
  teams: readonly TeamView[],
  period: BudgetPeriod,
  viewer: { userId: string; admin: boolean },
): TeamLine[] {
  const visible = viewer.admin
    ? teams
    : teams.filter((t) => t.members.some((m) => m.user_id === viewer.userId));
  const byName = new Map(teams.map((t) => [t.name, t]));
  const names = [
    ...new Set([
      ...visible.map((t) => t.name),
      ...answer.rows.flatMap((r) => (r.team === null ? [] : [r.team])),
    ]),
  ].sort((a, b) => a.localeCompare(b));
  const line = (team: string | null): TeamLine => {
    const own = answer.rows.filter((r) => r.team === team);
    const sum = (f: (r: TeamUsageRow) => number) => own.reduce((s, r) => s + f(r), 0) / 3600;
    const gpuHours = sum((r) => r.gpu_seconds);
    const b = team === null ? undefined : byName.get(team)?.budget;
    const budget = b ? (period.kind === "month" ? b.monthly_gpu_hours : b.weekly_gpu_hours) : null;
    // The API meters the current periods' budgets; for another period, this period's hours against it.
    const metered = answer.teams.find((t) => t.team === team)?.budget_percent ?? null;
    return {
      team,
      gpuHours,
      inGuaranteeHours: sum((r) => r.in_guarantee_gpu_seconds),
      borrowedHours: sum((r) => r.borrowed_gpu_seconds),
      lostHours: sum((r) => r.lost_gpu_seconds),
      budget,
      percent: metered ?? (budget !== null && budget > 0 ? (gpuHours / budget) * 100 : null),
      policy: budget !== null && b ? b.policy : null,
    };
  };
  return [...names.map(line), ...(viewer.admin ? [line(null)] : [])];
}

/** Budget periods to pick from, with their links' text. */
function periodChoices(now: number): Array<{ label: string; period: BudgetPeriod }> {
  const { month, week } = budgetPeriods(now);
  return [
    { label: "This month", period: month },
    { label: "Last month", period: budgetPeriods(month.start - 1).month },
    { label: "This week", period: week },
  ];
}

const TeamUsageSection: FC<{
  session: Session;
  who: string | undefined;
  asked: string;
  period: BudgetPeriod | null;
  choices: Array<{ label: string; period: BudgetPeriod }>;
  answer: { lines: TeamLine[]; start: string; end: string } | ApiFailure | null;
}> = ({ session, who, asked, period, choices, answer }) => (
  <section aria-labelledby="teams-h">
    <h2 id="teams-h">{period ? `Usage by team, ${period.key}` : "Usage by team"}</h2>
    <form class="usage-period" method="get" action="/console/usage" aria-label="Choose the period">
      {who ? <input type="hidden" name="user" value={who} /> : null}
      <label for="usage-period">Period</label>
      <input
        type="text"
        id="usage-period"
        name="period"
        value={asked}
        aria-describedby="usage-period-hint"
        autocomplete="off"
      />
      <button type="submit">Show</button>
      <span id="usage-period-hint" class="note">
        {"A month such as 2026-12 or an ISO week such as 2026-W49 (UTC): "}
        {choices.map((ch, i) => (
          <>
            {i > 0 ? " · " : ""}
            <a
              href={`/console/usage?${new URLSearchParams(who ? { user: who, period: ch.period.key } : { period: ch.period.key })}`}
              data-period={ch.period.key}
            >
              {`${ch.label} (${ch.period.key})`}
            </a>
          </>
        ))}
      </span>
    </form>
    {period === null ? (
      <Notice kind="error" title="Not a period (BAD_REQUEST)">
        <p>{`"${asked.slice(0, 100)}" is not a period: give a month such as 2026-12 or an ISO week such as 2026-W49.`}</p>
      </Notice>
    ) : answer instanceof ApiFailure ? (
      <Notice kind="error" title={`Usage by team was refused (${answer.code})`}>
        <p>{answer.message}</p>
      </Notice>
    ) : answer === null || answer.lines.length === 0 ? (
      <Notice kind="empty" title="You are in no team">
        <p>
          Your jobs count for no team's budget. An admin adds you to a team with <code>sf admin team</code>.
        </p>
      </Notice>
    ) : (
      <>
        <p class="note">
          {`${answer.start.slice(0, 10)} to ${answer.end.slice(0, 10)} (UTC, end excluded); running jobs count up to now. `}
          {session.principal.role === "admin" ? "Every team, and the jobs of no team. " : "Your teams only. "}
          {"Borrowed: GPU-hours beyond the team's guarantee. Lost to preemption: of the GPU-hours, what "}
          {"preempted runs trained past their last checkpoint. Budgets are as set now."}
        </p>
        <DataTable
          class="team-usage"
          caption={`GPU-hours by team, ${period.key}`}
          columns={[
            "Team",
            "GPU-hours",
            "Within guarantee",
            "Borrowed",
            "Lost to preemption",
            "Budget",
            "% used",
            "Policy",
          ]}
        >
          {answer.lines.map((l) => (
            <tr data-team-usage={l.team ?? "-"}>
              <th scope="row">{l.team ?? <span class="note">no team</span>}</th>
              <td>{hours(l.gpuHours)}</td>
              <td>{hours(l.inGuaranteeHours)}</td>
              <td>{hours(l.borrowedHours)}</td>
              <td>{hours(l.lostHours)}</td>
              <td>{l.budget === null ? "—" : `${num(l.budget)} GPU-h / ${period.kind}`}</td>
              <td>{l.percent === null ? "—" : `${l.percent.toFixed(1)} %`}</td>
              <td>{l.policy ?? "—"}</td>
            </tr>
          ))}
        </DataTable>
        <p>
          <a
            href={`/console/api/usage/teams?${new URLSearchParams({ period: period.key, format: "csv" })}`}
            download={`usage-${period.key}.csv`}
          >
            Download CSV
          </a>
          <span class="note"> (per team and fleet, in GPU-seconds)</span>
        </p>
      </>
    )}
  </section>
);

export const usagePages = new Hono<ConsoleEnv>().get("/usage", async (c) => {
  const session = c.get("session");
  const who = c.req.query("user");
  const userQ = who ? `&user=${encodeURIComponent(who)}` : "";
  const now = Date.now();
  const asked = (c.req.query("period") ?? "").trim();
  const period = asked === "" ? budgetPeriods(now).month : budgetPeriodOf(asked);
  const [usage, list, byTeam] = await Promise.all([
    apiGet<Usage>(c, `/v1/usage?days=${USAGE_DAYS}${userQ}`),
    apiGet<{ jobs: JobView[] }>(c, `/v1/jobs?status=RUNNING,SUBMITTED,PENDING,QUEUED&limit=200${userQ}`),
    period
      ? Promise.all([
          apiGet<TeamUsageAnswer>(c, `/v1/usage/teams?period=${encodeURIComponent(period.key)}`),
          apiGet<{ teams: TeamView[] }>(c, "/v1/teams"),
        ]).then(
          ([answer, { teams }]) => ({
            lines: teamLines(answer, teams, period, {
              userId: session.principal.userId,
              admin: session.principal.role === "admin",
            }),
            start: answer.start,
            end: answer.end,
          }),
          (err: unknown) => {
            // A refusal is shown in its section; the rest of the page stands.
            if (err instanceof ApiFailure) return err;
            throw err;
          },
        )
      : Promise.resolve(null),
  ]);
  const daily = usage.daily ?? [];
  const q = usage.quota;
  const sum = daily.reduce((s, d) => s + d.gpu_hours, 0);
  const running = list.jobs.filter((j) => j.status !== "QUEUED");
  const queued = list.jobs.filter((j) => j.status === "QUEUED");
  const self = usage.user === session.principal.name;
  return c.html(
    <Layout title="Usage" session={session} section="usage">
      <h1>{self ? "Usage" : `Usage of ${usage.user}`}</h1>
      <section aria-labelledby="quota-h">
        <h2 id="quota-h">Quota</h2>
        <dl class="usage-facts">
          <div>
            <dt>GPUs in use</dt>
            <dd data-usage="active-gpus">{`${usage.active_gpus} of ${q.max_gpus}`}</dd>
          </div>
          <div>
            <dt>Active jobs</dt>
            <dd data-usage="active-jobs">{`${usage.active_jobs} of ${q.max_jobs}`}</dd>
          </div>
          <div>
            <dt>GPU-hours today (UTC)</dt>
            <dd data-usage="today">{`${hours(usage.gpu_hours_today)} of ${hours(q.daily_gpu_hours)}`}</dd>
          </div>
          <div>
            <dt>GPU-hours in all</dt>
            <dd data-usage="total">{hours(usage.gpu_hours_total)}</dd>
          </div>
          <div>
            <dt>Priority</dt>
            <dd>{String(q.priority)}</dd>
          </div>
        </dl>
      </section>

      <section aria-labelledby="daily-h">
        <h2 id="daily-h">{`GPU-hours per day, last ${USAGE_DAYS} days`}</h2>
        <p class="note">{`Days are UTC; ${hours(sum)} GPU-hours in all. Running jobs count up to now.`}</p>
        <div
          class="usage-chart"
          data-usage-chart=""
          data-series={JSON.stringify(daily)}
          role="img"
          aria-label={`Bar chart of GPU-hours per day; the table below has the same numbers.`}
        />
        {/* A scrolling box: focusable, so a keyboard can scroll it. */}
        <section class="table-wrap usage-table" tabindex={0} aria-label="GPU-hours per day (table, scrolls)">
          <table>
            <caption class="visually-hidden">GPU-hours per UTC day</caption>
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                <th scope="col">GPU-hours</th>
              </tr>
            </thead>
            <tbody>
              {[...daily].reverse().map((d) => (
                <tr data-day={d.date}>
                  <th scope="row">{d.date}</th>
                  <td>{hours(d.gpu_hours)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      </section>

      <section aria-labelledby="active-h">
        <h2 id="active-h">Running and queued</h2>
        {list.jobs.length === 0 ? (
          <Notice kind="empty" title="Nothing running or queued">
            <p>
              Submit a job with <code>sf submit</code>.
            </p>
          </Notice>
        ) : (
          <DataTable class="usage-jobs" columns={["Job", "State", "GPUs", "Created"]}>
            {[...running, ...queued].map((j) => (
              <tr>
                <th scope="row">
                  <a href={`/console/jobs/${encodeURIComponent(j.id)}`}>{j.name}</a>
                </th>
                <td>
                  <span class={`state state-${j.status}`}>{j.status}</span>
                </td>
                <td>{String(j.gpus)}</td>
                <td>
                  <Time iso={j.created_at} />
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>

      <TeamUsageSection
        session={session}
        who={who}
        asked={period?.key ?? asked}
        period={period}
        choices={periodChoices(now)}
        answer={byTeam}
      />
    </Layout>,
    period === null ? 400 : byTeam instanceof ApiFailure ? (byTeam.status as 400) : 200,
  );
});
