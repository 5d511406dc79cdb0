// The web console's jobs page under load: how long the Worker takes to render it for a user with 1,000
// jobs, next to the API read it makes and the no-op route, in the same run on the same workerd.
import { jsonClient } from "./latency.mjs";
import { closedLoop } from "./load.mjs";
import { benchUser, charlmSpec } from "./setup.mjs";
import { startWorkerd } from "./workerd.mjs";

/**
 * "console jobs page, 1,000 jobs": GET /console/jobs as a signed-in user who has `jobs` jobs (16 running on
 * two 8-GPU nodes, the rest queued), one client, after a warm-up. Measured next to, in the same run and
 * on the same workerd: GET /v1/jobs?limit=50 (the read the page makes, as a bearer-token call) and the
 * no-op route. Also the page with filters (state, method and a name search: the LIKE scans).
 */
export async function benchConsole({ jobs, requests }) {
  const w = await startWorkerd();
  const api = jsonClient(w.url);
  try {
    const user = await benchUser(api, w.adminToken, {
      max_gpus: 16,
      max_jobs: 100_000,
      daily_gpu_hours: 1_000_000,
    });
    await api(w.adminToken, "POST", "/v1/fleets", { name: "bench-console", kind: "process" });
    for (const n of ["n1", "n2"]) {
      await api(w.adminToken, "POST", "/v1/fleets/bench-console/nodes", {
        name: `console-${n}`,
        series: "h200",
        gpus: 8,
      });
    }
    const spec = charlmSpec(user.charlmDigest, "bench-console");
    await closedLoop({
      url: `${w.url}/v1/jobs`,
      concurrency: 8,
      total: jobs,
      expect: 201,
      make: (i) => ({
        method: "POST",
        headers: { authorization: `Bearer ${user.token}`, "content-type": "application/json" },
        body: JSON.stringify({ ...spec, metadata: { name: `bench-${i}`, labels: {} } }),
      }),
    });
    // Sign in as a browser does; the session cookie is what the page needs.
    const signIn = await fetch(`${w.url}/console/sign-in`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: w.url },
      body: new URLSearchParams({ token: user.token, next: "/console/jobs" }).toString(),
    });
    const cookie = signIn.headers.get("set-cookie")?.split(";")[0];
    if (signIn.status !== 303 || !cookie) throw new Error(`console sign-in: ${signIn.status}`);
    const page = () => ({ method: "GET", headers: { cookie } });
    const measure = async (url, make, n = requests) => {
      await closedLoop({ url, concurrency: 1, total: Math.min(50, n), make });
      return closedLoop({ url, concurrency: 1, total: n, make });
    };
    const rows = await fetch(`${w.url}/console/jobs`, { headers: { cookie } }).then((r) => r.text());
    const shown = (rows.match(/<tr data-job-id=/g) ?? []).length;
    if (shown !== 50) throw new Error(`the console jobs page showed ${shown} rows, not 50`);
    const consolePage = await measure(`${w.url}/console/jobs`, () => page());
    const filtered = await measure(
      `${w.url}/console/jobs?state=QUEUED&state=RUNNING&method=python%2Fcharlm&q=bench-9`,
      () => page(),
    );
    const apiList = await measure(`${w.url}/v1/jobs?limit=50`, () => ({
      method: "GET",
      headers: { authorization: `Bearer ${user.token}` },
    }));
    const noop = await measure(`${w.noopUrl}/noop`, () => ({ method: "GET" }));
    const TARGET_MS = 100;
    return {
      jobs,
      rows_per_page: shown,
      requests,
      page: consolePage,
      filtered,
      api: apiList,
      noop,
      // The page's cost over the API read it is built from (p50 to p50, same run, same workerd).
      page_vs_api: Math.round((consolePage.p50_ms / apiList.p50_ms) * 100) / 100,
      target_ms: TARGET_MS,
      holds: consolePage.p99_ms <= TARGET_MS,
    };
  } finally {
    await w.stop();
  }
}
