/**
 * Tier 3: `sf login --token|--token-stdin`, `whoami`, `logout` and server resolution, with the real `sf`
 * against a real control plane. Commands that need a login must fail with exit 3 and never start one.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { ControlPlane } from "../support/control-plane.js";
import { newSfHome, sf, sfJson } from "../support/sf.js";
import { newUser, sharedControlPlane } from "../support/shared-control-plane.js";

/** Nothing listens here: a request to it would fail with exit 6, so a test can tell which server was used. */
const NOWHERE = "http://127.0.0.1:9";

let cp: ControlPlane;
/** This file's user (users are deployment-wide: her name is unique). */
let ada = "";
let adaToken = "";

const credentials = (home: string) => join(home, "credentials.json");

beforeAll(async () => {
  cp = sharedControlPlane();
  const u = await newUser(cp, "ada", "operator");
  ada = u.name;
  adaToken = u.token;
});

describe("sf login with a token", () => {
  it("checks --token against the server and saves it 0600 as the default server", async () => {
    const home = newSfHome();
    const r = await sf(["login", "--server", cp.url, "--token", adaToken], { home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("logged in to");
    expect(statSync(credentials(home)).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(credentials(home), "utf8"));
    expect(saved).toMatchObject({
      default: cp.url,
      servers: { [cp.url]: { token: adaToken, user: ada, role: "operator" } },
    });

    const me = await sfJson<{ user: { name: string }; server: string }>(["whoami"], { home });
    expect(me).toMatchObject({ server: cp.url, user: { name: ada } });
  });

  it("reads --token-stdin", async () => {
    const home = newSfHome();
    const r = await sf(["login", "--server", cp.url, "--token-stdin", "--json"], {
      home,
      input: `${adaToken}\n`,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ server: cp.url, user: ada, role: "operator" });
    expect((await sf(["whoami"], { home })).stdout).toContain(`${ada} (operator)`);
  });

  it("refuses a bad token with exit 3 and saves nothing", async () => {
    const home = newSfHome();
    const r = await sf(["login", "--server", cp.url, "--token", "sfp_not-a-real-token"], { home });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("refused this token");
    expect(existsSync(credentials(home))).toBe(false);
  });

  it("logs out, after which commands that need a login fail with exit 3 and a hint", async () => {
    const home = newSfHome();
    expect((await sf(["login", "--server", cp.url, "--token", adaToken], { home })).code).toBe(0);
    const out = await sf(["logout"], { home });
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(readFileSync(credentials(home), "utf8")).servers).toEqual({});

    for (const args of [["whoami"], ["admin", "users"]]) {
      const r = await sf([...args, "--server", cp.url], { home, timeoutMs: 15_000 });
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(3);
      expect(r.stderr).toContain(`not logged in to ${cp.url}`);
      expect(r.stderr).toContain("hint: run `sf login --server");
      // It fails; it does not start a device login.
      expect(r.stderr).not.toContain("enter the code");
    }
  });

  it("with no server at all, says how to pick one", async () => {
    const r = await sf(["whoami"], { home: newSfHome() });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("no server configured");
    expect(r.stderr).toContain("sf login --server URL");
  });
});

describe("server resolution", () => {
  it("uses --server over SF_SERVER over the saved default", async () => {
    const home = newSfHome();
    expect((await sf(["login", "--server", cp.url, "--token", adaToken], { home })).code).toBe(0);

    // saved default
    expect((await sf(["whoami"], { home })).code).toBe(0);

    // SF_SERVER beats the saved default: sf now talks about the other server
    const env = await sf(["whoami"], { home, server: NOWHERE });
    expect(env.code).toBe(3);
    expect(env.stderr).toContain(`not logged in to ${NOWHERE}`);

    // --server beats SF_SERVER
    const flag = await sfJson<{ server: string }>(["whoami", "--server", cp.url], { home, server: NOWHERE });
    expect(flag.server).toBe(cp.url);

    // and the token goes with the server it was saved for: an unreachable server is exit 6, not a hang
    const unreachable = await sf(["whoami", "--server", NOWHERE], { home, env: { SF_TOKEN: adaToken } });
    expect(unreachable.code).toBe(6);
  });
});
