/**
 * Tier 3, offline: `sf init` scaffolds a project and refuses to overwrite one; `sf ls` reads it; every
 * project command's --help teaches with examples. No control plane: none of this may need one.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { newSfHome, sf, sfJson } from "../support/sf.js";

const home = newSfHome();
// A dead server: nothing here may talk to one.
const env = { home, server: "http://127.0.0.1:9" };

/** Every file under `dir` (except .git) with its bytes, to prove a refusal changed nothing. */
function snapshot(dir: string, rel = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(join(dir, rel))) {
    const r = rel ? `${rel}/${e}` : e;
    if (e === ".git") continue;
    if (statSync(join(dir, r)).isDirectory()) Object.assign(out, snapshot(dir, r), { [`${r}/`]: "" });
    else out[r] = readFileSync(join(dir, r), "utf8");
  }
  return out;
}

describe("sf init", () => {
  it("creates the marker, experiments/, common/, configs/, .gitignore, README and a git repo", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "sf-init-"));
    const r = await sf(["init", "my-proj"], { ...env, cwd });
    expect(r.code, r.stderr).toBe(0);
    const root = join(cwd, "my-proj");
    expect(parse(readFileSync(join(root, "starforge.yaml"), "utf8"))).toEqual({
      version: 1,
      project: "my-proj",
    });
    for (const d of ["experiments", "common", "configs"])
      expect(existsSync(join(root, d, ".gitkeep"))).toBe(true);
    const ignore = readFileSync(join(root, ".gitignore"), "utf8").split("\n");
    for (const p of [
      "node_modules/",
      "__pycache__/",
      "*.pyc",
      ".env",
      ".env.*",
      "out/",
      ".venv/",
      "*.pem",
      "*.key",
    ]) {
      expect(ignore).toContain(p);
    }
    const readme = readFileSync(join(root, "README.md"), "utf8");
    expect(readme).toContain("experiments/<name>/config.yaml");
    expect(readme).toContain("sf new exp1 --method python/charlm");
    expect(statSync(join(root, ".git")).isDirectory()).toBe(true);
    expect(r.stdout).toContain("cd my-proj");
  });

  it("refuses an existing project and leaves it byte for byte as it was", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "sf-init-"));
    expect((await sf(["init", "p"], { ...env, cwd })).code).toBe(0);
    writeFileSync(join(cwd, "p", "README.md"), "my notes\n");
    const before = snapshot(join(cwd, "p"));
    const r = await sf(["init", "p"], { ...env, cwd });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain("PROJECT_EXISTS");
    expect(snapshot(join(cwd, "p"))).toEqual(before);
  });

  it("refuses a directory whose files would be overwritten, writing nothing at all", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sf-init-"));
    writeFileSync(join(dir, ".gitignore"), "secret-stuff\n");
    writeFileSync(join(dir, "README.md"), "");
    const r = await sf(["init", "--json"], { ...env, cwd: dir });
    expect(r.code).toBe(5);
    const err = JSON.parse(r.stdout) as { error: { code: string; message: string } };
    expect(err.error.code).toBe("INIT_CONFLICT");
    expect(err.error.message).toContain(".gitignore");
    expect(err.error.message).not.toContain("README.md"); // an empty file is not a conflict
    expect(snapshot(dir)).toEqual({ ".gitignore": "secret-stuff\n", "README.md": "" });
    expect(existsSync(join(dir, ".git"))).toBe(false);
  });

  it("does not nest a git repository inside an existing one, and reports in --json", async () => {
    const outer = mkdtempSync(join(tmpdir(), "sf-init-"));
    expect((await sf(["init", "--json"], { ...env, cwd: outer })).code).toBe(0);
    mkdirSync(join(outer, "sub"));
    const out = await sfJson<{ project: string; git: string; files: string[] }>(["init", "sub/inner"], {
      ...env,
      cwd: outer,
    });
    expect(out).toMatchObject({ project: "inner", git: "existing" });
    expect(out.files).toContain("starforge.yaml");
    expect(existsSync(join(outer, "sub", "inner", ".git"))).toBe(false);
  });
});

describe("sf ls", () => {
  it("lists no experiments in a fresh project, and fails clearly outside one", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "sf-init-"));
    await sf(["init", "p"], { ...env, cwd });
    const out = await sfJson<{ project: string; experiments: unknown[] }>(["ls"], {
      ...env,
      cwd: join(cwd, "p", "common"),
    });
    expect(out).toMatchObject({ project: "p", experiments: [] });
    const outside = await sf(["ls"], { ...env, cwd });
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain("NOT_IN_PROJECT");
    expect(outside.stderr).toContain("sf init");
  });

  it("shows a malformed lock offline", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "sf-init-"));
    await sf(["init", "p"], { ...env, cwd });
    mkdirSync(join(cwd, "p", "experiments", "e1"));
    writeFileSync(join(cwd, "p", "experiments", "e1", "config.yaml"), "method: python/charlm\n");
    writeFileSync(join(cwd, "p", "experiments", "e1", "recipe.lock.json"), "{ not json");
    const out = await sfJson<{ experiments: Array<{ name: string; lock: string; problem: string }> }>(
      ["ls"],
      {
        ...env,
        cwd: join(cwd, "p"),
      },
    );
    expect(out.experiments).toEqual([
      expect.objectContaining({
        name: "e1",
        lock: "malformed",
        problem: expect.stringContaining("not JSON"),
      }),
    ]);
    const human = await sf(["ls"], { ...env, cwd: join(cwd, "p") });
    expect(human.stdout).toMatch(/e1\s+python\/charlm\s+-\s+-\s+malformed/);
  });
});

describe("--help", () => {
  it.each([
    ["init"],
    ["ls"],
    ["new"],
    ["methods"],
    ["validate"],
    ["recipe", "status"],
    ["recipe", "upgrade"],
  ])("sf %s --help teaches with examples", async (...cmd: string[]) => {
    const r = await sf([...cmd, "--help"], { home });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Examples:");
    expect(r.stdout).toContain(`sf ${cmd.join(" ")}`);
  });
});
