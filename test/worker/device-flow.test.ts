/** The device login (`sf login` without a token): code pair, approval on the /device page, one token. */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
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

/** Submits the /device page's form the way a browser does. */
async function submitForm(fields: Record<string, string>): Promise<{ status: number; html: string }> {
  const res = await SELF.fetch("http://sf.test/device", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, html: await res.text() };
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

  it("serves a self-contained page that prefills the code and says there is no browser login", async () => {
    const s = await start();
    const res = await SELF.fetch(`http://sf.test/device?user_code=${s.user_code.toLowerCase()}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).toContain(`value="${s.user_code}"`);
    expect(html).toContain("no browser login yet");
    expect(html).not.toMatch(/<script|https?:\/\//);
  });

  it("is pending until approved, then hands out a new token exactly once", async () => {
    const ada = await createUser("ada");
    const s = await start();
    expect((await poll(s.device_code)).body.error.code).toBe("AUTHORIZATION_PENDING");

    const approved = await submitForm({
      user_code: s.user_code.toLowerCase(),
      token: ada,
      action: "approve",
    });
    expect(approved.status).toBe(200);
    expect(approved.html).toContain("Approved");
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
    const denied = await submitForm({ user_code: s.user_code, token: ADMIN, action: "deny" });
    expect(denied.status).toBe(200);
    expect(denied.html).toContain("Denied");
    expect((await poll(s.device_code)).body.error.code).toBe("ACCESS_DENIED");
    const late = await submitForm({ user_code: s.user_code, token: ADMIN, action: "approve" });
    expect(late.status).toBe(409);
  });

  it("expires: polls get EXPIRED_TOKEN and the page refuses the code", async () => {
    const s = await start();
    await testEnv.DB.prepare("UPDATE device_codes SET expires_at = ?")
      .bind(new Date(Date.now() - 1000).toISOString())
      .run();
    const r = await poll(s.device_code);
    expect({ status: r.status, code: r.body.error.code }).toEqual({ status: 400, code: "EXPIRED_TOKEN" });
    const page = await submitForm({ user_code: s.user_code, token: ADMIN, action: "approve" });
    expect(page.status).toBe(404);
    expect(page.html).toContain("expired");
  });

  it("refuses approval with an unknown, revoked or disabled-owner token, and leaves the code pending", async () => {
    const s = await start();
    const unknown = await submitForm({
      user_code: s.user_code,
      token: "sfp_not-a-real-token",
      action: "approve",
    });
    expect(unknown.status).toBe(401);

    const bob = await createUser("bob");
    const minted = await api(bob, "POST", "/v1/tokens", { name: "laptop" });
    await api(bob, "DELETE", `/v1/tokens/${minted.body.id}`);
    const revoked = await submitForm({ user_code: s.user_code, token: minted.body.token, action: "approve" });
    expect(revoked.status).toBe(401);
    expect(revoked.html).toContain("revoked");

    const carol = await createUser("carol");
    expect((await api(ADMIN, "PATCH", "/v1/users/carol", { disabled: true })).status).toBe(200);
    const disabled = await submitForm({ user_code: s.user_code, token: carol, action: "approve" });
    expect(disabled.status).toBe(403);

    expect((await poll(s.device_code)).body.error.code).toBe("AUTHORIZATION_PENDING");
  });

  it("rejects an unknown code and an unknown device code", async () => {
    await start();
    const page = await submitForm({ user_code: "BCDF-GHJK", token: ADMIN, action: "approve" });
    expect(page.status).toBe(404);
    const r = await poll("sfd_unknown");
    expect({ status: r.status, code: r.body.error.code }).toEqual({ status: 400, code: "INVALID_GRANT" });
  });

  it("answers a body that is no form with the page and a 400, not a 500", async () => {
    for (const [type, body] of [
      ["multipart/form-data; boundary=x", "\u001aV\u0005"],
      ["multipart/form-data", "user_code=BCDF-GHJK"],
    ]) {
      const res = await SELF.fetch("http://sf.test/device", {
        method: "POST",
        headers: { "content-type": type! },
        body,
      });
      expect(res.status, type).toBe(400);
      expect(await res.text()).toContain("The form could not be read");
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
    await submitForm({ user_code: s.user_code, token: dave, action: "approve" });
    await api(ADMIN, "PATCH", "/v1/users/dave", { disabled: true });
    await forgetLastPoll();
    expect((await poll(s.device_code)).body.error.code).toBe("ACCESS_DENIED");
  });
});
