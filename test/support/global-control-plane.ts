/**
 * globalSetup of the `cli` and `node` vitest projects: starts the project's one shared control plane
 * (test/support/shared-control-plane.ts) before its first file and stops it after its last.
 */
import type { TestProject } from "vitest/node";
import { type ControlPlane, startControlPlane } from "./control-plane.js";

let cp: ControlPlane | undefined;

export async function setup(project: TestProject): Promise<void> {
  const started = Date.now();
  cp = await startControlPlane({ agent: false });
  console.log(`[${project.name}] shared control plane ${cp.url} up in ${Date.now() - started} ms`);
  project.provide("controlPlane", {
    url: cp.url,
    adminToken: cp.adminToken,
    stateDir: cp.stateDir,
    pgid: cp.pgid,
  });
}

export async function teardown(): Promise<void> {
  await cp?.stop();
}
