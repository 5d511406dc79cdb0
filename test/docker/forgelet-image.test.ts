/**
 * The container image recipe of the agent (forgelet/Dockerfile), built with the real dockerd. This
 * machine reaches no registry, so node:20-slim cannot be pulled: the recipe's NODE_IMAGE argument gets a
 * stand-in made here from the image the docker runtime tests build (Debian bookworm, debootstrapped)
 * plus this machine's own Node 20 binary. Everything after FROM is the recipe as shipped.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DoctorReport } from "../../forgelet/doctor-report.js";
import { freePort } from "../support/control-plane.js";
import { docker, ensureDockerAndImage, IMAGE, REPO } from "./docker-helpers.js";

const tag = `${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
const BASE = `starforge/node20-standin:${tag}`;
const AGENT = `starforge/forgelet:test-${tag}`;
let context = "";

function run(...args: string[]) {
  return spawnSync("docker", ["run", "--rm", ...args], { encoding: "utf8", timeout: 60_000 });
}

beforeAll(() => {
  ensureDockerAndImage();
  context = mkdtempSync(join(tmpdir(), "sf-node-base-"));
  copyFileSync(process.execPath, join(context, "node"));
  writeFileSync(join(context, "Dockerfile"), `FROM ${IMAGE}\nCOPY node /usr/local/bin/node\n`);
  execFileSync("docker", ["build", "-q", "-t", BASE, context], { stdio: "pipe" });
  execFileSync(
    "docker",
    [
      "build",
      "-q",
      "-f",
      join(REPO, "forgelet", "Dockerfile"),
      "--build-arg",
      `NODE_IMAGE=${BASE}`,
      "-t",
      AGENT,
      join(REPO, "dist"),
    ],
    { stdio: "pipe" },
  );
}, 300_000);

afterAll(() => {
  spawnSync("docker", ["rmi", "-f", AGENT, BASE]);
  if (context) rmSync(context, { recursive: true, force: true });
});

describe("the forgelet image", () => {
  it("runs forgelet as its entrypoint: --version, --help, and help by default", () => {
    const v = run(AGENT, "--version");
    expect(v.status, v.stderr).toBe(0);
    expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const h = run(AGENT, "--help");
    expect(h.status, h.stderr).toBe(0);
    expect(h.stdout).toContain("forgelet doctor");
    expect(run(AGENT).stdout).toBe(h.stdout);
  });

  it("holds only the single file, runs as a non-root user, and keeps its state on a volume", () => {
    expect(run("--entrypoint", "ls", AGENT, "-A", "/usr/local/lib/forgelet").stdout.trim()).toBe(
      "forgelet.mjs",
    );
    expect(run("--entrypoint", "id", AGENT, "-u").stdout.trim()).toBe("10001");
    const [config] = JSON.parse(docker("image", "inspect", AGENT)) as Array<{
      Config: { User: string; Env: string[]; Volumes: Record<string, unknown> | null; Entrypoint: string[] };
    }>;
    expect(config?.Config.User).toBe("forgelet");
    expect(config?.Config.Env).toContain("FORGELET_HOME=/var/lib/forgelet");
    expect(Object.keys(config?.Config.Volumes ?? {})).toEqual(["/var/lib/forgelet"]);
    expect(config?.Config.Entrypoint).toEqual(["forgelet"]);
    const state = run("--entrypoint", "stat", AGENT, "-c", "%U %a", "/var/lib/forgelet");
    expect(state.stdout.trim()).toBe("forgelet 700");
  });

  it("does real work inside: doctor reports an unreachable control plane with its fix", async () => {
    const closed = await freePort();
    const r = run("--network", "host", AGENT, "doctor", "--server", `http://127.0.0.1:${closed}`, "--json");
    expect(r.status).toBe(1);
    const report = DoctorReport.parse(JSON.parse(r.stdout));
    const https = report.checks.find((c) => c.id === "https");
    expect(https?.status).toBe("fail");
    expect(https?.detail).toContain("ECONNREFUSED");
    expect(report.checks.find((c) => c.id === "credential")?.detail).toBe(
      "no credential in /var/lib/forgelet",
    );
  });
});
