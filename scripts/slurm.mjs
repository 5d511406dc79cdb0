#!/usr/bin/env node
// `npm run test:slurm`: forgelet's Slurm runtime against real Slurm daemons. Starts the one-host cluster
// (scripts/start-slurm.sh: munged, slurmctld, two slurmd nodes with fake GPUs, slurmrestd on loopback;
// installs Debian's Slurm packages when missing, as root), makes sure a python3 with torch is here (the
// 2-node torch/ddp job), starts dockerd with the minimal image (the same JobSpec on process, docker and
// Slurm fleets; the image is cached by its inputs), builds, and runs the suite with the cluster's settings
// in the environment.
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const passthrough = process.argv.slice(2);
const env = { ...process.env };

function step(label, cmd, args, capture = false) {
  console.log(`\n=== ${label}`);
  const r = spawnSync(cmd, args, {
    cwd: root,
    env,
    stdio: capture ? ["ignore", "pipe", "inherit"] : "inherit",
    encoding: "utf8",
  });
  if (capture) process.stdout.write(r.stdout ?? "");
  if (r.status !== 0) process.exit(r.status ?? 1);
  return r.stdout ?? "";
}

const printed = step(
  "Slurm cluster (two slurmd nodes, slurmrestd)",
  "bash",
  [join(root, "scripts/start-slurm.sh")],
  true,
);
for (const line of printed.split("\n")) {
  const m = /^(SLURM_CONF|SF_SLURMRESTD|SF_SLURMRESTD_SOCKET|SF_SLURM_STATE)=(.*)$/.exec(line.trim());
  if (m) env[m[1]] = m[2];
}
step("python3 with torch", "bash", [join(root, "scripts/ensure-torch.sh")]);
step("dockerd", "bash", [join(root, "scripts/start-dockerd.sh")]);
step("image starforge/python:bookworm", "bash", [join(root, "scripts/build-image.sh"), "--minimal"]);
step("build", "npm", ["run", "build"]);
step("Slurm runtime (slurmrestd, real daemons)", "npx", [
  "vitest",
  "run",
  "--project",
  "slurm",
  ...passthrough,
]);
