/** @jsxImportSource hono/jsx */
/**
 * The job page: a header (state with its reason, why the latest run failed (pages/job-diagnosis.tsx),
 * profile, GPUs, nodes, timings, provenance), the actions (stop, pause, resume, retry: each a form,
 * confirmed on a page of its own), the run selector with each failed run's class, and the tab
 * bar over the tab being shown (pages/job-tabs.tsx). Everything comes from GET /v1/jobs/:id as the
 * signed-in user: another user's job, or a missing one, is the 404 page (index.tsx onError). The header
 * carries data-live-job so the script (client/live.ts) keeps its state and buttons current.
 */
import { Hono } from "hono";
import type { Child, FC } from "hono/jsx";
import type { ErrorBody } from "../../../contract/errors.js";
import { ACTION_TARGETS, type JobState, RESTING_STATES } from "../../../contract/job-states.js";
import { ApiFailure, apiFetch, apiGet, apiSend, type ConsoleCtx, type ConsoleEnv } from "../api.js";
import {
  type JobDetail,
  loadJob,
  type RunSummary,
  selectedRun,
  TAB_LABELS,
  TABS,
  type TabName,
} from "../job-data.js";
import { CsrfField, Layout, Notice, Time } from "../layout.js";
import type { Session } from "../session.js";
import { DiagnosisSlot, RunClass } from "./job-diagnosis.js";
import { Placement } from "./job-placement.js";
import { tabContent } from "./job-tabs.js";
import { durationOf, StateBadge } from "./jobs.js";

export const ACTIONS = ["stop", "pause", "resume", "retry"] as const;
export type Action = (typeof ACTIONS)[number];

const LABEL: Record<Action, string> = { stop: "Stop", pause: "Pause", resume: "Resume", retry: "Retry" };

const ENDED: JobState[] = ["FAILED", "STOPPED", "SUCCEEDED"];

/**
 * The states each action is allowed from: the API's own table (contract/job-states.ts ACTION_TARGETS, what
 * the Fleet DO checks), and for retry the states a job has ended in (it submits the spec again).
 */
export const ALLOWED_FROM: Record<Action, JobState[]> = {
  stop: Object.keys(ACTION_TARGETS.stop) as JobState[],
  pause: Object.keys(ACTION_TARGETS.pause) as JobState[],
  resume: Object.keys(ACTION_TARGETS.resume) as JobState[],
  retry: ENDED,
};

const EXPLAIN: Record<Action, string> = {
  stop: "The job stops; a running one gets SIGTERM and time to checkpoint, and its GPUs are released. It can be resumed later from its last checkpoint.",
  pause:
    "A running job checkpoints and releases its GPUs; a waiting one is held. Resume puts it back in the queue at its priority.",
  resume: "The job waits in the queue again and continues from its last checkpoint when it gets GPUs.",
  retry:
    "A new job is submitted with this job's spec (same method, hyperparameters, code and resources). This job is left as it is.",
};

/** What a refused action left to show on the job page. */
interface Refusal {
  action: Action;
  code: string;
  message: string;
}

interface SpecLite {
  recipe?: { name?: string; version?: string };
  provenance?: { git_commit?: string | null; git_dirty?: boolean; config_sha?: string };
  resources?: { pools?: Array<{ name?: string; profile?: string; nodes?: number; gpus_per_node?: number }> };
}

interface PlacementLite {
  rank: number;
  pool: string;
  node_id: string;
  gpu_indices: number[];
}

function placementOf(run: RunSummary | undefined): PlacementLite[] {
  return Array.isArray(run?.placement) ? (run.placement as PlacementLite[]) : [];
}

function jobPath(id: string, tab?: TabName): string {
  return `/console/jobs/${encodeURIComponent(id)}${tab ? `/${tab}` : ""}`;
}

const Fact: FC<{ term: string; children?: Child }> = ({ term, children }) => (
  <div>
    <dt>{term}</dt>
    <dd>{children}</dd>
  </div>
);

const Actions: FC<{ detail: JobDetail; session: Session }> = ({ detail, session }) => {
  const { job } = detail;
  const operator = session.principal.role !== "viewer";
  return (
    <div class="job-actions">
      {ACTIONS.map((a) => {
        const allowed = operator ? ALLOWED_FROM[a] : [];
        const ok = allowed.includes(job.status);
        const why = operator
          ? `${LABEL[a]} is possible only when the job is ${ALLOWED_FROM[a].join(", ")}`
          : `${LABEL[a]} needs the operator role`;
        return (
          <form method="post" action={`${jobPath(job.id)}/${a}`}>
            <CsrfField session={session} />
            <button
              type="submit"
              class={a === "stop" ? "danger" : undefined}
              data-action={a}
              data-allowed={allowed.join(" ")}
              data-why={why}
              disabled={!ok}
              title={ok ? undefined : why}
              aria-describedby={`why-${a}`}
            >
              {LABEL[a]}
            </button>
            <span id={`why-${a}`} class="visually-hidden" data-why-for={a}>
              {ok ? "" : why}
            </span>
          </form>
        );
      })}
      {operator ? null : <p class="note role-note">Actions need the operator role; you are a viewer.</p>}
    </div>
  );
};

/** What a preemption's event says (durable-objects/fleet/rules/preempt.ts). */
interface PreemptionDetail {
  preempted?: unknown;
  /** priority: a job of a higher class needed the GPUs; reclaim: a team took back its guarantee. */
  cause?: "priority" | "reclaim";
  preempted_by?: string;
  /** reclaim: the team this job ran for, and the team that took its GPUs back. */
  team?: string | null;
  reclaiming_team?: string | null;
  grace_seconds?: number;
}

/**
 * A job displaced by a higher priority class, or whose borrowed GPUs a team reclaimed: how often, the
 * last time by which job (and for a reclaim, which team), and what follows.
 */
const Preempted: FC<{ detail: JobDetail }> = ({ detail }) => {
  const times = detail.events.filter(
    (e) =>
      e.to === "PAUSED" && e.actor === "system:preempt" && (e.detail as PreemptionDetail | null)?.preempted,
  );
  const last = times.at(-1);
  if (!last) return null;
  const d = last.detail as PreemptionDetail;
  const by = d.preempted_by ? <a href={jobPath(d.preempted_by)}>{d.preempted_by}</a> : null;
  return (
    <p class="preempted note" data-preempted={String(times.length)} data-cause={d.cause ?? "priority"}>
      {`Preempted ${times.length === 1 ? "once" : `${times.length} times`}, last `}
      <Time iso={last.ts} />
      {d.cause === "reclaim" ? (
        <>
          {`: reclaimed by team ${d.reclaiming_team ?? "?"}`}
          {by ? <> (job {by})</> : null}
          {", which took back the guaranteed GPUs this job had borrowed"}
        </>
      ) : (
        <>
          {" by "}
          {by ?? "a higher priority class"}
        </>
      )}
      {`: it had ${d.grace_seconds ?? "?"} s to checkpoint and waits in its place to resume from it (no retry used).`}
    </p>
  );
};

/** Marks a run that used GPUs beyond its team's guarantee (lent by idle teams, who may reclaim them). */
const Borrowed: FC<{ run: RunSummary | undefined }> = ({ run }) =>
  run?.borrowed ? (
    <span class="note borrowed" data-borrowed={run.id}>
      {" · borrowed"}
    </span>
  ) : null;

const Header: FC<{ detail: JobDetail; nodeNames: Map<string, string>; session: Session }> = ({
  detail,
  nodeNames,
  session,
}) => {
  const { job, runs } = detail;
  const spec = (job.spec ?? {}) as SpecLite;
  const latest = runs.at(-1);
  const profiles = [...new Set((spec.resources?.pools ?? []).map((p) => p.profile).filter(Boolean))];
  const nodes = [...new Set(placementOf(latest).map((p) => p.node_id))];
  const gpusOn = (node: string) =>
    placementOf(latest)
      .filter((p) => p.node_id === node)
      .flatMap((p) => p.gpu_indices);
  const started = runs[0]?.allocated_at ?? null;
  const ended = RESTING_STATES.has(job.status) ? (latest?.ended_at ?? null) : null;
  const showReason = (job.status === "FAILED" || job.status === "STOPPED") && latest?.reason;
  const prov = spec.provenance;
  return (
    <header class="job-head" data-live-job={job.id}>
      <h1>{job.name}</h1>
      <p class="job-state">
        <StateBadge state={job.status} />
        {showReason ? <span class="reason">{latest!.reason}</span> : null}
      </p>
      <p class="live-status note" aria-live="polite" data-live-status="" />
      <DiagnosisSlot detail={detail} />
      <Preempted detail={detail} />
      {job.status === "QUEUED" && job.pending_reasons.length > 0 ? (
        <div class="pending">
          <h2>Waiting because</h2>
          <ul>
            {job.pending_reasons.map((r) => (
              <li>
                <code>{r.code}</code> {r.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <Actions detail={detail} session={session} />
      <dl class="job-facts">
        <Fact term="Profile">{profiles.length ? profiles.join(", ") : "—"}</Fact>
        <Fact term="GPUs">{String(job.gpus)}</Fact>
        <Fact term="Priority class">{job.priority_class ?? "normal"}</Fact>
        <Fact term="Team">
          {job.team ?? "no team"}
          {latest?.borrowed ? (
            <span class="note borrowed">
              {` (run ${latest.attempt} borrowed: GPUs beyond ${job.team ? `team ${job.team}'s` : "any team's"} guarantee, which a team may reclaim)`}
            </span>
          ) : null}
        </Fact>
        <Fact term={nodes.length > 1 ? "Nodes" : "Node"}>
          {nodes.length
            ? nodes.map((n, i) => (
                <span class="node">
                  {i > 0 ? ", " : ""}
                  {nodeNames.get(n) ?? n} <span class="note">{`(GPU ${gpusOn(n).join(", ")})`}</span>
                </span>
              ))
            : "—"}
        </Fact>
        <Fact term="Created">
          <Time iso={job.created_at} />
        </Fact>
        <Fact term="Started">
          <Time iso={started} />
        </Fact>
        <Fact term="Ended">
          <Time iso={ended} />
        </Fact>
        <Fact term="Duration">
          <span data-duration="" data-started={started ?? undefined} data-ended={ended ?? undefined}>
            {durationOf(started, ended)}
          </span>
        </Fact>
        <Fact term="Method">
          {spec.recipe?.name ? (
            <>
              <code>{spec.recipe.name}</code> {spec.recipe.version ?? ""}
            </>
          ) : (
            job.recipe
          )}
        </Fact>
        <Fact term="Commit">
          {prov?.git_commit ? <code>{prov.git_commit}</code> : "—"}
          {prov?.git_dirty ? <span class="dirty"> (uncommitted changes)</span> : null}
        </Fact>
        <Fact term="Config digest">
          {prov?.config_sha ? <code class="digest">{prov.config_sha}</code> : "—"}
        </Fact>
      </dl>
      <Placement events={detail.events} />
    </header>
  );
};

const RunSelector: FC<{ detail: JobDetail; run: RunSummary | undefined; tab: TabName }> = ({
  detail,
  run,
  tab,
}) =>
  detail.runs.length > 1 ? (
    <nav class="runs" aria-label="Runs">
      <ul class="run-list">
        {detail.runs.map((r) => (
          <li>
            <a
              href={`${jobPath(detail.job.id, tab)}?run=${encodeURIComponent(r.id)}`}
              aria-current={r.id === run?.id ? "page" : undefined}
            >
              {`Run ${r.attempt}`} <span class="note">{r.status}</span>
              <RunClass run={r} />
              <Borrowed run={r} />
            </a>
          </li>
        ))}
      </ul>
    </nav>
  ) : null;

const TabBar: FC<{ detail: JobDetail; tab: TabName; runParam: string }> = ({ detail, tab, runParam }) => (
  <nav class="tabs" aria-label="Job sections">
    <ul class="tab-list">
      {TABS.map((t) => (
        <li>
          <a href={`${jobPath(detail.job.id, t)}${runParam}`} aria-current={t === tab ? "page" : undefined}>
            {TAB_LABELS[t]}
          </a>
        </li>
      ))}
    </ul>
  </nav>
);

/** Node ids → names for the latest run's placement; ids are shown if the fleet cannot be read. */
async function nodeNamesOf(c: ConsoleCtx, detail: JobDetail): Promise<Map<string, string>> {
  if (placementOf(detail.runs.at(-1)).length === 0) return new Map();
  try {
    const { nodes } = await apiGet<{ nodes: Array<{ id: string; name: string }> }>(
      c,
      `/v1/fleets/${encodeURIComponent(detail.job.fleet_id)}/nodes`,
    );
    return new Map(nodes.map((n) => [n.id, n.name]));
  } catch {
    return new Map();
  }
}

async function renderJob(c: ConsoleCtx, id: string, tab: TabName, refusal?: Refusal, status = 200) {
  const session = c.get("session");
  const detail = await loadJob(c, id);
  const wanted = c.req.query("run");
  const run = selectedRun(detail, wanted);
  const runParam = wanted && run?.id === wanted ? `?run=${encodeURIComponent(wanted)}` : "";
  const [nodeNames, content] = await Promise.all([nodeNamesOf(c, detail), tabContent(c, detail, tab)]);
  return c.html(
    <Layout title={`${detail.job.name} · ${TAB_LABELS[tab]}`} session={session} section="jobs">
      <p class="crumbs">
        <a href="/console/jobs">Jobs</a>
      </p>
      <Header detail={detail} nodeNames={nodeNames} session={session} />
      {refusal ? (
        <Notice kind="error" title={`${LABEL[refusal.action]} was refused (${refusal.code})`}>
          <p>{refusal.message}</p>
        </Notice>
      ) : null}
      <RunSelector detail={detail} run={run} tab={tab} />
      <TabBar detail={detail} tab={tab} runParam={runParam} />
      <section class="tab" aria-label={TAB_LABELS[tab]}>
        {content}
      </section>
    </Layout>,
    status as 200,
  );
}

function isTab(t: string): t is TabName {
  return (TABS as readonly string[]).includes(t);
}

/** The confirmation page a first POST of an action answers with (works without the script). */
async function confirmPage(c: ConsoleCtx, id: string, action: Action) {
  const session = c.get("session");
  const { job } = await loadJob(c, id);
  const title = `${LABEL[action]} job ${job.name}?`;
  return c.html(
    <Layout title={title} session={session} section="jobs">
      <div class="confirm card narrow">
        <h1>{title}</h1>
        <p>
          The job is <StateBadge state={job.status} />.
        </p>
        <p>{EXPLAIN[action]}</p>
        <form method="post" action={`${jobPath(job.id)}/${action}`}>
          <CsrfField session={session} />
          <input type="hidden" name="confirm" value="1" />
          {action === "retry" ? (
            <input type="hidden" name="key" value={crypto.randomUUID()} />
          ) : (
            <>
              <label for="reason">Reason (optional, kept in the job's events)</label>
              <input type="text" id="reason" name="reason" maxlength={500} autocomplete="off" />
            </>
          )}
          <div class="job-buttons">
            <button type="submit" class={action === "stop" ? "danger" : "primary"}>
              {`Confirm ${action}`}
            </button>
            <a class="button" href={jobPath(job.id)}>
              Cancel
            </a>
          </div>
        </form>
      </div>
    </Layout>,
  );
}

/** POST /v1/jobs with the job's stored spec, keyed so a form sent twice makes one job. */
async function resubmit(c: ConsoleCtx, detail: JobDetail, key: string): Promise<string> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (/^[0-9a-f-]{36}$/.test(key)) headers["idempotency-key"] = `console-retry:${detail.job.id}:${key}`;
  const res = await apiFetch(c, "/v1/jobs", {
    method: "POST",
    headers,
    body: JSON.stringify(detail.job.spec),
  });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  if (!res.ok) {
    const e = (body as ErrorBody | null)?.error;
    throw new ApiFailure(res.status, e?.code ?? "INTERNAL", e?.message ?? `HTTP ${res.status}`, e?.details);
  }
  return (body as { job: { id: string } }).job.id;
}

async function act(c: ConsoleCtx, action: Action) {
  const id = c.req.param("id") ?? "";
  const form = await c.req.parseBody();
  if (form.confirm !== "1") return confirmPage(c, id, action);
  try {
    if (action === "retry") {
      const detail = await loadJob(c, id);
      if (!ENDED.includes(detail.job.status)) {
        throw new ApiFailure(
          409,
          "INVALID_TRANSITION",
          `only a job that ended (${ENDED.join(", ")}) can be retried; this one is ${detail.job.status}`,
        );
      }
      const created = await resubmit(c, detail, typeof form.key === "string" ? form.key : "");
      return c.redirect(jobPath(created), 303);
    }
    const reason = typeof form.reason === "string" ? form.reason.trim().slice(0, 500) : "";
    await apiSend(c, "POST", `/v1/jobs/${encodeURIComponent(id)}/${action}`, reason ? { reason } : {});
    return c.redirect(jobPath(id), 303);
  } catch (err) {
    if (!(err instanceof ApiFailure)) throw err;
    // The job page is rendered again with the refusal's code; a job the user may not see stays the 404
    // page (loadJob throws it), whatever the action said.
    return renderJob(c, id, "charts", { action, code: err.code, message: err.message }, err.status);
  }
}

export const jobPages = new Hono<ConsoleEnv>()
  .get("/jobs/:id", (c) => renderJob(c, c.req.param("id"), "charts"))
  .get("/jobs/:id/:tab", (c) => {
    const tab = c.req.param("tab");
    if (!isTab(tab)) throw new ApiFailure(404, "NOT_FOUND", "no such tab");
    return renderJob(c, c.req.param("id"), tab);
  })
  .post("/jobs/:id/stop", (c) => act(c, "stop"))
  .post("/jobs/:id/pause", (c) => act(c, "pause"))
  .post("/jobs/:id/resume", (c) => act(c, "resume"))
  .post("/jobs/:id/retry", (c) => act(c, "retry"));
