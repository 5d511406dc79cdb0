/**
 * Tier 3: dist/forgelet.mjs is the whole agent. Copied alone into an empty directory under /tmp (no
 * node_modules anywhere above it), it starts on plain Node 20 and runs a job against the real local
 * control plane. Two guards prove nothing is loaded from outside the file:
 * - Node's permission model (reads allowed only in that directory and the state directory: a package
 *   required from anywhere else fails with ERR_ACCESS_DENIED) for what works under it in Node 20; it
 *   disables fsync, so not for enroll and run, which write their files durably;
 * - for those, test/support/require-guard.cjs, which logs and refuses every package require() is asked
 *   for: only the optional native speed-ups ws and node-fetch probe for may appear.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, call, groupAlive, waitGroupGone } from "../support/control-plane.js";
import { waitConnected } from "../support/forgelet.js";
import { waitForStatus } from "../support/jobs.js";
import { submitCustom } from "../support/lifecycle.js";
import { newFleet, newUser, sharedControlPlane } from "../support/shared-control-plane.js";
import { uploadWorkspace } from "../support/workspace.js";

const BUNDLE = resolve(import.meta.dirname, "../../dist/forgelet.mjs");
const GUARD = resolve(import.meta.dirname, "../support/require-guard.cjs");
/** What ws (bufferutil, utf-8-validate) and node-fetch (encoding) try to load, and do without. */
const OPTIONAL = new Set(["bufferutil", "utf-8-validate", "encoding"]);

let cp: ControlPlane;
let fleet = "";
let root = "";
let bin = "";
let state = "";
let requireLog = "";
let agent: ChildProcess | null = null;
let agentLog = "";

/** Node's permission model: reads only in the file's directory and the state directory. */
function sandboxed(...args: string[]): string[] {
  return [
    "--experimental-permission",
    `--allow-fs-read=${bin}`,
    `--allow-fs-read=${state}`,
    `--allow-fs-write=${state}`,
    // Workloads are child processes (bash, the capsule's python); the permission model needs this.
    "--allow-child-process",
    "--no-warnings",
    join(bin, "forgelet.mjs"),
    ...args,
  ];
}

/** Every package require() is asked for is logged to `requireLog` and refused. */
function guarded(...args: string[]): string[] {
  return ["--require", GUARD, join(bin, "forgelet.mjs"), ...args];
}

const env = (extra: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: state,
  NODE_PATH: "",
  SF_REQUIRE_LOG: requireLog,
  FORGELET_BACKOFF_MAX_MS: "1000",
  ...extra,
});

function forgelet(nodeArgs: string[], extra: Record<string, string> = {}) {
  return spawnSync(process.execPath, nodeArgs, {
    cwd: bin,
    env: env(extra),
    encoding: "utf8",
    timeout: 60_000,
  });
}

const escaped = (out: string) => /ERR_ACCESS_DENIED|Cannot find (module|package)/.test(out);

beforeAll(async () => {
  root = mkdtempSync("/tmp/sf-single-file-");
  bin = join(root, "bin");
  state = join(root, "state");
  requireLog = join(root, "require.log");
  writeFileSync(requireLog, "");
  mkdirSync(bin);
  mkdirSync(state, { mode: 0o700 });
  copyFileSync(BUNDLE, join(bin, "forgelet.mjs"));
  cp = sharedControlPlane();
  fleet = await newFleet(cp, "single");
});

afterAll(async () => {
  const pid = agent?.pid;
  if (pid && groupAlive(pid)) {
    process.kill(-pid, "SIGTERM");
    await waitGroupGone(pid, 10_000);
  }
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("the single-file forgelet", () => {
  it("sits in a directory holding only itself, with no node_modules anywhere above it", () => {
    expect(spawnSync("ls", ["-A", bin], { encoding: "utf8" }).stdout.trim()).toBe("forgelet.mjs");
    for (let d = bin; ; d = dirname(d)) {
      expect(existsSync(join(d, "node_modules")), `${d}/node_modules`).toBe(false);
      if (d === dirname(d)) break;
    }
    const v = forgelet(sandboxed("--version"));
    expect(v.stderr).toBe("");
    expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(forgelet(sandboxed("--help")).stdout).toContain("forgelet install-service");
  });

  it("enrolls, connects and runs a job on the process runtime", async () => {
    const token = await call(cp, cp.adminToken, "POST", `/v1/fleets/${fleet}/enrollment-tokens`, {});
    const enrolled = forgelet(
      guarded("enroll", "--server", cp.url, "--token", String(token.body.token), "--state-dir", state),
    );
    expect(enrolled.status, enrolled.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(state, "credential.json"), "utf8")).node_id).toMatch(/^nod_/);

    agent = spawn(
      process.execPath,
      guarded(
        "run",
        "--runtime",
        "process",
        "--simulate-gpus",
        "1",
        "--gpu-series",
        "h200",
        "--name",
        "lone",
        "--state-dir",
        state,
      ),
      { cwd: bin, env: env(), detached: true, stdio: ["ignore", "pipe", "pipe"] },
    );
    await waitConnected(
      agent,
      (text) => {
        agentLog += text;
      },
      20_000,
    );

    const op = (await newUser(cp, "single-op")).token;
    const id = await submitCustom(cp, op, {
      name: "single-file",
      fleet,
      workspace: await uploadWorkspace(cp.url, op, [
        {
          path: "exp/train.sh",
          content: "#!/usr/bin/env bash\necho trained from a single file\n",
          mode: 0o755,
        },
      ]),
      maxRetries: 0,
    });
    const done = await waitForStatus(cp, op, id, ["SUCCEEDED", "FAILED"], 90_000);
    expect(done.job.status, `${JSON.stringify(done.runs)}\n${agentLog}`).toBe("SUCCEEDED");
    expect(done.runs[0]?.exit_code).toBe(0);
    expect(escaped(agentLog), agentLog).toBe(false);
    const asked = readFileSync(requireLog, "utf8").split("\n").filter(Boolean);
    expect(asked.filter((p) => !OPTIONAL.has(p))).toEqual([]);
  }, 150_000);

  it("loads the docker client from the file: without a daemon it says so, not that a module is missing", () => {
    const r = forgelet(
      sandboxed(
        "run",
        "--runtime",
        "docker",
        "--simulate-gpus",
        "1",
        "--gpu-series",
        "h200",
        "--state-dir",
        state,
      ),
      { DOCKER_HOST: `unix://${join(state, "no-docker.sock")}` },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("no Docker daemon answers at");
    expect(escaped(r.stderr), r.stderr).toBe(false);
    // The Docker client's SSH transport is not in the file: only the local socket is spoken to.
    const ssh = forgelet(
      sandboxed(
        "run",
        "--runtime",
        "docker",
        "--simulate-gpus",
        "1",
        "--gpu-series",
        "h200",
        "--state-dir",
        state,
      ),
      { DOCKER_HOST: "ssh://gpu-host" },
    );
    expect(ssh.status).toBe(2);
    expect(ssh.stderr).toContain("DOCKER_HOST=ssh://gpu-host is not a unix socket");
  });

  it("loads the Kubernetes client from the file: an unreachable API server is named", () => {
    const kubeconfig = join(state, "kubeconfig");
    writeFileSync(
      kubeconfig,
      [
        "apiVersion: v1",
        "kind: Config",
        "clusters: [{name: c, cluster: {server: 'http://127.0.0.1:1', insecure-skip-tls-verify: true}}]",
        "users: [{name: u, user: {token: t}}]",
        "contexts: [{name: c, context: {cluster: c, user: u}}]",
        "current-context: c",
        "",
      ].join("\n"),
    );
    const r = forgelet(
      sandboxed("run", "--runtime", "kuberay", "--kubeconfig", kubeconfig, "--state-dir", state),
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("the API server cannot be reached");
    expect(escaped(r.stderr), r.stderr).toBe(false);
  });
});
