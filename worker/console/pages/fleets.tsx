/** @jsxImportSource hono/jsx */
/**
 * Fleets: every fleet with its capacity (GET /v1/fleets, then GET /v1/fleets/:fleet each), and one fleet's
 * page: nodes with their agent state, the GPU grid (which job holds each GPU; client/gpu-grid.ts keeps it
 * live), the queue with pending reasons, windows and the drain state (GET /v1/fleets/:fleet/maintenance).
 * Admins get cordon / uncordon / drain forms per node. A job's name is shown only when the viewer may
 * read the job (GET /v1/jobs/:id answers): another user's job is "another user's job".
 */
import { Hono } from "hono";
import type { FC } from "hono/jsx";
import type { FleetLive, FleetView } from "../../../contract/responses.schema.js";
import { ApiFailure, apiGet, apiSend, type ConsoleCtx, type ConsoleEnv } from "../api.js";
import { CsrfField, DataTable, Layout, Notice, Time } from "../layout.js";
import type { Session } from "../session.js";

type NodeView = FleetLive["nodes"][number];

interface Maintenance {
  fleet: string;
  draining: boolean;
  note: string | null;
  queued: number;
  running: number;
  paused: string[];
  held: string[];
  blockers: Array<{ job_id: string; name: string; status: string; reason: string }>;
}

/** What the viewer may know about a job: its name when readable, else only whose it is. */
export type JobLabel = { kind: "visible"; name: string } | { kind: "other" } | { kind: "unknown" };

/** Looks each job up as the viewer (in parallel): readable → its name; 403 → another user's. */
async function labelJobs(c: ConsoleCtx, ids: Iterable<string>): Promise<Map<string, JobLabel>> {
  const unique = [...new Set(ids)].slice(0, 200);
  const out = new Map<string, JobLabel>();
  await Promise.all(
    unique.map(async (id) => {
      try {
        const { job } = await apiGet<{ job: { name: string } }>(c, `/v1/jobs/${encodeURIComponent(id)}`);
        out.set(id, { kind: "visible", name: job.name });
      } catch (err) {
        if (err instanceof ApiFailure && err.status === 403) out.set(id, { kind: "other" });
        else if (err instanceof ApiFailure && err.status === 404) out.set(id, { kind: "unknown" });
        else throw err;
      }
    }),
  );
  return out;
}

/** The words a GPU cell says about its holder (the same the script writes when it updates a cell). */
export function gpuHolderText(jobId: string | null, label: JobLabel | undefined): string {
  if (!jobId) return "free";
  if (label?.kind === "visible") return `held by job ${label.name}`;
  if (label?.kind === "other") return "held by another user's job";
  return "held by a job";
}

/** A node's agent state as the API reports it: revoked, lost, cordoned, connected (or admin-registered). */
export function agentState(n: NodeView): { word: string; detail: string | null; tone: string } {
  if (n.revoked) return { word: "revoked", detail: n.cordon_note, tone: "bad" };
  if (n.status === "lost") return { word: "lost", detail: null, tone: "bad" };
  if (n.cordoned) return { word: "cordoned", detail: n.cordon_note, tone: "warn" };
  if (n.status !== "ready") return { word: n.status, detail: n.status_reason, tone: "warn" };
  return n.agent
    ? { word: "connected", detail: null, tone: "ok" }
    : { word: "ready", detail: "registered by an admin, no agent", tone: "ok" };
}

const GpuCell: FC<{ node: NodeView; index: number; jobId: string | null; label: JobLabel | undefined }> = ({
  node,
  index,
  jobId,
  label,
}) => {
  const text = gpuHolderText(jobId, label);
  const cls = !jobId ? "gpu free" : label?.kind === "visible" ? "gpu held mine" : "gpu held other";
  return (
    // biome-ignore lint/a11y/useSemanticElements: a grid cell (a div: the DOM contract of the GPU grid), named for AT
    <div
      class={cls}
      role="group"
      data-gpu={`${node.name}:${index}`}
      data-job-id={jobId ?? ""}
      aria-label={`GPU ${index} on ${node.name}: ${text}`}
    >
      <span class="gpu-index">{`GPU ${index}`}</span>
      <span class="gpu-holder">
        {jobId && label?.kind === "visible" ? (
          <a href={`/console/jobs/${encodeURIComponent(jobId)}`}>{label.name}</a>
        ) : jobId ? (
          label?.kind === "other" ? (
            "another user's job"
          ) : (
            "a job"
          )
        ) : (
          "free"
        )}
      </span>
    </div>
  );
};

const NodeActions: FC<{ fleet: string; node: NodeView; session: Session }> = ({ fleet, node, session }) => {
  const base = `/console/fleets/${encodeURIComponent(fleet)}/nodes/${encodeURIComponent(node.name)}`;
  const actions = node.cordoned ? (["uncordon"] as const) : (["cordon", "drain"] as const);
  return (
    <div class="node-actions">
      {actions.map((a) => (
        <form method="post" action={`${base}/${a}`}>
          <CsrfField session={session} />
          <button type="submit" class={a === "drain" ? "danger" : ""}>
            {`${a[0]!.toUpperCase()}${a.slice(1)}`}
            <span class="visually-hidden">{` node ${node.name}`}</span>
          </button>
        </form>
      ))}
    </div>
  );
};

function windowText(w: unknown): string {
  const x = w as { series?: string; days?: number[]; start?: string; end?: string; tz?: string };
  const names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
  const days = (x.days ?? []).map((d) => names[d] ?? String(d)).join(", ");
  return `${days} ${x.start ?? "?"}–${x.end ?? "?"} ${x.tz ?? "UTC"}${x.series ? ` (${x.series})` : ""}`;
}

async function fleetPage(c: ConsoleCtx, fleetRef: string, flash?: { kind: "error" | "info"; text: string }) {
  const session = c.get("session");
  const admin = session.principal.role === "admin";
  const enc = encodeURIComponent(fleetRef);
  const [live, maint] = await Promise.all([
    apiGet<FleetLive>(c, `/v1/fleets/${enc}`),
    apiGet<Maintenance>(c, `/v1/fleets/${enc}/maintenance`),
  ]);
  const name = live.fleet.name;
  const holders = live.nodes.flatMap((n) => n.gpus.map((g) => g.job_id).filter((x): x is string => !!x));
  const labels = await labelJobs(c, [...holders, ...live.queue.map((q) => q.job_id)]);
  const mine = session.principal.userId;
  return c.html(
    <Layout title={`Fleet ${name}`} session={session} section="fleets">
      <p class="crumbs">
        <a href="/console/fleets">Fleets</a>
      </p>
      <h1>{`Fleet ${name}`}</h1>
      {flash ? (
        <Notice kind={flash.kind} title={flash.kind === "error" ? "The action was refused" : "Done"}>
          <p>{flash.text}</p>
        </Notice>
      ) : null}
      <dl class="fleet-facts">
        <dt>Kind</dt>
        <dd>{live.fleet.kind}</dd>
        <dt>GPUs</dt>
        <dd>{`${live.totals.free} free of ${live.totals.gpus}`}</dd>
        <dt>Running</dt>
        <dd>{String(live.totals.running)}</dd>
        <dt>Queued</dt>
        <dd>{String(live.totals.queued)}</dd>
        <dt>Drain</dt>
        <dd>
          {maint.draining ? (
            <span class="state state-PAUSED">{`draining${maint.note ? `: ${maint.note}` : ""}`}</span>
          ) : (
            "not draining"
          )}
        </dd>
      </dl>

      <section aria-labelledby="gpus-h">
        <h2 id="gpus-h">GPUs</h2>
        {live.nodes.length === 0 ? (
          <Notice kind="empty" title="No nodes yet">
            <p>
              Enroll an agent with <code>sf fleet enroll</code> or register a node as an admin.
            </p>
          </Notice>
        ) : (
          <div class="gpu-grid" data-live-fleet={name} aria-live="off">
            {live.nodes.map((n) => (
              <div class="gpu-node">
                <h3>{n.name}</h3>
                <div class="gpu-row">
                  {n.gpus.map((g) => (
                    <GpuCell
                      node={n}
                      index={g.index}
                      jobId={g.job_id}
                      label={g.job_id ? labels.get(g.job_id) : undefined}
                    />
                  ))}
                  {n.gpus.length === 0 ? <span class="note">no GPUs</span> : null}
                </div>
              </div>
            ))}
          </div>
        )}
      </section>

      <section aria-labelledby="nodes-h">
        <h2 id="nodes-h">Nodes</h2>
        {live.nodes.length === 0 ? (
          <p class="note">None.</p>
        ) : (
          <div class="table-wrap">
            <table class="nodes">
              <thead>
                <tr>
                  <th scope="col">Node</th>
                  <th scope="col">Agent state</th>
                  <th scope="col">Series</th>
                  <th scope="col">GPUs in use</th>
                  <th scope="col">Labels</th>
                  {admin ? <th scope="col">Actions</th> : null}
                </tr>
              </thead>
              <tbody>
                {live.nodes.map((n) => {
                  const st = agentState(n);
                  const used = n.gpus.filter((g) => g.job_id || g.run_id).length;
                  const labelPairs = Object.entries(n.labels);
                  return (
                    <tr>
                      <th scope="row">{n.name}</th>
                      <td>
                        <span class={`agent agent-${st.tone}`} data-agent-state={st.word}>
                          {st.word}
                        </span>
                        {n.status === "lost" && n.lost_since ? (
                          <span class="note">
                            {" since "}
                            <Time iso={n.lost_since} />
                          </span>
                        ) : null}
                        {st.detail ? <span class="note">{` (${st.detail})`}</span> : null}
                      </td>
                      <td>{n.series}</td>
                      <td>{`${used} / ${n.gpus.length}`}</td>
                      <td>
                        {labelPairs.length === 0 ? (
                          <span class="note">none</span>
                        ) : (
                          <ul class="labels">
                            {labelPairs.map(([k, v]) => (
                              <li>
                                <code>{`${k}=${v}`}</code>
                              </li>
                            ))}
                          </ul>
                        )}
                      </td>
                      {admin ? (
                        <td>
                          <NodeActions fleet={name} node={n} session={session} />
                        </td>
                      ) : null}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <section aria-labelledby="queue-h">
        <h2 id="queue-h">Queue</h2>
        {live.queue.length === 0 ? (
          <p class="note">No job is waiting.</p>
        ) : (
          <DataTable class="queue" columns={["Job", "GPUs", "Priority", "Why it waits"]}>
            {live.queue.map((q) => {
              const l = labels.get(q.job_id);
              return (
                <tr>
                  <td>
                    {l?.kind === "visible" ? (
                      <a href={`/console/jobs/${encodeURIComponent(q.job_id)}`}>{l.name}</a>
                    ) : q.user_id === mine ? (
                      <a href={`/console/jobs/${encodeURIComponent(q.job_id)}`}>{q.job_id}</a>
                    ) : (
                      <span class="note">another user's job</span>
                    )}
                  </td>
                  <td>{String(q.gpus)}</td>
                  <td>{String(q.priority)}</td>
                  <td>
                    {q.pending_reasons.length === 0 ? (
                      <span class="note">waiting for a scheduling pass</span>
                    ) : (
                      <ul class="reasons">
                        {q.pending_reasons.map((r) => (
                          <li>
                            <code>{r.code}</code> {r.message}
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                </tr>
              );
            })}
          </DataTable>
        )}
      </section>

      <section aria-labelledby="maint-h">
        <h2 id="maint-h">Windows and maintenance</h2>
        {live.windows.length === 0 ? (
          <p class="note">No time windows: every GPU may be scheduled at any time.</p>
        ) : (
          <ul class="windows">
            {live.windows.map((w) => (
              <li>{windowText(w)}</li>
            ))}
          </ul>
        )}
        {maint.draining || maint.blockers.length > 0 || maint.paused.length > 0 || maint.held.length > 0 ? (
          <dl class="fleet-facts">
            <dt>Paused by the drain</dt>
            <dd>{String(maint.paused.length)}</dd>
            <dt>Held in the queue</dt>
            <dd>{String(maint.held.length)}</dd>
            <dt>Blockers</dt>
            <dd>
              {maint.blockers.length === 0 ? (
                "none"
              ) : (
                <ul class="reasons">
                  {maint.blockers.map((b) => (
                    <li>
                      {labels.get(b.job_id)?.kind === "visible" || admin ? b.name : "another user's job"}
                      {` (${b.status}): ${b.reason}`}
                    </li>
                  ))}
                </ul>
              )}
            </dd>
          </dl>
        ) : (
          <p class="note">The fleet is not draining.</p>
        )}
      </section>
    </Layout>,
    flash?.kind === "error" ? 409 : 200,
  );
}

export const fleetPages = new Hono<ConsoleEnv>()
  .get("/fleets", async (c) => {
    const session = c.get("session");
    const { fleets } = await apiGet<{ fleets: FleetView[] }>(c, "/v1/fleets");
    const lives = await Promise.all(
      fleets.map((f) => apiGet<FleetLive>(c, `/v1/fleets/${encodeURIComponent(f.name)}`)),
    );
    return c.html(
      <Layout title="Fleets" session={session} section="fleets">
        <h1>Fleets</h1>
        {fleets.length === 0 ? (
          <Notice kind="empty" title="No fleets yet">
            <p>
              An admin creates one with <code>sf fleet create</code>.
            </p>
          </Notice>
        ) : (
          <DataTable
            class="fleets"
            columns={["Fleet", "Kind", "Nodes", "GPUs free / total", "Running", "Queued", "Drain"]}
          >
            {fleets.map((f, i) => {
              const l = lives[i]!;
              return (
                <tr>
                  <th scope="row">
                    <a href={`/console/fleets/${encodeURIComponent(f.name)}`}>{f.name}</a>
                  </th>
                  <td>{f.kind}</td>
                  <td>{String(l.nodes.length)}</td>
                  <td>{`${l.totals.free} / ${l.totals.gpus}`}</td>
                  <td>{String(l.totals.running)}</td>
                  <td>{String(l.totals.queued)}</td>
                  <td>{l.draining ? "draining" : "—"}</td>
                </tr>
              );
            })}
          </DataTable>
        )}
      </Layout>,
    );
  })
  .get("/fleets/:fleet", (c) => fleetPage(c, c.req.param("fleet")))
  .post("/fleets/:fleet/nodes/:node/cordon", (c) => nodeAction(c, "cordon"))
  .post("/fleets/:fleet/nodes/:node/uncordon", (c) => nodeAction(c, "uncordon"))
  .post("/fleets/:fleet/nodes/:node/drain", (c) => nodeAction(c, "drain"));

/** An admin's cordon / uncordon / drain of a node: the API decides; a refusal shows its code on the page. */
async function nodeAction(c: ConsoleCtx, action: "cordon" | "uncordon" | "drain") {
  const fleet = c.req.param("fleet")!;
  const node = c.req.param("node")!;
  const path = `/v1/fleets/${encodeURIComponent(fleet)}/nodes/${encodeURIComponent(node)}/${action}`;
  try {
    const r = await apiSend<{ requeued: string[]; blockers: unknown[] }>(c, "POST", path);
    const extra =
      action === "drain" ? ` ${r.requeued.length} job(s) requeued, ${r.blockers.length} blocker(s).` : "";
    return fleetPage(c, fleet, { kind: "info", text: `Node ${node}: ${action} done.${extra}` });
  } catch (err) {
    if (err instanceof ApiFailure && err.status !== 403 && err.status !== 404)
      return fleetPage(c, fleet, { kind: "error", text: `${err.code}: ${err.message}` });
    throw err;
  }
}
