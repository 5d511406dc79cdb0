#!/usr/bin/env node
// The closing summary of .ci/run, from the vitest JSON reports of every step: tests passed and failed per
// tier (a step's files grouped by their test/<tier>/ directory, which is their vitest project), the 15 slowest test files of the whole run with their times, each failed test with the first lines of its
// failure, and one last line "N passed, N failed"
// (a tier whose report is missing, or that failed without a failed test, counts as one failure; so does
// each failed setup/typecheck/lint/bundle check).
// Usage: node scripts/ci-summary.mjs <results dir> <failed checks> <tier>=<report.json> ...
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";

const [dir, checksArg, ...tiers] = process.argv.slice(2);
const checks = Number(checksArg) || 0;
const root = process.cwd();
let passed = 0;
let failed = 0;
const files = [];
const rows = [];
/** Every failed test with the first lines of its failure, printed above the last line. */
const failures = [];
/** passed/failed per tier directory (test/<tier>/…), in the order first seen. */
const byTier = new Map();
const tierOf = (file) => /(?:^|\/)test\/([^/]+)\//.exec(file)?.[1] ?? "?";

for (const arg of tiers) {
  const at = arg.indexOf("=");
  const tier = arg.slice(0, at);
  const report = join(dir, arg.slice(at + 1));
  let r;
  try {
    r = JSON.parse(readFileSync(report, "utf8"));
  } catch (e) {
    failed += 1;
    rows.push([tier, "-", "-", `no results (${e.code ?? e.message})`]);
    continue;
  }
  let tierFailed = r.numFailedTests;
  // A suite that failed to load counts as a failure even when no test inside it ran.
  if (!r.success && r.numFailedTests === 0) tierFailed += 1;
  passed += r.numPassedTests;
  failed += tierFailed;
  rows.push([tier, String(r.numPassedTests), String(tierFailed), `${r.testResults.length} files`]);
  for (const f of r.testResults) {
    const name = relative(root, f.name);
    const t = tierOf(name);
    const counts = byTier.get(t) ?? { passed: 0, failed: 0, files: 0, ms: 0, step: tier };
    counts.files += 1;
    counts.ms += Math.max(0, f.endTime - f.startTime);
    for (const a of f.assertionResults ?? []) {
      if (a.status === "passed") counts.passed += 1;
      else if (a.status === "failed") {
        counts.failed += 1;
        const why = (a.failureMessages ?? []).join("\n").split("\n").slice(0, 4).join("\n      ");
        failures.push(`  ${name} > ${a.fullName ?? a.title}\n      ${why}`);
      }
    }
    byTier.set(t, counts);
    files.push({ tier: t, name, ms: Math.max(0, f.endTime - f.startTime) });
  }
}

const pad = (s, n) => String(s).padEnd(n);
console.log("\ntests per step:");
console.log(`  ${pad("step", 12)}${pad("passed", 8)}${pad("failed", 8)}`);
for (const [tier, p, f, note] of rows) console.log(`  ${pad(tier, 12)}${pad(p, 8)}${pad(f, 8)}${note}`);
console.log("\ntests per tier (test/<tier>/, its vitest project):");
console.log(
  `  ${pad("tier", 12)}${pad("step", 12)}${pad("passed", 8)}${pad("failed", 8)}${pad("files", 7)}file time`,
);
for (const [t, c] of byTier) {
  console.log(
    `  ${pad(t, 12)}${pad(c.step, 12)}${pad(c.passed, 8)}${pad(c.failed, 8)}${pad(c.files, 7)}${(c.ms / 1000).toFixed(0)} s`,
  );
}

console.log("\nthe 15 slowest test files:");
for (const f of files.sort((a, b) => b.ms - a.ms).slice(0, 15)) {
  console.log(`  ${(f.ms / 1000).toFixed(1).padStart(7)} s  ${pad(f.tier, 10)}${f.name}`);
}
console.log("");
if (failures.length) console.log(`failed tests:\n${failures.join("\n")}\n`);
if (checks) console.log(`${checks} check(s) (setup/typecheck/lint/bundle) failed`);
console.log(`${passed} passed, ${failed + checks} failed`);
