/**
 * The version handshake from sf's side, with the real `sf` against loopback servers that state their
 * versions as contract/version.ts describes: sf states its own on every request, refuses a server that
 * needs a newer sf (CLI_TOO_OLD, exit 8, "upgrade sf") or speaks an older API (SERVER_TOO_OLD, exit 8),
 * and `sf version` shows both sides.
 */
import { afterAll, describe, expect, it } from "vitest";
import { MIN_SERVER_API_VERSION, PRODUCT_VERSION, VERSION_HEADERS } from "../../contract/version.js";
import { newSfHome, sf } from "../support/sf.js";
import { controlPlaneLike, json, type Stub, startStub, versionHeaders } from "./starforge-stub.js";

const stubs: Stub[] = [];
async function stub(...args: Parameters<typeof startStub>): Promise<Stub> {
  const s = await startStub(...args);
  stubs.push(s);
  return s;
}

afterAll(async () => {
  await Promise.all(stubs.map((s) => s.close()));
});

const TOKEN = { SF_TOKEN: "sfp_test-token" };

describe("sf states its version", () => {
  it("sends starforge-cli-version (= `sf --version`) on every request, and works with a server that fits", async () => {
    const s = await stub(controlPlaneLike({ api: "1", minCli: "0.1.0", server: PRODUCT_VERSION }));
    const home = newSfHome();
    const v = await sf(["--version"], { home });
    expect(v.stdout.trim()).toBe(PRODUCT_VERSION);

    const r = await sf(["whoami", "--server", s.url], { home, env: TOKEN });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("ada (operator)");
    expect(s.seen.length).toBeGreaterThan(0);
    for (const req of s.seen) expect(req.headers[VERSION_HEADERS.cli]).toBe(v.stdout.trim());
  });

  it("works with a server that states no version at all (one from before the handshake)", async () => {
    const s = await stub(controlPlaneLike({}));
    const r = await sf(["whoami", "--server", s.url], { home: newSfHome(), env: TOKEN });
    expect(r.code, r.stderr).toBe(0);
  });
});

describe("a server that needs a newer sf", () => {
  it("is refused by its header: exit 8, CLI_TOO_OLD, 'upgrade sf' and how", async () => {
    const s = await stub(controlPlaneLike({ api: "1", minCli: "99.0.0", server: "99.1.0" }));
    const r = await sf(["whoami", "--server", s.url], { home: newSfHome(), env: TOKEN });
    expect(r.code).toBe(8);
    expect(r.stderr).toContain(
      `error: this sf (${PRODUCT_VERSION}) is older than the oldest the server at ${s.url} supports (99.0.0): upgrade sf [CLI_TOO_OLD]`,
    );
    expect(r.stderr).toMatch(/hint: .*99\.1\.0.*npm run build/);
  });

  it("is refused the same way by a 426 CLI_TOO_OLD body without headers", async () => {
    const s = await stub(() =>
      json(426, {
        error: { code: "CLI_TOO_OLD", message: "upgrade sf", details: { min_cli_version: "2.0.0" } },
      }),
    );
    const r = await sf(["job", "ls", "--server", s.url], { home: newSfHome(), env: TOKEN });
    expect(r.code).toBe(8);
    expect(r.stderr).toContain(
      `this sf (${PRODUCT_VERSION}) is older than the oldest the server at ${s.url} supports (2.0.0)`,
    );
    expect(r.stderr).toContain("[CLI_TOO_OLD]");
  });

  it("gives the code with --json, for scripts", async () => {
    const s = await stub(controlPlaneLike({ api: "1", minCli: "99.0.0" }));
    const r = await sf(["whoami", "--server", s.url, "--json"], { home: newSfHome(), env: TOKEN });
    expect(r.code).toBe(8);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: "CLI_TOO_OLD" });
  });

  it("gets no token from `sf login`, and nothing is saved", async () => {
    const s = await stub(controlPlaneLike({ api: "1", minCli: "99.0.0" }));
    const home = newSfHome();
    const r = await sf(["login", "--server", s.url, "--token", "sfp_secret"], { home });
    expect(r.code).toBe(8);
    expect(r.stderr).toContain("upgrade sf");
    expect(s.seen.map((q) => q.url)).toEqual(["/v1/health"]);
    expect(s.seen.some((q) => q.headers.authorization)).toBe(false);
    expect((await sf(["context", "ls", "--json"], { home })).stdout).toContain('"contexts": []');
  });
});

describe("a server older than this sf needs", () => {
  it("is refused: exit 8, SERVER_TOO_OLD, upgrade the server or use an older sf", async () => {
    const old = String(MIN_SERVER_API_VERSION - 1);
    const s = await stub(controlPlaneLike({ api: old, minCli: "0.0.1" }));
    const r = await sf(["whoami", "--server", s.url], { home: newSfHome(), env: TOKEN });
    expect(r.code).toBe(8);
    expect(r.stderr).toContain(
      `the server at ${s.url} speaks API v${old}; this sf needs v${MIN_SERVER_API_VERSION}: upgrade the server or use an older sf [SERVER_TOO_OLD]`,
    );
  });
});

describe("sf version", () => {
  it("shows this sf's version and the server's, as text and as JSON", async () => {
    const s = await stub(controlPlaneLike({ api: "1", minCli: "0.1.0", server: "0.1.7" }));
    const home = newSfHome();
    const text = await sf(["version", "--server", s.url], { home });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`sf ${PRODUCT_VERSION}`);
    expect(text.stdout).toContain(`server ${s.url}: 0.1.7, API v1, oldest sf it supports: 0.1.0`);
    const j = await sf(["version", "--server", s.url, "--json"], { home });
    expect(JSON.parse(j.stdout)).toEqual({
      client: { version: PRODUCT_VERSION, min_server_api_version: MIN_SERVER_API_VERSION },
      server: {
        url: s.url,
        context: null,
        version: "0.1.7",
        api_version: 1,
        min_cli_version: "0.1.0",
        compatible: true,
      },
    });
    // It needs no login.
    expect(s.seen.every((q) => !q.headers.authorization)).toBe(true);
  });

  it("prints both sides and exits 8 when they do not fit", async () => {
    const s = await stub(controlPlaneLike({ api: "1", minCli: "3.0.0", server: "3.0.0" }));
    const r = await sf(["version", "--server", s.url], { home: newSfHome() });
    expect(r.code).toBe(8);
    expect(r.stdout).toContain(`sf ${PRODUCT_VERSION}`);
    expect(r.stdout).toContain("oldest sf it supports: 3.0.0");
    expect(r.stderr).toContain("upgrade sf");
  });

  it("without any server prints this sf's version alone", async () => {
    const r = await sf(["version"], { home: newSfHome() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(`sf ${PRODUCT_VERSION}`);
  });

  it("reads an older server's health body when it sends no version headers", async () => {
    const s = await stub(controlPlaneLike({}));
    const r = await sf(["version", "--server", s.url, "--json"], { home: newSfHome() });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).server).toMatchObject({ api_version: 1, version: null, compatible: true });
  });
});

describe("version headers on error answers too", () => {
  it("refuses on the header even when the answer is an error", async () => {
    const s = await stub(() =>
      json(
        404,
        { error: { code: "JOB_NOT_FOUND", message: "no job" } },
        versionHeaders({ api: "1", minCli: "50.0.0" }),
      ),
    );
    const r = await sf(["job", "status", "j_1", "--server", s.url], { home: newSfHome(), env: TOKEN });
    expect(r.code).toBe(8);
    expect(r.stderr).toContain("[CLI_TOO_OLD]");
  });
});
