/**
 * Tier 3: `sf login --server URL` without a token runs the device flow against a real control plane; the
 * test plays the person in the browser by posting the /device page's form.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, call, devFetch, startControlPlane } from "../support/control-plane.js";
import { newSfHome, SF_BIN, sf, sfJson } from "../support/sf.js";

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

async function submitForm(server: string, fields: Record<string, string>): Promise<number> {
  const res = await devFetch(`${server}/device`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
  return res.status;
}

let cp: ControlPlane;
let graceToken = "";

beforeAll(async () => {
  cp = await startControlPlane({ agent: false });
  const r = await call(cp, cp.adminToken, "POST", "/v1/users", { name: "grace", role: "operator" });
  graceToken = r.body.token as string;
});

afterAll(async () => {
  await cp?.stop();
});

describe("sf login (device flow)", () => {
  it("prints a code and the page, gets a new token once approved, and saves it 0600", async () => {
    const home = newSfHome();
    const login = startLogin(home, cp.url);
    const userCode = await login.code;

    expect(await submitForm(cp.url, { user_code: userCode, token: graceToken, action: "approve" })).toBe(200);
    const done = await login.exit;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toContain(`${cp.url}/device`);
    expect(done.stderr).toContain("logged in to");

    const file = join(home, "credentials.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(file, "utf8")).servers[cp.url];
    expect(saved).toMatchObject({ user: "grace", role: "operator" });
    // A new token of its own, not the one used to approve.
    expect(saved.token).toMatch(/^sfp_/);
    expect(saved.token).not.toBe(graceToken);

    const me = await sfJson<{ user: { name: string } }>(["whoami"], { home });
    expect(me.user.name).toBe("grace");
    const tokens = await call(cp, graceToken, "GET", "/v1/tokens");
    expect(
      (tokens.body.tokens as Array<{ name: string }>).some((t) => t.name.startsWith("sf device login ")),
    ).toBe(true);
  });

  it("exits 3 when the login is denied, saving nothing", async () => {
    const home = newSfHome();
    const login = startLogin(home, cp.url);
    expect(await submitForm(cp.url, { user_code: await login.code, token: graceToken, action: "deny" })).toBe(
      200,
    );
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
