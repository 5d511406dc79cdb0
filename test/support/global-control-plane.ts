/**
 * globalSetup of the `cli` and `node` vitest projects: starts the project's one shared control plane
 * (test/support/shared-control-plane.ts) before its first file and stops it after its last.
 */
import type { TestProject } from "vitest/node";
import { type ControlPlane, startControlPlane } from "./control-plane.js";

let cp: ControlPlane | undefined;

/**
 * Deployment-wide settings of a project's shared plane, where one of its files tests what they time. Only
 * a setting no other file of the project depends on belongs here; the files read them back through
 * sharedControlPlaneVars() rather than repeating the numbers.
 */
const PROJECT_VARS: Record<string, Record<string, string>> = {
  // test/node/webhooks.test.ts watches retries and the give-up after the last attempt; no other file of the
  // node project delivers webhooks (webhooks-standard.test.ts restarts its own plane).
  node: { SF_WEBHOOK_RETRY_SECONDS: "1", SF_WEBHOOK_MAX_ATTEMPTS: "4" },
};

export async function setup(project: TestProject): Promise<void> {
  const started = Date.now();
  const vars = PROJECT_VARS[project.name] ?? {};
  // Failed logins are counted per client address, and every file of the project is one address
  // (127.0.0.1): with wrangler.toml's limit (20 a minute) one file's deliberate bad logins, or a revoked
  // agent still retrying, would lock the next files out. The limits themselves are tested in workerd
  // (test/worker/abuse-limits.test.ts) and through npm start --ratelimit (test/node/start-journey.test.ts).
  cp = await startControlPlane({
    agent: false,
    vars,
    ratelimits: { AUTH_FAILURES_BY_ADDRESS: 100_000, AUTH_FAILURES_BY_TOKEN: 100_000 },
  });
  console.log(`[${project.name}] shared control plane ${cp.url} up in ${Date.now() - started} ms`);
  project.provide("controlPlane", {
    url: cp.url,
    adminToken: cp.adminToken,
    stateDir: cp.stateDir,
    pgid: cp.pgid,
    vars,
  });
}

export async function teardown(): Promise<void> {
  await cp?.stop();
}
