#!/usr/bin/env node
// `npm run test:kuberay`: forgelet's KubeRay runtime. No Kubernetes API server can run on this machine, so
// the suite runs against test/support/k8s-sim.ts (a local API server speaking the real wire format, with
// deploy/kuberay/rbac.yaml enforced) and test/support/kuberay-sim.ts (a simulated KubeRay operator that
// runs each RayJob's entrypoint as a local process, as its head pod would). Builds, then runs the suite.
// SF_KUBERAY_KUBECONFIG=<kubeconfig> runs the closed loop against that real cluster instead (the other
// files drive the simulator itself); docs/runtimes.md lists what else it needs.
import { spawnSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const passthrough = process.argv.slice(2);

function step(label, cmd, args) {
  console.log(`\n=== ${label}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

step("build", "npm", ["run", "build"]);
const live = process.env.SF_KUBERAY_KUBECONFIG;
step(
  live
    ? `KubeRay runtime: the closed loop against the cluster of ${live}`
    : "KubeRay runtime (Kubernetes API simulator, simulated KubeRay operator)",
  "npx",
  [
    "vitest",
    "run",
    "--project",
    "kuberay",
    ...(live ? ["test/kuberay/closed-loop.test.ts"] : []),
    ...passthrough,
  ],
);
