// A control plane of its own (startControlPlane), not the project's shared one: it changes the
// catalog (recipes), which is deployment-wide and which other files read whole while they run
// beside this one (the known methods and profiles, the digest a lock records).
/**
 * Tier 3: `sf methods`, `sf new` and `sf validate` as real processes against a real control plane.
 * `sf new` is all-or-nothing (a failure mid-write leaves no directory); `sf validate` never needs the
 * server (it runs against a dead port here).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { RecipeLock } from "../../contract/recipe-lock.schema.js";
import { type ControlPlane, call, startControlPlane } from "../support/control-plane.js";
import { newSfHome, sf, sfJson } from "../support/sf.js";
import { newUser, unique } from "../support/shared-control-plane.js";

let cp: ControlPlane;
const home = newSfHome();
let root = "";
const env = () => ({ home, server: cp.url, cwd: root });
const offline = () => ({ home, server: "http://127.0.0.1:9", cwd: root });
const exp = (name: string, file = "") => join(root, "experiments", name, file);
/** The catalog is deployment-wide: the recipe this file publishes has a name of its own. */
const BROKEN = `${unique("acme")}/broken`;
/** The built-in recipes, in the order the catalog lists them; other files add recipes of their own. */
const BUILTIN = ["custom/custom", "python/charlm", "torch/ddp", "torch/tinylm"];

beforeAll(async () => {
  cp = await startControlPlane({ agent: false });
  const user = await newUser(cp, "nina", "operator");
  expect((await sf(["login", "--token", user.token], { home, server: cp.url })).code).toBe(0);
  const cwd = mkdtempSync(join(tmpdir(), "sf-new-"));
  expect((await sf(["init", "proj"], { home, cwd })).code).toBe(0);
  root = join(cwd, "proj");
});

afterAll(async () => {
  await cp?.stop();
});

describe("sf methods", () => {
  it("lists python/charlm and torch/tinylm with their frameworks", async () => {
    const r = await sf(["methods"], env());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/python\/charlm\s+1\.0\.0\s+python 3/);
    expect(r.stdout).toMatch(/torch\/tinylm\s+1\.0\.0\s+torch 1\.13/);
    const json = await sfJson<{ recipes: Array<{ name: string }> }>(["methods"], env());
    expect(json.recipes.map((x) => x.name)).toEqual(
      expect.arrayContaining(["python/charlm", "torch/tinylm"]),
    );
  });

  it("shows a method's typed params with type, default, range and doc", async () => {
    const r = await sf(["methods", "python/charlm"], env());
    expect(r.stdout).toMatch(/learning_rate\s+float\s+0\.1\s+0\.000001\.\.10\s+SGD step size/);
    expect(r.stdout).toMatch(/context\s+int\s+2\s+1\.\.8\s+characters of context/);
    const t = await sfJson<{ versions: Array<{ params: Record<string, { type: string }> }> }>(
      ["methods", "torch/tinylm"],
      env(),
    );
    expect(t.versions[0]!.params.hidden).toMatchObject({ type: "int", default: 128, min: 8, max: 4096 });
    const ddp = await sf(["methods", "torch/ddp"], env());
    expect(ddp.stdout).toContain("entrypoint: python -m ddp.train");
    expect(ddp.stdout).toContain("distributed: one process per GPU on every node");
    expect((await sf(["methods", "torch/tinylm"], env())).stdout).not.toContain("distributed:");
    const missing = await sf(["methods", "torch/nope"], env());
    expect(missing.code).toBe(4);
    // Every method the server publishes, as its catalog lists them: the built-in ones, in order, and
    // whatever other files published on this shared control plane.
    const listed = /known methods: (.*) \(see `sf methods`\)/.exec(missing.stderr)?.[1]?.split(", ");
    const catalog = await call(cp, cp.adminToken, "GET", "/v1/catalog");
    expect(listed).toEqual((catalog.body.recipes as Array<{ name: string }>).map((x) => x.name));
    expect(listed?.filter((n) => BUILTIN.includes(n))).toEqual(BUILTIN);
  });
});

describe("sf new", () => {
  it("writes config.yaml with every default, the lock with a params snapshot, and the template", async () => {
    const out = await sfJson<{ files: string[]; recipe: { version: string } }>(
      ["new", "c1", "--method", "custom/custom"],
      env(),
    );
    expect(out.files).toEqual(["config.yaml", "recipe.lock.json", "train.sh"]);
    expect(statSync(exp("c1", "train.sh")).mode & 0o111).not.toBe(0);
    expect(readFileSync(exp("c1", "config.yaml"), "utf8")).toMatch(
      /# This method runs your own image.*\nimage: null/,
    );

    const r = await sf(["new", "exp1", "--method", "python/charlm"], env());
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(exp("exp1", "config.yaml"), "utf8");
    expect(text).toContain("# SGD step size (float, 0.000001..10, default 0.1)");
    expect(parse(text)).toEqual({
      method: "python/charlm",
      hyperparams: {
        batch_size: 32,
        checkpoint_every: 100,
        context: 2,
        learning_rate: 0.1,
        max_steps: 300,
        seed: 0,
      },
    });
    const lock = RecipeLock.parse(JSON.parse(readFileSync(exp("exp1", "recipe.lock.json"), "utf8")));
    const catalog = await call(cp, cp.adminToken, "GET", "/v1/catalog/python/charlm");
    const published = (catalog.body.versions as Array<{ digest: string }>)[0]!;
    expect(lock).toMatchObject({
      lock_version: 1,
      recipe: { name: "python/charlm", version: "1.0.0", digest: published.digest },
      framework: { kind: "python", version: "3", runtime_id: "python3-stdlib" },
      catalog_digest: catalog.body.catalog_digest,
      entrypoint: { kind: "python", module: "charlm.train" },
    });
    expect(lock.params.learning_rate).toMatchObject({ type: "float", min: 1e-6, max: 10 });
  });

  it("refuses an existing name and leaves it untouched", async () => {
    const before = readFileSync(exp("exp1", "recipe.lock.json"));
    const r = await sf(["new", "exp1", "--method", "torch/tinylm"], env());
    expect(r.code).toBe(5);
    expect(r.stderr).toContain("EXPERIMENT_EXISTS");
    expect(readFileSync(exp("exp1", "recipe.lock.json")).equals(before)).toBe(true);
  });

  it("leaves nothing behind for an unknown method or an unsupported framework version", async () => {
    const unknown = await sf(["new", "x1", "--method", "python/charlmm"], env());
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain("RECIPE_NOT_FOUND");
    const fw = await sf(["new", "x1", "--method", "torch/tinylm", "--framework-version", "2.4"], env());
    expect(fw.code).toBe(5);
    expect(fw.stderr).toContain("supported: torch 1.13");
    expect(existsSync(exp("x1"))).toBe(false);
  });

  it("removes the half-written directory when a write fails midway", async () => {
    // "data" as a file and "data/" as a directory: staging both works, the final rename cannot.
    const body = {
      name: BROKEN,
      version: "1.0.0",
      frameworks: [{ kind: "custom", versions: ["1"], runtime_id: "bash" }],
      entrypoint: { kind: "script", path: "train.sh" },
      template: { "train.sh": "#!/bin/sh\n", data: "x\n", "data/file.txt": "y\n" },
    };
    expect((await call(cp, cp.adminToken, "POST", "/v1/catalog/recipes", body)).status).toBe(201);
    const r = await sf(["new", "broken", "--method", BROKEN], env());
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("nothing was left behind");
    expect(existsSync(exp("broken"))).toBe(false);
    expect(readdirSync(join(root, "experiments")).sort()).toEqual([".gitkeep", "c1", "exp1"]);
  });

  it("copies an experiment with --from, keeping its files and hyperparameters", async () => {
    writeFileSync(exp("c1", "model.py"), "print('mine')\n");
    writeFileSync(
      exp("c1", "config.yaml"),
      "method: custom/custom\nhyperparams: {}\nimage: ghcr.io/acme/x:1\n",
    );
    const out = await sfJson<{ files: string[] }>(["new", "c2", "--from", "c1"], env());
    expect(out.files).toEqual(["config.yaml", "model.py", "recipe.lock.json", "train.sh"]);
    expect(readFileSync(exp("c2", "model.py"), "utf8")).toBe("print('mine')\n");
    expect(parse(readFileSync(exp("c2", "config.yaml"), "utf8"))).toMatchObject({
      image: "ghcr.io/acme/x:1",
    });
  });

  it("requires a login", async () => {
    const r = await sf(["new", "x2", "--method", "python/charlm"], {
      home: newSfHome(),
      server: cp.url,
      cwd: root,
    });
    expect(r.code).toBe(3);
    expect(existsSync(exp("x2"))).toBe(false);
  });
});

describe("sf validate (offline)", () => {
  it("accepts the scaffolded config and --set overrides, without a server", async () => {
    const out = await sfJson<{ ok: boolean; hyperparams: Record<string, unknown> }>(
      ["validate", "exp1", "--set", "learning_rate=0.05", "--set", "max_steps=1000"],
      offline(),
    );
    expect(out).toMatchObject({
      ok: true,
      hyperparams: { learning_rate: 0.05, max_steps: 1000, context: 2 },
    });
    const human = await sf(["validate", "exp1"], offline());
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("✓ exp1: python/charlm@1.0.0");
  });

  it("rejects a --set typo with the list of known keys", async () => {
    const r = await sf(["validate", "exp1", "--set", "learning_rat=0.05"], offline());
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(
      'unknown hyperparameter "learning_rat"; known: batch_size, checkpoint_every, context, learning_rate, max_steps, seed',
    );
  });

  it("rejects out-of-range values and wrong types, from --set and from config.yaml", async () => {
    const r = await sf(["validate", "exp1", "--set", "context=99", "--set", "max_steps=many"], offline());
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('"context" must be <= 8, got 99');
    expect(r.stderr).toContain('"max_steps" must be a int, got "many"');
    const path = exp("exp1", "config.yaml");
    writeFileSync(path, readFileSync(path, "utf8").replace("seed: 0", 'seed: "zero"'));
    const json = await sf(["validate", "exp1", "--json"], offline());
    expect(json.code).toBe(5);
    const err = JSON.parse(json.stdout) as { error: { code: string; message: string } };
    expect(err.error.code).toBe("VALIDATION_FAILED");
    expect(err.error.message).toContain('config.yaml: "seed" must be a int, got "zero"');
  });

  it("rejects a lock whose method does not match config.yaml, or a missing lock", async () => {
    writeFileSync(exp("c1", "recipe.lock.json"), readFileSync(exp("exp1", "recipe.lock.json")));
    const r = await sf(["validate", "c1"], offline());
    expect(r.code).toBe(5);
    expect(r.stderr).toContain("method is custom/custom but recipe.lock.json pins python/charlm");
    writeFileSync(exp("c1", "recipe.lock.json"), "{}");
    expect((await sf(["validate", "c1"], offline())).stderr).toContain("recipe.lock.json: lock_version");
  });
});

describe("sf new with a distributed recipe", () => {
  it("locks torch/ddp with its per-GPU launch and no default image (it runs on the torch where it lands)", async () => {
    const r = await sf(["new", "ddp1", "--method", "torch/ddp"], env());
    expect(r.code, r.stderr).toBe(0);
    const lock = JSON.parse(readFileSync(exp("ddp1", "recipe.lock.json"), "utf8"));
    expect(lock.framework).toEqual({ kind: "torch", version: "1.13", runtime_id: "torch" });
    expect(lock.entrypoint).toEqual({ kind: "python", module: "ddp.train", processes: "per_gpu" });
    expect(readFileSync(exp("ddp1", "config.yaml"), "utf8")).not.toMatch(/^image:/m);
  });
});
