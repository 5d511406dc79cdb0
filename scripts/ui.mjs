#!/usr/bin/env node
// `npm run test:ui`: the web console in a real browser. Installs Debian's chromium if it is missing
// (scripts/ensure-chromium.sh), builds, then runs the `ui` suite (test/ui), which starts the real local
// stack (npm start's control plane and agent), runs real training jobs and drives headless chromium
// through playwright-core. Screenshots land in test-results/ui/.
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const passthrough = process.argv.slice(2);

function step(label, cmd, args) {
  console.log(`\n=== ${label}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

step("chromium", "bash", [join(root, "scripts/ensure-chromium.sh")]);
step("build", "npm", ["run", "build"]);
step("ui: the console in headless chromium", "npx", ["vitest", "run", "--project", "ui", ...passthrough]);
