/**
 * What scripts/pack.mjs counts as a module a built file loads at run time: the package is refused when one
 * of them is neither in the package, nor a node builtin, nor an optional add-on.
 */
import { describe, expect, it } from "vitest";
import { specifiers } from "../../scripts/pack.mjs";

describe("pack:cli's import scan", () => {
  it("finds static and dynamic imports, esbuild's leftover requires and a run-time createRequire", () => {
    const code = [
      'import { a } from "./chunks/chunk-A.mjs";',
      'import "./side-effect.mjs";',
      'export { b } from "./chunks/chunk-B.mjs";',
      'const lazy = () => import("./chunks/list-C.mjs");',
      'var ws = __require("bufferutil");',
      'const Docker = createRequire(import.meta.url)("dockerode");',
      'import * as fs from "node:fs";',
    ].join("\n");
    expect(specifiers(code).sort()).toEqual(
      [
        "./chunks/chunk-A.mjs",
        "./side-effect.mjs",
        "./chunks/chunk-B.mjs",
        "./chunks/list-C.mjs",
        "bufferutil",
        "dockerode",
        "node:fs",
      ].sort(),
    );
  });

  it("does not take a message that mentions a package for an import of it", () => {
    const code = `throw new Error('The "kerberos" package is required. Install it with: npm install kerberos');`;
    expect(specifiers(code)).toEqual([]);
  });
});
