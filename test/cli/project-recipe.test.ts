// A control plane of its own (startControlPlane), not the project's shared one: it changes the
// catalog (recipes), which is deployment-wide and which other files read whole while they run
// beside this one (the known methods and profiles, the digest a lock records).
/**
 * Tier 3: `sf recipe status` and `sf recipe upgrade` against a real control plane, where an admin
 * publishes newer versions of a recipe under the locks. Upgrades print every change, keep the user's
 * hyperparameters, and `--all` is all-or-nothing (compared byte for byte).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type ControlPlane, call, startControlPlane } from "../support/control-plane.js";
import { newSfHome, sf, sfJson } from "../support/sf.js";
import { newUser, unique } from "../support/shared-control-plane.js";

let cp: ControlPlane;
const home = newSfHome();
let root = "";
const env = (cwd = root) => ({ home, server: cp.url, cwd });
const file = (name: string, f: string) => join(root, "experiments", name, f);
const edit = (name: string, f: string, change: (s: string) => string) =>
  writeFileSync(file(name, f), change(readFileSync(file(name, f), "utf8")));
const digests: Record<string, string> = {};
/** The catalog is deployment-wide: the recipe this file publishes versions of has a name of its own. */
const LM = `${unique("acme")}/lm`;
/** LM inside a regular expression. */
const LM_RE = LM.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

interface StatusJson {
  mode: string;
  experiments: Array<{
    experiment: string;
    status: string;
    diffs: Array<{ field: string; locked: string; catalog: string | null }>;
  }>;
}
const statusOf = (s: StatusJson, name: string) => s.experiments.find((e) => e.experiment === name)!;

async function publish(version: string, params: Record<string, unknown>, versions = ["3"]): Promise<void> {
  const r = await call(cp, cp.adminToken, "POST", "/v1/catalog/recipes", {
    name: LM,
    version,
    frameworks: [{ kind: "python", versions, runtime_id: "python3-stdlib" }],
    params,
    entrypoint: { kind: "script", path: "train.sh" },
    template: { "train.sh": "#!/bin/sh\necho train\n" },
  });
  expect(r.status).toBe(201);
  digests[version] = (r.body.recipe as { digest: string }).digest;
}

/** Every lock and config in the project, as bytes. */
function projectBytes(names: string[]): Record<string, string> {
  return Object.fromEntries(
    names.flatMap((n) =>
      ["recipe.lock.json", "config.yaml"].map((f) => [`${n}/${f}`, readFileSync(file(n, f), "base64")]),
    ),
  );
}

const lr = { type: "float", default: 0.1, min: 0, max: 1, doc: "learning rate" };
const warmup = { type: "int", default: 10, min: 0, doc: "warmup steps" };
const dropout = { type: "float", default: 0.2, min: 0, max: 1, doc: "dropout probability" };

beforeAll(async () => {
  cp = await startControlPlane({ agent: false });
  const user = await newUser(cp, "otto", "operator");
  expect((await sf(["login", "--token", user.token], { home, server: cp.url })).code).toBe(0);
  const cwd = mkdtempSync(join(tmpdir(), "sf-recipe-"));
  expect((await sf(["init", "proj"], { home, cwd })).code).toBe(0);
  root = join(cwd, "proj");
  await publish("1.0.0", { lr, warmup });
  for (const name of ["a", "b", "m"]) expect((await sf(["new", name, "--method", LM], env())).code).toBe(0);
});

afterAll(async () => {
  await cp?.stop();
});

describe("sf recipe status", () => {
  it("offline: ok or malformed, without a server; --check fails on a malformed lock", async () => {
    writeFileSync(file("m", "recipe.lock.json"), '{"lock_version": 1}');
    const dead = { home, server: "http://127.0.0.1:9", cwd: root };
    const s = await sfJson<StatusJson>(["recipe", "status"], dead);
    expect(s.mode).toBe("offline");
    expect(s.experiments.map((e) => [e.experiment, e.status])).toEqual([
      ["a", "ok"],
      ["b", "ok"],
      ["m", "malformed"],
    ]);
    const human = await sf(["recipe", "status", "--check"], dead);
    expect(human.code).toBe(5);
    expect(human.stdout).toMatch(/m\s+-\s+-\s+malformed/);
    expect((await sf(["recipe", "status", "a", "--check"], dead)).code).toBe(0);
  });

  it("--online: current until a newer version is published, then recipe_stale with the field diffs", async () => {
    expect(statusOf(await sfJson<StatusJson>(["recipe", "status", "--online"], env()), "a")).toMatchObject({
      status: "current",
      diffs: [],
    });
    await publish("1.1.0", { lr, warmup, dropout }, ["3", "3.12"]);
    const s = await sfJson<StatusJson>(["recipe", "status", "--online"], env());
    expect(statusOf(s, "a")).toMatchObject({
      status: "recipe_stale",
      diffs: [
        { field: "version", locked: "1.0.0", catalog: "1.1.0" },
        { field: "digest", locked: digests["1.0.0"], catalog: digests["1.1.0"] },
      ],
    });
    expect(statusOf(s, "m").status).toBe("malformed");
    // Naming a server on the command line means comparing with it, even where SF_SERVER is dead.
    const named = await sfJson<StatusJson>(["recipe", "status", "a", "--server", cp.url], {
      ...env(),
      server: "http://127.0.0.1:9",
    });
    expect(named).toMatchObject({ mode: "online", experiments: [{ status: "recipe_stale" }] });
    const human = await sf(["recipe", "status", "a", "--online"], env());
    expect(human.stdout).toMatch(new RegExp(`a: recipe_stale: ${LM_RE}@1\\.1\\.0 is published`));
    expect(human.stdout).toMatch(/version\s+1\.0\.0 → 1\.1\.0/);
  });

  it("--online: runtime_removed when the locked framework runtime is not published", async () => {
    edit("b", "recipe.lock.json", (s) => s.replace('"version": "3"', '"version": "2.7"'));
    const b = statusOf(await sfJson<StatusJson>(["recipe", "status", "b", "--online"], env()), "b");
    expect(b.status).toBe("runtime_removed");
    expect(b.diffs).toContainEqual({
      field: "framework",
      locked: "python 2.7 (python3-stdlib)",
      catalog: "python 3 (python3-stdlib)",
    });
    edit("b", "recipe.lock.json", (s) => s.replace('"version": "2.7"', '"version": "3"'));
  });
});

describe("sf recipe upgrade", () => {
  it("needs an experiment name or --all outside an experiment directory", async () => {
    const r = await sf(["recipe", "upgrade"], env());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--all");
  });

  it("--dry-run prints the change and writes nothing; then one experiment moves, keeping its values", async () => {
    edit("a", "config.yaml", (s) => s.replace("lr: 0.1", "lr: 0.5"));
    const before = projectBytes(["a"]);
    const dry = await sf(["recipe", "upgrade", "a", "--dry-run"], env());
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/version\s+1\.0\.0 → 1\.1\.0/);
    expect(dry.stdout).toContain("+ dropout = 0.2");
    expect(projectBytes(["a"])).toEqual(before);

    // From inside the experiment's directory, no name is needed.
    const r = await sf(["recipe", "upgrade"], env(join(root, "experiments", "a")));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`a: ${LM_RE}@1\\.0\\.0 → ${LM_RE}@1\\.1\\.0`));
    const lock = JSON.parse(readFileSync(file("a", "recipe.lock.json"), "utf8")) as {
      recipe: unknown;
      params: object;
    };
    expect(lock.recipe).toEqual({ name: LM, version: "1.1.0", digest: digests["1.1.0"] });
    expect(Object.keys(lock.params).sort()).toEqual(["dropout", "lr", "warmup"]);
    const config = readFileSync(file("a", "config.yaml"), "utf8");
    expect(parse(config).hyperparams).toEqual({ lr: 0.5, warmup: 10, dropout: 0.2 });
    expect(config).toContain("# learning rate (float, 0..1, default 0.1)");
    expect((await sf(["validate", "a"], env())).code).toBe(0);

    const again = await sfJson<{ experiments: Array<{ status: string; files: string[] }> }>(
      ["recipe", "upgrade", "a"],
      env(),
    );
    expect(again.experiments).toEqual([expect.objectContaining({ status: "current", files: [] })]);
  });

  it("--all rolls back when one experiment cannot move: every lock and config unchanged", async () => {
    await publish("2.0.0", { lr, dropout }); // drops warmup
    edit("a", "config.yaml", (s) => s.replace(/\n\s*# warmup steps.*\n\s*warmup: 10/, ""));
    const names = ["a", "b", "m"];
    const before = projectBytes(names);
    const r = await sf(["recipe", "upgrade", "--all"], env());
    expect(r.code).toBe(5);
    expect(r.stderr).toContain("UPGRADE_FAILED");
    expect(r.stderr).toMatch(new RegExp(`b: ${LM_RE}@2\\.0\\.0 no longer has hyperparameter warmup`));
    expect(r.stderr).not.toMatch(/^\s+a:/m);
    expect(projectBytes(names)).toEqual(before);

    for (const n of ["b", "m"])
      edit(n, "config.yaml", (s) => s.replace(/\n\s*# warmup steps.*\n\s*warmup: 10/, ""));
    const ok = await sfJson<{
      experiments: Array<{ experiment: string; status: string; changes: Array<{ field: string }> }>;
    }>(["recipe", "upgrade", "--all"], env());
    expect(ok.experiments.map((e) => [e.experiment, e.status])).toEqual([
      ["a", "upgraded"],
      ["b", "upgraded"],
      ["m", "upgraded"],
    ]);
    expect(ok.experiments[2]!.changes.map((c) => c.field)).toEqual(["recipe"]); // the malformed lock is re-locked
    const s = await sfJson<StatusJson>(["recipe", "status", "--all", "--online", "--check"], env());
    expect(s.experiments.every((e) => e.status === "current")).toBe(true);
  });

  it("--framework-version must be one the new version lists", async () => {
    const bad = await sf(["recipe", "upgrade", "a", "--framework-version", "3.12"], env());
    expect(bad.code).toBe(5);
    expect(bad.stderr).toContain("supported: python 3");
  });
});
