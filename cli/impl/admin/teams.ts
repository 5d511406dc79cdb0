/**
 * `sf admin team ls|show|set|rm|budget`, `team member add|rm` and `team quota set|rm` (contract/teams.ts,
 * docs/scheduling.md "Teams: guarantees, borrowing and reclaim").
 */
import type { Command } from "commander";
import {
  DeletedProfile,
  OneTeam,
  type TeamEntry,
  TeamList,
  TeamUsage,
} from "../../../contract/responses.schema.js";
import { budgetPeriods, type TeamQuota } from "../../../contract/teams.js";
import { type Api, type Documented, parse, type Route, readJson, route } from "../../api.js";
import { authedApi } from "../../context.js";
import { CliError, EXIT } from "../../errors.js";
import { c, emit, info, isJson, print, table } from "../../output.js";
import { gpuHours } from "../job/format.js";

type Quota = TeamEntry["quotas"][number];

/** A PUT whose answer says whether it created (201) or changed (200) what it names. */
async function put<P extends Documented<"put">>(
  api: Api,
  path: Route<P>,
  body: unknown,
): Promise<{ team: TeamEntry; created: boolean }> {
  const res = await api.fetch("PUT", path, body, { timeout: "total" });
  const { team } = parse(OneTeam, await readJson(res), `PUT ${path}`);
  return { team, created: res.status === 201 };
}

/** `ada*, bob`: the members, `*` on those whose primary team this is. */
function membersCell(t: TeamEntry): string | null {
  return t.members.map((m) => `${m.user}${m.primary ? "*" : ""}`).join(", ") || null;
}

/** `lab/h200 16+8/4 w2`: guaranteed + borrow limit / lend limit, weight (∞: no limit; all: the whole guarantee). */
function quotaCell(q: Quota): string {
  const borrow = q.borrow_limit === null ? "∞" : String(q.borrow_limit);
  const lend = q.lend_limit === null ? "all" : String(q.lend_limit);
  return `${q.fleet}/${q.series} ${q.guaranteed}+${borrow}/${lend} w${q.weight}`;
}

/** One quota in words. */
export function describeQuota(q: Pick<Quota, keyof TeamQuota> & { series: string; fleet: string }): string {
  const borrow =
    q.borrow_limit === null
      ? "may borrow any idle ones beyond it"
      : q.borrow_limit === 0
        ? "never borrows beyond it"
        : `may borrow up to ${q.borrow_limit} more while others are idle`;
  const lend =
    q.guaranteed === 0
      ? null
      : q.lend_limit === null
        ? "lends all of its guarantee while idle"
        : q.lend_limit === 0
          ? "lends none of its guarantee"
          : `lends up to ${q.lend_limit} of its guarantee while idle`;
  return [
    `${q.guaranteed} ${q.series} GPU${q.guaranteed === 1 ? "" : "s"} guaranteed in fleet ${q.fleet}`,
    borrow,
    ...(lend ? [lend] : []),
    `weight ${q.weight}`,
  ].join(", ");
}

type Budget = TeamEntry["budget"];

/** What a team's work does once its budget is spent, by policy. */
export const POLICY_EFFECT: Record<string, string> = {
  refuse: "new jobs are refused, queued ones wait, running ones go on",
  pause: "new jobs are refused, running ones pause at their next checkpoint",
  borrow_free: "only work within the team's guarantee runs, none borrowed",
};

/** `500 GPU-h/month, 150 GPU-h/week, refuse`, or null: no budget. */
export function budgetText(b: Budget): string | null {
  const limits = [
    ...(b.monthly_gpu_hours !== null ? [`${b.monthly_gpu_hours} GPU-h/month`] : []),
    ...(b.weekly_gpu_hours !== null ? [`${b.weekly_gpu_hours} GPU-h/week`] : []),
  ];
  return limits.length === 0 ? null : [...limits, b.policy].join(", ");
}

export async function listTeams(cmd: Command): Promise<void> {
  const { teams } = await authedApi(cmd).get(route("/v1/teams"), TeamList);
  emit({ teams }, () => {
    if (teams.length === 0) {
      info("no teams yet; create one with `sf admin team set NAME`");
      return;
    }
    table(
      teams.map((t) => ({
        team: t.name,
        members: membersCell(t),
        quotas: t.quotas.map(quotaCell).join(", ") || null,
        description: t.description || null,
      })),
      ["team", "members", "quotas", "description"],
    );
    const budgeted = teams.filter((t) => budgetText(t.budget) !== null);
    if (budgeted.length > 0) {
      print();
      print(c.bold("Budgets"));
      table(
        budgeted.map((t) => ({ team: t.name, budget: budgetText(t.budget) })),
        ["team", "budget"],
      );
    }
    info(
      c.dim(
        "* their primary team · quotas: fleet/series guaranteed+borrow limit/lend limit, weight (∞: no limit; all: the whole guarantee)",
      ),
    );
  });
}

function printTeam(t: TeamEntry): void {
  print(`${c.bold(t.name)}${t.description ? `  ${t.description}` : ""}`);
  const members = t.members.map((m) => `${m.user}${m.primary ? " (primary team)" : ""}`).join(", ");
  print(`members  ${members || c.dim("none")}`);
  const budget = budgetText(t.budget);
  print(
    budget
      ? `budget   ${budget} ${c.dim(`(once spent: ${POLICY_EFFECT[t.budget.policy] ?? t.budget.policy})`)}`
      : `budget   ${c.dim("none: no GPU-hour limit")}`,
  );
  if (t.quotas.length === 0) {
    print(
      `quotas   ${c.dim("none: its jobs hold no guarantee anywhere (where other teams hold some, they borrow)")}`,
    );
    return;
  }
  print();
  print(c.bold("Quotas"));
  table(
    t.quotas.map((q) => ({
      fleet: q.fleet,
      series: q.series,
      guaranteed: q.guaranteed,
      "borrow limit": q.borrow_limit === null ? "no limit" : q.borrow_limit,
      "lend limit": q.lend_limit === null ? `all (${q.guaranteed})` : q.lend_limit,
      weight: q.weight,
    })),
    ["fleet", "series", "guaranteed", "borrow limit", "lend limit", "weight"],
  );
}

export async function showTeam(cmd: Command, name: string): Promise<void> {
  const { team } = await authedApi(cmd).get(route("/v1/teams/{name}", { name }), OneTeam);
  emit({ team }, () => printTeam(team));
}

export async function setTeam(cmd: Command, name: string, o: { description?: string }): Promise<void> {
  const { team, created } = await put(
    authedApi(cmd),
    route("/v1/teams/{name}", { name }),
    o.description !== undefined ? { description: o.description } : {},
  );
  emit({ team }, () =>
    info(
      `${c.green("✓")} ${created ? "created" : "updated"} team ${c.bold(team.name)}` +
        `${team.description ? `: ${team.description}` : ""}` +
        (created
          ? c.dim(
              `\n  next: sf admin team member add ${team.name} USER; sf admin team quota set ${team.name} --fleet F --series S --guaranteed N`,
            )
          : ""),
    ),
  );
}

export async function removeTeam(cmd: Command, name: string): Promise<void> {
  const r = await authedApi(cmd).delete(route("/v1/teams/{name}", { name }), DeletedProfile);
  emit(r, () =>
    info(
      `${c.green("✓")} deleted team ${name} with its members and quotas; those whose primary team it was have another of theirs as primary`,
    ),
  );
}

export async function addMember(
  cmd: Command,
  teamName: string,
  user: string,
  o: { primary?: boolean },
): Promise<void> {
  const { team, created } = await put(
    authedApi(cmd),
    route("/v1/teams/{name}/members/{user}", { name: teamName, user }),
    o.primary ? { primary: true } : {},
  );
  const primary = team.members.find((m) => m.user === user)?.primary ?? false;
  emit({ team }, () =>
    info(
      `${c.green("✓")} ${created ? `added ${user} to team ${c.bold(team.name)}` : `${user} is a member of team ${c.bold(team.name)}`}` +
        (primary
          ? ` (their primary team: jobs they submit without --team run for ${team.name})`
          : ` (their jobs run for it with --team ${team.name})`),
    ),
  );
}

export async function removeMember(cmd: Command, teamName: string, user: string): Promise<void> {
  const { team } = await authedApi(cmd).delete(
    route("/v1/teams/{name}/members/{user}", { name: teamName, user }),
    OneTeam,
  );
  emit({ team }, () => info(`${c.green("✓")} removed ${user} from team ${c.bold(team.name)}`));
}

/** A flag's `none` (commander cannot hand a parser's null through) as the null the API takes. */
const orNull = (v: number | "none"): number | null => (v === "none" ? null : v);

export interface QuotaFlags {
  fleet: string;
  series: string;
  guaranteed?: number;
  /** none: no limit. */
  borrowLimit?: number | "none";
  /** none: all of the guarantee. */
  lendLimit?: number | "none";
  weight?: number;
}

/** The whole quota to PUT: what was given, over the quota the team has there (else the defaults). */
export function quotaBody(o: QuotaFlags, existing: Quota | undefined, team: string): TeamQuota {
  const guaranteed = o.guaranteed ?? existing?.guaranteed;
  if (guaranteed === undefined)
    throw new CliError(
      `team ${team} has no ${o.series} quota in fleet ${o.fleet} yet: give it --guaranteed N (0 for a team that only borrows)`,
      { exit: EXIT.USAGE },
    );
  return {
    guaranteed,
    borrow_limit: o.borrowLimit !== undefined ? orNull(o.borrowLimit) : (existing?.borrow_limit ?? null),
    lend_limit: o.lendLimit !== undefined ? orNull(o.lendLimit) : (existing?.lend_limit ?? null),
    weight: o.weight ?? existing?.weight ?? 1,
  };
}

const quotaOf = (t: TeamEntry, o: Pick<QuotaFlags, "fleet" | "series">): Quota | undefined =>
  t.quotas.find((q) => (q.fleet === o.fleet || q.fleet_id === o.fleet) && q.series === o.series);

export async function setQuota(cmd: Command, teamName: string, o: QuotaFlags): Promise<void> {
  const api = authedApi(cmd);
  // Flags left out keep what the quota has, so one thing can change at a time (a new one: the defaults).
  const { team: before } = await api.get(route("/v1/teams/{name}", { name: teamName }), OneTeam);
  const body = quotaBody(o, quotaOf(before, o), teamName);
  const { team, created } = await put(
    api,
    route("/v1/teams/{name}/quotas/{fleet}/{series}", { name: teamName, fleet: o.fleet, series: o.series }),
    body,
  );
  const q = quotaOf(team, o);
  emit({ team }, () =>
    info(
      `${c.green("✓")} ${created ? "set" : "changed"} team ${c.bold(team.name)}'s quota: ${q ? describeQuota(q) : JSON.stringify(body)}`,
    ),
  );
}

export async function removeQuota(
  cmd: Command,
  teamName: string,
  o: Pick<QuotaFlags, "fleet" | "series">,
): Promise<void> {
  const { team } = await authedApi(cmd).delete(
    route("/v1/teams/{name}/quotas/{fleet}/{series}", { name: teamName, fleet: o.fleet, series: o.series }),
    OneTeam,
  );
  emit({ team }, () =>
    info(
      `${c.green("✓")} removed team ${c.bold(team.name)}'s ${o.series} quota in fleet ${o.fleet}: it holds no guarantee there now`,
    ),
  );
}

export interface BudgetFlags {
  /** none: no monthly budget. */
  monthly?: number | "none";
  /** none: no weekly budget. */
  weekly?: number | "none";
  policy?: string;
}

/** The team's use of each of its budgets in the periods now (a team that used nothing has no row). */
async function budgetUseLines(api: Api, t: TeamEntry): Promise<string[]> {
  const { month, week } = budgetPeriods(Date.now());
  const periods = [
    { limit: t.budget.monthly_gpu_hours, key: month.key, what: "this month" },
    { limit: t.budget.weekly_gpu_hours, key: week.key, what: "this week" },
  ];
  const lines: string[] = [];
  for (const p of periods) {
    if (p.limit === null) continue;
    const use = await api.get(route("/v1/usage/teams", {}, { period: p.key }), TeamUsage);
    const used = use.teams.find((x) => x.team === t.name)?.gpu_hours ?? 0;
    const spent = used >= p.limit;
    const pct = p.limit > 0 ? ` (${((used / p.limit) * 100).toFixed(1)} %)` : "";
    lines.push(
      `${p.what} (${use.period}): ${gpuHours(used)} of ${p.limit} GPU-h used${pct}` +
        (spent
          ? c.yellow(
              ` — spent until ${use.end.slice(0, 10)} 00:00 UTC: ${POLICY_EFFECT[t.budget.policy] ?? t.budget.policy}`,
            )
          : ""),
    );
  }
  return lines;
}

/** `sf admin team budget NAME [--monthly h|none] [--weekly h|none] [--policy p]`; no flag only shows it. */
export async function setBudget(cmd: Command, name: string, o: BudgetFlags): Promise<void> {
  const api = authedApi(cmd);
  const body = {
    ...(o.monthly !== undefined ? { monthly_gpu_hours: orNull(o.monthly) } : {}),
    ...(o.weekly !== undefined ? { weekly_gpu_hours: orNull(o.weekly) } : {}),
    ...(o.policy !== undefined ? { policy: o.policy } : {}),
  };
  const changing = Object.keys(body).length > 0;
  // The server meters the budget before it answers a PUT: what it binds is decided from then on.
  const { team } = changing
    ? await put(api, route("/v1/teams/{name}/budget", { name }), body)
    : await api.get(route("/v1/teams/{name}", { name }), OneTeam);
  const text = budgetText(team.budget);
  const uses = text && !isJson() ? await budgetUseLines(api, team) : [];
  const effect = POLICY_EFFECT[team.budget.policy] ?? team.budget.policy;
  emit({ team }, () => {
    if (changing) {
      info(
        text
          ? `${c.green("✓")} team ${c.bold(team.name)}'s budget: ${text} ${c.dim(`(once spent: ${effect})`)}`
          : `${c.green("✓")} team ${c.bold(team.name)} has no budget now: its jobs use GPU-hours without limit`,
      );
      for (const l of uses) info(`  ${l}`);
      return;
    }
    if (!text) {
      print(`team ${c.bold(team.name)} has no budget: its jobs use GPU-hours without limit`);
      info(c.dim(`set one with \`sf admin team budget ${team.name} --monthly HOURS\` (see --help)`));
      return;
    }
    print(`${c.bold(team.name)}  budget ${text}`);
    print(c.dim(`once spent: ${effect}`));
    for (const l of uses) print(l);
  });
}
