/**
 * GPU-hours per UTC day (GET /v1/usage?days=N) and the console's usage page built on it: finished runs as
 * the ledger split them per day, an open run split at midnight and counted up to now, days outside the
 * window left out, every day of the window present; the page's quota numbers, chart data and table; its
 * "Usage by team" (within guarantee, borrowed, budget and % used per team, a period chooser that refuses
 * a bad period on the page, the CSV download), every team for an admin and only their own for a member.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { budgetPeriods } from "../../contract/teams.js";
import { dailyGpuHours } from "../../worker/routes/usage.routes.js";
import { signIn } from "./console-support.js";
import { ADMIN, api, createFleet, createUser } from "./helpers.js";
import { testEnv } from "./test-env.js";

const DAY = 86_400_000;
const HOUR = 3_600_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

let token = "";
let userId = "";
/** The UTC midnight that starts "today" for the seeded rows. */
let today0 = 0;

/** The rows of the "Usage by team" table: data-team-usage → its cells' text. */
function teamUsageTable(html: string): Map<string, string[]> {
  const table = /<table class="team-usage">([\s\S]*?)<\/table>/.exec(html)?.[1] ?? "";
  return new Map(
    [...table.matchAll(/<tr data-team-usage="([^"]*)">([\s\S]*?)<\/tr>/g)].map((m) => [
      m[1]!,
      [...m[2]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((c) => c[1]!.replace(/<[^>]*>/g, "")),
    ]),
  );
}

/** The "Download CSV" link's address, as the browser follows it. */
function csvHref(html: string): string {
  const m = /<a href="([^"]*)"[^>]*>Download CSV<\/a>/.exec(html);
  if (!m) throw new Error("no Download CSV link");
  return m[1]!.replace(/&amp;/g, "&");
}

beforeAll(async () => {
  token = await createUser("cu-user");
  userId = (await api(ADMIN, "GET", "/v1/users")).body.users.find(
    (u: { name: string }) => u.name === "cu-user",
  ).id;
  today0 = Math.floor(Date.now() / DAY) * DAY;
  // Finished runs, split per UTC day by the fleet as it released them: one that ran 23:00–01:30 across the
  // midnight three days ago on 4 GPUs, and one 40 days ago (outside a 30-day window).
  const usage = [
    ["run_cu_done", dayOf(today0 - 3 * DAY), 3600 * 4],
    ["run_cu_done", dayOf(today0 - 2 * DAY), 1.5 * 3600 * 4],
    ["run_cu_old", dayOf(today0 - 40 * DAY), 10 * 3600],
  ] as const;
  // An open run on 2 GPUs since 22:00 yesterday: 2 hours yesterday, the rest today up to now.
  const openAt = new Date(today0 - 2 * HOUR).toISOString();
  await testEnv.DB.batch([
    ...usage.map(([run, day, s]) =>
      testEnv.DB.prepare(
        "INSERT INTO run_usage (run_id, day, user_id, fleet_id, gpu_seconds) VALUES (?, ?, ?, 'flt_cu', ?)",
      ).bind(run, day, userId, s),
    ),
    testEnv.DB.prepare(
      `INSERT INTO runs (id, job_id, attempt, epoch, status, placement, gpus, user_id, allocated_at, ended_at,
        exit_code, reason, version, resumed_from)
       VALUES ('run_cu_open', 'job_cu_open', 1, 1, 'RUNNING', '[]', 2, ?, ?, NULL, NULL, NULL, 1, NULL)`,
    ).bind(userId, openAt),
  ]);

  // Teams: cu-user and cu-mate are members of cu-team (a quota and a budget); cu-rival is someone else's.
  await createUser("cu-mate");
  const mateId = (await api(ADMIN, "GET", "/v1/users")).body.users.find(
    (u: { name: string }) => u.name === "cu-mate",
  ).id;
  const fleet = await createFleet("cu-fleet");
  for (const team of ["cu-team", "cu-rival"])
    expect((await api(ADMIN, "PUT", `/v1/teams/${team}`, {})).status).toBe(201);
  for (const user of ["cu-user", "cu-mate"])
    expect((await api(ADMIN, "PUT", `/v1/teams/cu-team/members/${user}`, {})).status).toBe(201);
  expect((await api(ADMIN, "PUT", "/v1/teams/cu-team/quotas/cu-fleet/h200", { guaranteed: 2 })).status).toBe(
    201,
  );
  const budget = await api(ADMIN, "PUT", "/v1/teams/cu-team/budget", {
    monthly_gpu_hours: 10,
    weekly_gpu_hours: 8,
    policy: "borrow_free",
  });
  expect(budget.status, JSON.stringify(budget.body)).toBe(200);
  // The team's finished runs today (cu-mate's, so cu-user's own usage above stays as it is), as the
  // ledger holds them: 3 GPU-hours within its guarantee and 1 borrowed, of which a preemption lost half
  // an hour (trained past its last checkpoint); cu-rival used 5 GPU-hours.
  const teamUsage = [
    ["run_cu_team_in", "cu-team", 0, 3 * 3600, 0],
    ["run_cu_team_out", "cu-team", 1, 3600, 1800],
    ["run_cu_rival", "cu-rival", 0, 5 * 3600, 0],
  ] as const;
  await testEnv.DB.batch(
    teamUsage.map(([run, team, borrowed, s, lost]) =>
      testEnv.DB.prepare(
        `INSERT INTO run_usage (run_id, day, user_id, fleet_id, gpu_seconds, team, borrowed, lost_gpu_seconds)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).bind(run, dayOf(today0), mateId, fleet.id, s, team, borrowed, lost),
    ),
  );
});

describe("GET /v1/usage?days=N", () => {
  it("gives every day of the window, a run across midnight split at it, an open run counted up to now", async () => {
    const before = Date.now();
    const r = await api(token, "GET", "/v1/usage?days=30");
    const after = Date.now();
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const daily = r.body.daily as Array<{ date: string; gpu_hours: number }>;
    expect(daily).toHaveLength(30);
    // The test may straddle midnight only if it ran at 23:59:59; today is the response's last day.
    expect(daily.at(-1)!.date).toBe(dayOf(after));
    expect(daily[0]!.date).toBe(dayOf(today0 - 29 * DAY));
    const by = new Map(daily.map((d) => [d.date, d.gpu_hours]));
    expect(by.get(dayOf(today0 - 3 * DAY))).toBeCloseTo(4, 9);
    expect(by.get(dayOf(today0 - 2 * DAY))).toBeCloseTo(6, 9);
    expect(by.get(dayOf(today0 - DAY))).toBeCloseTo(4, 9); // 22:00–24:00 on 2 GPUs
    const today = by.get(dayOf(today0))!;
    expect(today).toBeGreaterThanOrEqual(((before - today0) / HOUR) * 2 - 1e-9);
    expect(today).toBeLessThanOrEqual(((after - today0) / HOUR) * 2 + 1e-9);
    // The run 40 days ago is outside; every other day is zero.
    const named = new Set([3, 2, 1, 0].map((n) => dayOf(today0 - n * DAY)));
    expect(daily.filter((d) => !named.has(d.date)).every((d) => d.gpu_hours === 0)).toBe(true);
    // The same figures as the totals: today's hours and the open run's GPUs.
    expect(r.body.gpu_hours_today).toBeCloseTo(today, 3);
    expect(r.body.active_gpus).toBe(2);
  });

  it("leaves `daily` out without `days`, and refuses a window outside 1–366", async () => {
    const empty = await createFleet("cu-empty");
    const plain = await api(token, "GET", "/v1/usage");
    expect(plain.status).toBe(200);
    expect(plain.body).not.toHaveProperty("daily");
    // `fleets` is the capacity of the fleets that have nodes: one without any is not listed.
    const fleets = plain.body.fleets as Array<{ fleet_id: string; nodes: number }>;
    expect(fleets.map((f) => f.fleet_id)).not.toContain(empty.id);
    expect(fleets.every((f) => f.nodes > 0)).toBe(true);
    for (const bad of ["0", "367", "x"]) {
      const r = await api(token, "GET", `/v1/usage?days=${bad}`);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe("BAD_REQUEST");
    }
    expect((await api(token, "GET", "/v1/usage?days=1")).body.daily).toHaveLength(1);
  });
});

describe("dailyGpuHours (the split)", () => {
  it("splits an open run at each UTC midnight and adds the finished days", () => {
    const now = Date.parse("2026-03-03T06:00:00Z");
    const series = dailyGpuHours(
      [{ day: "2026-03-01", gpuSeconds: 7200 }],
      [{ gpus: 4, at: "2026-03-01T23:00:00Z" }],
      now,
      3,
    );
    expect(series).toEqual([
      { date: "2026-03-01", gpu_hours: 2 + 4 },
      { date: "2026-03-02", gpu_hours: 24 * 4 },
      { date: "2026-03-03", gpu_hours: 6 * 4 },
    ]);
  });

  it("counts an open run's hours inside the window exactly once, at most 24 × GPUs a day", () => {
    const now = Date.parse("2026-06-15T13:27:00Z");
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 0, max: 90 * 24 * 60 }),
        fc.integer({ min: 1, max: 64 }),
        (days, minutesAgo, gpus) => {
          const start = now - minutesAgo * 60_000;
          const series = dailyGpuHours([], [{ gpus, at: new Date(start).toISOString() }], now, days);
          expect(series).toHaveLength(days);
          const from = Math.floor(now / DAY) * DAY - (days - 1) * DAY;
          const expected = ((now - Math.max(start, from)) / HOUR) * gpus;
          const sum = series.reduce((s, d) => s + d.gpu_hours, 0);
          expect(sum).toBeCloseTo(Math.max(0, expected), 6);
          for (const d of series) expect(d.gpu_hours).toBeLessThanOrEqual(24 * gpus + 1e-9);
        },
      ),
    );
  });
});

describe("console usage page", () => {
  it("shows the quota numbers, the daily series for the chart and the same numbers as a table", async () => {
    const b = await signIn(token);
    const r = await b.get("/console/usage");
    expect(r.status).toBe(200);
    expect(r.html).toContain("<h1>Usage</h1>");
    expect(r.html).toMatch(/data-usage="active-gpus">2 of 16</);
    expect(r.html).toMatch(/data-usage="active-jobs">0 of 20</);
    const series = /data-series="([^"]*)"/.exec(r.html)![1]!.replace(/&quot;/g, '"');
    const daily = JSON.parse(series) as Array<{ date: string; gpu_hours: number }>;
    expect(daily).toHaveLength(30);
    expect(daily.find((d) => d.date === dayOf(today0 - 2 * DAY))!.gpu_hours).toBeCloseTo(6, 9);
    const row = new RegExp(
      `<tr data-day="${dayOf(today0 - 3 * DAY)}"><th scope="row">[^<]+</th><td>([^<]+)</td>`,
    );
    expect(row.exec(r.html)?.[1]).toBe("4.00");
    // Someone else's usage is not the viewer's to see.
    const other = await b.get("/console/usage?user=admin");
    expect(other.status).toBe(404);
  });

  it("lets an admin look at a user's usage", async () => {
    const r = await (await signIn(ADMIN)).get("/console/usage?user=cu-user");
    expect(r.status).toBe(200);
    expect(r.html).toContain("Usage of cu-user");
    expect(r.html).toMatch(/data-usage="active-gpus">2 of 16</);
  });
});

describe("console usage page: usage by team", () => {
  const columns =
    '<th scope="col">Team</th><th scope="col">GPU-hours</th><th scope="col">Within guarantee</th>' +
    '<th scope="col">Borrowed</th><th scope="col">Lost to preemption</th><th scope="col">Budget</th><th scope="col">% used</th>' +
    '<th scope="col">Policy</th>';

  it("shows a member their teams this month: hours within guarantee, borrowed, lost to preemption, budget, % used, policy", async () => {
    const b = await signIn(token);
    const { month } = budgetPeriods(Date.now());
    const r = await b.get("/console/usage");
    expect(r.status).toBe(200);
    expect(r.html).toContain(`<h2 id="teams-h">Usage by team, ${month.key}</h2>`);
    expect(r.html).toContain(columns);
    expect(r.html).toContain(`<input type="text" id="usage-period" name="period" value="${month.key}"`);
    const rows = teamUsageTable(r.html);
    // Only their own team: neither cu-rival nor the jobs of no team.
    expect([...rows.keys()]).toEqual(["cu-team"]);
    expect(rows.get("cu-team")).toEqual([
      "cu-team",
      "4.00",
      "3.00",
      "1.00",
      "0.50",
      "10 GPU-h / month",
      "40.0 %",
      "borrow_free",
    ]);
    expect(r.html).toContain("Your teams only.");

    // The CSV, through the console (the session cookie; /v1 takes bearer tokens only): their team's rows.
    const href = csvHref(r.html);
    expect(href).toBe(`/console/api/usage/teams?period=${month.key}&format=csv`);
    const csv = await b.get(href);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(csv.headers.get("content-disposition")).toBe(`attachment; filename="usage-${month.key}.csv"`);
    expect(csv.html.trim().split("\n")).toEqual([
      "team,fleet,in_guarantee_gpu_seconds,borrowed_gpu_seconds,gpu_seconds,gpu_hours,lost_gpu_seconds",
      "cu-team,cu-fleet,10800.000,3600.000,14400.000,4.000000,1800.000",
    ]);
  });

  it("shows every team and the jobs of no team to an admin", async () => {
    const b = await signIn(ADMIN);
    const now = Date.now();
    const { month } = budgetPeriods(now);
    const r = await b.get("/console/usage");
    expect(r.status).toBe(200);
    const rows = teamUsageTable(r.html);
    expect(rows.get("cu-team")).toEqual([
      "cu-team",
      "4.00",
      "3.00",
      "1.00",
      "0.50",
      "10 GPU-h / month",
      "40.0 %",
      "borrow_free",
    ]);
    // No budget: "—" for budget, % used and policy.
    expect(rows.get("cu-rival")).toEqual(["cu-rival", "5.00", "5.00", "0.00", "0.00", "—", "—", "—"]);
    // The jobs of no team, last: cu-user's finished runs of this month (the seeded days before today).
    expect([...rows.keys()].at(-1)).toBe("-");
    const noTeam =
      (dayOf(today0 - 3 * DAY) >= `${month.key}-01` ? 4 : 0) +
      (dayOf(today0 - 2 * DAY) >= `${month.key}-01` ? 6 : 0);
    expect(rows.get("-")).toEqual([
      "no team",
      noTeam.toFixed(2),
      noTeam.toFixed(2),
      "0.00",
      "0.00",
      "—",
      "—",
      "—",
    ]);
    expect(r.html).toContain("Every team, and the jobs of no team.");
    const csv = await b.get(csvHref(r.html));
    expect(csv.html).toContain("cu-rival,cu-fleet,18000.000,0.000,18000.000,5.000000,0.000");
    // An admin looking at a user's usage still sees every team, and the period link keeps the user.
    const other = await b.get("/console/usage?user=cu-user");
    expect([...teamUsageTable(other.html).keys()]).toContain("cu-rival");
    expect(other.html).toContain('<input type="hidden" name="user" value="cu-user"');
  });

  it("picks an ISO week or a past month with ?period=, a team without usage at 0", async () => {
    const b = await signIn(token);
    const { week } = budgetPeriods(Date.now());
    const w = await b.get(`/console/usage?period=${week.key}`);
    expect(w.status).toBe(200);
    expect(w.html).toContain(`<h2 id="teams-h">Usage by team, ${week.key}</h2>`);
    expect(teamUsageTable(w.html).get("cu-team")).toEqual([
      "cu-team",
      "4.00",
      "3.00",
      "1.00",
      "0.50",
      "8 GPU-h / week",
      "50.0 %",
      "borrow_free",
    ]);
    expect(csvHref(w.html)).toBe(`/console/api/usage/teams?period=${week.key}&format=csv`);
    const past = await b.get("/console/usage?period=2020-01");
    expect(past.status).toBe(200);
    expect(teamUsageTable(past.html).get("cu-team")).toEqual([
      "cu-team",
      "0.00",
      "0.00",
      "0.00",
      "0.00",
      "10 GPU-h / month",
      "0.0 %",
      "borrow_free",
    ]);
    expect(past.html).toContain("2020-01-01 to 2020-02-01 (UTC, end excluded)");
  });

  it("says a bad period is not one (400, escaped), the rest of the page still shown", async () => {
    const b = await signIn(token);
    for (const bad of ["2026-13", "2026-W60", "last month", '<script>alert(1)</script>"']) {
      const r = await b.get(`/console/usage?period=${encodeURIComponent(bad)}`);
      expect(r.status, bad).toBe(400);
      expect(r.html).toContain("Not a period (BAD_REQUEST)");
      expect(r.html).toContain(
        "is not a period: give a month such as 2026-12 or an ISO week such as 2026-W49.",
      );
      expect(r.html).not.toContain('<table class="team-usage">');
      expect(r.html).not.toContain("Download CSV");
      expect(r.html).toMatch(/data-usage="active-gpus">2 of 16</);
    }
    const r = await b.get(`/console/usage?period=${encodeURIComponent('<script>alert(1)</script>"')}`);
    expect(r.html).not.toContain("<script>alert(1)");
    expect(r.html).toContain("&quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot;&quot; is not a period");
    expect(r.html).toContain('value="&lt;script&gt;alert(1)&lt;/script&gt;&quot;"');
  });

  it("tells a user in no team so", async () => {
    const loner = await createUser("cu-loner");
    const r = await (await signIn(loner)).get("/console/usage");
    expect(r.status).toBe(200);
    expect(r.html).toContain("You are in no team");
    expect(r.html).not.toContain("cu-rival");
    expect(r.html).not.toContain("Download CSV");
  });
});
