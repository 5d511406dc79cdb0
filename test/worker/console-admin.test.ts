/**
 * The console's admin pages: creating a user (the token shown once, the user real in the API), a refusal
 * re-rendered with the API's code and what was typed, disable/enable, tokens, quotas, fleets, webhooks
 * with their delivery log and "Redeliver", teams with their members and quotas; a non-admin gets the
 * not-found page and a form without the CSRF token is refused.
 */
import { afterAll, describe, expect, it } from "vitest";
import { csrfIn, signIn } from "./console-support.js";
import { ADMIN, api, createFleet, createUser } from "./helpers.js";
import { testEnv } from "./test-env.js";

function decode(s: string): string {
  return s
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");
}

/** The rows of the users table: [name, role, email, status]. */
function usersTable(html: string): string[][] {
  const table = /<table class="users">([\s\S]*?)<\/table>/.exec(html)?.[1] ?? "";
  return [...table.matchAll(/<tr data-user="[^"]*">([\s\S]*?)<\/tr>/g)].map((m) =>
    [...m[1]!.matchAll(/<t[hd][^>]*>(?:<a [^>]*>)?([^<]*)/g)].map((c) => decode(c[1]!)).slice(0, 4),
  );
}

/** The rows of the teams table, each its cells' text (a team's name and members only on its first row). */
function teamsTable(html: string): string[][] {
  const table = /<table class="teams">([\s\S]*?)<\/table>/.exec(html)?.[1] ?? "";
  return [...table.matchAll(/<tr data-team="[^"]*"[^>]*>([\s\S]*?)<\/tr>/g)].map((m) =>
    [...m[1]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((c) =>
      decode(
        c[1]!
          .replace(/<[^>]*>/g, "")
          .replace(/&lt;/g, "<")
          .replace(/&gt;/g, ">"),
      ),
    ),
  );
}

afterAll(async () => {
  // Stop the webhook dispatcher's retries against the closed port.
  await testEnv.DB.batch([
    testEnv.DB.prepare("DELETE FROM webhook_deliveries"),
    testEnv.DB.prepare("DELETE FROM webhooks"),
  ]);
});

describe("console admin", () => {
  it("creates a user: the token is shown once, works against the API, and the user is in the table", async () => {
    const b = await signIn(ADMIN);
    const page = await b.get("/console/admin");
    expect(page.status).toBe(200);
    expect(page.html).toContain('<label for="new-user-name">Name</label>');
    expect(page.html).toContain('<label for="new-user-role">Role</label>');
    expect(page.html).toMatch(/<button type="submit" class="primary">\s*Create user\s*<\/button>/);

    const r = await b.post("/console/admin/users", { name: "ca-grace", role: "viewer" }, { from: page.html });
    expect(r.status).toBe(200);
    expect(r.html).toContain("shown only this once");
    const token = /<code id="new-token" class="secret">(sfp_[^<]+)<\/code>/.exec(r.html)?.[1];
    expect(token, "the new token on the page").toBeDefined();
    expect(usersTable(r.html)).toContainEqual(["ca-grace", "viewer", "—", "active"]);
    // The user exists in the API, and the token shown is theirs.
    const me = await api(token!, "GET", "/v1/me");
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ name: "ca-grace", role: "viewer" });
    // Shown once: the next page view has no token.
    const again = await b.get("/console/admin");
    expect(again.html).not.toContain(token!);
    expect(again.html).not.toContain('id="new-token"');
  });

  it("re-renders the form with the API's code and what was typed when the API refuses", async () => {
    const b = await signIn(ADMIN);
    const page = await b.get("/console/admin");
    const dup = await b.post(
      "/console/admin/users",
      { name: "admin", role: "admin", email: "typed@example.org" },
      { from: page.html },
    );
    expect(dup.status).toBe(400);
    expect(dup.html).toContain("Refused (ALREADY_EXISTS)");
    expect(dup.html).toContain("user admin already exists");
    expect(dup.html).toMatch(/id="new-user-name"[^>]*value="admin"/);
    expect(dup.html).toMatch(/id="new-user-email"[^>]*value="typed@example.org"/);
    expect(dup.html).toMatch(/<option value="admin" selected/);

    const bad = await b.post(
      "/console/admin/users",
      { name: "Bad Name!", role: "viewer" },
      { from: page.html },
    );
    expect(bad.status).toBe(400);
    expect(bad.html).toContain("Refused (BAD_REQUEST)");
    expect(bad.html).toMatch(/id="new-user-name"[^>]*value="Bad Name!"/);
    expect(
      (await api(ADMIN, "GET", "/v1/users")).body.users.map((u: { name: string }) => u.name),
    ).not.toContain("Bad Name!");
  });

  it("refuses a form without the CSRF token, creating nothing", async () => {
    const b = await signIn(ADMIN);
    const r = await b.post("/console/admin/users", { name: "ca-nocsrf", role: "viewer" });
    expect(r.status).toBe(403);
    expect(r.html).toContain("CSRF_REJECTED");
    expect((await api(ADMIN, "GET", "/v1/users/ca-nocsrf/quota")).status).toBe(404);
  });

  it("is the not-found page for a non-admin, for pages and forms alike", async () => {
    const op = await createUser("ca-operator");
    const b = await signIn(op);
    for (const path of [
      "/console/admin",
      "/console/admin/fleets",
      "/console/admin/webhooks",
      "/console/admin/users/admin",
    ]) {
      const r = await b.get(path);
      expect(r.status, path).toBe(404);
      expect(r.html).toContain("Not found");
    }
    const jobs = await b.get("/console/jobs");
    expect(jobs.html).not.toContain('href="/console/admin"');
    const post = await b.post(
      "/console/admin/users",
      { name: "ca-sneaky", role: "admin" },
      { from: jobs.html },
    );
    expect(post.status).toBe(404);
    expect((await api(ADMIN, "GET", "/v1/users/ca-sneaky/quota")).status).toBe(404);
  });

  it("disables and enables a user, revokes their token, and sets their quota (bad values keep what was typed)", async () => {
    const token = await createUser("ca-dora");
    const b = await signIn(ADMIN);
    const page = await b.get("/console/admin/users/ca-dora");
    expect(page.status).toBe(200);
    const csrf = csrfIn(page.html);

    const off = await b.post("/console/admin/users/ca-dora/disable", { _csrf: csrf });
    expect(off.status).toBe(200);
    expect(off.html).toContain("ca-dora is disabled.");
    expect((await api(token, "GET", "/v1/me")).status).toBe(403);
    const on = await b.post("/console/admin/users/ca-dora/enable", { _csrf: csrf });
    expect(on.html).toContain("ca-dora is enabled.");
    expect((await api(token, "GET", "/v1/me")).status).toBe(200);

    const tokenId = /<tr data-token="([^"]+)">/.exec(on.html)?.[1];
    expect(tokenId).toBeDefined();
    const revoked = await b.post(`/console/admin/users/ca-dora/tokens/${tokenId}/revoke`, { _csrf: csrf });
    expect(revoked.status).toBe(200);
    expect(revoked.html).toContain("The token is revoked");
    expect((await api(token, "GET", "/v1/me")).status).toBe(401);

    const quota = {
      max_gpus: "4",
      max_jobs: "3",
      daily_gpu_hours: "12.5",
      priority: "20",
      max_priority_class: "high",
      allowed_profiles: "h200",
    };
    const set = await b.post("/console/admin/users/ca-dora/quota", { ...quota, _csrf: csrf });
    expect(set.status).toBe(200);
    expect((await api(ADMIN, "GET", "/v1/users/ca-dora/quota")).body.quota).toEqual({
      max_gpus: 4,
      max_jobs: 3,
      daily_gpu_hours: 12.5,
      priority: 20,
      max_priority_class: "high",
      allowed_profiles: ["h200"],
    });
    const wrong = await b.post("/console/admin/users/ca-dora/quota", {
      ...quota,
      max_gpus: "lots",
      _csrf: csrf,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.html).toContain("Refused (BAD_REQUEST)");
    expect(wrong.html).toMatch(/id="quota-max_gpus"[^>]*value="lots"/);
    expect((await api(ADMIN, "GET", "/v1/users/ca-dora/quota")).body.quota.max_gpus).toBe(4);
  });

  it("creates a fleet and lists fleets with their nodes", async () => {
    const b = await signIn(ADMIN);
    const page = await b.get("/console/admin/fleets");
    expect(page.status).toBe(200);
    const r = await b.post(
      "/console/admin/fleets",
      { name: "ca-fleet", kind: "docker", description: "lab" },
      { from: page.html },
    );
    expect(r.status).toBe(200);
    expect(r.html).toContain("Fleet ca-fleet created.");
    await api(ADMIN, "POST", "/v1/fleets/ca-fleet/nodes", { name: "ca-box", series: "h200", gpus: 4 });
    const list = await b.get("/console/admin/fleets");
    expect(list.html).toContain('<a href="/console/fleets/ca-fleet">ca-fleet</a>');
    expect(list.html).toMatch(/<th scope="row">ca-box<\/th><td>h200<\/td><td>0 \/ 4<\/td>/);
    // The priority classes every fleet schedules with, highest first.
    expect(list.html).toMatch(/<th scope="row">critical<\/th><td>1000<\/td><td>no<\/td>/);
    expect(list.html.indexOf('<th scope="row">critical</th>')).toBeLessThan(
      list.html.indexOf('<th scope="row">scavenger</th>'),
    );
    const dup = await b.post(
      "/console/admin/fleets",
      { name: "ca-fleet", kind: "docker" },
      { from: page.html },
    );
    expect(dup.status).toBe(400);
    expect(dup.html).toContain("Refused (ALREADY_EXISTS)");
  });

  it("lists teams with their members (primary marked) and quotas per fleet and series, read-only, escaped", async () => {
    await createUser("ca-ann");
    await createUser("ca-ben");
    await createFleet("ca-teams");
    const markup = `<script>alert(1)</script> & "co"`;
    expect((await api(ADMIN, "PUT", "/v1/teams/ca-vision", { description: markup })).status).toBe(201);
    expect((await api(ADMIN, "PUT", "/v1/teams/ca-speech", {})).status).toBe(201);
    // Ben's primary team is ca-speech; ca-vision is his second, Ann's first (so her primary).
    await api(ADMIN, "PUT", "/v1/teams/ca-speech/members/ca-ben", {});
    await api(ADMIN, "PUT", "/v1/teams/ca-vision/members/ca-ben", {});
    await api(ADMIN, "PUT", "/v1/teams/ca-vision/members/ca-ann", {});
    const q = await api(ADMIN, "PUT", "/v1/teams/ca-vision/quotas/ca-teams/h200", {
      guaranteed: 4,
      borrow_limit: 2,
    });
    expect(q.status).toBe(201);
    await api(ADMIN, "PUT", "/v1/teams/ca-vision/quotas/ca-teams/a100", {
      guaranteed: 0,
      lend_limit: 0,
      weight: 2.5,
    });
    const budget = await api(ADMIN, "PUT", "/v1/teams/ca-vision/budget", {
      monthly_gpu_hours: 500,
      weekly_gpu_hours: 120.5,
      policy: "pause",
    });
    expect(budget.status, JSON.stringify(budget.body)).toBe(200);

    const b = await signIn(ADMIN);
    const page = await b.get("/console/admin/fleets");
    expect(page.status).toBe(200);
    expect(page.html).toContain('<h2 id="teams-h">Teams</h2>');
    expect(page.html).toContain("Read-only here: admins change teams with <code>sf admin team</code>.");
    expect(page.html).toContain(
      '<th scope="col">Team</th><th scope="col">Members</th><th scope="col">Budget</th><th scope="col">Fleet</th>',
    );
    const rows = teamsTable(page.html);
    const vision = rows.findIndex((r) => r[0]?.startsWith("ca-vision"));
    expect(vision).toBeGreaterThanOrEqual(0);
    // One row per quota (by fleet, then series); borrow limit null is "—", lend limit null is "all". The
    // budget once, beside the members: per month and per week, and its policy.
    expect(rows.slice(vision, vision + 2)).toEqual([
      [
        `ca-vision — ${markup}`,
        "ca-ann (primary), ca-ben",
        "500 GPU-h / month, 120.5 GPU-h / week · pause",
        "ca-teams",
        "a100",
        "0",
        "—",
        "0",
        "2.5",
      ],
      ["ca-teams", "h200", "4", "2", "all", "1"],
    ]);
    // No budget: "—".
    expect(rows).toContainEqual([
      "ca-speech",
      "ca-ben (primary)",
      "—",
      "No quotas: it is guaranteed nothing, and its jobs borrow where quotas apply.",
    ]);
    expect(page.html).toContain('<a href="/console/fleets/ca-teams">ca-teams</a>');
    // The description is text, never markup.
    expect(page.html).not.toContain("<script>alert(1)");
    expect(page.html).toContain("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;co&quot;");
    // No form changes a team here.
    expect(page.html).not.toMatch(/<form[^>]*action="\/console\/admin\/teams/);
  });

  it("shows a webhook's delivery log and redelivers a delivery", async () => {
    const op = await createUser("ca-hooks");
    const hook = (await api(op, "POST", "/v1/webhooks", { url: "http://127.0.0.1:9/hook" })).body.webhook;
    const test = await api(op, "POST", `/v1/webhooks/${hook.id}/test`);
    expect(test.status).toBe(202);
    const delivery = test.body.delivery.id as string;
    // Wait for the dispatcher's first (refused) attempt, so the redeliver has something to reset.
    const path = `/v1/webhooks/${hook.id}/deliveries/${delivery}`;
    for (let i = 0; i < 100 && (await api(op, "GET", path)).body.delivery.attempts < 1; i++)
      await new Promise((r) => setTimeout(r, 50));

    const b = await signIn(ADMIN);
    const list = await b.get("/console/admin/webhooks");
    expect(list.html).toContain(`<a href="/console/admin/webhooks/${hook.id}">http://127.0.0.1:9/hook</a>`);
    const page = await b.get(`/console/admin/webhooks/${hook.id}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain(`<tr data-delivery="${delivery}">`);
    const action = `/console/admin/webhooks/${hook.id}/deliveries/${delivery}/redeliver`;
    expect(page.html).toContain(`action="${action}"`);

    // Make it look given up, so the redeliver's effect is visible in the API.
    await testEnv.DB.prepare("UPDATE webhook_deliveries SET state = 'failed' WHERE event_id = ?")
      .bind(delivery)
      .run();
    expect((await api(op, "GET", path)).body.delivery.state).toBe("failed");
    const r = await b.post(action, { _csrf: csrfIn(page.html) });
    expect(r.status).toBe(200);
    expect(r.html).toContain(`Delivery ${delivery} is queued to be sent again.`);
    expect((await api(op, "GET", path)).body.delivery.state).not.toBe("failed");

    const missing = await b.post(`/console/admin/webhooks/${hook.id}/deliveries/evt_nope/redeliver`, {
      _csrf: csrfIn(page.html),
    });
    expect(missing.status).toBe(404);
  });
});
