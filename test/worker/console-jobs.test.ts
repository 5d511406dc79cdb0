/**
 * The console's jobs list and job page: filters, pagination, the header, the tab bar, 404 for jobs the
 * user may not see, names that carry markup rendered as text, and the job's team: the team fact, borrowed
 * runs and a reclaim. The job page's actions are console-job-actions.test.ts.
 */
import { describe, expect, it } from "vitest";
import { TAB_LABELS, TABS } from "../../worker/console/job-data.js";
import { badge, submit } from "./console-jobs-support.js";
import { signIn } from "./console-support.js";
import { ADMIN, api, converged, createFleet, createUser, customSpec, registerNode } from "./helpers.js";
import { ingest, runToken } from "./ingest-helpers.js";
import { testEnv } from "./test-env.js";

const XSS = `<script>alert(1)</script>"><img src=x onerror=alert(1)>`;

/** The `<tr data-job-id>` rows of a jobs page, in order. */
function rowIds(html: string): string[] {
  return [...html.matchAll(/<tr data-job-id="([^"]+)"/g)].map((m) => m[1]!);
}

/** A 1-GPU job as `token`, for `team` when given, of a priority class when given. */
async function submitFor(
  token: string,
  fleet: string,
  o: { name: string; team?: string; priorityClass?: string },
): Promise<{ id: string; pending_reasons: Array<{ code: string }> }> {
  const spec = await customSpec({
    fleet,
    name: o.name,
    lifecycle: {
      max_retries: 2,
      retry_on_user_failure: false,
      resumable: true,
      ...(o.priorityClass ? { priority_class: o.priorityClass } : {}),
    },
  });
  if (o.team) spec.resources.team = o.team;
  const r = await api(token, "POST", "/v1/jobs", spec);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.job;
}

/** The job page's text for one fact (`<dt>term</dt><dd>…</dd>`), tags dropped. */
function fact(html: string, term: string): string | undefined {
  const dd = new RegExp(`<dt>${term}</dt><dd>([\\s\\S]*?)</dd>`).exec(html)?.[1];
  return dd?.replace(/<[^>]*>/g, "").replace(/&#39;|&#x27;/g, "'");
}

/** Inserts a job row straight into the D1 ledger (names the JobSpec schema would refuse, many rows). */
async function insertJob(o: { id: string; userId: string; fleetId: string; name: string; status?: string }) {
  const now = new Date().toISOString();
  const spec = JSON.stringify({
    metadata: { name: "x" },
    recipe: { name: "custom/custom", version: "1.0.0" },
    resources: { pools: [{ name: "default", profile: "h200", series: "h200", nodes: 1, gpus_per_node: 1 }] },
    provenance: { git_commit: null, git_dirty: true, config_sha: `sha256:${"d".repeat(64)}` },
  });
  await testEnv.DB.prepare(
    `INSERT INTO jobs (id, user_id, fleet_id, name, status, priority, gpus, recipe, spec, pending_reasons,
       current_run_id, version, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 10, 1, 'custom/custom@1.0.0', ?, '[]', NULL, 1, ?, ?)`,
  )
    .bind(o.id, o.userId, o.fleetId, o.name, o.status ?? "STOPPED", spec, now, now)
    .run();
}

describe("the jobs list", () => {
  it("shows my jobs with state, profile, GPUs, fleet, age and duration; no user column for a non-admin", async () => {
    const op = await createUser("cj-list");
    await createFleet("cj-list");
    await registerNode("cj-list", "n1", 8);
    const held = await submit(op, "cj-list", "held", 2);
    const waits = await submit(op, "cj-list", "waits", 8);
    const b = await signIn(op);
    const r = await b.get("/console/jobs");
    expect(r.status).toBe(200);
    expect(rowIds(r.html)).toEqual([waits, held]);
    const row = r.html.slice(r.html.indexOf(`<tr data-job-id="${held}"`));
    const cells = row.slice(0, row.indexOf("</tr>"));
    expect(cells).toContain(`href="/console/jobs/${held}">held</a>`);
    expect(cells).toContain('<span class="state state-SUBMITTED" data-job-state="">SUBMITTED</span>');
    expect(cells).toContain("<td>h200</td>");
    expect(cells).toContain('<td class="num">2</td>');
    expect(cells).toContain("<td>cj-list</td>"); // the fleet's name
    expect(cells).toMatch(/<time datetime="[^"]+Z" data-local-time="">/);
    expect(cells).toMatch(/data-started="[^"]+"[^>]*>\d+s<\/td>/);
    expect(r.html).not.toContain('<th scope="col">User</th>');
    // Live updates: the same query through the console's API proxy, and a polite status region.
    expect(r.html).toContain('data-live-jobs="/console/api/jobs?limit=50"');
    expect(r.html).toContain('aria-live="polite"');
    // Every control is labelled.
    for (const id of ["filter-fleet", "filter-method", "filter-q", "state-RUNNING"]) {
      expect(r.html).toContain(`<label for="${id}">`);
    }
    expect(r.html).not.toContain('id="filter-user"');
  });

  it("filters by state, method and name through a GET form whose values stay filled in", async () => {
    const op = await createUser("cj-filter");
    await createFleet("cj-filter");
    const a = await submit(op, "cj-filter", "alpha-one");
    const c = await submit(op, "cj-filter", "gamma");
    expect((await api(op, "POST", `/v1/jobs/${c}/pause`)).status).toBe(200);
    const b = await signIn(op);

    const paused = await b.get("/console/jobs?state=PAUSED");
    expect(rowIds(paused.html)).toEqual([c]);
    expect(paused.html).toMatch(/id="state-PAUSED" name="state" value="PAUSED" checked=""/);
    const both = await b.get("/console/jobs?state=PAUSED&state=QUEUED");
    expect(rowIds(both.html)).toEqual([c, a]);
    expect(rowIds((await b.get("/console/jobs?q=ALPHA")).html)).toEqual([a]);
    const method = await b.get("/console/jobs?method=custom%2Fcustom&q=gam");
    expect(rowIds(method.html)).toEqual([c]);
    expect(method.html).toContain('value="gam"');
    expect(method.html).toContain(
      'data-live-jobs="/console/api/jobs?method=custom%2Fcustom&amp;q=gam&amp;limit=50"',
    );

    const none = await b.get("/console/jobs?method=python%2Fcharlm");
    expect(none.status).toBe(200);
    expect(rowIds(none.html)).toEqual([]);
    expect(none.html).toContain("No jobs match these filters");
    expect(none.html).not.toContain("No jobs yet");

    const bad = await b.get("/console/jobs?method=nonsense");
    expect(bad.status).toBe(400);
    expect(bad.html).toContain("These filters were refused (BAD_REQUEST)");
    expect(bad.html).toContain('<form class="job-filters"');
  });

  it("says there are no jobs yet to a user without any", async () => {
    const b = await signIn(await createUser("cj-empty"));
    const r = await b.get("/console/jobs");
    expect(r.html).toContain("No jobs yet");
    expect(r.html).not.toContain("No jobs match");
    expect(rowIds(r.html)).toEqual([]);
  });

  it("shows an admin everybody's jobs with their owners, or one user's", async () => {
    const x = await createUser("cj-adm-x");
    const y = await createUser("cj-adm-y");
    await createFleet("cj-adm");
    const jx = await submit(x, "cj-adm", "from-x");
    const jy = await submit(y, "cj-adm", "from-y");
    // An admin reads other users' jobs from D1, which trails the fleet by the projection lag (only the
    // submitter's own reads wait for it: docs/architecture.md): this reads at the convergence point.
    await converged();
    const b = await signIn(ADMIN);
    const all = await b.get("/console/jobs?fleet=cj-adm");
    expect(rowIds(all.html)).toEqual([jy, jx]);
    expect(all.html).toContain('<th scope="col">User</th>');
    expect(all.html).toContain("<td>cj-adm-y</td>");
    expect(all.html).toContain('<label for="filter-user">User</label>');
    expect(rowIds((await b.get("/console/jobs?fleet=cj-adm&user=cj-adm-x")).html)).toEqual([jx]);
    const unknown = await b.get("/console/jobs?user=nobody-here");
    expect(unknown.html).toContain("USER_NOT_FOUND");
    // A non-admin's `user=` in the URL does not widen their list.
    const bx = await signIn(x);
    expect(rowIds((await bx.get("/console/jobs?user=cj-adm-y")).html)).toEqual([jx]);
  });

  it("pages 50 at a time with an Older link carrying the filters and the cursor", async () => {
    const op = await createUser("cj-page");
    await createFleet("cj-page");
    const first = await submit(op, "cj-page", "seed");
    const { user_id, fleet_id } = (await api(op, "GET", `/v1/jobs/${first}`)).body.job;
    const ids: string[] = [];
    for (let i = 0; i < 54; i++) {
      const id = `job_zz${String(i).padStart(24, "0")}`;
      ids.push(id);
      await insertJob({ id, userId: user_id, fleetId: fleet_id, name: `bulk-${i}` });
    }
    const b = await signIn(op);
    const p1 = await b.get("/console/jobs?state=STOPPED");
    const want = [...ids].reverse();
    expect(rowIds(p1.html)).toEqual(want.slice(0, 50));
    const older = /<a href="(\/console\/jobs\?[^"]+)">Older<\/a>/
      .exec(p1.html)?.[1]
      ?.replaceAll("&amp;", "&");
    expect(older).toBe(`/console/jobs?state=STOPPED&cursor=${want[49]}`);
    const p2 = await b.get(older!);
    expect(rowIds(p2.html)).toEqual(want.slice(50));
    expect(p2.html).not.toContain(">Older</a>");
    expect(p2.html).toContain('<a href="/console/jobs?state=STOPPED">Newest</a>');
  });

  it("passes the poll's If-None-Match to the API and answers 304 while nothing changed", async () => {
    const op = await createUser("cj-etag");
    await createFleet("cj-etag");
    const id = await submit(op, "cj-etag", "polled");
    const b = await signIn(op);
    const first = await b.get("/console/api/jobs?limit=50");
    expect(first.status).toBe(200);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect((await b.get("/console/api/jobs?limit=50", { "if-none-match": etag })).status).toBe(304);
    await api(op, "POST", `/v1/jobs/${id}/pause`);
    const changed = await b.get("/console/api/jobs?limit=50", { "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(JSON.parse(changed.html).jobs[0]).toMatchObject({ id, status: "PAUSED" });
  });
});

describe("the job page", () => {
  it("shows the header: state, profile, GPUs, node, timings, provenance, and the tab bar", async () => {
    const op = await createUser("cj-head");
    await createFleet("cj-head");
    await registerNode("cj-head", "gpu-box-1", 8);
    const id = await submit(op, "cj-head", "headed", 2);
    const b = await signIn(op);
    const r = await b.get(`/console/jobs/${id}`);
    expect(r.status).toBe(200);
    expect(r.html.match(/<h1>/g)).toHaveLength(1);
    expect(r.html).toContain("<h1>headed</h1>");
    expect(r.html).toContain(`data-live-job="${id}"`);
    expect(badge(r.html)).toBe("SUBMITTED");
    expect(r.html).toContain("<dt>Profile</dt><dd>h200</dd>");
    expect(r.html).toContain("<dt>GPUs</dt><dd>2</dd>");
    expect(r.html).toMatch(/<dt>Node<\/dt><dd><span class="node">gpu-box-1 <span class="note">\(GPU 0, 1\)/);
    expect(r.html).toMatch(/<dt>Started<\/dt><dd><time datetime=/);
    expect(r.html).toContain("<dt>Ended</dt><dd><span>—</span></dd>");
    expect(r.html).toContain("<code>custom/custom</code> 1.0.0");
    expect(r.html).toContain("<code>abc1234</code>");
    expect(r.html).toContain(`sha256:${"c".repeat(64)}`);
    expect(r.html).not.toContain("uncommitted changes");
    // The tab bar: every tab by its label, the default one current.
    expect(r.html).toContain('<nav class="tabs" aria-label="Job sections">');
    for (const t of TABS) expect(r.html).toContain(`href="/console/jobs/${id}/${t}"`);
    expect(r.html).toContain(
      `<a href="/console/jobs/${id}/charts" aria-current="page">${TAB_LABELS.charts}</a>`,
    );
    const logs = await b.get(`/console/jobs/${id}/logs`);
    expect(logs.status).toBe(200);
    expect(logs.html).toContain(
      `<a href="/console/jobs/${id}/logs" aria-current="page">${TAB_LABELS.logs}</a>`,
    );
    expect(logs.html).not.toContain(`/charts" aria-current="page"`);
    // One run: no run selector.
    expect(r.html).not.toContain('aria-label="Runs"');
  });

  it("shows why a job waits while queued, the stop reason after, and a run selector once there are two runs", async () => {
    const op = await createUser("cj-why");
    await createFleet("cj-why");
    const id = await submit(op, "cj-why", "waiting");
    const b = await signIn(op);
    const queued = await b.get(`/console/jobs/${id}`);
    expect(badge(queued.html)).toBe("QUEUED");
    expect(queued.html).toContain("Waiting because");
    expect(queued.html).toContain("<code>NO_NODE_OF_SERIES</code>");

    await registerNode("cj-why", "n1", 8);
    await api(op, "POST", `/v1/jobs/${id}/stop`);
    const stopped = await b.get(`/console/jobs/${id}`);
    expect(badge(stopped.html)).toBe("STOPPED");
    expect(stopped.html).toContain('<span class="reason">stop by cj-why</span>');
    expect(stopped.html).not.toContain("Waiting because");
    expect(stopped.html).toMatch(/<dt>Ended<\/dt><dd><time datetime=/);

    await api(op, "POST", `/v1/jobs/${id}/resume`);
    const detail = (await api(op, "GET", `/v1/jobs/${id}`)).body;
    const [r1, r2] = detail.runs.map((x: { id: string }) => x.id);
    const two = await b.get(`/console/jobs/${id}/events?run=${r1}`);
    expect(two.html).toContain('<nav class="runs" aria-label="Runs">');
    expect(two.html).toContain(`<a href="/console/jobs/${id}/events?run=${r1}" aria-current="page">Run 1`);
    expect(two.html).toContain(`<a href="/console/jobs/${id}/events?run=${r2}">Run 2`);
    // The tab links keep the run chosen.
    expect(two.html).toContain(`href="/console/jobs/${id}/charts?run=${r1}"`);
  });

  it("answers another user's job, a missing job and an unknown tab with the 404 page and no data", async () => {
    const owner = await createUser("cj-own");
    await createFleet("cj-own");
    const id = await submit(owner, "cj-own", "secret-name");
    const other = await signIn(await createUser("cj-other"));
    for (const path of [`/console/jobs/${id}`, `/console/jobs/${id}/logs`]) {
      const r = await other.get(path);
      expect(r.status, path).toBe(404);
      expect(r.html).toContain("Not found");
      expect(r.html).not.toContain("secret-name");
    }
    // Its actions too, confirmed or not, and nothing changes.
    const page = await other.get("/console/jobs");
    for (const fields of [{}, { confirm: "1" }] as Array<Record<string, string>>) {
      const r = await other.post(`/console/jobs/${id}/stop`, fields, { from: page.html });
      expect(r.status).toBe(404);
      expect(r.html).not.toContain("secret-name");
    }
    expect((await api(owner, "GET", `/v1/jobs/${id}`)).body.job.status).toBe("QUEUED");
    const mine = await signIn(owner);
    expect((await mine.get(`/console/jobs/job_${"0".repeat(26)}`)).status).toBe(404);
    expect((await mine.get(`/console/jobs/${id}/nonsense`)).status).toBe(404);
  });

  it("renders a name carrying markup as text on the list and the job page", async () => {
    const op = await createUser("cj-xss");
    await createFleet("cj-xss");
    const seed = await submit(op, "cj-xss", "seed");
    const { user_id, fleet_id } = (await api(op, "GET", `/v1/jobs/${seed}`)).body.job;
    const id = `job_zzxss${"0".repeat(21)}`;
    await insertJob({ id, userId: user_id, fleetId: fleet_id, name: XSS, status: "FAILED" });
    const b = await signIn(op);
    for (const path of ["/console/jobs", `/console/jobs/${id}`, `/console/jobs/${id}/config`]) {
      const r = await b.get(path);
      expect(r.status, path).toBe(200);
      expect(r.html, path).not.toContain("<script>alert(1)");
      expect(r.html, path).not.toContain("<img src=x");
      expect(r.html, path).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
      expect(r.html, path).toContain("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;");
    }
    const confirm = await b.post(
      `/console/jobs/${id}/retry`,
      {},
      { from: (await b.get("/console/jobs")).html },
    );
    expect(confirm.html).not.toContain("<script>alert(1)");
    expect(confirm.html).toContain("Retry job &lt;script&gt;");
  });
});

describe("the job page of a team's job", () => {
  it("shows the team it runs for (or no team), marks borrowed runs, and a wait for the team's limits", async () => {
    const member = await createUser("cj-team-ann");
    const solo = await createUser("cj-team-solo");
    await createFleet("cj-team");
    await registerNode("cj-team", "n1", 8);
    await api(ADMIN, "PUT", "/v1/teams/cj-vision", {});
    await api(ADMIN, "PUT", "/v1/teams/cj-vision/members/cj-team-ann", {});
    await api(ADMIN, "PUT", "/v1/teams/cj-vision/quotas/cj-team/h200", { guaranteed: 1 });
    // Ann's first job is within her team's guarantee of 1 GPU; her second borrows beyond it.
    const own = await submitFor(member, "cj-team", { name: "own" });
    const lent = await submitFor(member, "cj-team", { name: "lent" });
    const b = await signIn(member);

    const ownPage = (await b.get(`/console/jobs/${own.id}`)).html;
    expect(fact(ownPage, "Team")).toBe("cj-vision");
    expect(ownPage).not.toContain("borrowed");
    const lentPage = (await b.get(`/console/jobs/${lent.id}`)).html;
    expect(fact(lentPage, "Team")).toBe(
      "cj-vision (run 1 borrowed: GPUs beyond team cj-vision's guarantee, which a team may reclaim)",
    );
    // Stopped and resumed, it has two runs: the selector marks each that borrowed.
    await api(member, "POST", `/v1/jobs/${lent.id}/stop`);
    await api(member, "POST", `/v1/jobs/${lent.id}/resume`);
    const runs = (await api(member, "GET", `/v1/jobs/${lent.id}`)).body.runs as Array<{
      id: string;
      borrowed: boolean;
    }>;
    expect(runs.map((r) => r.borrowed)).toEqual([true, true]);
    const two = (await b.get(`/console/jobs/${lent.id}`)).html;
    for (const r of runs)
      expect(two).toMatch(
        new RegExp(
          `Run \\d <span class="note">[A-Z]+</span><span class="note borrowed" data-borrowed="${r.id}"> · borrowed</span>`,
        ),
      );

    // A user in no team: "no team".
    const none = await submitFor(solo, "cj-team", { name: "alone" });
    const soloPage = (await (await signIn(solo)).get(`/console/jobs/${none.id}`)).html;
    expect(fact(soloPage, "Team")).toMatch(/^no team/);

    // A team that may not borrow: the job waits, and the page says why with the code.
    await api(ADMIN, "PUT", "/v1/teams/cj-strict", {});
    await api(ADMIN, "PUT", "/v1/teams/cj-strict/members/cj-team-ann", {});
    await api(ADMIN, "PUT", "/v1/teams/cj-strict/quotas/cj-team/h200", { guaranteed: 0, borrow_limit: 0 });
    const held = await submitFor(member, "cj-team", { name: "held", team: "cj-strict" });
    expect(held.pending_reasons.map((r) => r.code)).toEqual(["TEAM_BORROW_LIMIT"]);
    const heldPage = (await b.get(`/console/jobs/${held.id}`)).html;
    expect(fact(heldPage, "Team")).toBe("cj-strict");
    expect(heldPage).toContain("Waiting because");
    expect(heldPage).toContain(
      "<code>TEAM_BORROW_LIMIT</code> team cj-strict may use 0 guaranteed + 0 borrowed",
    );
    await api(member, "POST", `/v1/jobs/${held.id}/stop`);
  });

  it("says a preempted job was reclaimed by the team that took its borrowed GPUs back, and by which job", async () => {
    const alice = await createUser("cj-rec-alice");
    const bob = await createUser("cj-rec-bob");
    await createFleet("cj-reclaim");
    await registerNode("cj-reclaim", "n1", 2);
    for (const [team, user] of [
      ["cj-rec-a", "cj-rec-alice"],
      ["cj-rec-b", "cj-rec-bob"],
    ] as const) {
      await api(ADMIN, "PUT", `/v1/teams/${team}`, {});
      await api(ADMIN, "PUT", `/v1/teams/${team}/members/${user}`, {});
      await api(ADMIN, "PUT", `/v1/teams/${team}/quotas/cj-reclaim/h200`, { guaranteed: 1 });
    }
    // Bob runs on his team's GPU and on Alice's idle one (borrowed); scavenger: no minimum runtime.
    const ids: string[] = [];
    for (const name of ["bob-own", "bob-lent"]) {
      const job = await submitFor(bob, "cj-reclaim", { name, priorityClass: "scavenger" });
      const d = (await api(bob, "GET", `/v1/jobs/${job.id}`)).body;
      const run = d.runs.at(-1);
      const token = await runToken({
        runId: run.id,
        jobId: job.id,
        fleetId: d.job.fleet_id,
        epoch: run.epoch,
      });
      expect((await ingest(token, "/lifecycle", { run_id: run.id, event: "started" })).status).toBe(200);
      ids.push(job.id);
    }
    const [, borrower] = ids as [string, string];
    // Alice wants her guarantee: Bob's borrowed run is stopped for her job.
    const a = await submitFor(alice, "cj-reclaim", { name: "alice-back" });
    const paused = (await api(bob, "GET", `/v1/jobs/${borrower}`)).body.events.find(
      (e: { to: string }) => e.to === "PAUSED",
    );
    expect(paused?.detail).toMatchObject({
      cause: "reclaim",
      preempted_by: a.id,
      reclaiming_team: "cj-rec-a",
    });

    const page = (await (await signIn(bob)).get(`/console/jobs/${borrower}`)).html;
    expect(page).toContain('data-preempted="1" data-cause="reclaim"');
    expect(page).toMatch(
      new RegExp(
        `Preempted once, last <time [^>]*>[^<]*</time>: reclaimed by team cj-rec-a \\(job <a href="/console/jobs/${a.id}">${a.id}</a>\\), which took back the guaranteed GPUs this job had borrowed: it had 30 s to checkpoint`,
      ),
    );
    expect(page).not.toContain("a higher priority class");
    expect(fact(page, "Team")).toMatch(/^cj-rec-b/);
    for (const id of [...ids, a.id]) await api(ADMIN, "POST", `/v1/jobs/${id}/stop`);
  });
});
