/** Tier 3: `sf admin users|user-add|set-role|disable|enable|quota` against a real control plane. */
import { beforeAll, describe, expect, it } from "vitest";
import type { ControlPlane } from "../support/control-plane.js";
import { newSfHome, type SfEnv, sf, sfJson } from "../support/sf.js";
import { sharedControlPlane, unique } from "../support/shared-control-plane.js";

let cp: ControlPlane;
let admin: SfEnv;
/** Users are deployment-wide: this file's have names no other file (nor an earlier run) uses. */
const ADA = unique("ada");
const BOB = unique("bob");
const CAROL = unique("carol");
const DAVE = unique("dave");
const EVE = unique("eve");
const NOBODY = unique("nobody");
/** Mail addresses are the user's own too. */
const ADA_MAIL = `${ADA}@example.org`;

/** Runs sf as the holder of `token` (SF_TOKEN, so no login is saved). */
const as = (token: string): SfEnv => ({ home: newSfHome(), server: cp.url, env: { SF_TOKEN: token } });

interface Quota {
  max_gpus: number;
  max_jobs: number;
  daily_gpu_hours: number;
  allowed_profiles: string[];
  priority: number;
  max_priority_class: string;
}

beforeAll(async () => {
  cp = sharedControlPlane();
  admin = as(cp.adminToken);
});

describe("sf admin users", () => {
  it("adds a user and prints their first token once; the token works", async () => {
    const r = await sf(["admin", "user-add", ADA, "--role", "operator", "--email", ADA_MAIL], admin);
    expect(r.code, r.stderr).toBe(0);
    const token = r.stdout.trim();
    expect(token).toMatch(/^sfp_\S+$/);
    expect(r.stderr).toContain("shown only once");
    const me = await sfJson<{ user: { name: string; email: string } }>(["whoami"], as(token));
    expect(me.user).toMatchObject({ name: ADA, email: ADA_MAIL });

    const json = await sfJson<{ user: { role: string }; token: string }>(
      ["admin", "user-add", BOB, "--role", "viewer"],
      admin,
    );
    expect(json.user.role).toBe("viewer");
    expect(json.token).toMatch(/^sfp_/);
  });

  it("lists users as a table and as JSON", async () => {
    const table = await sf(["admin", "users"], admin);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^NAME\s+ROLE\s+STATUS/m);
    expect(table.stdout).toMatch(new RegExp(`^${ADA}\\s+operator\\s+active\\s+${ADA_MAIL}`, "m"));
    expect(table.stdout).toMatch(new RegExp(`^${BOB}\\s+viewer\\s+active`, "m"));
    const { users } = await sfJson<{ users: Array<{ name: string }> }>(["admin", "users"], admin);
    expect(users.map((u) => u.name)).toEqual(expect.arrayContaining(["admin", ADA, BOB]));
    // The list is the deployment's (other files' users are in it too): this file's, in name order, once each.
    expect(users.map((u) => u.name).filter((n) => n === ADA || n === BOB)).toEqual([ADA, BOB]);
  });

  it("changes a role, rejecting one that does not exist before asking the server", async () => {
    const r = await sfJson<{ user: { role: string } }>(["admin", "set-role", BOB, "operator"], admin);
    expect(r.user.role).toBe("operator");
    const bad = await sf(["admin", "set-role", BOB, "root"], admin);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("Allowed choices are viewer, operator, admin");
    const missing = await sf(["admin", "set-role", NOBODY, "viewer"], admin);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain("USER_NOT_FOUND");
  });

  it("disables a user (their token is refused) and enables them again", async () => {
    const token = (await sfJson<{ token: string }>(["admin", "user-add", CAROL], admin)).token;
    expect((await sf(["admin", "disable", CAROL], admin)).code).toBe(0);
    const refused = await sf(["whoami"], as(token));
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain("disabled");
    const enabled = await sfJson<{ user: { disabled: boolean } }>(["admin", "enable", CAROL], admin);
    expect(enabled.user.disabled).toBe(false);
    expect((await sf(["whoami"], as(token))).code).toBe(0);
  });

  it("shows a quota and changes only the fields given", async () => {
    const shown = await sf(["admin", "quota", ADA], admin);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/GPUs at once\s+16/);

    const q1 = await sfJson<{ quota: Quota }>(["admin", "quota", ADA, "--gpus", "32", "--jobs", "5"], admin);
    expect(q1.quota).toEqual({
      max_gpus: 32,
      max_jobs: 5,
      daily_gpu_hours: 384,
      allowed_profiles: [],
      priority: 10,
      max_priority_class: "normal",
    });

    const q2 = await sfJson<{ quota: Quota }>(
      [
        "admin",
        "quota",
        ADA,
        "--daily-gpu-hours",
        "12.5",
        "--profiles",
        "h200,h100",
        "--priority",
        "20",
        "--max-priority-class",
        "high",
      ],
      admin,
    );
    expect(q2.quota).toEqual({
      max_gpus: 32,
      max_jobs: 5,
      daily_gpu_hours: 12.5,
      allowed_profiles: ["h200", "h100"],
      priority: 20,
      max_priority_class: "high",
    });

    const q3 = await sfJson<{ quota: Quota }>(["admin", "quota", ADA, "--profiles", "all"], admin);
    expect(q3.quota).toEqual({ ...q2.quota, allowed_profiles: [] });

    const read = await sfJson<{ quota: Quota }>(["admin", "quota", ADA], admin);
    expect(read.quota).toEqual(q3.quota);

    expect((await sf(["admin", "quota", ADA, "--gpus", "many"], admin)).code).toBe(2);
  });

  it("refuses every admin command to a non-admin with exit 3", async () => {
    const token = (await sfJson<{ token: string }>(["admin", "user-add", DAVE], admin)).token;
    const dave = as(token);
    for (const args of [
      ["admin", "users"],
      ["admin", "user-add", EVE],
      ["admin", "set-role", DAVE, "admin"],
      ["admin", "disable", ADA],
      ["admin", "enable", ADA],
      ["admin", "quota", ADA],
      ["admin", "quota", DAVE, "--gpus", "64"],
    ]) {
      const r = await sf(args, dave);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(3);
      expect(r.stderr).toContain("FORBIDDEN");
    }
    // None of it happened.
    const { users } = await sfJson<{ users: Array<{ name: string; role: string; disabled: boolean }> }>(
      ["admin", "users"],
      admin,
    );
    expect(users.filter((u) => [ADA, DAVE, EVE].includes(u.name))).toEqual([
      expect.objectContaining({ name: ADA, role: "operator", disabled: false }),
      expect.objectContaining({ name: DAVE, role: "operator", disabled: false }),
    ]);
  });
});
