/**
 * Abuse limits (issue 14). Failed logins are counted per client address and per presented token; past
 * the limits of wrangler.toml the address or token is refused with 429 before any token is looked up, a
 * valid one too, while successful requests are never counted. Request bodies over their route's limit
 * are refused with 413 before they are read whole.
 *
 * The login tests run the Worker's own fetch handler with the wrangler.toml limits (STRICT_* bindings,
 * see vitest.config.ts): the rest of the suite shares a runtime whose limits are raised out of reach.
 */
import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { addressKey } from "../../worker/auth/login-limiter.js";
import type { AppEnv } from "../../worker/env.js";
import { MAX_JSON_BODY_BYTES } from "../../worker/http.js";
import worker from "../../worker/index.js";
import { ADMIN, api, createFleet, createUser } from "./helpers.js";
import { described } from "./openapi-conformance.js";

const testEnv = env as unknown as AppEnv & {
  STRICT_AUTH_FAILURES_BY_ADDRESS: RateLimit;
  STRICT_AUTH_FAILURES_BY_TOKEN: RateLimit;
  TEST_RATELIMITS: Record<"AUTH_FAILURES_BY_ADDRESS" | "AUTH_FAILURES_BY_TOKEN", number>;
};
const strictEnv: AppEnv = {
  ...testEnv,
  AUTH_FAILURES_BY_ADDRESS: testEnv.STRICT_AUTH_FAILURES_BY_ADDRESS,
  AUTH_FAILURES_BY_TOKEN: testEnv.STRICT_AUTH_FAILURES_BY_TOKEN,
};
const PER_ADDRESS = testEnv.TEST_RATELIMITS.AUTH_FAILURES_BY_ADDRESS;
const PER_TOKEN = testEnv.TEST_RATELIMITS.AUTH_FAILURES_BY_TOKEN;

interface Answer {
  status: number;
  code: string | undefined;
  retryAfter: string | null;
}

/** One request to the Worker with the wrangler.toml limits, from `ip` (null: no address header at all). */
async function call(
  ip: string | null,
  authorization: string | null,
  method = "GET",
  path = "/v1/me",
  body?: unknown,
): Promise<Answer> {
  const headers = new Headers();
  if (ip) headers.set("cf-connecting-ip", ip);
  if (authorization) headers.set("authorization", authorization);
  if (body !== undefined) headers.set("content-type", "application/json");
  const request = new Request(`http://sf.test${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const ctx = createExecutionContext();
  const res = await described(
    request.method,
    request.url,
    await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, strictEnv, ctx),
  );
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  const parsed = text ? (JSON.parse(text) as { error?: { code: string } }) : {};
  return { status: res.status, code: parsed.error?.code, retryAfter: res.headers.get("retry-after") };
}

const bearer = (token: string) => `Bearer ${token}`;

/**
 * Miniflare's rate limiter counts in fixed windows aligned to the clock and forgets every count when one
 * ends: a burst that must be counted whole starts well inside a window.
 */
async function freshWindow(): Promise<void> {
  const into = Date.now() % 60_000;
  if (into > 45_000) await scheduler.wait(60_000 - into + 200);
}

function expectLockedOut(a: Answer): void {
  expect(a.status).toBe(429);
  expect(a.code).toBe("TOO_MANY_FAILED_LOGINS");
  const seconds = Number(a.retryAfter);
  expect(Number.isInteger(seconds) && seconds >= 1 && seconds <= 60, `Retry-After ${a.retryAfter}`).toBe(
    true,
  );
}

describe("failed logins", { timeout: 60_000 }, () => {
  it("throttles 50 failed logins in a row, then refuses even a valid token from that address", async () => {
    const valid = await createUser("abuse-valid");
    await freshWindow();
    const ip = "203.0.113.10";
    const answers: Answer[] = [];
    for (let i = 0; i < 50; i++) answers.push(await call(ip, bearer(`sfp_guess-number-${i}`)));

    expect(answers.map((a) => a.status)).toEqual([
      ...Array(PER_ADDRESS).fill(401),
      ...Array(50 - PER_ADDRESS).fill(429),
    ]);
    expect(answers[0]!.code).toBe("UNAUTHENTICATED");
    for (const a of answers.slice(PER_ADDRESS)) expectLockedOut(a);

    // The point of locking out an address: a right guess during the lockout looks like a wrong one.
    expectLockedOut(await call(ip, bearer(valid)));
    // Other clients are unaffected, and so is the health check from the locked-out address.
    expect((await call("203.0.113.11", bearer(valid))).status).toBe(200);
    expect((await call(null, bearer(valid))).status).toBe(200);
    expect((await call(ip, null, "GET", "/v1/health")).status).toBe(200);
  });

  it("limits one failing token by its own key, however many addresses send it", async () => {
    const owner = await createUser("abuse-revoked");
    const minted = await api(owner, "POST", "/v1/tokens", { name: "leaked" });
    expect((await api(owner, "DELETE", `/v1/tokens/${minted.body.id}`)).status).toBe(200);
    await freshWindow();

    const answers: Answer[] = [];
    for (let i = 0; i < PER_TOKEN + 5; i++)
      answers.push(await call(`198.51.100.${i + 1}`, bearer(minted.body.token)));
    expect(answers.map((a) => `${a.status} ${a.code}`)).toEqual([
      ...Array(PER_TOKEN).fill("401 TOKEN_REVOKED"),
      ...Array(5).fill("429 TOO_MANY_FAILED_LOGINS"),
    ]);
    expectLockedOut(await call("198.51.100.200", bearer(minted.body.token)));
    // Each address failed once or twice, far below its own limit: a valid token from any of them works.
    expect((await call("198.51.100.1", bearer(owner))).status).toBe(200);
  });

  it("never counts successful requests: 200 of them, then the failures an address may have", async () => {
    const valid = await createUser("abuse-busy");
    await freshWindow();
    const ip = "203.0.113.20";
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) statuses.push((await call(ip, bearer(valid))).status);
    expect(statuses).toEqual(Array(200).fill(200));

    const failures: number[] = [];
    for (let i = 0; i < PER_ADDRESS; i++) failures.push((await call(ip, bearer(`sfp_typo-${i}`))).status);
    expect(failures).toEqual(Array(PER_ADDRESS).fill(401));
    expect((await call(ip, bearer(valid))).status).toBe(200);
  });

  it("does not count requests that present no credential", async () => {
    const valid = await createUser("abuse-anonymous");
    await freshWindow();
    const ip = "203.0.113.30";
    const statuses: number[] = [];
    for (let i = 0; i < PER_ADDRESS + 10; i++) statuses.push((await call(ip, null)).status);
    expect(statuses).toEqual(Array(PER_ADDRESS + 10).fill(401));
    expect((await call(ip, bearer(valid))).status).toBe(200);
  });

  it("counts malformed headers and forged agent credentials against the address", async () => {
    await freshWindow();
    const ip = "203.0.113.40";
    const forged = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJub2RfeCJ9.c2lnbmVkIHdpdGggYW5vdGhlciBrZXk";
    const statuses: number[] = [];
    for (let i = 0; i < PER_ADDRESS; i++) {
      statuses.push(
        (await call(ip, i % 2 ? `Basic dXNlcjpwYXNzd29yZA${i}` : bearer(`${forged}${i}`))).status,
      );
    }
    expect(statuses).toEqual(Array(PER_ADDRESS).fill(401));
    expectLockedOut(await call(ip, "Bearer"));
  });

  it("counts failed enrollments, and refuses a locked-out address before reading its token", async () => {
    const fleet = await createFleet("abuse-enroll");
    const minted = await api(ADMIN, "POST", `/v1/fleets/${fleet.name}/enrollment-tokens`, { ttl_minutes: 5 });
    expect(minted.status).toBe(201);
    await freshWindow();
    const ip = "203.0.113.50";
    const answers: string[] = [];
    for (let i = 0; i <= PER_ADDRESS; i++) {
      const a = await call(ip, null, "POST", "/v1/agents/enroll", { token: `sfe_wrong-${i}` });
      answers.push(`${a.status} ${a.code}`);
    }
    expect(answers).toEqual([
      ...Array(PER_ADDRESS).fill("401 ENROLLMENT_TOKEN_INVALID"),
      "429 TOO_MANY_FAILED_LOGINS",
    ]);
    expectLockedOut(await call(ip, null, "POST", "/v1/agents/enroll", { token: minted.body.token }));
    // Refused unread: the one-shot token was not spent, and enrolls from elsewhere.
    expect(
      (await call("203.0.113.51", null, "POST", "/v1/agents/enroll", { token: minted.body.token })).status,
    ).toBe(201);
  });

  it("keys an IPv6 client by its /64, and uses X-Forwarded-For without CF-Connecting-IP", async () => {
    const valid = await createUser("abuse-v6");
    await freshWindow();
    // Each guess from another address of the same /64.
    const statuses: number[] = [];
    for (let i = 0; i <= PER_ADDRESS; i++) {
      statuses.push((await call(`2001:db8:1:2::${(i + 1).toString(16)}`, bearer(`sfp_v6-${i}`))).status);
    }
    expect(statuses).toEqual([...Array(PER_ADDRESS).fill(401), 429]);
    expectLockedOut(await call("2001:db8:1:2:ffff::1", bearer(valid)));
    expect((await call("2001:db8:1:3::1", bearer(valid))).status).toBe(200);

    const forwarded = new Request("http://sf.test/v1/me", {
      headers: { "x-forwarded-for": "2001:db8:1:2::99, 10.0.0.1", authorization: bearer(valid) },
    });
    const ctx = createExecutionContext();
    const res = await described(
      "GET",
      forwarded.url,
      await worker.fetch(forwarded as Request<unknown, IncomingRequestCfProperties>, strictEnv, ctx),
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(429);
  });
});

describe("addressKey", () => {
  it("counts IPv4 as is and IPv6 by its /64, however it is written", () => {
    expect(addressKey("203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("unknown")).toBe("unknown");
    for (const a of ["2001:db8:1:2::1", "2001:0db8:0001:0002:ffff:0:0:1", "2001:db8:1:2:a:b:c:d"]) {
      expect(addressKey(a), a).toBe("2001:db8:1:2::/64");
    }
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
  });
});

/** A body that yields `chunk` bytes per pull, forever; `pulled()` says how many bytes were taken. */
function endlessBody(chunk = 64 * 1024): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(ctl) {
      pulled += chunk;
      ctl.enqueue(new Uint8Array(chunk).fill(0x20));
    },
  });
  return { stream, pulled: () => pulled };
}

async function post(token: string, path: string, body: BodyInit, headers: Record<string, string> = {}) {
  const res = await SELF.fetch(`http://sf.test${path}`, {
    method: "POST",
    headers: { authorization: bearer(token), "content-type": "application/json", ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : {} };
}

describe("request body limits", () => {
  it("refuses a Content-Length over the limit at once, without reading the body", async () => {
    const viewer = await createUser("body-declared", "viewer");
    const { stream, pulled } = endlessBody();
    const r = await post(viewer, "/v1/tokens", stream, { "content-length": String(MAX_JSON_BODY_BYTES + 1) });
    expect(r.status).toBe(413);
    expect(r.body.error).toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
      details: { limit: MAX_JSON_BODY_BYTES },
    });
    expect(pulled()).toBeLessThan(MAX_JSON_BODY_BYTES);
  });

  it("cuts a chunked body off as soon as it passes the limit, on every JSON route", async () => {
    const op = await createUser("body-chunked");
    for (const path of ["/v1/tokens", "/v1/jobs"]) {
      const { stream, pulled } = endlessBody();
      const r = await post(op, path, stream);
      expect({ path, status: r.status, code: r.body.error?.code }).toEqual({
        path,
        status: 413,
        code: "PAYLOAD_TOO_LARGE",
      });
      // Never buffered past the limit: the stream stops being pulled soon after it passes.
      expect(pulled()).toBeLessThan(MAX_JSON_BODY_BYTES + 1024 * 1024);
    }
  });

  it("still takes a well-sized body, streamed or not", async () => {
    const viewer = await createUser("body-fine", "viewer");
    const json = JSON.stringify({ name: "streamed" });
    const streamed = new ReadableStream<Uint8Array>({
      start(ctl) {
        ctl.enqueue(new TextEncoder().encode(json.slice(0, 5)));
        ctl.enqueue(new TextEncoder().encode(json.slice(5)));
        ctl.close();
      },
    });
    expect((await post(viewer, "/v1/tokens", streamed)).status).toBe(201);
    // Just under the limit is read whole: the schema, not the size, refuses this name.
    const padded = JSON.stringify({ name: "x".repeat(MAX_JSON_BODY_BYTES - 20) });
    expect(padded.length).toBeLessThanOrEqual(MAX_JSON_BODY_BYTES);
    const r = await post(viewer, "/v1/tokens", padded);
    expect({ status: r.status, code: r.body.error?.code }).toEqual({ status: 400, code: "BAD_REQUEST" });
  });
});
