/**
 * Signing in to the console and what a session is worth: the cookie and what D1 keeps of it, idle and
 * absolute expiry, the session ending with its token or user, CSRF on every form, the /console/api reads,
 * where `next` may lead, and the headers on every answer (docs/console.md "Signing in and sessions").
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../contract/digest.js";
import { safeNext } from "../../worker/console/pages/sign-in.js";
import type { AppEnv } from "../../worker/env.js";
import worker from "../../worker/index.js";
import { ConsoleBrowser, csrfIn, type Page, sessionRow, signIn } from "./console-support.js";
import { ADMIN, api, countRows, createFleet, createUser, customSpec } from "./helpers.js";
import { described } from "./openapi-conformance.js";
import { testEnv } from "./test-env.js";

const HTTPS = "https://sf.test";

/** A token of its own for `user` (so revoking it ends only the sessions it signed in). */
async function mintToken(user: string, name = "console"): Promise<{ id: string; token: string }> {
  const r = await api(user === "admin" ? ADMIN : user, "POST", "/v1/tokens", { name });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { id: r.body.id as string, token: r.body.token as string };
}

function expectSecurityHeaders(r: Page, label: string): void {
  expect(r.headers.get("content-security-policy"), label).toContain("default-src 'none'");
  expect(r.headers.get("content-security-policy"), label).toContain("frame-ancestors 'none'");
  expect(r.headers.get("x-frame-options"), label).toBe("DENY");
  expect(r.headers.get("x-content-type-options"), label).toBe("nosniff");
  expect(r.headers.get("referrer-policy"), label).toBe("same-origin");
}

function expectSentToSignIn(r: Page, next: string, expired: boolean): void {
  expect(r.status, r.html).toBe(303);
  expect(r.location).toBe(`/console/sign-in?next=${encodeURIComponent(next)}${expired ? "&expired=1" : ""}`);
}

function later(ms: number): string {
  return new Date(Date.now() + ms).toISOString();
}

describe("signing in", () => {
  it("refuses a wrong, revoked or expired token with the reason, and a disabled user with 403", async () => {
    const ada = await createUser("auth-ada");
    const b = new ConsoleBrowser();
    const wrong = await b.post("/console/sign-in", { token: "sfp_not-a-token", next: "/console/jobs" });
    expect(wrong.status).toBe(401);
    expect(wrong.html).toContain("Not signed in: unknown token");

    const revoked = await mintToken(ada, "to-revoke");
    expect((await api(ada, "DELETE", `/v1/tokens/${revoked.id}`)).status).toBe(200);
    const r1 = await b.post("/console/sign-in", { token: revoked.token, next: "/console/jobs" });
    expect(r1.status).toBe(401);
    expect(r1.html).toContain("this token was revoked");

    const expired = await mintToken(ada, "to-expire");
    await testEnv.DB.prepare("UPDATE tokens SET expires_at = ? WHERE id = ?")
      .bind(later(-60_000), expired.id)
      .run();
    const r2 = await b.post("/console/sign-in", { token: expired.token, next: "/console/jobs" });
    expect(r2.status).toBe(401);
    expect(r2.html).toContain("this token expired at");

    const bea = await createUser("auth-bea");
    expect((await api(ADMIN, "PATCH", "/v1/users/auth-bea", { disabled: true })).status).toBe(200);
    const r3 = await b.post("/console/sign-in", { token: bea, next: "/console/jobs" });
    expect(r3.status).toBe(403);
    expect(r3.html).toContain("user auth-bea is disabled");

    expect(b.cookie).toBe("");
    for (const r of [wrong, r1, r2, r3]) expect(r.html).toContain('name="token"');
  });

  it("shows the sf login hint, and sends a signed-in browser on instead of showing the form", async () => {
    const fresh = await new ConsoleBrowser().get("/console/sign-in");
    expect(fresh.status).toBe(200);
    expect(fresh.html).toContain("<code>sf login</code>");
    expect(fresh.html).toContain('<label for="token">');
    expect(fresh.html).not.toContain("Your session ended");

    const b = await signIn(ADMIN);
    const again = await b.get("/console/sign-in");
    expect(again.status).toBe(303);
    expect(again.location).toBe("/console/jobs");
    const toDevice = await b.get(
      `/console/sign-in?next=${encodeURIComponent("/device?user_code=BCDF-GHJK")}`,
    );
    expect(toDevice.location).toBe("/device?user_code=BCDF-GHJK");
  });
});

describe("failed sign-ins", { timeout: 60_000 }, () => {
  // The wrangler.toml limits (STRICT_* bindings, see vitest.config.ts and abuse-limits.test.ts): the rest
  // of the suite runs with limits out of reach.
  const e = env as unknown as AppEnv & {
    STRICT_AUTH_FAILURES_BY_ADDRESS: RateLimit;
    STRICT_AUTH_FAILURES_BY_TOKEN: RateLimit;
    TEST_RATELIMITS: Record<"AUTH_FAILURES_BY_ADDRESS", number>;
  };
  const strictEnv: AppEnv = {
    ...e,
    AUTH_FAILURES_BY_ADDRESS: e.STRICT_AUTH_FAILURES_BY_ADDRESS,
    AUTH_FAILURES_BY_TOKEN: e.STRICT_AUTH_FAILURES_BY_TOKEN,
  };

  async function strict(ip: string, req: Request): Promise<{ status: number; text: string }> {
    req.headers.set("cf-connecting-ip", ip);
    const ctx = createExecutionContext();
    const res = await described(
      req.method,
      req.url,
      await worker.fetch(req as Request<unknown, IncomingRequestCfProperties>, strictEnv, ctx),
    );
    await waitOnExecutionContext(ctx);
    return { status: res.status, text: await res.text() };
  }

  function signInRequest(token: string): Request {
    return new Request("http://sf.test/console/sign-in", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://sf.test" },
      body: new URLSearchParams({ token, next: "/console/jobs" }).toString(),
    });
  }

  it("counts every failed sign-in like a failed /v1 login: past the limit the address gets 429, everywhere", async () => {
    const valid = await createUser("auth-limited");
    // Miniflare's limiter forgets its counts when its fixed minute ends: start well inside one.
    const into = Date.now() % 60_000;
    if (into > 45_000) await scheduler.wait(60_000 - into + 200);
    const ip = "203.0.113.70";
    const perAddress = e.TEST_RATELIMITS.AUTH_FAILURES_BY_ADDRESS;
    const statuses: number[] = [];
    for (let i = 0; i <= perAddress; i++)
      statuses.push((await strict(ip, signInRequest(`sfp_guess-${i}`))).status);
    expect(statuses).toEqual([...Array(perAddress).fill(401), 429]);

    const locked = await strict(ip, signInRequest(valid));
    expect(locked.status).toBe(429);
    expect(locked.text).toContain("too many failed logins from this address");
    // The same lockout as /v1's: one limiter for both.
    const v1 = await strict(
      ip,
      new Request("http://sf.test/v1/me", { headers: { authorization: `Bearer ${valid}` } }),
    );
    expect(v1.status).toBe(429);
    expect(JSON.parse(v1.text).error.code).toBe("TOO_MANY_FAILED_LOGINS");
    expect((await strict("203.0.113.71", signInRequest(valid))).status).toBe(303);
  });
});

describe("the session cookie", () => {
  it("is HttpOnly, SameSite=Lax, Path=/ on http, and D1 keeps only its sha256", async () => {
    const b = await signIn(ADMIN);
    const [set] = b.setCookies;
    expect(set).toMatch(/^sf_session=[A-Za-z0-9_-]{43};/);
    expect(set).toMatch(/;\s*HttpOnly/i);
    expect(set).toMatch(/;\s*SameSite=Lax/i);
    expect(set).toMatch(/;\s*Path=\/(;|$)/);
    expect(set).not.toMatch(/;\s*Secure/i);

    const row = await sessionRow(b);
    expect(row).not.toBeNull();
    expect(row!.id).toBe(await sha256Hex(b.cookieValue));
    const all = JSON.stringify((await testEnv.DB.prepare("SELECT * FROM console_sessions").all()).results);
    expect(all).not.toContain(b.cookieValue);
  });

  it("is __Host-sf_session with Secure on https, and works there", async () => {
    const b = await signIn(ADMIN, HTTPS);
    const [set] = b.setCookies;
    expect(set).toMatch(/^__Host-sf_session=[A-Za-z0-9_-]{43};/);
    expect(set).toMatch(/;\s*Secure/i);
    expect(set).toMatch(/;\s*HttpOnly/i);
    expect(set).toMatch(/;\s*SameSite=Lax/i);
    expect(set).toMatch(/;\s*Path=\/(;|$)/);
    expect(set).not.toMatch(/;\s*Domain=/i);
    const jobs = await b.get("/console/jobs");
    expect(jobs.status, jobs.location ?? "").toBe(200);
    expect(await sessionRow(b)).not.toBeNull();
    // And signing out there clears that very cookie.
    const out = await b.post("/console/sign-out", {}, { from: jobs.html });
    expect(out.status).toBe(303);
    expect(b.setCookies.join("\n")).toMatch(/^__Host-sf_session=;.*Max-Age=0/im);
    expect(b.cookie).toBe("");
  });
});

describe("session expiry", () => {
  it("ends a session idle past its idle expiry: sign-in again, told the session ended", async () => {
    const b = await signIn(ADMIN);
    const row = (await sessionRow(b))!;
    await testEnv.DB.prepare("UPDATE console_sessions SET idle_expires_at = ? WHERE id = ?")
      .bind(later(-1000), row.id)
      .run();
    const r = await b.get("/console/jobs?state=RUNNING");
    expectSentToSignIn(r, "/console/jobs?state=RUNNING", true);
    // The row of an ended session is deleted.
    const left = await testEnv.DB.prepare("SELECT COUNT(*) AS n FROM console_sessions WHERE id = ?")
      .bind(row.id)
      .first<{ n: number }>();
    expect(left?.n).toBe(0);
    const page = await b.get(r.location!);
    expect(page.status).toBe(200);
    expect(page.html).toContain("Your session ended");
  });

  it("ends a session at its absolute expiry however recently it was used", async () => {
    const b = await signIn(ADMIN);
    const row = (await sessionRow(b))!;
    await testEnv.DB.prepare("UPDATE console_sessions SET expires_at = ?, idle_expires_at = ? WHERE id = ?")
      .bind(later(-1000), later(3_600_000), row.id)
      .run();
    const old = b.cookie;
    const r = await b.get("/console/fleets");
    expectSentToSignIn(r, "/console/fleets", true);
    // The stale cookie is cleared, and worth nothing if sent again.
    expect(b.cookie).toBe("");
    b.cookie = old;
    expectSentToSignIn(await b.get("/console/jobs"), "/console/jobs", true);
  });

  it("clears the rows of sessions past their absolute expiry at the next sign-in (nobody presents them)", async () => {
    const forgotten = await signIn(ADMIN);
    const row = (await sessionRow(forgotten))!;
    await testEnv.DB.prepare("UPDATE console_sessions SET expires_at = ?, idle_expires_at = ? WHERE id = ?")
      .bind(later(-1000), later(-1000), row.id)
      .run();
    const fresh = await signIn(ADMIN);
    expect(await sessionRow(forgotten)).toBeNull();
    expect(await sessionRow(fresh)).not.toBeNull();
  });

  it("pushes the idle expiry forward with use, never past the absolute expiry", async () => {
    const b = await signIn(ADMIN);
    const { id, created_at, expires_at, idle_expires_at } = (await sessionRow(b))!;
    // The defaults: 8 hours idle, 7 days in all.
    expect(Date.parse(idle_expires_at) - Date.parse(created_at)).toBe(8 * 3600_000);
    expect(Date.parse(expires_at) - Date.parse(created_at)).toBe(7 * 24 * 3600_000);

    await testEnv.DB.prepare("UPDATE console_sessions SET idle_expires_at = ? WHERE id = ?")
      .bind(later(30_000), id)
      .run();
    expect((await b.get("/console/jobs")).status).toBe(200);
    const pushed = Date.parse((await sessionRow(b))!.idle_expires_at);
    expect(pushed).toBeGreaterThan(Date.now() + 8 * 3600_000 - 60_000);

    const end = later(3_600_000);
    await testEnv.DB.prepare("UPDATE console_sessions SET idle_expires_at = ?, expires_at = ? WHERE id = ?")
      .bind(later(30_000), end, id)
      .run();
    expect((await b.get("/console/jobs")).status).toBe(200);
    expect((await sessionRow(b))!.idle_expires_at).toBe(end);
  });
});

describe("a session ends with its token and its user", () => {
  it("ends when the token that signed it in is revoked, and only then", async () => {
    const cy = await createUser("auth-cy");
    const laptop = await mintToken(cy, "laptop");
    const b = await signIn(laptop.token);
    const other = await signIn(cy);
    expect((await b.get("/console/jobs")).status).toBe(200);
    expect((await api(cy, "DELETE", `/v1/tokens/${laptop.id}`)).status).toBe(200);
    expectSentToSignIn(await b.get("/console/jobs"), "/console/jobs", true);
    // A session signed in with another of the user's tokens goes on.
    expect((await other.get("/console/jobs")).status).toBe(200);
  });

  it("ends when its user is disabled", async () => {
    const di = await createUser("auth-di");
    const b = await signIn(di);
    expect((await b.get("/console/jobs")).status).toBe(200);
    expect((await api(ADMIN, "PATCH", "/v1/users/auth-di", { disabled: true })).status).toBe(200);
    expectSentToSignIn(await b.get("/console/jobs"), "/console/jobs", true);
    const api401 = await b.get("/console/api/me");
    expect(api401.status).toBe(401);
  });
});

describe("CSRF", () => {
  it("refuses a form without, or with a wrong or another session's token, and the session goes on", async () => {
    const b = await signIn(ADMIN);
    const other = await signIn(ADMIN);
    const page = await b.get("/console/jobs");
    const otherPage = await other.get("/console/jobs");
    expect(csrfIn(page.html)).not.toBe(csrfIn(otherPage.html));

    for (const [label, fields] of [
      ["no token", {}],
      ["a wrong token", { _csrf: "0".repeat(64) }],
      ["another session's token", { _csrf: csrfIn(otherPage.html) }],
      ["an empty token", { _csrf: "" }],
    ] as const) {
      const r = await b.post("/console/sign-out", fields);
      expect(r.status, label).toBe(403);
      expect(r.html, label).toContain("CSRF_REJECTED");
      expectSecurityHeaders(r, label);
    }
    expect(await sessionRow(b)).not.toBeNull();
    expect((await b.get("/console/jobs")).status).toBe(200);
  });

  it("refuses the right token from another origin, or sent cross-site without an Origin", async () => {
    const b = await signIn(ADMIN);
    const page = await b.get("/console/jobs");
    const foreign = await b.post(
      "/console/sign-out",
      {},
      { from: page.html, origin: "https://evil.example" },
    );
    expect(foreign.status).toBe(403);
    expect(foreign.html).toContain("another site");
    const http = await b.post("/console/sign-out", {}, { from: page.html, origin: "https://sf.test" });
    expect(http.status).toBe(403);
    const noOrigin = await b.send("/console/sign-out", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "cross-site" },
      body: new URLSearchParams({ _csrf: csrfIn(page.html) }).toString(),
    });
    expect(noOrigin.status).toBe(403);
    expect((await b.get("/console/jobs")).status).toBe(200);
  });

  it("signs out with the right token from the console's origin: the row is gone, the old cookie worthless", async () => {
    const b = await signIn(ADMIN);
    const page = await b.get("/console/jobs");
    const row = (await sessionRow(b))!;
    const old = b.cookie;
    const out = await b.post("/console/sign-out", {}, { from: page.html });
    expect(out.status).toBe(303);
    expect(out.location).toBe("/console/sign-in");
    expect(b.cookie).toBe("");
    const gone = await testEnv.DB.prepare("SELECT COUNT(*) AS n FROM console_sessions WHERE id = ?")
      .bind(row.id)
      .first<{ n: number }>();
    expect(gone?.n).toBe(0);
    b.cookie = old;
    expectSentToSignIn(await b.get("/console/jobs"), "/console/jobs", true);
  });

  it("refuses a sign-in form posted from another site", async () => {
    const b = new ConsoleBrowser();
    const r = await b.post(
      "/console/sign-in",
      { token: ADMIN, next: "/console/jobs" },
      { origin: "https://evil.example" },
    );
    expect(r.status).toBe(403);
    expect(b.cookie).toBe("");
  });
});

describe("/console/api", () => {
  it("answers 401 UNAUTHENTICATED JSON without a session, and reads /v1 as the signed-in user with one", async () => {
    const anon = await new ConsoleBrowser().get("/console/api/me");
    expect(anon.status).toBe(401);
    expect(anon.headers.get("content-type")).toContain("application/json");
    expect(JSON.parse(anon.html).error.code).toBe("UNAUTHENTICATED");
    expectSecurityHeaders(anon, "api 401");

    const eve = await signIn(await createUser("auth-eve", "viewer"));
    const me = await eve.get("/console/api/me");
    expect(me.status).toBe(200);
    expect(JSON.parse(me.html).user).toMatchObject({ name: "auth-eve", role: "viewer" });
  });

  it("passes nothing but reads: a POST to /console/api/jobs creates no job", async () => {
    const fleet = await createFleet("auth-api-fleet");
    const b = await signIn(ADMIN);
    const page = await b.get("/console/jobs");
    const before = await countRows("jobs");
    const body = JSON.stringify(await customSpec({ fleet: fleet.name }));
    const sent = await b.send("/console/api/jobs", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        origin: "http://sf.test",
        "x-csrf-token": csrfIn(page.html),
      },
      body,
    });
    expect([404, 405]).toContain(sent.status);
    const noCsrf = await b.send("/console/api/jobs", {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://sf.test" },
      body,
    });
    expect(noCsrf.status).toBe(403);
    expect(await countRows("jobs")).toBe(before);
  });

  it("does not take a bearer token instead of the session cookie", async () => {
    const b = new ConsoleBrowser();
    expectSentToSignIn(
      await b.get("/console/jobs", { authorization: `Bearer ${ADMIN}` }),
      "/console/jobs",
      false,
    );
    const read = await b.get("/console/api/me", { authorization: `Bearer ${ADMIN}` });
    expect(read.status).toBe(401);
  });
});

describe("where `next` may lead", () => {
  it("goes only to console pages and the device page, whatever the sign-in form is given", async () => {
    for (const next of [
      "//evil.example",
      "https://evil.example",
      "/console/../v1",
      "/console/%2e%2e/v1/users",
      "/console/..%2fv1",
      "/v1/users",
      "/\\evil.example",
      "/console\\..\\v1",
      "/console/sign-in?next=/console/sign-in",
      "/devices",
      "javascript:alert(1)",
      "",
    ]) {
      const b = new ConsoleBrowser();
      const r = await b.post("/console/sign-in", { token: ADMIN, next });
      expect(r.status, next).toBe(303);
      const to = new URL(r.location!, "http://sf.test/console/sign-in");
      expect(to.origin, next).toBe("http://sf.test");
      expect(to.pathname.startsWith("/console/"), `${next} → ${r.location}`).toBe(true);
      expect(to.pathname, next).not.toContain("sign-in");
    }
    expect(safeNext("//evil.example")).toBe("/console/jobs");
    expect(safeNext("https://evil.example")).toBe("/console/jobs");
    expect(safeNext("/console/../v1")).toBe("/console/jobs");
    expect(safeNext("/v1/users")).toBe("/console/jobs");
    expect(safeNext("/console/%2e%2e/v1")).toBe("/console/jobs");
  });

  it("keeps a console page with its query, and the device page with exactly its user code", () => {
    expect(safeNext("/console/jobs?state=RUNNING&user=ada")).toBe("/console/jobs?state=RUNNING&user=ada");
    expect(safeNext("/console/jobs/job_1/logs")).toBe("/console/jobs/job_1/logs");
    expect(safeNext("/console/a/../fleets")).toBe("/console/fleets");
    expect(safeNext("/device")).toBe("/device");
    expect(safeNext("/device?user_code=BCDF-GHJK")).toBe("/device?user_code=BCDF-GHJK");
    // Anything else on the device page's query is dropped, not passed on.
    expect(safeNext("/device?user_code=BCDF-GHJK&next=//evil.example")).toBe("/device");
    expect(safeNext("/device?user_code=%3Cscript%3E")).toBe("/device");
    expect(safeNext("/device/../v1/me")).toBe("/console/jobs");
    expect(safeNext("/device?x=1")).toBe("/device");
  });
});

describe("security headers", () => {
  it("are on pages, redirects, the 404 page, the sign-in page and the device page", async () => {
    const anon = new ConsoleBrowser();
    const redirect = await anon.get("/console/jobs");
    expect(redirect.status).toBe(303);
    expectSecurityHeaders(redirect, "redirect to sign-in");
    expect(redirect.headers.get("cache-control")).toBe("no-store");
    expectSecurityHeaders(await anon.get("/console/sign-in"), "sign-in page");
    const refused = await anon.post("/console/sign-in", { token: "sfp_nope" });
    expectSecurityHeaders(refused, "refused sign-in");

    const b = await signIn(ADMIN);
    const missing = await b.get("/console/no-such-page");
    expect(missing.status).toBe(404);
    expect(missing.html).toContain("Not found");
    expectSecurityHeaders(missing, "404 page");
    expectSecurityHeaders(await b.get("/console"), "redirect from /console");
    expectSecurityHeaders(await b.get("/console/sign-in"), "signed-in redirect");
    expectSecurityHeaders(await b.get("/console/jobs"), "jobs page");
    expectSecurityHeaders(await b.get("/device"), "device page");
    expectSecurityHeaders(await anon.get("/device"), "device redirect");
  });
});
