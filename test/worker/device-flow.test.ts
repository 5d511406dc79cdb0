/**
 * The device login (`sf login` without a token): code pair, approval on the /device page from a browser
 * signed in to the console, one token.
 */
import { describe, expect, it } from "vitest";
import { ConsoleBrowser, csrfIn, signIn } from "./console-support.js";
import { ADMIN, api, countRows, createUser } from "./helpers.js";
import { testEnv } from "./test-env.js";

interface Started {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

async function start(): Promise<Started> {
  const r = await api<Started>(null, "POST", "/v1/auth/device");
  expect(r.status).toBe(200);
  return r.body;
}

function poll(deviceCode: string) {
  return api(null, "POST", "/v1/auth/device/token", { device_code: deviceCode });
}

/** Signs `token`'s user in to the console, opens the /device page and sends its form, as a browser does. */
async function approveAs(
  token: string,
  fields: { user_code: string; action: string },
): Promise<{ status: number; html: string }> {
  const b = await signIn(token);
  const page = await b.get("/device");
  expect(page.status).toBe(200);
  return b.post("/device", fields, { from: page.html });
}

/** Makes the next poll count as on time without waiting out the interval. */
async function forgetLastPoll(): Promise<void> {
  await testEnv.DB.prepare("UPDATE device_codes SET last_polled_at = NULL").run();
}

describe("device login", () => {
  it("starts with RFC 8628 shapes and a readable code", async () => {
    const s = await start();
    expect(s.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(s.device_code).toMatch(/^sfd_[A-Za-z0-9_-]{43}$/);
    expect(s.verification_uri).toBe(`${testEnv.SF_PUBLIC_URL}/device`);
    expect(s.verification_uri_complete).toBe(`${testEnv.SF_PUBLIC_URL}/device?user_code=${s.user_code}`);
    expect({ expires_in: s.expires_in, interval: s.interval }).toEqual({ expires_in: 600, interval: 2 });
    const stored = await testEnv.DB.prepare("SELECT * FROM device_codes").all();
    expect(JSON.stringify(stored.results)).not.toContain(s.device_code);
  });

  it("sends a browser without a session to sign in, and back to the code after", async () => {
    const s = await start();
    const b = new ConsoleBrowser();
    const asked = await b.get(`/device?user_code=${s.user_code}`);
    expect(asked.status).toBe(303);
    const next = `/device?user_code=${s.user_code}`;
    expect(asked.location).toBe(`/console/sign-in?next=${encodeURIComponent(next)}`);
    expect(asked.headers.get("content-security-policy")).toContain("default-src 'none'");

    const form = await b.get(asked.location!);
    expect(form.html).toContain(`name="next" value="${next}"`);
    expect(form.html).toContain("approve or deny the code your terminal showed");
    const signedIn = await b.post("/console/sign-in", { token: ADMIN, next });
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe(next);
    expect((await b.get(signedIn.location!)).html).toContain(`value="${s.user_code}"`);
  });

  it("shows a signed-in person the code, their name, Approve and Deny, and no token field", async () => {
    const s = await start();
    const b = await signIn(await createUser("ivy"));
    const res = await b.get(`/device?user_code=${s.user_code.toLowerCase()}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    // The console's frame and headers: its stylesheet, its CSP (no inline script or style).
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.html).toMatch(/<link rel="stylesheet" href="\/console\/assets\/app\.[0-9a-f]{12}\.css"/);
    expect(res.html).not.toMatch(/<style|style="|<script>/);
    expect(res.html).toContain(`value="${s.user_code}"`);
    expect(res.html).toContain("Signed in as <strong>ivy</strong>");
    expect(res.html).toMatch(/<button[^>]*value="approve"[^>]*>\s*Approve/);
    expect(res.html).toMatch(/<button[^>]*value="deny"[^>]*>\s*Deny/);
    expect(res.html).toContain('<label for="user_code">');
    expect(csrfIn(res.html)).toMatch(/^[0-9a-f]{64}$/);
    expect(res.html).not.toMatch(/name="token"|type="password"/);
  });

  it("takes a code typed by hand on the bare page", async () => {
    const s = await start();
    const b = await signIn(await createUser("hal"));
    const page = await b.get("/device");
    expect(page.status).toBe(200);
    expect(page.html).toMatch(/<input[^>]*id="user_code"[^>]*value=""/);
    const typed = ` ${s.user_code.toLowerCase().replace("-", " ")} `;
    const r = await b.post("/device", { user_code: typed, action: "approve" }, { from: page.html });
    expect(r.status).toBe(200);
    expect(r.html).toContain(`Code <strong>${s.user_code}</strong> is approved for <strong>hal</strong>`);
    await forgetLastPoll();
    expect((await poll(s.device_code)).body.user).toBe("hal");
  });

  it("needs the session and its CSRF token to decide: without them the code stays pending", async () => {
    const s = await start();
    const anon = new ConsoleBrowser();
    const noSession = await anon.post("/device", { user_code: s.user_code, action: "approve" });
    expect(noSession.status).toBe(303);
    expect(noSession.location).toBe(`/console/sign-in?next=${encodeURIComponent("/device")}`);

    const b = await signIn(ADMIN);
    const page = await b.get("/device");
    const other = await signIn(ADMIN);
    const otherPage = await other.get("/device");
    for (const [label, r] of [
      ["no CSRF token", await b.post("/device", { user_code: s.user_code, action: "approve" })],
      [
        "another session's token",
        await b.post("/device", { user_code: s.user_code, action: "approve", _csrf: csrfIn(otherPage.html) }),
      ],
      [
        "another origin",
        await b.post(
          "/device",
          { user_code: s.user_code, action: "approve" },
          { from: page.html, origin: "https://evil.example" },
        ),
      ],
    ] as const) {
      expect(r.status, label).toBe(403);
      expect(r.html, label).toContain("CSRF_REJECTED");
    }
    expect((await poll(s.device_code)).body.error.code).toBe("AUTHORIZATION_PENDING");
  });

  it("is pending until approved, then hands out a new token exactly once", async () => {
    const ada = await createUser("ada");
    const s = await start();
    expect((await poll(s.device_code)).body.error.code).toBe("AUTHORIZATION_PENDING");

    const approved = await approveAs(ada, { user_code: s.user_code.toLowerCase(), action: "approve" });
    expect(approved.status).toBe(200);
    expect(approved.html).toContain("<h1>Approved</h1>");
    // Audited as before: the approver (the session's user) created a token for themselves.
    const audit = await api(ADMIN, "GET", "/v1/audit?action=token.create&target=user:ada");
    expect(audit.body.entries).toEqual([
      expect.objectContaining({ actor: "ada", target: "user:ada", details: { via: "device login" } }),
    ]);
    // Approval mints nothing: no secret sits in D1 waiting for the CLI.
    const tokensBefore = await countRows("tokens");

    await forgetLastPoll();
    const got = await poll(s.device_code);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      user: "ada",
      name: expect.stringMatching(/^sf device login \d{4}-\d{2}-\d{2}$/),
    });
    const token = got.body.token as string;
    expect(token).toMatch(/^sfp_/);
    expect(token).not.toBe(ada);
    expect(await countRows("tokens")).toBe(tokensBefore + 1);
    expect((await api(token, "GET", "/v1/me")).body.user.name).toBe("ada");
    const listed = await api(ada, "GET", "/v1/tokens");
    expect(listed.body.tokens.map((t: { name: string }) => t.name)).toContain(got.body.name);

    await forgetLastPoll();
    const again = await poll(s.device_code);
    expect({ status: again.status, code: again.body.error.code }).toEqual({
      status: 400,
      code: "INVALID_GRANT",
    });
    expect(await countRows("tokens")).toBe(tokensBefore + 1);
  });

  it("stops the CLI with ACCESS_DENIED when the person denies", async () => {
    const s = await start();
    const denied = await approveAs(ADMIN, { user_code: s.user_code, action: "deny" });
    expect(denied.status).toBe(200);
    expect(denied.html).toContain("<h1>Denied</h1>");
    expect((await poll(s.device_code)).body.error.code).toBe("ACCESS_DENIED");
    const late = await approveAs(ADMIN, { user_code: s.user_code, action: "approve" });
    expect(late.status).toBe(409);
    expect(late.html).toContain("already approved or denied");
  });

  it("expires: polls get EXPIRED_TOKEN and the page refuses the code", async () => {
    const s = await start();
    await testEnv.DB.prepare("UPDATE device_codes SET expires_at = ?")
      .bind(new Date(Date.now() - 1000).toISOString())
      .run();
    const r = await poll(s.device_code);
    expect({ status: r.status, code: r.body.error.code }).toEqual({ status: 400, code: "EXPIRED_TOKEN" });
    const page = await approveAs(ADMIN, { user_code: s.user_code, action: "approve" });
    expect(page.status).toBe(404);
    expect(page.html).toContain("expired");
  });

  it("cannot be approved from a session that ended with its token or user", async () => {
    const s = await start();
    const bob = await createUser("bob");
    const minted = await api(bob, "POST", "/v1/tokens", { name: "laptop" });
    const b = await signIn(minted.body.token);
    const page = await b.get("/device");
    await api(bob, "DELETE", `/v1/tokens/${minted.body.id}`);
    const revoked = await b.post(
      "/device",
      { user_code: s.user_code, action: "approve" },
      { from: page.html },
    );
    expect(revoked.status).toBe(303);
    expect(revoked.location).toContain("/console/sign-in?");

    const carol = await signIn(await createUser("carol"));
    const carolPage = await carol.get("/device");
    expect((await api(ADMIN, "PATCH", "/v1/users/carol", { disabled: true })).status).toBe(200);
    const disabled = await carol.post(
      "/device",
      { user_code: s.user_code, action: "approve" },
      { from: carolPage.html },
    );
    expect(disabled.status).toBe(303);

    expect((await poll(s.device_code)).body.error.code).toBe("AUTHORIZATION_PENDING");
  });

  it("rejects an unknown code and an unknown device code", async () => {
    await start();
    const page = await approveAs(ADMIN, { user_code: "BCDF-GHJK", action: "approve" });
    expect(page.status).toBe(404);
    const malformed = await approveAs(ADMIN, { user_code: "ABC", action: "approve" });
    expect(malformed.status).toBe(400);
    expect(malformed.html).toContain("A code is 8 letters");
    const noAction = await approveAs(ADMIN, { user_code: "BCDF-GHJK", action: "" });
    expect(noAction.status).toBe(400);
    expect(noAction.html).toContain("Choose Approve or Deny");
    const r = await poll("sfd_unknown");
    expect({ status: r.status, code: r.body.error.code }).toEqual({ status: 400, code: "INVALID_GRANT" });
  });

  it("answers a body that is no form with the page and a 400, not a 500", async () => {
    const b = await signIn(ADMIN);
    const csrf = csrfIn((await b.get("/device")).html);
    for (const [type, body] of [
      ["multipart/form-data; boundary=x", "\u001aV\u0005"],
      ["multipart/form-data", "user_code=BCDF-GHJK"],
    ]) {
      const res = await b.send("/device", {
        method: "POST",
        headers: { "content-type": type!, origin: "http://sf.test", "x-csrf-token": csrf },
        body,
      });
      expect(res.status, type).toBe(400);
      expect(res.html).toContain("The form could not be read");
    }
  });

  it("answers SLOW_DOWN to a client that polls faster than the interval, and widens the interval", async () => {
    const s = await start();
    expect((await poll(s.device_code)).body.error.code).toBe("AUTHORIZATION_PENDING");
    const fast = await poll(s.device_code);
    expect({ status: fast.status, code: fast.body.error.code }).toEqual({ status: 400, code: "SLOW_DOWN" });
    expect(fast.body.error.details).toEqual({ interval: 7 });
  });

  it("does not hand out a token once its approver is disabled", async () => {
    const dave = await createUser("dave");
    const s = await start();
    expect((await approveAs(dave, { user_code: s.user_code, action: "approve" })).status).toBe(200);
    await api(ADMIN, "PATCH", "/v1/users/dave", { disabled: true });
    await forgetLastPoll();
    expect((await poll(s.device_code)).body.error.code).toBe("ACCESS_DENIED");
  });
});
