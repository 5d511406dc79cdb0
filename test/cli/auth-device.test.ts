/**
 * Tier 3: `sf login --server URL` without a token runs the device flow against a real control plane; the
 * test plays the person in the browser: signs in to the console with a token, keeps the session cookie,
 * and sends the /device page's form with its CSRF token.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, call } from "../support/control-plane.js";
import { newSfHome, SF_BIN, sf, sfJson } from "../support/sf.js";
import { newUser, sharedControlPlane } from "../support/shared-control-plane.js";

interface Running {
  child: ChildProcess;
  /** Resolves with the user code once sf has printed it. */
  code: Promise<string>;
  exit: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** Starts `sf login` and watches its stderr for the code, like a person reading the terminal. */
function startLogin(home: string, server: string): Running {
  const child = spawn(process.execPath, [SF_BIN, "login", "--server", server], {
    env: { PATH: process.env.PATH ?? "", HOME: home, SF_HOME: home, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const code = new Promise<string>((ok, ko) => {
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
      const m = /enter the code ([A-Z]{4}-[A-Z]{4})/.exec(stderr);
      if (m) ok(m[1]!);
    });
    child.on("exit", () => ko(new Error(`sf login exited before printing a code:\n${stderr}`)));
  });
  child.stdout!.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  const exit = new Promise<{ code: number | null; stdout: string; stderr: string }>((ok) =>
    child.on("exit", (c) => ok({ code: c, stdout, stderr })),
  );
  return { child, code, exit };
}

/** One request as a browser sends it: no redirects followed, and nothing sent twice. */
async function browserFetch(url: string, init: RequestInit): Promise<Response> {
  return fetch(url, { ...init, redirect: "manual" });
}

/**
 * Plays the person in the browser: signs in to the console with `token` (keeping the session cookie),
 * opens the /device page the CLI printed and presses Approve or Deny. Returns the form's answer status.
 */
async function decideInBrowser(
  server: string,
  token: string,
  userCode: string,
  action: string,
): Promise<number> {
  const origin = new URL(server).origin;
  const form = { "content-type": "application/x-www-form-urlencoded", origin };
  const next = `/device?user_code=${userCode}`;
  const signIn = await browserFetch(`${server}/console/sign-in`, {
    method: "POST",
    headers: form,
    body: new URLSearchParams({ token, next }).toString(),
  });
  expect(signIn.status, await signIn.text()).toBe(303);
  expect(signIn.headers.get("location")).toBe(next);
  const cookie = signIn.headers.getSetCookie()[0]!.split(";")[0]!;
  expect(cookie).toMatch(/^sf_session=/);

  const page = await browserFetch(`${server}${next}`, { headers: { cookie } });
  const html = await page.text();
  expect(page.status).toBe(200);
  expect(html).toContain(`value="${userCode}"`);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
  expect(csrf).toBeDefined();

  const sent = await browserFetch(`${server}/device`, {
    method: "POST",
    headers: { ...form, cookie },
    body: new URLSearchParams({ user_code: userCode, action, _csrf: csrf! }).toString(),
  });
  const answer = await sent.text();
  expect(answer).toContain(action === "approve" ? "<h1>Approved</h1>" : "<h1>Denied</h1>");
  return sent.status;
}

let cp: ControlPlane;
/** This file's user (users are deployment-wide: her name is unique); she approves in the browser. */
let grace = "";
let graceToken = "";

beforeAll(async () => {
  cp = sharedControlPlane();
  const u = await newUser(cp, "grace", "operator");
  grace = u.name;
  graceToken = u.token;
});

describe("sf login (device flow)", () => {
  it("prints a code and the page, gets a new token once approved, and saves it 0600", async () => {
    const home = newSfHome();
    const login = startLogin(home, cp.url);
    const userCode = await login.code;

    expect(await decideInBrowser(cp.url, graceToken, userCode, "approve")).toBe(200);
    const done = await login.exit;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toContain(`${cp.url}/device`);
    expect(done.stderr).toContain("logged in to");

    const file = join(home, "credentials.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(file, "utf8")).servers[cp.url];
    expect(saved).toMatchObject({ user: grace, role: "operator" });
    // A new token of its own, not the one used to approve.
    expect(saved.token).toMatch(/^sfp_/);
    expect(saved.token).not.toBe(graceToken);

    const me = await sfJson<{ user: { name: string } }>(["whoami"], { home });
    expect(me.user.name).toBe(grace);
    const tokens = await call(cp, graceToken, "GET", "/v1/tokens");
    expect(
      (tokens.body.tokens as Array<{ name: string }>).some((t) => t.name.startsWith("sf device login ")),
    ).toBe(true);
    // Hers alone, and just the one this login made.
    expect(
      (tokens.body.tokens as Array<{ name: string }>).filter((t) => t.name.startsWith("sf device login ")),
    ).toHaveLength(1);
  });

  it("exits 3 when the login is denied, saving nothing", async () => {
    const home = newSfHome();
    const login = startLogin(home, cp.url);
    expect(await decideInBrowser(cp.url, graceToken, await login.code, "deny")).toBe(200);
    const done = await login.exit;
    expect(done.code).toBe(3);
    expect(done.stderr).toContain("login denied");
    expect((await sf(["whoami"], { home })).code).toBe(3);
  });

  it("exits 130 on Ctrl-C while waiting", async () => {
    const login = startLogin(newSfHome(), cp.url);
    await login.code;
    login.child.kill("SIGINT");
    expect((await login.exit).code).toBe(130);
  });
});
