/**
 * The order `npm test` starts its files in (test/support/sequencer.ts) and the table it reads
 * (scripts/file-times.mjs): longest first across projects, unknown files at their project's median.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { TestSpecification, Vitest } from "vitest/node";
import { LongestFirstSequencer } from "../support/sequencer.js";

const SCRIPT = resolve(import.meta.dirname, "../../scripts/file-times.mjs");
const root = mkdtempSync(join(tmpdir(), "sf-seq-"));
mkdirSync(join(root, "test"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const spec = (file: string, groupOrder = 0) =>
  ({
    moduleId: join(root, file),
    project: { name: file.split("/")[1], config: { sequence: { groupOrder } } },
  }) as unknown as TestSpecification;

const order = async (files: TestSpecification[]) => {
  const seq = new LongestFirstSequencer({ config: { root } } as unknown as Vitest);
  return (await seq.sort(files)).map((s) => s.moduleId.slice(root.length + 1));
};

describe("the order npm test starts its files in", () => {
  it("is longest first across every project, with an unknown file at its project's median", async () => {
    writeFileSync(
      join(root, "test", "file-times.json"),
      JSON.stringify({
        "test/unit/a.test.ts": 0.2,
        "test/unit/b.test.ts": 0.4,
        "test/unit/c.test.ts": 0.6,
        "test/node/slow.test.ts": 70,
        "test/node/mid.test.ts": 9,
        "test/node/short.test.ts": 2,
        "test/worker/windows.test.ts": 40,
      }),
    );
    const files = [
      "unit/a",
      "worker/windows",
      "unit/new",
      "node/mid",
      "node/slow",
      "unit/c",
      "node/brand-new",
    ];
    expect(await order(files.map((f) => spec(`test/${f}.test.ts`)))).toEqual([
      "test/node/slow.test.ts",
      "test/worker/windows.test.ts",
      // a new node file is estimated at node's median (9 s), a new unit file at unit's (0.4 s); equal
      // estimates go by name
      "test/node/brand-new.test.ts",
      "test/node/mid.test.ts",
      "test/unit/c.test.ts",
      "test/unit/new.test.ts",
      "test/unit/a.test.ts",
    ]);
  });

  it("keeps vitest's groupOrder above the times, and runs without a table", async () => {
    rmSync(join(root, "test", "file-times.json"), { force: true });
    const got = await order([
      spec("test/a/x.test.ts", 1),
      spec("test/b/z.test.ts"),
      spec("test/b/y.test.ts"),
    ]);
    expect(got).toEqual(["test/b/y.test.ts", "test/b/z.test.ts", "test/a/x.test.ts"]);
  });
});

describe("scripts/file-times.mjs", () => {
  it("writes each file's seconds from vitest JSON reports, keeping the entries of files not in them", () => {
    writeFileSync(join(root, "test", "file-times.json"), JSON.stringify({ "test/unit/old.test.ts": 3 }));
    const report = join(root, "report.json");
    writeFileSync(
      report,
      JSON.stringify({
        testResults: [{ name: join(root, "test/node/n.test.ts"), startTime: 1000, endTime: 13_460 }],
      }),
    );
    const r = spawnSync(process.execPath, [SCRIPT, report], { cwd: root, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(root, "test", "file-times.json"), "utf8"))).toEqual({
      "test/node/n.test.ts": 12.5,
      "test/unit/old.test.ts": 3,
    });
    expect(spawnSync(process.execPath, [SCRIPT], { cwd: root, encoding: "utf8" }).status).toBe(2);
  });
});
