#!/usr/bin/env node
// `npm run test:e2e [-- --keep]`: tier 4, the closed loop with real containers. Starts dockerd if needed,
// builds the images (cached by their inputs), then runs the docker runtime suite and the closed loop.
// --keep leaves the control plane, the agent, run directories and containers of a failed run in place.
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const keep = process.argv.includes("--keep");
const passthrough = process.argv.slice(2).filter((a) => a !== "--keep");

function step(label, cmd, args, env = {}) {
  console.log(`\n=== ${label}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

step("dockerd", "bash", [join(root, "scripts/start-dockerd.sh")]);
step("image starforge/python:bookworm", "bash", [join(root, "scripts/build-image.sh"), "--minimal"]);
step("image starforge/torch-cpu:bookworm", "bash", [join(root, "scripts/build-image.sh")]);
step("build", "npm", ["run", "build"]);
step(
  "tier 4: docker runtime and the closed loop",
  "npx",
  ["vitest", "run", "--project", "docker", "--project", "e2e", ...passthrough],
  {
    SF_E2E_KEEP: keep ? "1" : "",
  },
);
