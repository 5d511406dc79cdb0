/** @jsxImportSource hono/jsx */
/**
 * Usage: the signed-in user's quota against what they use now (GET /v1/usage?days=30), GPU-hours per UTC
 * day for the last 30 days (a uPlot bar chart drawn by client/usage-chart.ts from the `data-series`
 * attribute, and the same numbers as a table for screen readers and no-JS), and their running and queued
 * jobs (GET /v1/jobs). An admin may look at another user with `?user=`.
 */
import { Hono } from "hono";
import type { JobView } from "../../../contract/api.schema.js";
import type { Usage } from "../../../contract/responses.schema.js";
import { apiGet, type ConsoleEnv } from "../api.js";
import { DataTable, Layout, Notice, Time } from "../layout.js";

export const USAGE_DAYS = 30;

/** Hours with two decimals (a GPU-minute is 0.02). */
export function hours(h: number): string {
  return (Math.round(h * 100) / 100).toFixed(2);
}

export const usagePages = new Hono<ConsoleEnv>().get("/usage", async (c) => {
  const session = c.get("session");
  const who = c.req.query("user");
  const userQ = who ? `&user=${encodeURIComponent(who)}` : "";
  const [usage, list] = await Promise.all([
    apiGet<Usage>(c, `/v1/usage?days=${USAGE_DAYS}${userQ}`),
    apiGet<{ jobs: JobView[] }>(c, `/v1/jobs?status=RUNNING,SUBMITTED,PENDING,QUEUED&limit=200${userQ}`),
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
    </Layout>,
  );
});
