/**
 * GPU-hours per UTC day (GET /v1/usage?days=N) and the console's usage page built on it: finished runs as
 * the ledger split them per day, an open run split at midnight and counted up to now, days outside the
 * window left out, every day of the window present; the page's quota numbers, chart data and table.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { dailyGpuHours } from "../../worker/routes/usage.routes.js";
import { signIn } from "./console-support.js";
import { ADMIN, api, createUser } from "./helpers.js";
import { testEnv } from "./test-env.js";

const DAY = 86_400_000;
const HOUR = 3_600_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

let token = "";
let userId = "";
/** The UTC midnight that starts "today" for the seeded rows. */
let today0 = 0;

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
    const plain = await api(token, "GET", "/v1/usage");
    expect(plain.status).toBe(200);
    expect(plain.body).not.toHaveProperty("daily");
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
