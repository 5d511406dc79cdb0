/** docs/cli.md is generated from the real `--help` output of dist/sf.mjs; a stale page fails here. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const GEN = join(ROOT, "scripts", "gen-cli-docs.mjs");

function gen(args: string[]) {
  return spawnSync(process.execPath, [GEN, ...args], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
}

describe("docs/cli.md", () => {
  it("matches the --help output of the built sf (else: npm run build && node scripts/gen-cli-docs.mjs)", () => {
    const r = gen(["--check"]);
    expect(r.status, r.stderr).toBe(0);
  });

  it("documents every admin subcommand and the completion command under its own heading", () => {
    const doc = readFileSync(join(ROOT, "docs", "cli.md"), "utf8");
    for (const h of [
      "## sf",
      "### sf login",
      "#### sf admin quota",
      "##### sf admin fleet show",
      "### sf completion",
    ]) {
      expect(doc).toContain(`\n${h}\n`);
    }
  });

  it("--check fails on a page that differs from the help output", () => {
    const stale = join(mkdtempSync(join(tmpdir(), "sf-docs-")), "cli.md");
    writeFileSync(stale, readFileSync(join(ROOT, "docs", "cli.md"), "utf8").replace("--json", "--jsn"));
    const r = gen(["--check", "--file", stale]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("is stale");
  });
});
