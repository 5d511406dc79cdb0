/** The README and docs/ link and show only files that exist (the console screenshots included). */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const FILES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** Relative targets of markdown links and images, without their #fragment. */
function targets(markdown: string): string[] {
  // Code (fenced and inline) is not links: a regex like `[a-z](…)` would look like one.
  const text = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!.split("#")[0]!)
    .filter((t) => t && !/^[a-z]+:/i.test(t));
}

describe("documentation links", () => {
  it.each(FILES)("%s links only to files that exist", (file) => {
    const missing = targets(readFileSync(join(ROOT, file), "utf8")).filter(
      (t) => !existsSync(resolve(ROOT, dirname(file), t)),
    );
    expect(missing).toEqual([]);
  });

  it("the README shows two console screenshots", () => {
    const images = [
      ...readFileSync(join(ROOT, "README.md"), "utf8").matchAll(
        /!\[[^\]]*\]\((docs\/images\/console-[^)]+\.png)\)/g,
      ),
    ];
    expect(images.length).toBe(2);
  });
});
