/**
 * The single-file forgelet (dist/forgelet.mjs copied alone into an empty directory) runs a job on the
 * docker runtime against the real dockerd and the real local control plane: the Docker client it carries
 * inside (dockerode, with ssh2 left out) talks to the daemon. test/support/require-guard.cjs refuses and
 * logs every package require() is asked for, so nothing may come from a node_modules. GPU attach is off
 * (FORGE_LOCAL_GPU_PASSTHROUGH=0), as in the other docker tests.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DoctorReport } from "../../forgelet/doctor-report.js";
import {
  type ControlPlane,
  call,
  groupAlive,
  startControlPlane,
  waitGroupGone,
} from "../support/control-plane.js";
import { waitConnected } from "../support/forgelet.js";
import { waitForStatus } from "../support/jobs.js";
import { submitCustom } from "../support/lifecycle.js";
import { uploadWorkspace } from "../support/workspace.js";
import { docker, ensureDockerAndImage, IMAGE, managedContainers, REPO } from "./docker-helpers.js";

const GUARD = resolve(REPO, "test/support/require-guard.cjs");
const OPTIONAL = new Set(["bufferutil", "utf-8-validate", "encoding"]);

let cp: ControlPlane;
let root = "";
let agent: ChildProcess | null = null;
let log = "";

beforeAll(async () => {
  ensureDockerAndImage();
  root = mkdtempSync("/tmp/sf-single-docker-");
  mkdirSync(join(root, "bin"));
  copyFileSync(join(REPO, "dist", "forgelet.mjs"), join(root, "bin", "forgelet.mjs"));
  writeFileSync(join(root, "require.log"), "");
  cp = await startControlPlane({ agent: false });
  await call(cp, cp.adminToken, "POST", "/v1/fleets", {
    name: "dock1",
    kind: "docker",
    image_allowlist: ["starforge/*"],
  });
}, 300_000);

afterAll(async () => {
  const pid = agent?.pid;
  if (pid && groupAlive(pid)) {
    process.kill(-pid, "SIGTERM");
    await waitGroupGone(pid, 10_000);
  }
  await cp?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("the single-file forgelet on the docker runtime", () => {
  it("runs a job in a container", async () => {
    const bin = join(root, "bin");
    const state = join(root, "state");
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: root,
      NODE_PATH: "",
      SF_REQUIRE_LOG: join(root, "require.log"),
      FORGE_LOCAL_GPU_PASSTHROUGH: "0",
      FORGELET_BACKOFF_MAX_MS: "1000",
    };
    const node = (...args: string[]) => [`--require`, GUARD, join(bin, "forgelet.mjs"), ...args];
    const token = await call(cp, cp.adminToken, "POST", "/v1/fleets/dock1/enrollment-tokens", {});
    const enrolled = await new Promise<number | null>((ok) => {
      const p = spawn(
        process.execPath,
        node("enroll", "--server", cp.url, "--token", String(token.body.token), "--state-dir", state),
        {
          cwd: bin,
          env,
          stdio: "ignore",
        },
      );
      p.on("exit", ok);
    });
    expect(enrolled).toBe(0);

    agent = spawn(
      process.execPath,
      node(
        "run",
        "--runtime",
        "docker",
        "--simulate-gpus",
        "1",
        "--gpu-series",
        "h200",
        "--name",
        "dock-single",
        "--state-dir",
        state,
      ),
      { cwd: bin, env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
    );
    await waitConnected(
      agent,
      (text) => {
        log += text;
      },
      30_000,
    );

    const op = String(
      (await call(cp, cp.adminToken, "POST", "/v1/users", { name: "dock-op", role: "operator" })).body.token,
    );
    const id = await submitCustom(cp, op, {
      name: "single-docker",
      fleet: "dock1",
      image: IMAGE,
      workspace: await uploadWorkspace(cp.url, op, [
        {
          path: "exp/train.sh",
          content: "#!/usr/bin/env bash\npython3 -c 'print(\"in a container\")'\n",
          mode: 0o755,
        },
      ]),
      maxRetries: 0,
    });
    const done = await waitForStatus(cp, op, id, ["SUCCEEDED", "FAILED"], 120_000);
    expect(done.job.status, `${JSON.stringify(done.runs)}\n${log}`).toBe("SUCCEEDED");
    const asked = readFileSync(join(root, "require.log"), "utf8").split("\n").filter(Boolean);
    expect(asked.filter((p) => !OPTIONAL.has(p))).toEqual([]);
    expect(log).not.toMatch(/Cannot find (module|package)/);
    // The run's container was removed with the run.
    const until = Date.now() + 20_000;
    while (managedContainers().length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 250));
    expect(managedContainers()).toEqual([]);
  }, 200_000);

  it("doctor finds the daemon, and says whether containers would get GPUs", async () => {
    const doctor = (env: Record<string, string>) =>
      new Promise<DoctorReport>((ok, ko) => {
        execFile(
          process.execPath,
          [
            join(root, "bin", "forgelet.mjs"),
            "doctor",
            "--runtime",
            "docker",
            "--simulate-gpus",
            "1",
            "--server",
            cp.url,
            "--json",
          ],
          { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, ...env }, encoding: "utf8" },
          (_err, stdout, stderr) => {
            try {
              ok(DoctorReport.parse(JSON.parse(stdout)));
            } catch (e) {
              ko(new Error(`${String(e)}\n${stdout}${stderr}`));
            }
          },
        );
      });
    const version = docker("version", "--format", "{{.Server.Version}} (API {{.Server.APIVersion}})");
    const off = await doctor({ FORGE_LOCAL_GPU_PASSTHROUGH: "0" });
    const byId = Object.fromEntries(off.checks.map((c) => [c.id, c]));
    expect(byId.docker).toMatchObject({
      status: "ok",
      detail: `Docker Engine ${version} at /var/run/docker.sock`,
    });
    expect(byId["nvidia-runtime"]?.status).toBe("warn");
    const on = await doctor({});
    const nvidia = on.checks.find((c) => c.id === "nvidia-runtime");
    if (JSON.parse(docker("info", "--format", "{{json .Runtimes}}")).nvidia) {
      expect(nvidia?.status).toBe("ok");
    } else {
      expect(nvidia?.status).toBe("fail");
      expect(nvidia?.fix).toContain("nvidia-ctk runtime configure --runtime=docker");
    }
  });
});
