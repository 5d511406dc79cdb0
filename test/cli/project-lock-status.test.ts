/**
 * The pure parts of the project commands, without a server: lock × catalog → status and diffs, upgrade
 * planning (dropped and new hyperparameters), and the offline validator `sf submit` reuses.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildLock, lockText } from "../../cli/impl/project/catalog.js";
import { renderConfig } from "../../cli/impl/project/config-text.js";
import { compareLock } from "../../cli/impl/project/lock-status.js";
import { planUpgrade } from "../../cli/impl/project/recipe-upgrade.js";
import { validateExperiment } from "../../cli/impl/project/validate.js";
import { readExperiment } from "../../cli/project.js";
import type { Catalog, RecipeVersion } from "../../contract/catalog.schema.js";
import type { RecipeLock } from "../../contract/recipe-lock.schema.js";

const D = (c: string) => `sha256:${c.repeat(64)}`;

function version(v: string, digest: string, over: Partial<RecipeVersion> = {}): RecipeVersion {
  return {
    name: "python/charlm",
    version: v,
    description: "",
    frameworks: [{ kind: "python", versions: ["3"], runtime_id: "python3-stdlib", image: null }],
    params: {
      learning_rate: { type: "float", default: 0.1, min: 1e-6, max: 10, doc: "SGD step size" },
      max_steps: { type: "int", default: 300, min: 1, max: 1000, doc: "steps" },
    },
    entrypoint: { kind: "python", module: "charlm.train" },
    requires_image: false,
    template: {},
    digest,
    published_at: "2026-05-01T00:00:00.000Z",
    published_by: "system",
    ...over,
  };
}

function catalog(...versions: RecipeVersion[]): Catalog {
  return {
    digest: D("c"),
    recipes: [{ name: "python/charlm", latest: versions[versions.length - 1]!.version, versions }],
  };
}

const v1 = version("1.0.0", D("1"));
const lock: RecipeLock = buildLock(
  v1,
  { kind: "python", version: "3", runtime_id: "python3-stdlib" },
  D("c"),
);

describe("compareLock", () => {
  it("is current when the lock pins the latest version, digest and a listed runtime", () => {
    expect(compareLock(lock, catalog(v1))).toMatchObject({ status: "current", diffs: [] });
  });

  it("is recipe_stale with version and digest diffs when a newer version is published", () => {
    const r = compareLock(lock, catalog(v1, version("1.1.0", D("2"))));
    expect(r.status).toBe("recipe_stale");
    expect(r.diffs).toEqual([
      { field: "version", locked: "1.0.0", catalog: "1.1.0" },
      { field: "digest", locked: D("1"), catalog: D("2") },
    ]);
  });

  it("is recipe_stale with a digest diff when the same version is published with other content", () => {
    const r = compareLock(lock, catalog(version("1.0.0", D("9"))));
    expect(r).toMatchObject({
      status: "recipe_stale",
      diffs: [{ field: "digest", locked: D("1"), catalog: D("9") }],
    });
  });

  it("shows the framework the latest version would move to", () => {
    const torch = [{ kind: "python", versions: ["3.12"], runtime_id: "python3-stdlib", image: null }];
    const r = compareLock(lock, catalog(v1, version("2.0.0", D("2"), { frameworks: torch })));
    expect(r.status).toBe("recipe_stale");
    expect(r.diffs).toContainEqual({
      field: "framework",
      locked: "python 3 (python3-stdlib)",
      catalog: "python 3.12 (python3-stdlib)",
    });
  });

  it("is runtime_removed when no published version runs the locked runtime", () => {
    const other = [{ kind: "python", versions: ["3"], runtime_id: "python3-conda", image: null }];
    expect(compareLock(lock, catalog(version("1.0.0", D("1"), { frameworks: other }))).status).toBe(
      "runtime_removed",
    );
    const gone = { digest: D("c"), recipes: [] };
    expect(compareLock(lock, gone)).toMatchObject({
      status: "runtime_removed",
      diffs: [{ field: "recipe", catalog: null }],
    });
  });
});

function project(configs: Record<string, string>, lockFor: RecipeLock | null): string {
  const root = mkdtempSync(join(tmpdir(), "sf-unit-"));
  writeFileSync(join(root, "starforge.yaml"), "version: 1\nproject: unit\n");
  for (const [name, text] of Object.entries(configs)) {
    mkdirSync(join(root, "experiments", name), { recursive: true });
    writeFileSync(join(root, "experiments", name, "config.yaml"), text);
    if (lockFor) writeFileSync(join(root, "experiments", name, "recipe.lock.json"), lockText(lockFor));
  }
  return root;
}

describe("planUpgrade", () => {
  const fw = { kind: "python", version: "3", runtime_id: "python3-stdlib" };
  const v2 = version("1.1.0", D("2"), {
    params: { ...v1.params, dropout: { type: "float", default: 0.25, min: 0, max: 1, doc: "drop" } },
  });

  it("re-locks to the latest version and adds new hyperparameters with their defaults, keeping comments", () => {
    const text = renderConfig({
      experiment: "e",
      rv: v1,
      framework: fw,
      values: { learning_rate: 0.5, max_steps: 300 },
    });
    const root = project({ e: text }, lock);
    const plan = planUpgrade(readExperiment(root, "e"), catalog(v1, v2));
    expect(plan.changes.map((c) => c.field)).toEqual(["version", "digest"]);
    expect(plan.added).toEqual([{ name: "dropout", value: 0.25 }]);
    const config = plan.files.find((f) => f.path.endsWith("config.yaml"))!.content;
    expect(config).toContain("learning_rate: 0.5");
    expect(config).toContain("# SGD step size");
    expect(config).toMatch(/# new in python\/charlm@1.1.0: drop.*\n\s+dropout: 0.25/);
  });

  it("refuses when the new version dropped a hyperparameter the config sets, naming it", () => {
    const v3 = version("2.0.0", D("3"), { params: { learning_rate: v1.params.learning_rate! } });
    const root = project({ e: "method: python/charlm\nhyperparams:\n  max_steps: 10\n" }, lock);
    expect(() => planUpgrade(readExperiment(root, "e"), catalog(v1, v3))).toThrow(
      /no longer has hyperparameter max_steps/,
    );
  });

  it("writes nothing for a lock that is already current", () => {
    const root = project({ e: "method: python/charlm\nhyperparams: {}\n" }, lock);
    expect(planUpgrade(readExperiment(root, "e"), catalog(v1)).files).toEqual([]);
  });
});

describe("validateExperiment", () => {
  const root = project({ e: "method: python/charlm\nhyperparams:\n  learning_rate: 0.5\n" }, lock);
  const exp = readExperiment(root, "e");

  it("merges config, --set overrides (coerced) and defaults", () => {
    const r = validateExperiment(exp, { max_steps: "42" });
    expect(r).toMatchObject({ ok: true, hyperparams: { learning_rate: 0.5, max_steps: 42 }, issues: [] });
  });

  it("names the --set flag for a typo and lists the known keys", () => {
    const r = validateExperiment(exp, { max_step: "42", learning_rate: "fast" });
    expect(r.ok).toBe(false);
    expect(r.issues).toEqual([
      {
        source: "--set",
        key: "max_step",
        message: expect.stringContaining("known: learning_rate, max_steps"),
      },
      { source: "--set", key: "learning_rate", message: expect.stringContaining("must be a float") },
    ]);
  });
});
