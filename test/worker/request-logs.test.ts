/**
 * One structured log line per request, found by the request id its client was given: in the
 * `x-request-id` header of every answer and in `error.request_id` of every error body. The id is
 * Cloudflare's `cf-ray` when the request has a well-formed one, a fresh UUID otherwise. No line holds
 * the caller's token. The log lines are read from the real app run with an explicit SF_LOG_LEVEL, so
 * they do not depend on the level the test bindings set.
 */
import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeAll, beforeEach, describe, expect, it, type MockInstance, vi } from "vitest";
import { createApp } from "../../worker/app.js";
import { enroll } from "./agent-support.js";
import { ADMIN, type ApiResponse, api, createFleet, createUser } from "./helpers.js";
import { startRun } from "./ingest-helpers.js";
import { described } from "./openapi-conformance.js";
import { testEnv } from "./test-env.js";

const app = createApp();

/** A request to the app as the Worker serves it, with SF_LOG_LEVEL set (default: info, every request). */
// biome-ignore lint/suspicious/noExplicitAny: test responses are read loosely by design
async function call<T = any>(
  token: string | null,
  method: string,
  path: string,
  opts: {
    body?: unknown;
    headers?: Record<string, string>;
    level?: string;
    env?: Record<string, unknown>;
  } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (token) headers.authorization = `Bearer ${token}`;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const ctx = createExecutionContext();
  const req = new Request(`http://sf.test${path}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const res = await described(
    method,
    req.url,
    await app.fetch(req, { ...testEnv, SF_LOG_LEVEL: opts.level ?? "info" }, ctx),
  );
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as T, headers: res.headers };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
let op = "";
let spies: MockInstance[] = [];

beforeAll(async () => {
  op = await createUser("log-op");
  await createFleet("log-fleet");
});

beforeEach(() => {
  spies = (["log", "warn", "error"] as const).map((m) => vi.spyOn(console, m));
});
afterEach(() => {
  for (const s of spies) s.mockRestore();
});

type Line = Record<string, unknown> & { level: string; request_id: string };

/** Every object logged through any console method, with the method it went through. */
function logged(): Array<Line & { via: string }> {
  return spies.flatMap((s, i) =>
    s.mock.calls
      .filter((args) => args.length === 1 && typeof args[0] === "object" && args[0] !== null)
      .map((args) => ({ ...(args[0] as Line), via: ["log", "warn", "error"][i]! })),
  );
}

function requestLine(requestId: string): Line & { via: string } {
  const lines = logged().filter((l) => l.msg === "request" && l.request_id === requestId);
  expect(lines, `one request line for ${requestId}`).toHaveLength(1);
  return lines[0]!;
}

describe("request ids", () => {
  it("are a fresh UUID per request, returned as x-request-id", async () => {
    const a = await api(op, "GET", "/v1/me");
    const b = await api(op, "GET", "/v1/me");
    expect(a.headers.get("x-request-id")).toMatch(UUID);
    expect(b.headers.get("x-request-id")).toMatch(UUID);
    expect(a.headers.get("x-request-id")).not.toBe(b.headers.get("x-request-id"));
  });

  it("are Cloudflare's cf-ray when there is one, and a UUID when it is not well-formed", async () => {
    const ray = "8f2c1a9d3b7e4c21-AMS";
    expect((await api(op, "GET", "/v1/me", undefined, { "cf-ray": ray })).headers.get("x-request-id")).toBe(
      ray,
    );
    for (const bad of ['x"},{"level":"info"}', "short", "a".repeat(65)]) {
      const odd = await api(op, "GET", "/v1/me", undefined, { "cf-ray": bad });
      expect(odd.headers.get("x-request-id")).toMatch(UUID);
    }
  });

  it("are in the body of every error, next to its code: a route's refusal, authentication, an unknown route", async () => {
    const cases = [
      await api(op, "GET", "/v1/jobs/job_00000000000000000000000000"),
      await api(null, "GET", "/v1/me"),
      await api(op, "POST", "/v1/users", { name: "x", role: "admin" }),
      await api(null, "GET", "/nowhere"),
    ];
    for (const r of cases) {
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.body.error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
      expect(r.body.error.request_id).toBe(r.headers.get("x-request-id"));
    }
  });
});

describe("request log lines", () => {
  it("log a success once as an object: ts, level, request id, method, route, path, status, duration, principal", async () => {
    const r = await call(op, "GET", "/v1/fleets/log-fleet");
    expect(r.status).toBe(200);
    const line = requestLine(r.headers.get("x-request-id")!);
    const me = (await call(op, "GET", "/v1/me")).body.user;
    expect(line).toMatchObject({
      level: "info",
      via: "log",
      msg: "request",
      method: "GET",
      route: "/v1/fleets/:fleet",
      path: "/v1/fleets/log-fleet",
      status: 200,
      principal: { kind: "user", id: me.id },
    });
    expect(Date.parse(line.ts as string)).toBeGreaterThan(Date.now() - 60_000);
    expect(line.duration_ms).toEqual(expect.any(Number));
    expect(line.duration_ms as number).toBeGreaterThanOrEqual(0);
  });

  it("log a refusal as a warning with its code, and the line the client's request id names", async () => {
    const r = await call(op, "POST", "/v1/fleets", { body: { name: "nope", kind: "docker" } });
    expect(r.status).toBe(403);
    expect(requestLine(r.body.error.request_id)).toMatchObject({
      level: "warn",
      via: "warn",
      status: 403,
      code: "FORBIDDEN",
      route: "/v1/fleets",
    });
  });

  it("log a request no route serves with route null", async () => {
    const r = await call(null, "GET", "/nowhere/at-all");
    expect(requestLine(r.headers.get("x-request-id")!)).toMatchObject({
      status: 404,
      code: "NOT_FOUND",
      route: null,
      path: "/nowhere/at-all",
      principal: null,
    });
  });

  it("name an agent and a running job by their own ids", async () => {
    const { credential, nodeId } = await enroll("log-fleet");
    const a = await call(credential, "GET", `/v1/blobs/sha256:${"0".repeat(64)}`);
    expect(requestLine(a.headers.get("x-request-id")!).principal).toEqual({ kind: "agent", id: nodeId });
    const run = await startRun("log-run");
    const res = await call(null, "POST", "/v1/ingest/metrics", {
      headers: { "x-starforge-token": run.token },
      body: { run_id: run.runId, points: [{ key: "loss", step: 0, value: 1 }] },
    });
    expect(res.status).toBe(200);
    expect(requestLine(res.headers.get("x-request-id")!)).toMatchObject({
      route: "/v1/ingest/metrics",
      principal: { kind: "run", id: run.runId },
    });
  });

  it("never carry the caller's token, in any line of any request", async () => {
    const token = await createUser("log-secretive");
    await call(token, "GET", "/v1/me");
    await call(token, "POST", "/v1/tokens", { body: { name: "second" } });
    await call(`${token}x`, "GET", "/v1/me");
    const text = JSON.stringify(logged());
    expect(logged().length).toBeGreaterThanOrEqual(3);
    expect(text).not.toContain(token);
    expect(text).not.toContain(ADMIN);
  });

  it("log an unexpected failure twice, both lines under the request id the client got: its stack, then the request", async () => {
    // A fleet's object whose storage lost a table: reading the fleet throws a plain Error, not a coded one.
    const fleet = await createFleet("log-broken");
    const stub = testEnv.FLEET.get(testEnv.FLEET.idFromName(fleet.id));
    const sql = (q: string) => runInDurableObject(stub, (_o, state) => void state.storage.sql.exec(q));
    await sql("ALTER TABLE gpu_alloc RENAME TO gpu_alloc_away");
    let r: ApiResponse<{ error: { code: string; request_id: string } }>;
    try {
      r = await call(op, "GET", "/v1/fleets/log-broken");
    } finally {
      await sql("ALTER TABLE gpu_alloc_away RENAME TO gpu_alloc");
    }
    expect(r.status).toBe(500);
    expect(r.body.error).toMatchObject({ code: "INTERNAL", request_id: r.headers.get("x-request-id") });
    expect(JSON.stringify(r.body)).not.toContain("gpu_alloc");
    const lines = logged().filter((l) => l.request_id === r.body.error.request_id);
    expect(lines.map((l) => [l.msg, l.level, l.via])).toEqual([
      ["unhandled error", "error", "error"],
      ["request", "error", "error"],
    ]);
    expect(lines[0]).toMatchObject({ method: "GET", path: "/v1/fleets/log-broken" });
    expect((lines[0]!.error as { message: string; stack: string }).message).toContain("gpu_alloc");
    expect((lines[0]!.error as { stack: string }).stack).toEqual(expect.any(String));
    expect(lines[1]).toMatchObject({ status: 500, code: "INTERNAL", route: "/v1/fleets/:fleet" });
  });

  it("are left out below SF_LOG_LEVEL: warn keeps refusals and errors, error keeps only errors", async () => {
    const okWarn = await call(op, "GET", "/v1/me", { level: "warn" });
    const refusedWarn = await call(op, "POST", "/v1/fleets", { body: {}, level: "warn" });
    const refusedError = await call(op, "POST", "/v1/fleets", { body: {}, level: "error" });
    const ids = (r: ApiResponse) => r.headers.get("x-request-id");
    const lines = logged().filter((l) => l.msg === "request");
    expect(lines.filter((l) => l.request_id === ids(okWarn))).toEqual([]);
    expect(lines.filter((l) => l.request_id === ids(refusedWarn))).toHaveLength(1);
    expect(lines.filter((l) => l.request_id === ids(refusedError))).toEqual([]);
  });
});
