#!/usr/bin/env node
// `npm run test:multinode`: multi-node training for real (tier 3 with PyTorch): a control plane and two
// agents on this machine advertising 127.0.0.2 and 127.0.0.3, torch/ddp jobs across them. Makes sure a
// python3 with torch is here (Debian's python3-torch; installing needs root), builds, runs the suite.
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

step("python3 with torch", "bash", [join(root, "scripts/ensure-torch.sh")]);
step("build", "npm", ["run", "build"]);
step("multi-node training (process runtime, two agents)", "npx", [
  "vitest",
  "run",
  "--project",
  "multinode",
  ...passthrough,
]);
