/**
 * Tier 3: named contexts with the real `sf` against a real control plane, reached under two names
 * (http://127.0.0.1:PORT and http://localhost:PORT are two servers to sf) so that two logins — ada and the
 * admin — live side by side. Covers login saving a context, ls/use/rm/current, the one-command
 * --context flag, the precedence --server > --context > SF_SERVER > current context, unknown names, and
 * a credentials file of version 1 read, used and migrated without losing its login.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { ControlPlane } from "../support/control-plane.js";
import { newSfHome, sf, sfJson } from "../support/sf.js";
import { newUser, sharedControlPlane } from "../support/shared-control-plane.js";

/** Nothing may be asked of this one: a command that uses it fails with exit 3 (no login) or 6. */
const NOWHERE = "http://127.0.0.1:9";

let cp: ControlPlane;
let local = "";
let localName = "";
/** This file's user (users are deployment-wide: her name is unique). */
let ada = "";
let adaToken = "";

interface Row {
  name: string;
  server: string;
  user: string | null;
  role: string | null;
  current: boolean;
}

const ls = (home: string) => sfJson<{ current: string | null; contexts: Row[] }>(["context", "ls"], { home });
const who = async (home: string, args: string[] = [], env?: Record<string, string>) => {
  const r = await sf(["whoami", ...args, "--json"], { home, ...(env ? { env } : {}) });
  // With --json an error is printed as JSON on stdout: {error: {code, message, hint}}.
  if (r.code !== 0) return { code: r.code, said: `${r.stdout}${r.stderr}`, name: null as string | null };
  return { code: 0, said: r.stderr, name: (JSON.parse(r.stdout) as { user: { name: string } }).user.name };
};
const file = (home: string) => JSON.parse(readFileSync(join(home, "credentials.json"), "utf8"));

beforeAll(async () => {
  cp = sharedControlPlane();
  local = cp.url.replace("127.0.0.1", "localhost");
  localName = new URL(cp.url).host;
  const u = await newUser(cp, "ada", "operator");
  ada = u.name;
  adaToken = u.token;
});

/** ada on 127.0.0.1 (context named by host:port), the admin on localhost as "admin" (current). */
async function twoContexts(): Promise<string> {
  const home = newSfHome();
  const a = await sf(["login", "--server", cp.url, "--token", adaToken], { home });
  expect(a.code, a.stderr).toBe(0);
  expect(a.stderr).toContain(`current context: ${localName}`);
  const b = await sf(["login", "--server", local, "--context", "admin", "--token", cp.adminToken], { home });
  expect(b.code, b.stderr).toBe(0);
  return home;
}

describe("sf login saves a context", () => {
  it("named by host:port unless --context names it, each with its user and role, the last one current", async () => {
    const home = await twoContexts();
    const all = await ls(home);
    expect(all.current).toBe("admin");
    expect(all.contexts).toEqual([
      { name: localName, server: cp.url, user: ada, role: "operator", current: false },
      { name: "admin", server: local, user: "admin", role: "admin", current: true },
    ]);
    expect((await who(home)).name).toBe("admin");

    const table = await sf(["context", "ls"], { home });
    expect(table.stdout).toMatch(/^CURRENT\s+NAME\s+SERVER\s+USER\s+ROLE$/m);
    expect(table.stdout).toMatch(/^\*\s+admin\s+http:\/\/localhost:\d+\s+admin\s+admin$/m);
  });

  it("`sf login --context NAME` alone logs in again to that context's server", async () => {
    const home = await twoContexts();
    const r = await sf(["login", "--context", localName, "--token", adaToken], { home });
    expect(r.code, r.stderr).toBe(0);
    expect((await ls(home)).current).toBe(localName);
    expect(await sfJson(["context", "current"], { home })).toEqual({
      context: localName,
      server: cp.url,
      source: "current context",
    });
  });

  it("refuses a context name it could not use later (exit 2), before talking to the server", async () => {
    const r = await sf(["login", "--server", NOWHERE, "--context", "has space", "--token", "x"], {
      home: newSfHome(),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("[INVALID_CONTEXT_NAME]");
  });
});

describe("switching", () => {
  it("`sf context use` changes the current context; --context picks one for a single command", async () => {
    const home = await twoContexts();
    const use = await sf(["context", "use", localName], { home });
    expect(use.code, use.stderr).toBe(0);
    expect((await who(home)).name).toBe(ada);

    expect((await who(home, ["--context", "admin"])).name).toBe("admin");
    // one command only: the current context is unchanged
    expect((await ls(home)).current).toBe(localName);
    expect((await who(home)).name).toBe(ada);
  });

  it("precedence: --server > --context > SF_SERVER > the current context", async () => {
    const home = await twoContexts(); // current: admin
    // SF_SERVER beats the current context
    const env = await who(home, [], { SF_SERVER: NOWHERE });
    expect(env.code).toBe(3);
    expect(env.said).toContain(`not logged in to ${NOWHERE}`);
    // --context beats SF_SERVER
    expect((await who(home, ["--context", localName], { SF_SERVER: NOWHERE })).name).toBe(ada);
    // --server beats --context
    expect((await who(home, ["--context", "admin", "--server", cp.url], { SF_SERVER: NOWHERE })).name).toBe(
      ada,
    );
    const current = await sfJson(["context", "current", "--context", localName], {
      home,
      env: { SF_SERVER: NOWHERE },
    });
    expect(current).toEqual({ context: localName, server: cp.url, source: "--context" });
  });

  it("an unknown name is CONTEXT_NOT_FOUND (exit 4) listing the known ones", async () => {
    const home = await twoContexts();
    for (const args of [
      ["context", "use", "prod"],
      ["whoami", "--context", "prod"],
      ["context", "rm", "prod"],
    ]) {
      const r = await sf(args, { home });
      expect(r.code, args.join(" ")).toBe(4);
      expect(r.stderr).toContain('no context named "prod" [CONTEXT_NOT_FOUND]');
      expect(r.stderr).toContain(`known contexts: ${["admin", localName].sort().join(", ")}`);
    }
  });
});

describe("sf context rm", () => {
  it("removes the context and its saved token; removing the current one leaves none current", async () => {
    const home = await twoContexts();
    const r = await sfJson(["context", "rm", "admin"], { home });
    expect(r).toMatchObject({ removed: "admin", server: local, token_forgotten: true, current: null });
    const saved = file(home);
    expect(saved.contexts).not.toHaveProperty("admin");
    expect(saved.servers).not.toHaveProperty(local);
    expect(saved.servers[cp.url].token).toBe(adaToken);

    const none = await who(home);
    expect(none.code).toBe(3);
    expect(none.said).toContain("no server configured");
    expect(none.said).toContain(`sf context use NAME\` (${localName})`);
    // The admin's token is really gone: naming the server again finds no login.
    const gone = await who(home, ["--server", local]);
    expect(gone.code).toBe(3);
    expect(gone.said).toContain(`not logged in to ${local}`);
  });

  it("keeps the token while another context still names the same server (they share its login)", async () => {
    const home = newSfHome();
    for (const name of ["one", "two"])
      expect(
        (await sf(["login", "--server", cp.url, "--context", name, "--token", adaToken], { home })).code,
      ).toBe(0);
    const r = await sfJson(["context", "rm", "two"], { home });
    expect(r).toMatchObject({ removed: "two", token_forgotten: false, current: null });
    expect((await who(home, ["--context", "one"])).name).toBe(ada);
  });
});

describe("a credentials file of version 1 (before contexts)", () => {
  it("is read as contexts, keeps working, and is migrated on the next write without losing its login", async () => {
    const home = newSfHome();
    const v1 = {
      version: 1,
      default: cp.url,
      servers: {
        [cp.url]: { token: adaToken, user: ada, role: "operator", saved_at: "2026-01-01T00:00:00Z" },
      },
    };
    writeFileSync(join(home, "credentials.json"), JSON.stringify(v1), { mode: 0o600 });

    expect(await ls(home)).toEqual({
      current: localName,
      contexts: [{ name: localName, server: cp.url, user: ada, role: "operator", current: true }],
    });
    expect((await who(home)).name).toBe(ada);
    expect(file(home).version).toBe(1); // reading alone changes nothing

    expect(
      (await sf(["login", "--server", local, "--context", "admin", "--token", cp.adminToken], { home })).code,
    ).toBe(0);
    const migrated = file(home);
    expect(migrated.version).toBe(2);
    expect(migrated.servers[cp.url]).toEqual(v1.servers[cp.url]);
    expect((await who(home, ["--context", localName])).name).toBe(ada);
  });
});

describe("sf version against the real control plane", () => {
  it("shows this sf and the server, with no login", async () => {
    const r = await sfJson<{
      client: { version: string };
      server: { url: string; api_version: number; compatible: boolean };
    }>(["version", "--server", cp.url], { home: newSfHome() });
    expect(r.server).toMatchObject({ url: cp.url, api_version: 1, compatible: true });
    expect(r.client.version).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
