#!/usr/bin/env node
/**
 * `npm run build:capsule`: builds dist/capsule/{runner.pyz, bootstrap.sh, files.json} with
 * capsule/build.py (the capsule is Python; the build needs only python3) and prints the digests the
 * control plane will serve them under. Extra arguments go to build.py (e.g. `--out DIR`).
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const python = process.env.PYTHON || "python3";
const res = spawnSync(python, [join(here, "build.py"), ...process.argv.slice(2)], {
  stdio: ["ignore", "pipe", "inherit"],
  encoding: "utf8",
});
if (res.error) {
  console.error(`build:capsule: cannot run ${python}: ${res.error.message}`);
  process.exit(1);
}
if (res.status !== 0) process.exit(res.status ?? 1);
const files = JSON.parse(res.stdout);
for (const [name, digest] of Object.entries(files)) console.log(`${name.padEnd(13)} ${digest}`);
