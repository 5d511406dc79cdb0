/**
 * The server's half of the version handshake (contract/version.ts): every answer states the API
 * generation, the oldest sf accepted and the server's release, whatever its status; a request from an
 * sf older than that is refused with 426 CLI_TOO_OLD before anything else runs, and nothing that sends
 * no version (agents, jobs, browsers, curl) is ever refused for it.
 */
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { MIN_CLI_VERSION, PRODUCT_VERSION, VERSION_HEADERS } from "../../contract/version.js";
import { enroll, inventory, ScriptedAgent } from "./agent-support.js";
import { ADMIN, api, createFleet, createUser } from "./helpers.js";
import { testEnv } from "./test-env.js";

const OLD = "0.0.9";
let viewer = "";

beforeAll(async () => {
  viewer = await createUser("vh-viewer", "viewer");
  await createFleet("vh-fleet");
});

function expectVersionHeaders(h: Headers, label: string): void {
  expect(
    {
      api: h.get(VERSION_HEADERS.api),
      min: h.get(VERSION_HEADERS.minCli),
      server: h.get(VERSION_HEADERS.server),
    },
    label,
  ).toEqual({ api: "1", min: MIN_CLI_VERSION, server: PRODUCT_VERSION });
}

describe("version headers", () => {
  it.each<[string, string | null, string, string, number]>([
    ["health", null, "GET", "/v1/health", 200],
    ["health, HEAD", null, "HEAD", "/v1/health", 200],
    ["a read", "admin", "GET", "/v1/fleets", 200],
    ["no token", null, "GET", "/v1/fleets", 401],
    ["a role too low", "viewer", "POST", "/v1/fleets", 403],
    ["an unknown /v1 route", "admin", "GET", "/v1/nothing-here", 404],
    ["an unknown route outside /v1", null, "GET", "/nothing-here", 404],
    ["a bad body", "admin", "POST", "/v1/users", 400],
    ["the device page, sending a browser without a session to sign in", null, "GET", "/device", 303],
    ["the console's sign-in page", null, "GET", "/console/sign-in", 200],
  ])("are on every answer: %s", async (label, who, method, path, status) => {
    const token = who === "admin" ? ADMIN : who === "viewer" ? viewer : null;
    const res = await SELF.fetch(`http://sf.test${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(method === "POST" ? { "content-type": "application/json" } : {}),
      },
      body: method === "POST" ? "{}" : undefined,
      redirect: "manual",
    });
    await res.body?.cancel();
    expect(res.status, label).toBe(status);
    expectVersionHeaders(res.headers, label);
  });

  it("are on a refusal that a Durable Object wrote (a revoked node's socket upgrade)", async () => {
    const { credential } = await enroll("vh-fleet");
    const agent = await ScriptedAgent.connect(credential);
    agent.hello(inventory("vh-box", 1));
    await agent.next("welcome");
    expect((await api(ADMIN, "POST", "/v1/fleets/vh-fleet/nodes/vh-box/revoke")).status).toBe(200);
    await agent.closed;
    const res = await SELF.fetch("http://sf.test/v1/agents/connect", {
      headers: { upgrade: "websocket", authorization: `Bearer ${credential}` },
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("NODE_REVOKED");
    expectVersionHeaders(res.headers, "NODE_REVOKED");
  });
});

describe("an sf older than the server accepts", () => {
  it("is refused with 426 CLI_TOO_OLD, told to upgrade, with both versions in details", async () => {
    const r = await api(ADMIN, "GET", "/v1/me", undefined, { [VERSION_HEADERS.cli]: OLD });
    expect(r.status).toBe(426);
    expect(r.body.error).toMatchObject({
      code: "CLI_TOO_OLD",
      details: { min_cli_version: MIN_CLI_VERSION, cli_version: OLD },
    });
    expect(r.body.error.message).toMatch(/upgrade sf/);
    expectVersionHeaders(r.headers, "426");
  });

  it("is refused before authentication and before its body is read (no token, a submit)", async () => {
    const jobsBefore = await testEnv.DB.prepare("SELECT COUNT(*) AS n FROM jobs").first<{ n: number }>();
    const r = await api(null, "POST", "/v1/jobs", { not: "a spec" }, { [VERSION_HEADERS.cli]: OLD });
    expect({ status: r.status, code: r.body.error.code }).toEqual({ status: 426, code: "CLI_TOO_OLD" });
    const jobsAfter = await testEnv.DB.prepare("SELECT COUNT(*) AS n FROM jobs").first<{ n: number }>();
    expect(jobsAfter).toEqual(jobsBefore);
  });

  it("is refused without its body being read: a body over the size limit is still a 426, not a 413", async () => {
    const big = JSON.stringify({ pad: "x".repeat(2 * 1024 * 1024) });
    const r = await api(ADMIN, "POST", "/v1/jobs", JSON.parse(big), { [VERSION_HEADERS.cli]: OLD });
    expect({ status: r.status, code: r.body.error.code }).toEqual({ status: 426, code: "CLI_TOO_OLD" });
    const current = await api(ADMIN, "POST", "/v1/jobs", JSON.parse(big));
    expect(current.body.error.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("still reads health, which states the versions it needs", async () => {
    const r = await api(null, "GET", "/v1/health", undefined, { [VERSION_HEADERS.cli]: OLD });
    expect(r.status).toBe(200);
    expect(r.body.min_cli_version).toBe(MIN_CLI_VERSION);
  });

  it("does not change agent and ingest routes, which answer as they would without the header", async () => {
    const calls: Array<[string, string, unknown]> = [
      ["POST", "/v1/agents/enroll", { token: "sfe_not-a-real-enrollment-token" }],
      ["POST", "/v1/ingest/logs", { run_id: "run_x", seq: 0, chunks: ["a"] }],
    ];
    for (const [method, path, body] of calls) {
      const plain = await api(null, method, path, body);
      const old = await api(null, method, path, body, { [VERSION_HEADERS.cli]: OLD });
      expect(plain.status).not.toBe(426);
      expect({ path, status: old.status, code: old.body.error?.code }).toEqual({
        path,
        status: plain.status,
        code: plain.body.error?.code,
      });
    }
  });
});

describe("requests that are not refused for their version", () => {
  it.each([
    ["no header (curl, a browser, an agent)", null],
    ["the minimum itself", MIN_CLI_VERSION],
    ["a pre-release of the minimum", `${MIN_CLI_VERSION}-rc.1`],
    ["a newer patch", "0.1.7"],
    ["a newer major", "3.0.0"],
  ])("%s", async (_label, version) => {
    const r = await api(ADMIN, "GET", "/v1/me", undefined, version ? { [VERSION_HEADERS.cli]: version } : {});
    expect(r.status).toBe(200);
  });

  it("a version header that is not a release is a coded 400, not a guess", async () => {
    for (const bad of ["", "latest", "1.2", "1.2.3.4", "v0.1.0", "1.2.3 beta"]) {
      const r = await api(ADMIN, "GET", "/v1/me", undefined, { [VERSION_HEADERS.cli]: bad });
      expect({ bad, status: r.status, code: r.body.error?.code }).toEqual({
        bad,
        status: 400,
        code: "BAD_REQUEST",
      });
      expect(r.body.error.message).toContain(VERSION_HEADERS.cli);
    }
  });
});
