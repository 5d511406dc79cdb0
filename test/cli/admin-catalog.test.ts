// A control plane of its own (startControlPlane), not the project's shared one: it changes the
// catalog (recipes and profiles), which is deployment-wide and which other files read whole while they run
// beside this one (the known methods and profiles, the digest a lock records).
/** Tier 3: `sf admin profile ls|set|rm` and `sf admin recipe publish` against a real control plane. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { type ControlPlane, call, startControlPlane } from "../support/control-plane.js";
import { newSfHome, type SfEnv, sf, sfJson } from "../support/sf.js";
import { newUser, unique } from "../support/shared-control-plane.js";

let cp: ControlPlane;
let admin: SfEnv;
let operator: SfEnv;
const dir = mkdtempSync(join(tmpdir(), "sf-recipes-"));
/**
 * This file's profiles and recipes have names of their own all the same, and the seeded ones (h200, h100,
 * a100, the built-in recipes) are only read.
 */
const HALF = unique("h200x4");
const ODD = unique("odd");
const MINE = unique("mine");
const SFT = `${unique("acme")}/sft`;
const BROKEN = `${unique("acme")}/broken`;

const as = (token: string): SfEnv => ({ home: newSfHome(), server: cp.url, env: { SF_TOKEN: token } });

interface Profile {
  name: string;
  series: string;
  gpus_per_node: number;
  default_gpus: number;
  description: string;
}

const recipe = (version: string, description = "a test recipe") => ({
  name: SFT,
  version,
  description,
  frameworks: [{ kind: "custom", versions: ["1"], runtime_id: "bash", image: null }],
  params: { lr: { type: "float", default: 0.001, min: 0, max: 1, doc: "step size" } },
  entrypoint: { kind: "script", path: "train.sh" },
  requires_image: true,
  template: { "train.sh": "#!/usr/bin/env bash\necho hi\n" },
});

beforeAll(async () => {
  cp = await startControlPlane({ agent: false });
  admin = as(cp.adminToken);
  operator = as((await newUser(cp, "olga", "operator")).token);
});

afterAll(async () => {
  await cp?.stop();
});

describe("sf admin profile", () => {
  it("lists the seeded profiles", async () => {
    const table = await sf(["admin", "profile", "ls"], admin);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^h200\s+h200\s+8\s+8\s+NVIDIA H200/m);
    const { profiles } = await sfJson<{ profiles: Profile[] }>(["admin", "profile", "ls"], operator);
    expect(profiles.map((p) => p.name)).toEqual(expect.arrayContaining(["h200", "h100", "a100"]));
  });

  it("creates a profile, changes it keeping what was not given, and removes it", async () => {
    const created = await sfJson<{ profile: Profile }>(
      [
        "admin",
        "profile",
        "set",
        HALF,
        "--series",
        "h200",
        "--gpus-per-node",
        "8",
        "--default-gpus",
        "4",
        "--description",
        "half a node",
      ],
      admin,
    );
    expect(created.profile).toEqual({
      name: HALF,
      series: "h200",
      gpus_per_node: 8,
      default_gpus: 4,
      description: "half a node",
    });

    const changed = await sfJson<{ profile: Profile }>(
      ["admin", "profile", "set", HALF, "--series", "h200", "--gpus-per-node", "4"],
      admin,
    );
    expect(changed.profile).toEqual({
      name: HALF,
      series: "h200",
      gpus_per_node: 4,
      default_gpus: 4,
      description: "half a node",
    });

    const bad = await sf(
      ["admin", "profile", "set", ODD, "--series", "h200", "--gpus-per-node", "8", "--default-gpus", "12"],
      admin,
    );
    expect(bad.code).toBe(5);
    expect(bad.stderr).toContain("BAD_REQUEST");

    expect((await sf(["admin", "profile", "rm", HALF], admin)).code).toBe(0);
    const { profiles } = await sfJson<{ profiles: Profile[] }>(["admin", "profile", "ls"], admin);
    expect(profiles.map((p) => p.name)).not.toContain(HALF);
    const gone = await sf(["admin", "profile", "rm", HALF], admin);
    expect(gone.code).toBe(4);
    expect(gone.stderr).toContain("PROFILE_NOT_FOUND");
  });
});

describe("sf admin recipe publish", () => {
  it("publishes JSON and YAML files; an identical republish changes nothing", async () => {
    const json = join(dir, "sft-1.0.0.json");
    writeFileSync(json, JSON.stringify(recipe("1.0.0")));
    const first = await sf(["admin", "recipe", "publish", json], admin);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`published ${SFT}@1.0.0 (sha256:`);
    const again = await sfJson<{ created: boolean }>(["admin", "recipe", "publish", json], admin);
    expect(again.created).toBe(false);

    const yaml = join(dir, "sft-1.1.0.yaml");
    writeFileSync(yaml, stringify(recipe("1.1.0")));
    const second = await sfJson<{ created: boolean; recipe: { version: string } }>(
      ["admin", "recipe", "publish", yaml],
      admin,
    );
    expect(second).toMatchObject({ created: true, recipe: { version: "1.1.0" } });

    const catalog = await call(cp, cp.adminToken, "GET", `/v1/catalog/${SFT}`);
    expect(catalog.body.latest).toBe("1.1.0");
  });

  it("refuses changed content for a published version, an invalid recipe and a file it cannot read", async () => {
    const changed = join(dir, "changed.json");
    writeFileSync(changed, JSON.stringify(recipe("1.0.0", "different")));
    const conflict = await sf(["admin", "recipe", "publish", changed], admin);
    expect(conflict.code).toBe(5);
    expect(conflict.stderr).toContain("ALREADY_EXISTS");

    const invalid = join(dir, "invalid.yml");
    writeFileSync(invalid, `name: ${BROKEN}\nversion: not-semver\n`);
    const bad = await sf(["admin", "recipe", "publish", invalid], admin);
    expect(bad.code).toBe(5);
    expect(bad.stderr).toContain("invalid recipe");

    expect((await sf(["admin", "recipe", "publish", join(dir, "missing.json")], admin)).code).toBe(4);
    writeFileSync(join(dir, "recipe.txt"), "{}");
    expect((await sf(["admin", "recipe", "publish", join(dir, "recipe.txt")], admin)).code).toBe(2);
  });
});

describe("non-admins", () => {
  it("get exit 3 from profile and recipe changes", async () => {
    const file = join(dir, "sft-2.0.0.json");
    writeFileSync(file, JSON.stringify(recipe("2.0.0")));
    for (const args of [
      ["admin", "profile", "set", MINE, "--series", "h200", "--gpus-per-node", "8"],
      ["admin", "profile", "rm", "h200"],
      ["admin", "recipe", "publish", file],
    ]) {
      const r = await sf(args, operator);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(3);
      expect(r.stderr).toContain("FORBIDDEN");
    }
    // Nothing changed: the seeded h200 every other file relies on is still there, and nothing was added.
    const { profiles } = await sfJson<{ profiles: Profile[] }>(["admin", "profile", "ls"], admin);
    expect(profiles.map((p) => p.name)).toContain("h200");
    expect(profiles.map((p) => p.name)).not.toContain(MINE);
    const catalog = await call(cp, cp.adminToken, "GET", `/v1/catalog/${SFT}`);
    expect((catalog.body.versions as Array<{ version: string }>).map((v) => v.version)).not.toContain(
      "2.0.0",
    );
  });
});
