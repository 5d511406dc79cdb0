/**
 * Tier 3: a client generated from the served OpenAPI document with a stock generator submits a job and
 * follows its logs against the real local stack (shared control plane, a forgelet of this file's own on
 * the process runtime), as a newcomer would: `openapi-typescript` reads GET /v1/openapi.json and writes
 * the types, docs/examples/submit-and-follow.ts (the example docs/api.md shows) is typechecked against
 * them with the generated client library `openapi-fetch`, bundled and run. The plain-Python example
 * (docs/examples/submit_and_follow.py, urllib only) does the same. Both must print the job's log lines
 * and its end, SUCCEEDED.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ControlPlane } from "../support/control-plane.js";
import type { ForgeletProc } from "../support/forgelet.js";
import { baseSpec, recipeDigest } from "../support/jobs.js";
import { fleetWithAgent, newUser, sharedControlPlane } from "../support/shared-control-plane.js";

const root = resolve(import.meta.dirname, "../..");
const EXAMPLES = join(root, "docs", "examples");

let cp: ControlPlane;
let token = "";
let fleet = "";
let agent: ForgeletProc | undefined;
let dir = "";

async function jobFile(name: string): Promise<string> {
  const spec = baseSpec({
    name,
    fleet,
    recipe: {
      name: "python/charlm",
      version: "1.0.0",
      digest: await recipeDigest(cp, token, "python/charlm"),
    },
    framework: { kind: "python", version: "3", runtime_id: "python3-stdlib", image: null },
    hyperparams: { max_steps: 40, checkpoint_every: 40 },
  });
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(spec));
  return file;
}

function run(cmd: string, args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(cmd, args, {
    cwd: dir,
    encoding: "utf8",
    timeout: 150_000,
    env: { ...process.env, SF_URL: cp.url, SF_TOKEN: token, ...env },
  });
  return { code: r.status, out: r.stdout ?? "", err: `${r.stderr ?? ""}${r.error ?? ""}` };
}

/** What both examples print: the submit, the training's own log lines, and the end. */
function expectFollowed(out: string) {
  const id = /^submitted (job_[0-9a-z]{26}) \(/m.exec(out)?.[1];
  expect(id, out).toBeDefined();
  expect(out).toMatch(/^\[rank 0\] .*loss/m);
  expect(out).toMatch(new RegExp(`^${id} ended SUCCEEDED$`, "m"));
}

beforeAll(async () => {
  cp = sharedControlPlane();
  ({ fleet, agent } = await fleetWithAgent(cp, "openapi-client"));
  token = (await newUser(cp, "oa")).token;
  dir = mkdtempSync(join(tmpdir(), "sf-openapi-client-"));
  // The example imports openapi-fetch and Node's types as an installed project would.
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
});

afterAll(async () => {
  await agent?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a client generated from GET /v1/openapi.json", () => {
  it("openapi-typescript + openapi-fetch: the docs' example typechecks, submits a job and follows its logs", async () => {
    const gen = run(join(root, "node_modules", ".bin", "openapi-typescript"), [
      `${cp.url}/v1/openapi.json`,
      "-o",
      "starforge-api.d.ts",
    ]);
    expect(gen.code, gen.err).toBe(0);
    expect(readFileSync(join(dir, "starforge-api.d.ts"), "utf8")).toContain('"/v1/jobs/{id}/logs"');
    writeFileSync(join(dir, "submit-and-follow.ts"), readFileSync(join(EXAMPLES, "submit-and-follow.ts")));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
    const tsc = run(join(root, "node_modules", ".bin", "tsc"), [
      "--noEmit",
      "--strict",
      "--target",
      "es2022",
      "--module",
      "nodenext",
      "--moduleResolution",
      "nodenext",
      "--types",
      "node",
      "--skipLibCheck",
      "submit-and-follow.ts",
    ]);
    expect(tsc.code, `${tsc.out}${tsc.err}`).toBe(0);
    await build({
      entryPoints: [join(dir, "submit-and-follow.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      outfile: join(dir, "submit-and-follow.mjs"),
      logLevel: "error",
    });
    const r = run(process.execPath, ["submit-and-follow.mjs", await jobFile("openapi-ts")]);
    expect(r.code, r.err).toBe(0);
    expectFollowed(r.out);
  });

  it("plain Python (urllib): the docs' example submits a job and follows its logs", async () => {
    const r = run("python3", [join(EXAMPLES, "submit_and_follow.py"), await jobFile("openapi-py")]);
    expect(r.code, r.err).toBe(0);
    expectFollowed(r.out);
  });

  it("a refused submit shows the error's stable code", async () => {
    const file = join(dir, "bad.json");
    writeFileSync(file, JSON.stringify({ api_version: "starforge.dev/v1" }));
    const r = run("python3", [join(EXAMPLES, "submit_and_follow.py"), file]);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/POST \/v1\/jobs: INVALID_SPEC: /);
  });
});
