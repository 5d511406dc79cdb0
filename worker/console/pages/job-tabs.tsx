/** @jsxImportSource hono/jsx */
/**
 * The job page's tabs (issue 16): charts, logs, events, hardware, artifacts, config and samples. Each is
 * rendered on the server from the /v1 read routes of the selected run (`?run=`, else the latest), so it
 * says something useful without the script; client/charts.ts and client/logs.ts then draw the charts and
 * follow the live tail, finding their elements by data-* attribute. Every value a run reported goes into
 * the page as JSX text or an attribute, so it is escaped.
 */
import type { Child } from "hono/jsx";
import type {
  ArtifactView,
  EnvironmentView,
  HardwareSeriesList,
  HparamsView,
  Json,
  LogLineView,
  LogsPage,
  MetricKeyView,
  ValidationSamplesView,
  ValidationStepsView,
} from "../../../contract/readback.schema.js";
import { apiGet, type ConsoleCtx } from "../api.js";
import { type JobDetail, type RunSummary, selectedRun, type TabName } from "../job-data.js";
import { DataTable, Notice, Time } from "../layout.js";

/** The body of `tab` for the job (rendered under the job page's header and tab bar). */
export async function tabContent(c: ConsoleCtx, detail: JobDetail, tab: TabName): Promise<Child> {
  const run = selectedRun(detail, c.req.query("run"));
  switch (tab) {
    case "charts":
      return chartsTab(c, detail, run);
    case "logs":
      return logsTab(c, detail, run);
    case "events":
      return eventsTab(detail);
    case "hardware":
      return hardwareTab(c, detail, run);
    case "artifacts":
      return artifactsTab(c, detail, run);
    case "config":
      return configTab(c, detail, run);
    case "samples":
      return samplesTab(c, detail, run);
  }
}

// shared -------------------------------------------------------------------------------------------

const LOG_PAGE = 500;

function jobPath(detail: JobDetail, rest: string): string {
  return `/v1/jobs/${encodeURIComponent(detail.job.id)}/${rest}`;
}

function runQuery(run: RunSummary): string {
  return `run=${encodeURIComponent(run.id)}`;
}

/** This page's own path and query with `set` applied (a value of null removes the parameter). */
function hereWith(c: ConsoleCtx, set: Record<string, string | null>): string {
  const url = new URL(c.req.url);
  for (const [k, v] of Object.entries(set)) {
    if (v === null) url.searchParams.delete(k);
    else url.searchParams.set(k, v);
  }
  const q = url.searchParams.toString();
  return q ? `${url.pathname}?${q}` : url.pathname;
}

/** The run is still going: its data may grow while the page is open. */
function runIsLive(detail: JobDetail, run: RunSummary): boolean {
  return detail.job.status === "RUNNING" && run.ended_at === null && detail.job.current_run_id === run.id;
}

function runLabel(run: RunSummary): string {
  return `attempt ${run.attempt} (${run.id}, ${run.status.toLowerCase()})`;
}

const NoRun = ({ what }: { what: string }) => (
  <Notice kind="empty" title="This job has not run yet">
    <p>{`It has no ${what} until it is given GPUs and starts; this page shows them from then on.`}</p>
  </Notice>
);

/** A number as people read it: integers as they are, others to 6 significant digits. */
export function fmtNum(v: number | null | undefined): string {
  if (v === null || v === undefined) return "—";
  if (Number.isInteger(v)) return String(v);
  if (!Number.isFinite(v)) return String(v);
  return String(Number.parseFloat(v.toPrecision(6)));
}

function fmtBytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return "—";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${n} B` : `${v.toFixed(1)} ${units[i]}`;
}

/** A JSON value on one line (strings as they are). */
function jsonText(v: Json | unknown): string {
  if (typeof v === "string") return v;
  if (v === undefined) return "—";
  return JSON.stringify(v) ?? "—";
}

// charts -------------------------------------------------------------------------------------------

const GROUP_ORDER = ["train", "eval"];

/** Metric keys by prefix (the part before the first `/` or `.`): train, eval, the other prefixes, then the rest. */
export function groupKeys<T extends { key: string }>(keys: T[]): Array<{ group: string; keys: T[] }> {
  const groups = new Map<string, T[]>();
  for (const k of keys) {
    const cut = k.key.search(/[/.]/);
    const g = cut > 0 ? k.key.slice(0, cut) : "";
    const list = groups.get(g) ?? [];
    list.push(k);
    groups.set(g, list);
  }
  const rank = (g: string) => {
    const i = GROUP_ORDER.indexOf(g);
    return i >= 0 ? i : g === "" ? GROUP_ORDER.length + 1 : GROUP_ORDER.length;
  };
  return [...groups.entries()]
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([group, list]) => ({ group, keys: list.sort((a, b) => a.key.localeCompare(b.key)) }));
}

async function chartsTab(c: ConsoleCtx, detail: JobDetail, run: RunSummary | undefined): Promise<Child> {
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

async function logsTab(c: ConsoleCtx, detail: JobDetail, run: RunSummary | undefined): Promise<Child> {
  if (!run) return <NoRun what="logs" />;
  const rankQ = c.req.query("rank") ?? "";
  const rank = /^\d{1,7}$/.test(rankQ) ? rankQ : "";
  const streamQ = c.req.query("stream") ?? "";
  const stream = (STREAMS as readonly string[]).includes(streamQ) ? streamQ : "";
  const offsetQ = c.req.query("offset") ?? "";
  const offset = /^\d{1,15}$/.test(offsetQ) ? offsetQ : "0";
  const search = (c.req.query("q") ?? "").slice(0, 200);

  const params = new URLSearchParams({ run: run.id, limit: String(LOG_PAGE), offset });
  if (rank) params.set("rank", rank);
  if (stream) params.set("stream", stream);
  const page = await apiGet<LogsPage>(c, jobPath(detail, `logs?${params}`));
  const ranks = [...new Set(page.streams.map((s) => s.rank))].sort((a, b) => a - b);
  const needle = search.toLowerCase();
  const matches = (l: LogLineView) => l.line.toLowerCase().includes(needle);
  const live = !page.ended && run.ended_at === null;
  const id = encodeURIComponent(detail.job.id);
  const download = `/console/api/jobs/${id}/logs/download?${runQuery(run)}`;
  const more = page.lines.length >= LOG_PAGE;

  return (
    <div
      class="logs"
      data-logs=""
      data-job={detail.job.id}
      data-run={run.id}
      data-next={String(page.next_offset)}
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
      <p class="note" id="log-count">
        {search
          ? `${page.lines.filter(matches).length} of ${page.lines.length} lines match`
          : `${page.lines.length} line${page.lines.length === 1 ? "" : "s"}${live ? "; new lines appear as the run writes them" : ""}`}
      </p>
      {page.lines.length === 0 && !live ? (
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
          {page.lines.map((l) => (
            <li
              data-offset={String(l.cursor)}
              data-rank={String(l.rank)}
              data-stream={l.stream}
              class={search ? (matches(l) ? "log-hit" : "log-miss") : undefined}
            >
              <span class="log-meta">{`${l.rank} ${l.stream}`}</span>
              <span class="log-text">{l.line}</span>
            </li>
          ))}
        </ol>
      </section>
      {more ? (
        <p data-log-more="">
          <a href={hereWith(c, { offset: String(page.next_offset) })}>Next lines</a>
        </p>
      ) : null}
      <p id="log-status" class="visually-hidden" aria-live="polite" />
    </div>
  );
}

// events -------------------------------------------------------------------------------------------

const WAITING = new Set(["QUEUED", "SUBMITTED", "PENDING"]);

/** What a transition's detail says, for people: its reason when it has one, else its JSON. */
function eventDetail(d: unknown): string | null {
  if (d === null || d === undefined) return null;
  if (typeof d === "object" && !Array.isArray(d)) {
    const o = d as Record<string, unknown>;
    if (Object.keys(o).length === 0) return null;
    if (typeof o.reason === "string" && Object.keys(o).length === 1) return o.reason;
  }
  return jsonText(d);
}

function eventsTab(detail: JobDetail): Child {
  const { job, events } = detail;
  const reasons = job.pending_reasons ?? [];
  return (
    <div class="events">
      {WAITING.has(job.status) ? (
        <section aria-labelledby="pending-h">
          <h2 id="pending-h">Why it is not running yet</h2>
          {reasons.length === 0 ? (
            <p>{`The job is ${job.status.toLowerCase()}; the scheduler gave no reason to wait.`}</p>
          ) : (
            <ul class="pending-reasons">
              {reasons.map((r) => (
                <li>
                  <code>{r.code}</code> {r.message}
                </li>
              ))}
            </ul>
          )}
        </section>
      ) : null}
      <section aria-labelledby="timeline-h">
        <h2 id="timeline-h">State timeline</h2>
        {events.length === 0 ? (
          <p>No state changes yet.</p>
        ) : (
          <ol class="timeline">
            {events.map((e) => {
              const what = eventDetail(e.detail);
              return (
                <li data-seq={String(e.seq)}>
                  <Time iso={e.ts} />{" "}
                  <span class="transition">
                    {e.from ? (
                      <>
                        <span class={`state state-${e.from}`}>{e.from}</span>
                        {" → "}
                      </>
                    ) : null}
                    <span class={`state state-${e.to}`}>{e.to}</span>
                  </span>{" "}
                  <code>{e.edge}</code>
                  {e.actor ? <span class="actor">{` by ${e.actor}`}</span> : null}
                  {what ? <p class="event-detail">{what}</p> : null}
                </li>
              );
            })}
          </ol>
        )}
      </section>
    </div>
  );
}

// hardware -----------------------------------------------------------------------------------------

const HW_ORDER = ["gpu.util", "gpu.mem_util", "gpu.mem_used_bytes", "gpu.temp_c", "gpu.power_w"];
const HW_LABELS: Record<string, string> = {
  "gpu.util": "GPU utilisation (%)",
  "gpu.mem_util": "GPU memory used (%)",
  "gpu.mem_used_bytes": "GPU memory used",
  "gpu.temp_c": "GPU temperature (°C)",
  "gpu.power_w": "GPU power (W)",
};

function hwOrder(a: string, b: string): number {
  const ia = HW_ORDER.indexOf(a);
  const ib = HW_ORDER.indexOf(b);
  return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
}

function hwValue(key: string, v: number): string {
  return key.endsWith("_bytes") ? fmtBytes(v) : fmtNum(v);
}

async function hardwareTab(c: ConsoleCtx, detail: JobDetail, run: RunSummary | undefined): Promise<Child> {
  if (!run) return <NoRun what="hardware samples" />;
  const list = await apiGet<HardwareSeriesList>(c, jobPath(detail, `hardware?${runQuery(run)}`));
  if (list.series.length === 0) {
    return (
      <Notice kind="empty" title="No hardware samples">
        <p>
          The capsule's reporter samples each GPU's utilisation and memory while the training runs; this run
          sent none.
        </p>
      </Notice>
    );
  }
  const keys = [...new Set(list.series.map((s) => s.key))].sort(hwOrder);
  // The latest sample of each key per device (host, GPU).
  const devices = new Map<
    string,
    { host: string; gpu: number | null; uuid: string | null; last: Map<string, number> }
  >();
  for (const s of list.series) {
    const host = s.worker_id ?? s.node_id ?? "—";
    const id = JSON.stringify([host, s.gpu_idx]);
    let d = devices.get(id);
    if (!d) {
      d = { host, gpu: s.gpu_idx, uuid: s.gpu_uuid, last: new Map() };
      devices.set(id, d);
    }
    d.uuid ??= s.gpu_uuid;
    d.last.set(s.key, s.last.value);
  }
  const rows = [...devices.values()].sort(
    (a, b) => a.host.localeCompare(b.host) || (a.gpu ?? -1) - (b.gpu ?? -1),
  );
  const live = runIsLive(detail, run);
  return (
    <div
      class="hardware charts"
      data-charts=""
      data-job={detail.job.id}
      data-run={run.id}
      data-live={live ? "1" : undefined}
    >
      <section aria-labelledby="hw-latest-h">
        <h2 id="hw-latest-h">Latest sample per device</h2>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Host</th>
                <th scope="col">GPU</th>
                {keys.map((k) => (
                  <th scope="col">{HW_LABELS[k] ?? k}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <tr data-gpu={d.gpu === null ? undefined : String(d.gpu)}>
                  <th scope="row">{d.host}</th>
                  <td>
                    {d.gpu === null ? "—" : String(d.gpu)}
                    {d.uuid ? <span class="note mono">{` ${d.uuid}`}</span> : null}
                  </td>
                  {keys.map((k) => {
                    const v = d.last.get(k);
                    return <td>{v === undefined ? "—" : hwValue(k, v)}</td>;
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section aria-labelledby="hw-charts-h">
        <h2 id="hw-charts-h">Over time</h2>
        <div class="chart-grid">
          {keys.map((k) => {
            const count = list.series.filter((s) => s.key === k).reduce((n, s) => n + s.count, 0);
            return (
              <figure
                class="chart"
                data-chart-key={k}
                data-source="hardware"
                data-job={detail.job.id}
                data-run={run.id}
              >
                <figcaption>{HW_LABELS[k] ?? k}</figcaption>
                <p class="chart-summary">{`${count} sample${count === 1 ? "" : "s"}`}</p>
              </figure>
            );
          })}
        </div>
      </section>
    </div>
  );
}

// artifacts ----------------------------------------------------------------------------------------

async function artifactsTab(c: ConsoleCtx, detail: JobDetail, run: RunSummary | undefined): Promise<Child> {
  if (!run) return <NoRun what="artifacts" />;
  const { artifacts } = await apiGet<{ artifacts: ArtifactView[] }>(
    c,
    jobPath(detail, `artifacts?${runQuery(run)}`),
  );
  if (artifacts.length === 0) {
    return (
      <Notice kind="empty" title="No artifacts">
        <p>This run registered no checkpoints or other files.</p>
      </Notice>
    );
  }
  const id = encodeURIComponent(detail.job.id);
  return (
    <section aria-labelledby="artifacts-h">
      <h2 id="artifacts-h">{`Artifacts (${artifacts.length})`}</h2>
      <DataTable
        class="artifacts"
        columns={["Name", "Kind", "Step", "Size", "Digest", "Verified", "Created"]}
      >
        {artifacts.map((a) => (
          <tr>
            <th scope="row">
              {a.stored ? (
                <a
                  href={`/console/api/jobs/${id}/artifacts/download?${runQuery(run)}&path=${encodeURIComponent(a.path)}`}
                  download=""
                >
                  {a.path}
                </a>
              ) : (
                <>
                  <span class="mono">{a.path}</span>
                  <span class="note"> (registered by path; no bytes stored)</span>
                </>
              )}
            </th>
            <td>{a.kind}</td>
            <td>{a.step === null ? "—" : String(a.step)}</td>
            <td>{fmtBytes(a.size_bytes)}</td>
            <td>
              {a.digest ? <code title={a.digest}>{a.digest.replace(/^sha256:/, "").slice(0, 12)}</code> : "—"}
            </td>
            <td>{a.verified ? "yes" : "no"}</td>
            <td>
              <Time iso={a.registered_at} />
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

// config -------------------------------------------------------------------------------------------

const JsonList = ({ value }: { value: Record<string, Json> }) => (
  <dl class="kv">
    {Object.entries(value).map(([k, v]) => (
      <>
        <dt>{k}</dt>
        <dd class="mono">{jsonText(v)}</dd>
      </>
    ))}
  </dl>
);

async function configTab(c: ConsoleCtx, detail: JobDetail, run: RunSummary | undefined): Promise<Child> {
  const [hparams, env] = run
    ? await Promise.all([
        apiGet<HparamsView>(c, jobPath(detail, `hparams?${runQuery(run)}`)),
        apiGet<EnvironmentView>(c, jobPath(detail, `environment?${runQuery(run)}`)),
      ])
    : [null, null];
  const params = hparams ? Object.entries(hparams.params) : [];
  return (
    <div class="config">
      <section aria-labelledby="spec-h">
        <h2 id="spec-h">Job spec</h2>
        <pre class="spec" tabindex={0}>
          <code>{JSON.stringify(detail.job.spec, null, 2)}</code>
        </pre>
      </section>
      <section aria-labelledby="hparams-h">
        <h2 id="hparams-h">Hyperparameters</h2>
        {params.length === 0 ? (
          <p>{run ? "This run reported no hyperparameters." : "The job has not run yet."}</p>
        ) : (
          <DataTable class="hparams" columns={["Name", "Value"]}>
            {params.map(([k, v]) => (
              <tr>
                <th scope="row">{k}</th>
                <td class="mono">{jsonText(v)}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>
      <section aria-labelledby="env-h">
        <h2 id="env-h">Environment</h2>
        {!env || (env.nodes.length === 0 && env.probes.length === 0) ? (
          <p>{run ? "This run reported no environment." : "The job has not run yet."}</p>
        ) : (
          <>
            {env.nodes.length > 0 ? (
              <div class="table-wrap">
                <table class="env-nodes">
                  <caption>Nodes</caption>
                  <thead>
                    <tr>
                      <th scope="col">Host</th>
                      <th scope="col">CPU</th>
                      <th scope="col">GPU</th>
                      <th scope="col">Updated</th>
                    </tr>
                  </thead>
                  <tbody>
                    {env.nodes.map((n) => (
                      <tr>
                        <th scope="row">{n.hostname}</th>
                        <td class="mono">{jsonText(n.cpu)}</td>
                        <td class="mono">{jsonText(n.gpu)}</td>
                        <td>
                          <Time iso={n.updated_at} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            ) : null}
            {env.probes.map((p) => (
              <section class="probe" aria-label={`Probe from ${p.hostname ?? "an unnamed host"}`}>
                <h3>
                  {p.hostname ?? "Unnamed host"} <span class="note">reported </span>
                  <Time iso={p.received_at} />
                </h3>
                <JsonList value={p.probe} />
              </section>
            ))}
          </>
        )}
      </section>
    </div>
  );
}

// samples ------------------------------------------------------------------------------------------

async function samplesTab(c: ConsoleCtx, detail: JobDetail, run: RunSummary | undefined): Promise<Child> {
  if (!run) return <NoRun what="validation samples" />;
  const { steps } = await apiGet<ValidationStepsView>(c, jobPath(detail, `validation?${runQuery(run)}`));
  if (steps.length === 0) {
    return (
      <Notice kind="empty" title="This job sent no validation samples">
        <p>
          Validation samples (prompts, answers and rewards at a step) appear here when the training reports
          them.
        </p>
      </Notice>
    );
  }
  const wanted = Number(c.req.query("step"));
  const chosen = steps.find((s) => s.step === wanted) ?? steps[steps.length - 1]!;
  const page = await apiGet<ValidationSamplesView>(
    c,
    jobPath(detail, `validation?${runQuery(run)}&step=${chosen.step}&limit=100`),
  );
  return (
    <div class="samples">
      <section aria-labelledby="val-steps-h">
        <h2 id="val-steps-h">Validation steps</h2>
        <DataTable columns={["Step", "Samples", "Average reward", "Complete", "Updated"]}>
          {steps.map((s) => (
            <tr aria-current={s.step === chosen.step ? "true" : undefined}>
              <th scope="row">
                <a href={hereWith(c, { step: String(s.step) })}>{`Step ${s.step}`}</a>
              </th>
              <td>{`${s.samples_received} of ${s.total_samples}`}</td>
              <td>{fmtNum(s.avg_reward)}</td>
              <td>{s.complete ? "yes" : "not yet"}</td>
              <td>
                <Time iso={s.updated_at} />
              </td>
            </tr>
          ))}
        </DataTable>
      </section>
      <section aria-labelledby="val-samples-h">
        <h2 id="val-samples-h">{`Samples at step ${chosen.step}`}</h2>
        <DataTable class="sample-table" columns={["#", "Reward", "Input", "Output", "Environment"]}>
          {page.samples.map((s) => (
            <tr>
              <th scope="row">{String(s.idx)}</th>
              <td>{fmtNum(s.reward)}</td>
              <td class="sample-text">{jsonText(s.user)}</td>
              <td class="sample-text">{jsonText(s.assistant)}</td>
              <td class="mono">{s.env === null ? "—" : jsonText(s.env)}</td>
            </tr>
          ))}
        </DataTable>
        {page.next_after !== null ? (
          <p class="note">{`The first ${page.samples.length} samples of this step are shown.`}</p>
        ) : null}
      </section>
    </div>
  );
}
