#!/usr/bin/env node
// Writes test/file-times.json, the seconds each test file took, from vitest JSON reports (the ones
// .ci/run writes, or `npm test -- --reporter=json --outputFile.json=FILE`). `npm test` starts its files
// longest first by this table (test/support/sequencer.ts); files missing from the reports keep their entry.
// Usage: node scripts/file-times.mjs <report.json>...
import { readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

const root = process.cwd();
const out = join(root, "test", "file-times.json");
let times = {};
try {
  times = JSON.parse(readFileSync(out, "utf8"));
} catch {
  // a first table
}
const reports = process.argv.slice(2);
if (reports.length === 0) {
  console.error("usage: node scripts/file-times.mjs <vitest JSON report>...");
  process.exit(2);
}
for (const report of reports) {
  const r = JSON.parse(readFileSync(report, "utf8"));
  for (const f of r.testResults) {
    const file = relative(root, f.name).split("\\").join("/");
    times[file] = Math.round(Math.max(0, f.endTime - f.startTime) / 100) / 10;
  }
}
const sorted = Object.fromEntries(Object.entries(times).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(out, `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`${out}: ${Object.keys(sorted).length} files`);
