/** @jsxImportSource hono/jsx */
/**
 * The tabs that show what a run recorded: Events, Hardware, Artifacts, Config and Samples. Rendered from
 * the /v1 read routes; values are JSX text or attributes, so escaped.
 */
import type { Child } from "hono/jsx";
import type {
  ArtifactView,
  EnvironmentView,
  HardwareSeriesList,
  HparamsView,
  Json,
  ValidationSamplesView,
  ValidationStepsView,
} from "../../../contract/readback.schema.js";
import { apiGet, type ConsoleCtx } from "../api.js";
import type { JobDetail, RunSummary } from "../job-data.js";
import { DataTable, Notice, Time } from "../layout.js";
import {
  fmtBytes,
  fmtNum,
  hereWith,
  jobPath,
  jsonText,
  NoRun,
  runIsLive,
  runQuery,
} from "./job-tab-shared.js";

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

export function eventsTab(detail: JobDetail): Child {
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

export async function hardwareTab(
  c: ConsoleCtx,
  detail: JobDetail,
  run: RunSummary | undefined,
): Promise<Child> {
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

export async function artifactsTab(
  c: ConsoleCtx,
  detail: JobDetail,
  run: RunSummary | undefined,
): Promise<Child> {
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

export async function configTab(
  c: ConsoleCtx,
  detail: JobDetail,
  run: RunSummary | undefined,
): Promise<Child> {
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

export async function samplesTab(
  c: ConsoleCtx,
  detail: JobDetail,
  run: RunSummary | undefined,
): Promise<Child> {
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
