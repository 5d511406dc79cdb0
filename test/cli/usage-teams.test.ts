/**
 * Tier 3: `sf admin team budget` and `sf usage --by team` against a real control plane. A budget is set,
 * changed one field at a time and read back as a person (show, ls, messages) and a script (--json) sees
 * it; after a job of the team ran on this file's own fleet (one agent, 1 simulated H200, guaranteed to
 * the team) `sf usage --by team` shows its GPU-hours, and the CSV's rows add up to the JSON total; a bad
 * --period is refused with BAD_REQUEST; and once the budget is spent (set below what the team used: the
 * PUT meters at once) a submit for the team is refused with BUDGET_EXHAUSTED (exit 5) and a queued job of
 * the team waits with that pending reason.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitForStatus } from "../support/jobs.js";
import { newSfHome, type SfEnv, sf, sfJson } from "../support/sf.js";
import { unique } from "../support/shared-control-plane.js";
import { type TeamScene, teamScene } from "./team-fixture.js";

/** This file's fleet with one agent (1 simulated H200, the team's guarantee), and one without nodes. */
let cp: TeamScene["cp"];
let admin: TeamScene["admin"];
let s: TeamScene["s"];
let p: TeamScene["p"];
let fleet = "";
let empty = "";
let agent: TeamScene["agent"] | undefined;
/** Teams and users are deployment-wide: this file's have names no other file uses. */
const TEAM = unique("bud");
const BEA = unique("bea");
const EXP = unique("exp");
const JOB_ID = /job_[0-9a-z]{26}/;

interface Budget {
  monthly_gpu_hours: number | null;
  weekly_gpu_hours: number | null;
  policy: string;
}

interface TeamUsage {
  period: string;
  start: string;
  end: string;
  teams: Array<{
    team: string | null;
    gpu_hours: number;
    borrowed_gpu_hours: number;
    lost_gpu_hours: number;
    budget_gpu_hours: number | null;
    budget_percent: number | null;
    budget_policy: string | null;
  }>;
  rows: Array<{
    team: string | null;
    fleet: string;
    fleet_id: string;
    in_guarantee_gpu_seconds: number;
    borrowed_gpu_seconds: number;
    gpu_seconds: number;
    lost_gpu_seconds: number;
  }>;
  total_gpu_seconds: number;
}

/** The current calendar month, UTC, as the server names it (`2026-12`). */
const thisMonth = () => new Date().toISOString().slice(0, 7);

beforeAll(async () => {
  ({ cp, admin, fleet, empty, agent, s, p } = await teamScene({
    name: "budget",
    gpus: 1,
    user: BEA,
    exp: EXP,
  }));
  for (const args of [
    ["set", TEAM, "--description", "budgeted"],
    ["member", "add", TEAM, BEA],
    ["quota", "set", TEAM, "--fleet", fleet, "--series", "h200", "--guaranteed", "1"],
  ]) {
    const r = await sf(["admin", "team", ...args], admin);
    if (r.code !== 0) throw new Error(`sf admin team ${args.join(" ")}: ${r.stderr}`);
  }
});

afterAll(async () => {
  await sf(["admin", "team", "rm", TEAM], admin);
  await agent?.dispose();
});

describe("sf admin team budget", () => {
  it("sets a budget one field at a time and shows it in budget, show, ls and --json", async () => {
    const none = await sf(["admin", "team", "budget", TEAM], admin);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toContain(`team ${TEAM} has no budget`);
    expect((await sf(["admin", "team", "show", TEAM], admin)).stdout).toContain(
      "budget   none: no GPU-hour limit",
    );

    const monthly = await sf(["admin", "team", "budget", TEAM, "--monthly", "500"], admin);
    expect(monthly.code, monthly.stderr).toBe(0);
    expect(monthly.stderr).toContain(`team ${TEAM}'s budget: 500 GPU-h/month, refuse`);
    expect(monthly.stderr).toContain("(once spent: new jobs are refused, queued ones wait");
    expect(monthly.stderr).toMatch(
      new RegExp(`this month \\(${thisMonth()}\\): 0 of 500 GPU-h used \\(0\\.0 %\\)`),
    );

    // Flags left out keep what the budget has.
    const weekly = await sfJson<{ team: { budget: Budget } }>(
      ["admin", "team", "budget", TEAM, "--weekly", "150", "--policy", "pause"],
      admin,
    );
    expect(weekly.team.budget).toEqual({ monthly_gpu_hours: 500, weekly_gpu_hours: 150, policy: "pause" });

    const show = await sf(["admin", "team", "show", TEAM], admin);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(
      "budget   500 GPU-h/month, 150 GPU-h/week, pause (once spent: new jobs are refused, running ones pause at their next checkpoint)",
    );
    const ls = await sf(["admin", "team", "ls"], admin);
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout).toMatch(/^TEAM\s+MEMBERS\s+QUOTAS\s+DESCRIPTION$/m);
    expect(ls.stdout).toMatch(/^Budgets$/m);
    expect(ls.stdout).toMatch(new RegExp(`^${TEAM}\\s+500 GPU-h/month, 150 GPU-h/week, pause$`, "m"));
    const shown = await sf(["admin", "team", "budget", TEAM], admin);
    expect(shown.stdout).toContain(`${TEAM}  budget 500 GPU-h/month, 150 GPU-h/week, pause`);
    expect(shown.stdout).toMatch(/^this week \(\d{4}-W\d{2}\): 0 of 150 GPU-h used \(0\.0 %\)$/m);

    // none removes one budget; the policy is kept until changed.
    const back = await sfJson<{ team: { budget: Budget } }>(
      ["admin", "team", "budget", TEAM, "--weekly", "none", "--policy", "refuse"],
      admin,
    );
    expect(back.team.budget).toEqual({ monthly_gpu_hours: 500, weekly_gpu_hours: null, policy: "refuse" });
    const bea = (await sfJson<{ team: { budget: Budget } }>(["admin", "team", "show", TEAM], admin)).team;
    expect(bea.budget.monthly_gpu_hours).toBe(500);
  });

  it("none is sent as null (a budget's, and a quota's limits alike)", async () => {
    const q = ["admin", "team", "quota", "set", TEAM, "--fleet", fleet, "--series", "h200"];
    const limited = await sfJson<{ team: { quotas: Array<{ borrow_limit: number | null }> } }>(
      [...q, "--borrow-limit", "2"],
      admin,
    );
    expect(limited.team.quotas[0]?.borrow_limit).toBe(2);
    const unlimited = await sfJson<{ team: { quotas: Array<{ borrow_limit: number | null }> } }>(
      [...q, "--borrow-limit", "none"],
      admin,
    );
    expect(unlimited.team.quotas[0]?.borrow_limit).toBeNull();
  });

  it("refuses a bad value (exit 2) and a non-admin (exit 3)", async () => {
    const bad = await sf(["admin", "team", "budget", TEAM, "--monthly", "lots"], admin);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      '--monthly takes a number of GPU-hours (0 to 100000000) or "none", got "lots"',
    );
    const policy = await sf(["admin", "team", "budget", TEAM, "--policy", "kill"], admin);
    expect(policy.code).toBe(2);
    const user: SfEnv = { home: newSfHome(), server: cp.url, env: { SF_TOKEN: s.token } };
    const denied = await sf(["admin", "team", "budget", TEAM, "--monthly", "1"], user);
    expect(denied.code).toBe(3);
    expect(
      (await sfJson<{ team: { budget: Budget } }>(["admin", "team", "show", TEAM], admin)).team.budget,
    ).toMatchObject({ monthly_gpu_hours: 500 });
  });
});

describe("sf usage --by team", () => {
  let used: TeamUsage;

  it("shows the team's GPU-hours after a job of it ran, as a table and as JSON; the CSV sums to the total", async () => {
    const a = await p.sf(["submit", EXP, "--profile", "h200:1"]);
    expect(a.code, a.stderr).toBe(0);
    const id = JOB_ID.exec(a.stdout)![0];
    await waitForStatus(cp, s.token, id, ["SUCCEEDED"], 120_000);

    // The run is in the ledger once it ended there: then two reads agree (an open run accrues).
    const read = () =>
      sfJson<TeamUsage>(["usage", "--by", "team"], {
        home: s.home,
        server: cp.url,
        env: { SF_TOKEN: s.token },
      });
    const deadline = Date.now() + 30_000;
    let prev = await read();
    for (;;) {
      await new Promise((r) => setTimeout(r, 500));
      const next = await read();
      if (next.total_gpu_seconds > 0 && next.total_gpu_seconds === prev.total_gpu_seconds) {
        used = next;
        break;
      }
      if (Date.now() > deadline) throw new Error(`usage did not settle: ${JSON.stringify(next)}`);
      prev = next;
    }

    // bea sees her team only: its one fleet, within its guarantee, against its budget.
    expect(used.period).toBe(thisMonth());
    expect(used.teams).toEqual([
      expect.objectContaining({
        team: TEAM,
        borrowed_gpu_hours: 0,
        lost_gpu_hours: 0,
        budget_gpu_hours: 500,
        budget_policy: "refuse",
      }),
    ]);
    const t = used.teams[0]!;
    expect(t.gpu_hours).toBeGreaterThan(0);
    expect(t.budget_percent).toBeCloseTo((t.gpu_hours / 500) * 100, 9);
    expect(used.rows).toEqual([
      expect.objectContaining({
        team: TEAM,
        fleet,
        borrowed_gpu_seconds: 0,
        gpu_seconds: used.total_gpu_seconds,
        lost_gpu_seconds: 0,
      }),
    ]);

    const table = await p.sf(["usage"]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(
      new RegExp(`^GPU-hours by team in ${thisMonth()} \\(${thisMonth()}-01 – `, "m"),
    );
    expect(table.stdout).toMatch(
      /^TEAM\s+GPU-HOURS\s+IN GUARANTEE\s+BORROWED\s+LOST TO PREEMPTION\s+BUDGET\s+USED %$/m,
    );
    const row = new RegExp(
      `^${TEAM}\\s+(\\S+)\\s+(\\S+)\\s+0\\s+0\\s+500 \\(refuse\\)\\s+0\\.0 %$`,
      "m",
    ).exec(table.stdout);
    expect(row, table.stdout).not.toBeNull();
    expect(Number(row![1])).toBeGreaterThan(0);
    expect(row![2]).toBe(row![1]);
    expect(table.stderr).toContain("in guarantee + borrowed");

    // An admin sees every team: this one among them.
    const all = await sfJson<TeamUsage>(["usage", "--by", "team"], admin);
    expect(all.teams.find((x) => x.team === TEAM)?.gpu_hours).toBe(t.gpu_hours);

    // The CSV as the server wrote it: its rows add up to the JSON total (no run of the team is open).
    const csv = await p.sf(["usage", "--by", "team", "--csv"]);
    expect(csv.code, csv.stderr).toBe(0);
    const lines = csv.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe(
      "team,fleet,in_guarantee_gpu_seconds,borrowed_gpu_seconds,gpu_seconds,gpu_hours,lost_gpu_seconds",
    );
    expect(lines.slice(1).map((l) => l.split(",").slice(0, 2))).toEqual([[TEAM, fleet]]);
    const sum = lines.slice(1).reduce((acc, l) => acc + Number(l.split(",")[4]), 0);
    expect(Math.abs(sum - used.total_gpu_seconds)).toBeLessThan(0.01);
    expect(csv.stdout.endsWith("\n")).toBe(true);

    const both = await p.sf(["usage", "--by", "team", "--csv", "--json"]);
    expect(both.code).toBe(2);
    expect(JSON.parse(both.stdout).error.message).toContain("--csv and --json are two formats");
  });

  it("takes a month or an ISO week; anything else is refused with BAD_REQUEST", async () => {
    const bad = await p.sf(["usage", "--by", "team", "--period", "2026-13"]);
    expect(bad.code).toBe(5);
    expect(bad.stderr).toContain(
      'period is a month (2026-12) or an ISO week (2026-W49), not "2026-13" [BAD_REQUEST]',
    );
    const badCsv = await p.sf(["usage", "--by", "team", "--period", "last-week", "--csv"]);
    expect(badCsv.code).toBe(5);
    expect(badCsv.stderr).toContain("[BAD_REQUEST]");
    expect(badCsv.stdout).toBe("");

    // A period without use: no teams, said so.
    const past = await p.sf(["usage", "--by", "team", "--period", "2020-W01"]);
    expect(past.code, past.stderr).toBe(0);
    expect(past.stdout).toContain("GPU-hours by team in 2020-W01 (2019-12-30 – 2020-01-05, UTC)");
    expect(past.stderr).toContain("no GPU use in this period");
    // Only teams are added up by: anything else is a usage error.
    const other = await p.sf(["usage", "--by", "fleet"]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain("--by");
  });

  it("a spent budget refuses the team's submits with BUDGET_EXHAUSTED (exit 5) and holds its queued jobs", async () => {
    expect(used, "the previous test ran a job of the team").toBeDefined();
    // Queued where no node is, before the budget is spent.
    const q = await p.sf(["submit", EXP, "--profile", "h200:1", "--fleet", empty]);
    expect(q.code, q.stderr).toBe(0);
    const queued = JOB_ID.exec(q.stdout)![0];

    // Below what the team used: the PUT meters at once, so it binds from its answer on.
    const spent = await sf(["admin", "team", "budget", TEAM, "--monthly", "0.0001"], admin);
    expect(spent.code, spent.stderr).toBe(0);
    expect(spent.stderr).toContain(`team ${TEAM}'s budget: 0.0001 GPU-h/month, refuse`);
    expect(spent.stderr).toMatch(
      /— spent until \d{4}-\d{2}-01 00:00 UTC: new jobs are refused, queued ones wait, running ones go on$/m,
    );

    const refused = await p.sf(["submit", EXP, "--profile", "h200:1"]);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain(`team ${TEAM} used`);
    expect(refused.stderr).toContain("[BUDGET_EXHAUSTED]");
    expect(refused.stderr).toContain(
      "hint: your team's GPU-hour budget for the period is spent; `sf usage --by team`",
    );
    expect(refused.stdout).not.toMatch(JOB_ID);
    const json = await p.sf(["submit", EXP, "--profile", "h200:1", "--json"]);
    expect(json.code).toBe(5);
    expect(JSON.parse(json.stdout)).toMatchObject({
      error: { code: "BUDGET_EXHAUSTED", message: expect.stringContaining(`for ${thisMonth()}`) },
    });

    const table = await p.sf(["usage", "--by", "team"]);
    expect(table.stdout).toMatch(
      new RegExp(`^${TEAM}\\s+.*\\s+0\\.0001 \\(refuse\\)\\s+\\d+\\.\\d % spent$`, "m"),
    );

    // The queued job waits for the next period, and says why.
    const deadline = Date.now() + 15_000;
    let status = await p.sf(["job", "status", queued]);
    while (!status.stdout.includes("[BUDGET_EXHAUSTED]") && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      status = await p.sf(["job", "status", queued]);
    }
    expect(status.stdout).toMatch(
      /waiting: team \S+ used .* it waits for the next period \[BUDGET_EXHAUSTED\]/,
    );

    // No budget: the team submits again.
    const lifted = await sf(["admin", "team", "budget", TEAM, "--monthly", "none"], admin);
    expect(lifted.stderr).toContain(`team ${TEAM} has no budget now`);
    const dry = await p.sf(["submit", EXP, "--profile", "h200:1", "--fleet", empty]);
    expect(dry.code, dry.stderr).toBe(0);
    for (const id of [queued, JOB_ID.exec(dry.stdout)![0]])
      expect((await p.sf(["job", "stop", id])).code).toBe(0);
  });
});
