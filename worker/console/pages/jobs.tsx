/** @jsxImportSource hono/jsx */
/** The jobs list (issue 16: B grows it with filters, pagination, live updates). */
import { Hono } from "hono";
import type { JobView } from "../../../contract/api.schema.js";
import { apiGet, type ConsoleEnv } from "../api.js";
import { Layout, Notice, Time } from "../layout.js";

export const jobsPages = new Hono<ConsoleEnv>().get("/jobs", async (c) => {
  const { jobs } = await apiGet<{ jobs: JobView[]; next_cursor: string | null }>(c, "/v1/jobs?limit=50");
  return c.html(
    <Layout title="Jobs" session={c.get("session")} section="jobs">
      <h1>Jobs</h1>
      {jobs.length === 0 ? (
        <Notice kind="empty" title="No jobs yet">
          <p>
            Submit one with <code>sf submit</code>.
          </p>
        </Notice>
      ) : (
        <table class="jobs">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">State</th>
              <th scope="col">GPUs</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((j) => (
              <tr>
                <td>
                  <a href={`/console/jobs/${encodeURIComponent(j.id)}`}>{j.name}</a>
                </td>
                <td>
                  <span class={`state state-${j.status}`}>{j.status}</span>
                </td>
                <td>{j.gpus}</td>
                <td>
                  <Time iso={j.created_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Layout>,
  );
});
