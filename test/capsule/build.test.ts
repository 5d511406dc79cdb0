/**
 * capsule/build.py and build.mjs: the capsule is content-addressed, so the same sources must give the
 * same bytes (and digests) on every build, and files.json must name exactly those digests.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildCapsule, cleanAll, PYTHON, ROOT, sha256, tempDir } from "./support/run-dir.js";

afterAll(cleanAll);

describe("capsule build", () => {
  it("is deterministic and files.json names the built bytes", () => {
    const a = buildCapsule();
    const b = buildCapsule();
    expect(a.files).toEqual(b.files);
    expect(Object.keys(a.files).sort()).toEqual(["bootstrap.sh", "runner.pyz"]);
    for (const name of ["bootstrap.sh", "runner.pyz"]) {
      const bytes = readFileSync(join(a.dir, name));
      expect(a.files[name]).toBe(sha256(bytes));
      expect(bytes.equals(readFileSync(join(b.dir, name)))).toBe(true);
      expect(statSync(join(a.dir, name)).mode & 0o777).toBe(0o755);
    }
    expect(JSON.parse(readFileSync(join(a.dir, "files.json"), "utf8"))).toEqual(a.files);
    expect(readFileSync(join(a.dir, "bootstrap.sh"))).toEqual(
      readFileSync(join(ROOT, "capsule/bootstrap.sh")),
    );
  });

  it("runner.pyz is one zipapp: shebang, __main__, the recipes and starforge.report, nothing else", () => {
    const { dir } = buildCapsule();
    const pyz = join(dir, "runner.pyz");
    expect(readFileSync(pyz).subarray(0, 23).toString()).toBe("#!/usr/bin/env python3\n");
    const list = `import sys, zipfile; print("\\n".join(i.filename + " " + str(i.date_time) for i in zipfile.ZipFile(sys.argv[1]).infolist()))`;
    const entries = execFileSync(PYTHON, ["-c", list, pyz], { encoding: "utf8" }).trim().split("\n");
    const names = entries.map((e) => e.split(" ")[0]!);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(
      expect.arrayContaining([
        "__main__.py",
        "charlm/corpus.txt",
        "charlm/train.py",
        "tinylm/train.py",
        "starforge/report.py",
        "sfrunner/app.py",
      ]),
    );
    expect(names.every((n) => /\.(py|txt)$/.test(n) && !n.includes("__pycache__"))).toBe(true);
    expect(entries.every((e) => e.endsWith("(1980, 1, 1, 0, 0, 0)"))).toBe(true);
    // Started without the "run" command it explains itself instead of running anything.
    const usage = spawnSync(PYTHON, [pyz], { encoding: "utf8" });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain("usage: python3 runner.pyz run");
  });

  it("build.mjs (npm run build:capsule) prints the digests it wrote", () => {
    const out = tempDir("sf-build-mjs-");
    const printed = execFileSync(process.execPath, [join(ROOT, "capsule/build.mjs"), "--out", out], {
      encoding: "utf8",
    });
    const files = JSON.parse(readFileSync(join(out, "files.json"), "utf8")) as Record<string, string>;
    expect(printed).toContain(`bootstrap.sh  ${files["bootstrap.sh"]}`);
    expect(printed).toContain(`runner.pyz    ${files["runner.pyz"]}`);
    expect(files["runner.pyz"]).toBe(buildCapsule().files["runner.pyz"]);
  });
});
