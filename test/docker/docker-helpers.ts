/**
 * Helpers for the docker runtime tests (tier 4: a real dockerd on this machine). Run directories are
 * written by hand with a small bootstrap.sh, so these tests do not depend on the real capsule.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type RunSpec, runLabels } from "../../forgelet/runtime.js";

export const REPO = resolve(import.meta.dirname, "..", "..");
export const IMAGE = "starforge/python:bookworm";

/** Starts dockerd if needed and builds the minimal image (cached by its inputs digest). */
export function ensureDockerAndImage(): void {
  execFileSync("bash", [join(REPO, "scripts", "start-dockerd.sh")], { stdio: "inherit" });
  execFileSync("bash", [join(REPO, "scripts", "build-image.sh"), "--minimal"], { stdio: "inherit" });
}

export function docker(...args: string[]): string {
  return execFileSync("docker", args, { encoding: "utf8" }).trim();
}

/** What `docker logs` shows: the container's stdout and stderr. */
export function containerLogs(id: string): string {
  const r = spawnSync("docker", ["logs", id], { encoding: "utf8" });
  return r.stdout + r.stderr;
}

/** Every starforge-managed container, by id (through the docker CLI, independent of the code under test). */
export function managedContainers(): string[] {
  return docker("ps", "-aq", "--no-trunc", "--filter", "label=starforge.managed=true")
    .split("\n")
    .filter(Boolean);
}

export interface Inspected {
  Name: string;
  State: { Running: boolean; ExitCode: number; OOMKilled: boolean };
  Config: { Env: string[]; Labels: Record<string, string>; WorkingDir: string; Cmd: string[]; User: string };
  HostConfig: {
    NetworkMode: string;
    NanoCpus: number;
    Memory: number;
    DeviceRequests: Array<{ Driver: string; DeviceIDs: string[]; Capabilities: string[][] }> | null;
  };
}

export function inspect(id: string): Inspected {
  const [info] = JSON.parse(docker("inspect", id)) as Inspected[];
  if (!info) throw new Error(`docker inspect ${id} returned nothing`);
  return info;
}

export const runsRoot = mkdtempSync(join(tmpdir(), "sf-docker-runs-"));
let seq = 0;

/** A run directory whose bootstrap.sh is `script`, and the RunSpec the agent would build for it. */
export function makeRun(script: string, over: Partial<RunSpec> = {}): RunSpec {
  seq += 1;
  const runId = `run_t${process.pid}x${Date.now().toString(36)}x${seq}`;
  const runDir = join(runsRoot, runId);
  mkdirSync(join(runDir, ".starforge", "capsule"), { recursive: true });
  mkdirSync(join(runDir, "out"), { recursive: true });
  const bootstrap = join(runDir, ".starforge", "capsule", "bootstrap.sh");
  writeFileSync(bootstrap, `set -u\n${script}\n`);
  chmodSync(bootstrap, 0o755);
  const base = { runId, jobId: `job_${seq}`, epoch: 1, rank: 0 };
  return {
    ...base,
    runDir,
    env: { FORGE_GPU_INDICES: "", FORGE_RANK: "0", SF_TEST_VALUE: "hello from the spec" },
    image: IMAGE,
    gpuIndices: [],
    resources: {},
    labels: runLabels(base),
    ...over,
  };
}

/** What a restarted agent knows about a run: its journal record, not the original spec. */
export function journalSpec(spec: RunSpec): RunSpec {
  return { ...spec, env: {}, image: null, gpuIndices: [], resources: {}, labels: {} };
}

export async function waitForFile(path: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`${path} did not appear within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A pass-through proxy in front of the daemon's socket that calls `beforeStart(id)` before forwarding
 * a container start, so a test can inspect the container as it was created even when starting it fails.
 */
export async function startInterceptingProxy(
  target: string,
  beforeStart: (id: string) => void,
): Promise<{ socketPath: string; close(): void }> {
  const dir = mkdtempSync(join(tmpdir(), "sf-docker-proxy-"));
  const socketPath = join(dir, "docker.sock");
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const start = /^\/(?:v[\d.]+\/)?containers\/([^/?]+)\/start/.exec(req.url ?? "");
      if (req.method === "POST" && start?.[1]) beforeStart(start[1]);
      const up = request(
        { socketPath: target, method: req.method, path: req.url, headers: req.headers },
        (ur) => {
          res.writeHead(ur.statusCode ?? 502, ur.headers);
          ur.pipe(res);
        },
      );
      up.on("error", (err) => res.destroy(err));
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((ok) => server.listen(socketPath, ok));
  return {
    socketPath,
    close: () => {
      server.closeAllConnections();
      server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
