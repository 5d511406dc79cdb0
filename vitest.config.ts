import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { experimental_readRawConfig } from "wrangler";
import { LongestFirstSequencer } from "./test/support/sequencer.js";

/** Secrets and endpoints the workerd tests run with (never real ones). */
export const TEST_BINDINGS = {
  SF_BOOTSTRAP_ADMIN_TOKEN: "sf-test-bootstrap-admin-token-0001",
  SF_JWT_SECRET: "test-jwt-secret-at-least-32-characters-long!!",
  SF_HF_ENDPOINT: "http://hf-hub.test",
  // 32 bytes, base64url: the key job secrets are sealed with in tests.
  SF_SECRETS_KEY: "dGVzdC1zZWNyZXRzLWtleS0zMi1ieXRlcy1sb25nISE",
  SF_OUTBOX_RETRY_SECONDS: "1",
  SF_COMMAND_RESEND_SECONDS: "1",
  SF_AGENT_LOST_GRACE_SECONDS: "2",
  SF_RETRY_BACKOFF_SECONDS: "1",
  SF_WEBHOOK_RETRY_SECONDS: "1",
  SF_RESERVATION_SETTLE_SECONDS: "1",
  // Small, so the size limit is testable without gigabyte bodies.
  SF_MAX_BLOB_BYTES: "1048576",
  // One log line per request is thousands of lines a run, each carried out of workerd and printed by
  // vitest; errors still show. test/worker/request-logs.test.ts sets the level it tests.
  SF_LOG_LEVEL: "error",
  // vitest-pool-workers runs the Worker with `no_handle_cross_request_promise_resolution` (its runner needs
  // it), under which a request cannot go on after a promise another request resolved: group commit's
  // waiting cannot run here. Each submit calls the objects' batch methods with itself alone; the waiting is
  // tested in test/unit/group-commit.test.ts and, in the real runtime, test/node/group-commit.test.ts.
  SF_GROUP_COMMIT: "off",
};

type Ratelimit = { simple: { limit: number; period: 10 | 60 } };

/**
 * The failed-login limits of wrangler.toml ([[ratelimits]]), raised out of reach for the worker tests: the
 * files share one runtime, and their requests (no CF-Connecting-IP) one client address, "unknown", from
 * which they send hundreds of deliberate failed logins. abuse-limits.test.ts runs the Worker with the
 * wrangler.toml limits themselves, bound as STRICT_<name>, and reads them from TEST_RATELIMITS.
 */
function testRatelimits(): { ratelimits: Record<string, Ratelimit>; limits: Record<string, number> } {
  const declared = experimental_readRawConfig({ config: "wrangler.toml" }).rawConfig.ratelimits ?? [];
  const ratelimits: Record<string, Ratelimit> = {};
  const limits: Record<string, number> = {};
  for (const r of declared) {
    const period = r.simple.period ?? 60;
    ratelimits[r.name] = { simple: { limit: 1_000_000, period } };
    ratelimits[`STRICT_${r.name}`] = { simple: { limit: r.simple.limit, period } };
    limits[r.name] = r.simple.limit;
  }
  return { ratelimits, limits };
}

/** `import source from "….py"`: the file's text, as the forgelet bundle gets it (scripts/build.mjs). */
const pythonAsText = {
  name: "python-as-text",
  transform(code: string, id: string) {
    return id.endsWith(".py") ? { code: `export default ${JSON.stringify(code)};`, map: null } : undefined;
  },
};

export default defineConfig(async () => {
  const migrations = await readD1Migrations("migrations");
  const { ratelimits, limits } = testRatelimits();
  return {
    test: {
      maxWorkers: Number(process.env.SF_TEST_WORKERS || 4),
      sequence: { sequencer: LongestFirstSequencer },
      projects: [
        {
          plugins: [pythonAsText],
          test: {
            name: "unit",
            include: ["test/unit/**/*.test.ts"],
            environment: "node",
            // A hang detector, not a speed limit: the files share two cores with the other projects'.
            testTimeout: 30_000,
          },
        },
        {
          test: {
            name: "node",
            include: ["test/node/**/*.test.ts"],
            environment: "node",
            testTimeout: 180_000,
            hookTimeout: 120_000,
            // One control plane for the project's files (test/support/shared-control-plane.ts).
            globalSetup: ["test/support/global-control-plane.ts"],
          },
        },
        {
          test: {
            name: "cli",
            include: ["test/cli/**/*.test.ts"],
            environment: "node",
            testTimeout: 180_000,
            hookTimeout: 120_000,
            // One control plane for the project's files (test/support/shared-control-plane.ts).
            globalSetup: ["test/support/global-control-plane.ts"],
          },
        },
        {
          test: {
            name: "docker",
            include: ["test/docker/**/*.test.ts"],
            environment: "node",
            testTimeout: 120_000,
            // beforeAll may install docker.io, start dockerd and build the minimal image on a fresh machine.
            hookTimeout: 300_000,
            fileParallelism: false,
          },
        },
        {
          test: {
            name: "e2e",
            include: ["test/e2e/**/*.test.ts"],
            environment: "node",
            testTimeout: 600_000,
            hookTimeout: 300_000,
            fileParallelism: false,
          },
        },
        {
          test: {
            // Multi-node training with real PyTorch (npm run test:multinode installs python3-torch).
            name: "multinode",
            include: ["test/multinode/**/*.test.ts"],
            environment: "node",
            testTimeout: 300_000,
            hookTimeout: 180_000,
            fileParallelism: false,
          },
        },
        {
          test: {
            // Slurm through slurmrestd, real daemons (npm run test:slurm starts the one-host cluster).
            name: "slurm",
            include: ["test/slurm/**/*.test.ts"],
            environment: "node",
            testTimeout: 300_000,
            hookTimeout: 180_000,
            fileParallelism: false,
          },
        },
        {
          // The runtime bundles capsule/pull.py and capsule/rayjob.py as text.
          plugins: [pythonAsText],
          test: {
            // forgelet's KubeRay runtime against the Kubernetes API and KubeRay operator simulators.
            name: "kuberay",
            include: ["test/kuberay/**/*.test.ts"],
            environment: "node",
            testTimeout: 180_000,
            hookTimeout: 60_000,
            fileParallelism: false,
          },
        },
        {
          test: {
            // The web console in headless chromium against the real local stack (npm run test:ui).
            name: "ui",
            include: ["test/ui/**/*.test.ts"],
            environment: "node",
            testTimeout: 240_000,
            hookTimeout: 180_000,
            fileParallelism: false,
          },
        },
        {
          test: {
            name: "capsule",
            include: ["test/capsule/**/*.test.ts"],
            environment: "node",
            testTimeout: 120_000,
            hookTimeout: 60_000,
          },
        },
        {
          plugins: [
            cloudflareTest({
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: {
                bindings: {
                  ...TEST_BINDINGS,
                  TEST_MIGRATIONS: migrations,
                  TEST_RATELIMITS: limits,
                  // workerd has no process.env: the fuzz suites read their run count from here.
                  SF_RUNS: process.env.SF_RUNS ?? "",
                },
                ratelimits,
              },
            }),
          ],
          test: {
            name: "worker",
            include: ["test/worker/**/*.test.ts"],
            // A hang detector, not a speed limit: the files share two cores with the other projects'.
            testTimeout: 60_000,
            setupFiles: ["test/worker/setup.ts"],
          },
        },
      ],
    },
  };
});
