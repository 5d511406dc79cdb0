/** Tier 3: `sf admin audit` against a real control plane: a table by default, JSON, filters, --limit. */
import { beforeAll, describe, expect, it } from "vitest";
import type { ControlPlane } from "../support/control-plane.js";
import { newSfHome, type SfEnv, sf, sfJson } from "../support/sf.js";
import { sharedControlPlane, unique } from "../support/shared-control-plane.js";

let cp: ControlPlane;
let admin: SfEnv;
/** This file's user: the audit log is shared with every other file, so what it checks is hers. */
const ADA = unique("ada");

/** Runs sf as the holder of `token` (SF_TOKEN, so no login is saved). */
const as = (token: string): SfEnv => ({ home: newSfHome(), server: cp.url, env: { SF_TOKEN: token } });

const VALUE = "hf-audit-cli-7c1e9d2b5a";

interface Entry {
  actor: string;
  action: string;
  target: string;
  details: Record<string, unknown>;
}

beforeAll(async () => {
  cp = sharedControlPlane();
  admin = as(cp.adminToken);
  const ada = await sfJson<{ token: string }>(["admin", "user-add", ADA, "--role", "operator"], admin);
  expect((await sf(["admin", "set-role", ADA, "viewer"], admin)).code).toBe(0);
  expect((await sf(["admin", "set-role", ADA, "operator"], admin)).code).toBe(0);
  const set = await sf(["secret", "set", "HF_TOKEN"], { ...as(ada.token), input: `${VALUE}\n` });
  expect(set.code, set.stderr).toBe(0);
});

describe("sf admin audit", () => {
  it("prints the newest entries as a table", async () => {
    const r = await sf(["admin", "audit", "--limit", "500"], admin);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^TIME\s+ACTOR\s+ACTION\s+TARGET\s+FROM\s+DETAILS/m);
    // Other files' entries share the log: hers are the lines that name her.
    const lines = r.stdout.split("\n").filter((l) => /^\d{4}-\d\d-\d\d /.test(l) && l.includes(ADA));
    // Newest first: the secret ada set, then the role changes, then her creation.
    expect(lines[0]).toMatch(
      new RegExp(
        `\\s${ADA}\\s+secret\\.set\\s+secret:user:${ADA}/HF_TOKEN\\s+\\S+\\s+scope=user created=true`,
      ),
    );
    expect(lines[1]).toMatch(new RegExp(`\\sadmin\\s+user\\.update\\s+user:${ADA}\\s+\\S+\\s+role=operator`));
    expect(lines[2]).toMatch(new RegExp(`\\sadmin\\s+user\\.update\\s+user:${ADA}\\s+\\S+\\s+role=viewer`));
    expect(lines[3]).toMatch(new RegExp(`\\sadmin\\s+user\\.create\\s+user:${ADA}\\s`));
    expect(lines).toHaveLength(4);
    expect(r.stdout).not.toContain(VALUE);
  });

  it("filters by actor, action prefix and time, as JSON", async () => {
    const mine = await sfJson<{ entries: Entry[] }>(["admin", "audit", "--actor", ADA], admin);
    expect(mine.entries.map((e) => e.action)).toEqual(["secret.set"]);
    const users = await sfJson<{ entries: Entry[] }>(
      ["admin", "audit", "--action", "user.", "--target", `user:${ADA}`],
      admin,
    );
    expect(users.entries.map((e) => e.action)).toEqual(["user.update", "user.update", "user.create"]);
    expect(users.entries.every((e) => e.target === `user:${ADA}`)).toBe(true);
    // --action alone: every user.* entry of the log, hers among them.
    const all = await sfJson<{ entries: Entry[] }>(
      ["admin", "audit", "--action", "user.", "--limit", "500"],
      admin,
    );
    expect(all.entries.every((e) => e.action.startsWith("user."))).toBe(true);
    expect(all.entries.filter((e) => e.target === `user:${ADA}`)).toHaveLength(3);
    const future = await sf(["admin", "audit", "--since", "2999-01-01"], admin);
    expect(future.code, future.stderr).toBe(0);
    expect(future.stderr).toContain("no audit entries match");
    const bad = await sf(["admin", "audit", "--since", "yesterday"], admin);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--since takes an ISO date or time");
  });

  it("stops at --limit and says there is more", async () => {
    const r = await sf(["admin", "audit", "--limit", "2"], admin);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split("\n").filter((l) => /^\d{4}-/.test(l))).toHaveLength(2);
    expect(r.stderr).toContain("--limit N for more");
    const json = await sfJson<{ entries: Entry[]; more: boolean }>(["admin", "audit", "--limit", "2"], admin);
    expect(json.entries).toHaveLength(2);
    expect(json.more).toBe(true);
  });

  it("refuses a non-admin with exit 3", async () => {
    const op = await sfJson<{ token: string }>(
      ["admin", "user-add", unique("bob"), "--role", "operator"],
      admin,
    );
    const r = await sf(["admin", "audit"], as(op.token));
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("FORBIDDEN");
  });
});
