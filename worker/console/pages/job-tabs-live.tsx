/** @jsxImportSource hono/jsx */
/**
 * The tabs that follow a running job: Charts (client/charts.ts draws them with uPlot) and Logs
 * (client/logs.ts follows the live tail). Rendered from the /v1 read routes; values are JSX text.
 */
import type { Child } from "hono/jsx";
import type { LogLineView, LogsPage, MetricKeyView } from "../../../contract/readback.schema.js";
import { apiGet, type ConsoleCtx } from "../api.js";
import type { JobDetail, RunSummary } from "../job-data.js";
import { Notice } from "../layout.js";
import {
  fmtNum,
  groupKeys,
  hereWith,
  jobPath,
  LOG_PAGE,
  NoRun,
  runIsLive,
  runLabel,
  runQuery,
} from "./job-tab-shared.js";

export async function chartsTab(
  c: ConsoleCtx,
  detail: JobDetail,
  run: RunSummary | undefined,
): Promise<Child> {
  if (!run) return <NoRun what="metrics" />;
  const { keys } = await apiGet<{ keys: MetricKeyView[] }>(c, jobPath(detail, `metrics?${runQuery(run)}`));
  const live = runIsLive(detail, run);
  if (keys.length === 0) {
    // While the run goes, the script looks for the first metrics and reloads the tab when they come.
    return (
      <div data-metrics-wait={live ? "1" : undefined} data-job={detail.job.id} data-run={run.id}>
        <Notice kind="empty" title="No metrics yet">
          <p>
            {
              "Metrics appear here once the training reports them: the capsule's reporter sends them when the code calls "
            }
            <code>{'starforge.report.log({"loss": 0.5}, step=10)'}</code>
            {" (the "}
            <code>starforge</code>
            {" helper is on the path of every capsule run), or a recipe's built-in reporter does."}
          </p>
          {live ? <p>This page shows them as soon as the first ones arrive.</p> : null}
        </Notice>
      </div>
    );
  }
  const others = detail.runs.filter((r) => r.id !== run.id);
  return (
    <div
      class="charts"
      data-charts=""
      data-job={detail.job.id}
      data-run={run.id}
      data-live={live ? "1" : undefined}
    >
      <fieldset class="chart-controls" data-chart-controls="">
        <legend>Chart options</legend>
        <div class="control">
          <label for="chart-smoothing">Smoothing</label>
          <input
            type="range"
            id="chart-smoothing"
            min="0"
            max="0.99"
            step="0.01"
            value="0"
            aria-describedby="chart-smoothing-value"
          />
          <output id="chart-smoothing-value" for="chart-smoothing">
            0
          </output>
        </div>
        <div class="control check">
          <input type="checkbox" id="chart-log" />
          <label for="chart-log">Log scale</label>
        </div>
        <div class="control">
          <label for="chart-x">X axis</label>
          <select id="chart-x">
            <option value="step">Step</option>
            <option value="time">Time</option>
          </select>
        </div>
        {others.length > 0 ? (
          <fieldset class="compare">
            <legend>Compare runs</legend>
            {others.map((r) => (
              <div class="control check">
                <input type="checkbox" id={`compare-${r.id}`} data-compare-run={r.id} />
                <label for={`compare-${r.id}`}>{runLabel(r)}</label>
              </div>
            ))}
          </fieldset>
        ) : null}
        <p class="note">
          Charts need the page's script; without it each shows its point count and last value.
        </p>
      </fieldset>
      {live ? <p class="note">The run is going: the charts update every 2 seconds.</p> : null}
      {groupKeys(keys).map(({ group, keys: list }, i) => (
        <section class="chart-group" aria-labelledby={`chart-group-${i}`}>
          <h2 id={`chart-group-${i}`}>{group === "" ? "Other metrics" : group}</h2>
          <div class="chart-grid">
            {list.map((k) => (
              <figure class="chart" data-chart-key={k.key} data-job={detail.job.id} data-run={run.id}>
                <figcaption>{k.key}</figcaption>
                <p class="chart-summary">
                  {`${k.count} point${k.count === 1 ? "" : "s"}; last ${fmtNum(k.last.value)} at step ${k.last.step}`}
                </p>
              </figure>
            ))}
          </div>
        </section>
      ))}
    </div>
  );
}

// logs ---------------------------------------------------------------------------------------------

const STREAMS = ["stdout", "stderr", "console"] as const;

/**
 * `?at=<cursor>` (the diagnosis's link): how far back, in run-wide cursors, the page reads for lines
 * before the one at the cursor, and how many of them it keeps. A rank's lines interleave with the
 * others', so the reach is wider than what is kept; the read's limit covers the reach and a page after,
 * so the line is always on it.
 */
const AT_REACH = 1_000;
const AT_BEFORE = 100;

interface LogWindow {
  lines: LogLineView[];
  /** The cursor after the last line shown (where the live tail and "Next lines" go on from). */
  next: number;
  more: boolean;
}

/**
 * The page's lines: from `offset` on; or, with `at`, the lines around the one at that cursor (up to
 * AT_BEFORE before it, then the rest of a page).
 */
function logWindow(page: LogsPage, limit: number, at: number | null): LogWindow {
  if (at === null) return { lines: page.lines, next: page.next_offset, more: page.lines.length >= limit };
  const all = page.lines;
  const i = all.findIndex((l) => l.cursor >= at);
  const from = Math.max(0, (i < 0 ? all.length : i) - AT_BEFORE);
  const lines = all.slice(from, from + LOG_PAGE);
  const last = lines.at(-1);
  return {
    lines,
    next: last ? last.cursor + 1 : page.next_offset,
    more: from + lines.length < all.length || all.length >= limit,
  };
}

export async function logsTab(c: ConsoleCtx, detail: JobDetail, run: RunSummary | undefined): Promise<Child> {
  if (!run) return <NoRun what="logs" />;
  const rankQ = c.req.query("rank") ?? "";
  const rank = /^\d{1,7}$/.test(rankQ) ? rankQ : "";
  const streamQ = c.req.query("stream") ?? "";
  const stream = (STREAMS as readonly string[]).includes(streamQ) ? streamQ : "";
  const offsetQ = c.req.query("offset") ?? "";
  const atQ = c.req.query("at") ?? "";
  const at = /^\d{1,15}$/.test(atQ) ? Number(atQ) : null;
  const offset =
    at !== null ? String(Math.max(0, at - AT_REACH)) : /^\d{1,15}$/.test(offsetQ) ? offsetQ : "0";
  const search = (c.req.query("q") ?? "").slice(0, 200);

  const limit = at !== null ? AT_REACH + LOG_PAGE : LOG_PAGE;
  const params = new URLSearchParams({ run: run.id, limit: String(limit), offset });
  if (rank) params.set("rank", rank);
  if (stream) params.set("stream", stream);
  const page = await apiGet<LogsPage>(c, jobPath(detail, `logs?${params}`));
  const { lines, next, more } = logWindow(page, limit, at);
  const target = at !== null && lines.some((l) => l.cursor === at) ? at : null;
  const ranks = [...new Set(page.streams.map((s) => s.rank))].sort((a, b) => a - b);
  const needle = search.toLowerCase();
  const matches = (l: LogLineView) => l.line.toLowerCase().includes(needle);
  const live = !page.ended && run.ended_at === null;
  const id = encodeURIComponent(detail.job.id);
  const download = `/console/api/jobs/${id}/logs/download?${runQuery(run)}`;

  return (
    <div
      class="logs"
      data-logs=""
      data-job={detail.job.id}
      data-run={run.id}
      data-next={String(next)}
      data-rank={rank || undefined}
      data-stream={stream || undefined}
      data-live={live ? "1" : undefined}
    >
      <form class="log-filters" method="get" aria-label="Filter log lines">
        <input type="hidden" name="run" value={run.id} />
        <div class="control">
          <label for="log-rank">Rank</label>
          <select id="log-rank" name="rank" data-autosubmit="">
            <option value="">All ranks</option>
            {ranks.map((r) => (
              <option value={String(r)} selected={String(r) === rank}>
                {`Rank ${r}`}
              </option>
            ))}
          </select>
        </div>
        <div class="control">
          <label for="log-stream">Stream</label>
          <select id="log-stream" name="stream" data-autosubmit="">
            <option value="">All streams</option>
            {STREAMS.map((s) => (
              <option value={s} selected={s === stream}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div class="control grow">
          <label for="log-search">Search</label>
          <input type="search" id="log-search" name="q" value={search} autocomplete="off" />
        </div>
        <button type="submit">Filter</button>
        <a class="button" href={download} download="">
          Download logs
        </a>
      </form>
      {at !== null ? (
        <p class="note log-at" data-log-at={String(at)}>
          {target !== null
            ? `Lines${rank ? ` of rank ${rank}` : ""} around the line the diagnosis points at (highlighted). `
            : "The line the diagnosis points at is not among these lines (a filter hides it). "}
          <a href={hereWith(c, { at: null, offset: null })}>Show the log from the start</a>
        </p>
      ) : null}
      <p class="note" id="log-count">
        {search
          ? `${lines.filter(matches).length} of ${lines.length} lines match`
          : `${lines.length} line${lines.length === 1 ? "" : "s"}${live ? "; new lines appear as the run writes them" : ""}`}
      </p>
      {lines.length === 0 && !live ? (
        <Notice kind="empty" title="No log lines">
          <p>
            {rank || stream
              ? "No line matches these filters."
              : "This run wrote nothing to its logs (or its lines have not arrived yet)."}
          </p>
        </Notice>
      ) : null}
      <section class="log-box" tabindex={0} aria-label="Log lines" data-log-box="">
        <ol id="log-lines">
          {lines.map((l) => (
            <li
              data-offset={String(l.cursor)}
              data-rank={String(l.rank)}
              data-stream={l.stream}
              id={l.cursor === target ? `log-${l.cursor}` : undefined}
              aria-current={l.cursor === target ? "true" : undefined}
              class={
                [l.cursor === target ? "log-target" : "", search ? (matches(l) ? "log-hit" : "log-miss") : ""]
                  .filter(Boolean)
                  .join(" ") || undefined
              }
            >
              <span class="log-meta">{`${l.rank} ${l.stream}`}</span>
              {l.cursor === target ? <span class="visually-hidden">(the diagnosed line) </span> : null}
              <span class="log-text">{l.line}</span>
            </li>
          ))}
        </ol>
      </section>
      {more ? (
        <p data-log-more="">
          <a href={hereWith(c, { offset: String(next), at: null })}>Next lines</a>
        </p>
      ) : null}
      <p id="log-status" class="visually-hidden" aria-live="polite" />
    </div>
  );
}
