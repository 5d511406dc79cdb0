/**
 * `npm run check:bundle` (scripts/check-bundle.mjs): the production bundle built as `wrangler deploy` would,
 * loaded in real workerd, passes; a Worker that imports a Node-only module or does heavy work in its global
 * scope fails with the codes CI reports; an environment missing a top-level variable is refused first.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const CHECK = join(ROOT, "scripts", "check-bundle.mjs");
const work = mkdtempSync(join(tmpdir(), "sf-check-bundle-test-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function check(args: string[]) {
  const r = spawnSync(process.execPath, [CHECK, ...args], { cwd: ROOT, encoding: "utf8" });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

/** A one-file Worker with one deployed environment, "test". */
function fixture(name: string, worker: string, envVars = 'A = "1"'): string {
  const dir = join(work, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "worker.js"), worker);
  writeFileSync(
    join(dir, "wrangler.toml"),
    [
      'name = "fixture"',
      'main = "worker.js"',
      'compatibility_date = "2026-04-20"',
      'compatibility_flags = ["nodejs_compat"]',
      "[vars]",
      'A = "1"',
      "[env.test]",
      "[env.test.vars]",
      envVars,
      "",
    ].join("\n"),
  );
  return join(dir, "wrangler.toml");
}

describe("check:bundle", () => {
  it("passes the production bundle and prints its size, imports and start-up against the limits", () => {
    const { code, out } = check(["--env", "production"]);
    expect(code, out).toBe(0);
    expect(out).toMatch(
      /size {6}[0-9.]+ MiB of the platform's 64\.00 MiB limit \([0-9.]+% used\); gzip [0-9.]+ MiB of our 3\.00 MiB budget/,
    );
    expect(out).toContain("imports   cloudflare:workers (left to the runtime)");
    expect(out).toMatch(/start-up {2}GET \/v1\/health answered 200 \(.*\): ≈[0-9]+ ms of the 1000 ms limit/);
    expect(out).toContain("check-bundle: OK (production)");
  });

  it("fails a Worker that imports node:child_process, starts too slowly and does not answer its health check", () => {
    const config = fixture(
      "node-only",
      [
        'import { execSync } from "node:child_process";',
        // Global-scope work: a few hundred milliseconds of CPU before the first request can be served.
        "let x = 0;",
        "for (let i = 0; i < 20_000_000; i++) x = (x * 31 + i) | 0;",
        "export default { fetch() { return new Response(String(x) + typeof execSync, { status: 503 }); } };",
      ].join("\n"),
    );
    const { code, out } = check(["--config", config, "--startup-limit-ms", "50"]);
    expect(code, out).toBe(1);
    expect(out).toContain(
      "error BUNDLE_NODE_MODULE: [env.test] worker.js imports node:child_process, which the Worker may not use",
    );
    expect(out).toMatch(
      /error BUNDLE_STARTUP_SLOW: \[env\.test\] start-up took ≈[0-9]+ ms, over the 50 ms limit/,
    );
  });

  it("refuses an environment that lacks a top-level variable before building anything", () => {
    const config = fixture(
      "incomplete",
      "export default { fetch() { return new Response('ok'); } };",
      'B = "2"',
    );
    const { code, out } = check(["--config", config]);
    expect(code).toBe(1);
    expect(out).toContain("error ENV_INCOMPLETE:");
    expect(out).toContain("[env.test] vars lack A (set at the top level)");
    expect(out).not.toContain("bundled in");
  });
});
