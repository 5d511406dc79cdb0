/** Tier 3: `sf admin audit` against a real control plane: a table by default, JSON, filters, --limit. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, startControlPlane } from "../support/control-plane.js";
import { newSfHome, type SfEnv, sf, sfJson } from "../support/sf.js";

let cp: ControlPlane;
let admin: SfEnv;

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
  cp = await startControlPlane({ agent: false });
  admin = as(cp.adminToken);
  const ada = await sfJson<{ token: string }>(["admin", "user-add", "ada", "--role", "operator"], admin);
  expect((await sf(["admin", "set-role", "ada", "viewer"], admin)).code).toBe(0);
  expect((await sf(["admin", "set-role", "ada", "operator"], admin)).code).toBe(0);
  const set = await sf(["secret", "set", "HF_TOKEN"], { ...as(ada.token), input: `${VALUE}\n` });
  expect(set.code, set.stderr).toBe(0);
});

afterAll(async () => {
  await cp?.stop();
});

describe("sf admin audit", () => {
  it("prints the newest entries as a table", async () => {
    const r = await sf(["admin", "audit"], admin);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^TIME\s+ACTOR\s+ACTION\s+TARGET\s+FROM\s+DETAILS/m);
    const lines = r.stdout.split("\n").filter((l) => /^\d{4}-\d\d-\d\d /.test(l));
    // Newest first: the secret ada set, then the role changes, then her creation.
    expect(lines[0]).toMatch(
      /\sada\s+secret\.set\s+secret:user:ada\/HF_TOKEN\s+\S+\s+scope=user created=true/,
    );
    expect(lines[1]).toMatch(/\sadmin\s+user\.update\s+user:ada\s+\S+\s+role=operator/);
    expect(lines[2]).toMatch(/\sadmin\s+user\.update\s+user:ada\s+\S+\s+role=viewer/);
    expect(lines[3]).toMatch(/\sadmin\s+user\.create\s+user:ada\s/);
    expect(r.stdout).not.toContain(VALUE);
  });

  it("filters by actor, action prefix and time, as JSON", async () => {
    const mine = await sfJson<{ entries: Entry[] }>(["admin", "audit", "--actor", "ada"], admin);
    expect(mine.entries.map((e) => e.action)).toEqual(["secret.set"]);
    const users = await sfJson<{ entries: Entry[] }>(["admin", "audit", "--action", "user."], admin);
    expect(users.entries.map((e) => e.action)).toEqual(["user.update", "user.update", "user.create"]);
    expect(users.entries.every((e) => e.target === "user:ada")).toBe(true);
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
    const op = await sfJson<{ token: string }>(["admin", "user-add", "bob", "--role", "operator"], admin);
    const r = await sf(["admin", "audit"], as(op.token));
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("FORBIDDEN");
  });
});
