/**
 * Every sentence about runtimes stays true as runtimes are added (issue 30): where the README lists the
 * runtimes forgelet runs, it names every fleet kind the contract knows; no document calls a runtime that
 * exists "planned"; and docs/runtimes.md has a section for each.
 */
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { FLEET_KINDS } from "../../contract/placement.js";

const ROOT = resolve(import.meta.dirname, "../..");
const read = (f: string) => readFileSync(resolve(ROOT, f), "utf8");
const NAMES: Record<(typeof FLEET_KINDS)[number], RegExp> = {
  process: /\bprocess\b/i,
  docker: /\bdocker\b/i,
  slurm: /\bslurm\b/i,
  kuberay: /\bkuberay\b/i,
};

/** The prose's sentences, its lines joined (a sentence ends at `.`, `;` or a list item's end; no code). */
function sentences(text: string): string[] {
  return text
    .replace(/```[\s\S]*?```/g, "\n\n")
    .split(/\n(?=\s*[-*] |\s*\d+\. |#)|\n\n/)
    .flatMap((block) => block.replace(/\s*\n\s*/g, " ").split(/(?<=[.;])\s+/));
}

describe("what the docs say about runtimes", () => {
  it("knows every fleet kind (a name map that misses one fails here)", () => {
    expect(Object.keys(NAMES).sort()).toEqual([...FLEET_KINDS].sort());
  });

  it("README: a sentence listing the runtimes forgelet runs names every one", () => {
    const lists = sentences(read("README.md")).filter(
      (s) =>
        /runtime|runs it|runs launches/i.test(s) &&
        Object.values(NAMES).filter((re) => re.test(s)).length >= 3,
    );
    expect(lists.length).toBeGreaterThanOrEqual(2);
    for (const s of lists)
      for (const [kind, re] of Object.entries(NAMES)) expect(re.test(s), `"${s}" forgets ${kind}`).toBe(true);
  });

  it("no document calls an existing runtime planned or not supported yet", () => {
    const files = [
      "README.md",
      ...readdirSync(resolve(ROOT, "docs"))
        .filter((f) => f.endsWith(".md"))
        .map((f) => `docs/${f}`),
    ];
    for (const f of files.filter((x) => x !== "docs/decisions.md")) {
      for (const s of sentences(read(f))) {
        for (const [kind, re] of Object.entries(NAMES)) {
          if (kind === "process") continue;
          if (re.test(s) && /\b(is|are) planned\b|not (yet )?supported yet|coming soon/i.test(s))
            expect.fail(`${f}: "${s}" says the ${kind} runtime does not exist yet`);
        }
      }
    }
  });

  it("docs/runtimes.md has a section for each runtime", () => {
    const headings = read("docs/runtimes.md")
      .split("\n")
      .filter((l) => l.startsWith("## "));
    for (const [kind, re] of Object.entries(NAMES))
      expect(
        headings.some((h) => re.test(h)),
        `no section on ${kind}`,
      ).toBe(true);
  });
});
