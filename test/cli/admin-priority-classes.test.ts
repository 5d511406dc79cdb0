/** Tier 3: `sf admin priority-class ls|set|rm` against a real control plane (classes of its own only). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ControlPlane } from "../support/control-plane.js";
import { newSfHome, type SfEnv, sf, sfJson } from "../support/sf.js";
import { sharedControlPlane, unique } from "../support/shared-control-plane.js";

let cp: ControlPlane;
let admin: SfEnv;
/** Classes are deployment-wide: this file's has a name no other file uses. */
const BATCH = unique("batch").replace(/_/g, "-").toLowerCase();

interface Cls {
  name: string;
  value: number;
  preemptible: boolean;
  grace_seconds: number;
  min_runtime_seconds: number;
  may_borrow: boolean;
  builtin: boolean;
}

beforeAll(() => {
  cp = sharedControlPlane();
  admin = { home: newSfHome(), server: cp.url, env: { SF_TOKEN: cp.adminToken } };
});

afterAll(async () => {
  await sf(["admin", "priority-class", "rm", BATCH], admin);
});

describe("sf admin priority-class", () => {
  it("lists the built-ins highest first, as a table and as JSON", async () => {
    const table = await sf(["admin", "priority-class", "ls"], admin);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/critical\s+1000\s+no/);
    expect(table.stdout).toMatch(/scavenger\s+-1000\s+yes/);
    const { priority_classes } = await sfJson<{ priority_classes: Cls[] }>(
      ["admin", "priority-class", "ls"],
      admin,
    );
    const builtins = priority_classes.filter((c) => c.builtin).map((c) => c.name);
    expect(builtins).toEqual(["critical", "high", "normal", "low", "scavenger"]);
  });

  it("adds a class with --value, changes one attribute at a time, and removes it", async () => {
    const missing = await sf(["admin", "priority-class", "set", BATCH, "--grace-seconds", "5"], admin);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("give it a value");
    const added = await sfJson<{ priority_class: Cls }>(
      ["admin", "priority-class", "set", BATCH, "--value", "-200", "--no-preemptible"],
      admin,
    );
    expect(added.priority_class).toMatchObject({
      name: BATCH,
      value: -200,
      preemptible: false,
      grace_seconds: 120,
    });
    const changed = await sfJson<{ priority_class: Cls }>(
      ["admin", "priority-class", "set", BATCH, "--min-runtime-seconds", "30", "--no-borrow"],
      admin,
    );
    expect(changed.priority_class).toMatchObject({
      value: -200,
      preemptible: false,
      min_runtime_seconds: 30,
      may_borrow: false,
    });
    expect((await sf(["admin", "priority-class", "set", BATCH, "--value", "x"], admin)).code).toBe(2);
    const builtin = await sf(["admin", "priority-class", "rm", "normal"], admin);
    expect(builtin.code).not.toBe(0);
    expect(builtin.stderr).toContain("built-in");
    expect((await sf(["admin", "priority-class", "rm", BATCH], admin)).code).toBe(0);
    const after = await sfJson<{ priority_classes: Cls[] }>(["admin", "priority-class", "ls"], admin);
    expect(after.priority_classes.map((c) => c.name)).not.toContain(BATCH);
  });
});
