/** @jsxImportSource hono/jsx */
/**
 * The jobs list: filters in a GET form (so a filtered list is a link to share), newest first, 50 a page
 * with an "Older" link (the API's cursor), and rows the script (client/live.ts) keeps current by polling
 * the same query through /console/api with If-None-Match. Everything it shows comes from GET /v1/jobs.
 */
import { Hono } from "hono";
import type { FC } from "hono/jsx";
import type { JobView } from "../../../contract/api.schema.js";
import { JOB_STATES, type JobState } from "../../../contract/job-states.js";
import { formatDuration } from "../../../contract/time.js";
import { ApiFailure, apiGet, type ConsoleCtx, type ConsoleEnv } from "../api.js";
import { Layout, Notice, Time } from "../layout.js";

const PAGE_SIZE = 50;

/** How long a job ran (or has been running): from its first run's start to its end, or to now. */
export function durationOf(started: string | null | undefined, ended: string | null | undefined): string {
  if (!started) return "—";
  const end = ended ? Date.parse(ended) : Date.now();
  return formatDuration(end - Date.parse(started));
}

/** A job's state as a badge; `data-job-state` is what the script and the UI tests read. */
export const StateBadge: FC<{ state: string }> = ({ state }) => (
  <span class={`state state-${state}`} data-job-state="">
    {state}
  </span>
);

interface Filters {
  states: JobState[];
  /** Admins only: a user's name, or "" for everybody's jobs. */
  user: string;
  fleet: string;
  method: string;
  q: string;
  cursor: string;
}

function filtersOf(c: ConsoleCtx): Filters {
  const one = (k: string) => (c.req.query(k) ?? "").trim();
  const states = (c.req.queries("state") ?? [])
    .flatMap((s) => s.split(","))
    .map((s) => s.trim().toUpperCase())
    .filter((s): s is JobState => (JOB_STATES as readonly string[]).includes(s));
  return {
    states: [...new Set(states)],
    user: one("user"),
    fleet: one("fleet"),
    method: one("method"),
    q: one("q"),
    cursor: one("cursor"),
  };
}

/** The page's own query (for links and the script), without the cursor. */
function pageQuery(f: Filters, admin: boolean): URLSearchParams {
  const p = new URLSearchParams();
  for (const s of f.states) p.append("state", s);
  if (admin && f.user) p.set("user", f.user);
  if (f.fleet) p.set("fleet", f.fleet);
  if (f.method) p.set("method", f.method);
  if (f.q) p.set("q", f.q);
  return p;
}

/** The same filters as GET /v1/jobs takes them. Admins see everybody's jobs unless they name a user. */
function apiQuery(f: Filters, admin: boolean): URLSearchParams {
  const p = new URLSearchParams();
  if (admin) {
    if (f.user) p.set("user", f.user);
    else p.set("all", "1");
  }
  if (f.states.length) p.set("status", f.states.join(","));
  if (f.fleet) p.set("fleet", f.fleet);
  if (f.method) p.set("method", f.method);
  if (f.q) p.set("q", f.q);
  p.set("limit", String(PAGE_SIZE));
  return p;
}

interface FleetItem {
  id: string;
  name: string;
}
interface CatalogLite {
  recipes: Array<{ name: string }>;
}

const FilterForm: FC<{ f: Filters; admin: boolean; fleets: FleetItem[]; methods: string[] }> = ({
  f,
  admin,
  fleets,
  methods,
}) => (
  <form class="job-filters" method="get" action="/console/jobs" aria-label="Filter jobs">
    <fieldset class="states">
      <legend>State</legend>
      {JOB_STATES.map((s) => (
        <span class="check">
          <input type="checkbox" id={`state-${s}`} name="state" value={s} checked={f.states.includes(s)} />
          <label for={`state-${s}`}>{s}</label>
        </span>
      ))}
    </fieldset>
    <div class="fields">
      {admin ? (
        <div>
          <label for="filter-user">User</label>
          <input
            type="text"
            id="filter-user"
            name="user"
            value={f.user}
            placeholder="everybody"
            aria-describedby="filter-user-hint"
            autocomplete="off"
          />
          <span id="filter-user-hint" class="note">
            A user's name; empty for everybody's jobs.
          </span>
        </div>
      ) : null}
      <div>
        <label for="filter-fleet">Fleet</label>
        <select id="filter-fleet" name="fleet">
          <option value="" selected={!f.fleet}>
            Any fleet
          </option>
          {fleets.map((fl) => (
            <option value={fl.name} selected={f.fleet === fl.name || f.fleet === fl.id}>
              {fl.name}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="filter-method">Method</label>
        <input
          type="text"
          id="filter-method"
          name="method"
          value={f.method}
          list="filter-methods"
          placeholder="python/charlm"
          autocomplete="off"
        />
        <datalist id="filter-methods">
          {methods.map((m) => (
            <option value={m} />
          ))}
        </datalist>
      </div>
      <div>
        <label for="filter-q">Search names</label>
        <input type="search" id="filter-q" name="q" value={f.q} maxlength={100} />
      </div>
    </div>
    <div class="job-buttons">
      <button type="submit" class="primary">
        Filter
      </button>
      <a class="button" href="/console/jobs">
        Clear
      </a>
    </div>
  </form>
);

const JobsTable: FC<{ jobs: JobView[]; admin: boolean; fleetNames: Map<string, string> }> = ({
  jobs,
  admin,
  fleetNames,
}) => (
  <div class="table-wrap">
    <table class="jobs">
      <caption class="visually-hidden">Jobs, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">State</th>
          <th scope="col">Profile</th>
          <th scope="col">GPUs</th>
          {admin ? <th scope="col">User</th> : null}
          <th scope="col">Fleet</th>
          <th scope="col">Created</th>
          <th scope="col">Duration</th>
        </tr>
      </thead>
      <tbody>
        {jobs.map((j) => (
          <tr data-job-id={j.id}>
            <th scope="row">
              <a href={`/console/jobs/${encodeURIComponent(j.id)}`}>{j.name}</a>
            </th>
            <td>
              <StateBadge state={j.status} />
            </td>
            <td>{j.profile ?? "—"}</td>
            <td class="num">{j.gpus}</td>
            {admin ? <td>{j.user ?? "—"}</td> : null}
            <td>{fleetNames.get(j.fleet_id) ?? j.fleet_id}</td>
            <td>
              <Time iso={j.created_at} />
            </td>
            <td
              class="num"
              data-duration=""
              data-started={j.started_at ?? undefined}
              data-ended={j.ended_at ?? undefined}
            >
              {durationOf(j.started_at, j.ended_at)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  </div>
);

export const jobsPages = new Hono<ConsoleEnv>().get("/jobs", async (c) => {
  const session = c.get("session");
  const admin = session.principal.role === "admin";
  const f = filtersOf(c);
  const query = apiQuery(f, admin);
  const listQuery = new URLSearchParams(query);
  if (f.cursor) listQuery.set("cursor", f.cursor);
  // The filter's choices are a convenience: the page still works if either read fails.
  const [list, fleets, catalog] = await Promise.all([
    apiGet<{ jobs: JobView[]; next_cursor: string | null }>(c, `/v1/jobs?${listQuery}`).catch(
      (err: unknown) => {
        // A refused filter (an unknown fleet or user, a malformed method) is shown on the form.
        if (err instanceof ApiFailure) return err;
        throw err;
      },
    ),
    apiGet<{ fleets: FleetItem[] }>(c, "/v1/fleets").catch(() => ({ fleets: [] })),
    apiGet<CatalogLite>(c, "/v1/catalog").catch(() => ({ recipes: [] })),
  ]);
  const filtered = f.states.length > 0 || (admin && f.user !== "") || !!(f.fleet || f.method || f.q);
  const fleetNames = new Map(fleets.fleets.map((fl) => [fl.id, fl.name]));
  const here = pageQuery(f, admin);
  const older = list instanceof ApiFailure || !list.next_cursor ? null : new URLSearchParams(here);
  if (older && !(list instanceof ApiFailure)) older.set("cursor", list.next_cursor!);
  return c.html(
    <Layout title="Jobs" session={session} section="jobs">
      <h1>Jobs</h1>
      <FilterForm
        f={f}
        admin={admin}
        fleets={fleets.fleets}
        methods={[...new Set(catalog.recipes.map((r) => r.name))]}
      />
      <p class="live-status note" aria-live="polite" data-live-status="" />
      {list instanceof ApiFailure ? (
        <Notice kind="error" title={`These filters were refused (${list.code})`}>
          <p>{list.message}</p>
        </Notice>
      ) : list.jobs.length === 0 ? (
        filtered || f.cursor ? (
          <Notice kind="empty" title="No jobs match these filters">
            <p>
              <a href="/console/jobs">Show all jobs</a>
            </p>
          </Notice>
        ) : (
          <Notice kind="empty" title="No jobs yet">
            <p>
              Submit one with <code>sf submit</code>.
            </p>
          </Notice>
        )
      ) : (
        <div data-live-jobs={`/console/api/jobs?${listQuery}`}>
          <JobsTable jobs={list.jobs} admin={admin} fleetNames={fleetNames} />
        </div>
      )}
      {f.cursor || older ? (
        <nav class="pager" aria-label="Pages">
          {f.cursor ? <a href={`/console/jobs${here.toString() ? `?${here}` : ""}`}>Newest</a> : null}
          {older ? <a href={`/console/jobs?${older}`}>Older</a> : null}
        </nav>
      ) : null}
    </Layout>,
    list instanceof ApiFailure ? (list.status as 400) : 200,
  );
});
