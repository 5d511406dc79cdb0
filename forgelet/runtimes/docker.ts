/**
 * The docker runtime: one container per run rank, through the Docker Engine API on the local unix
 * socket. The run directory is bind-mounted at /sf and the capsule's bootstrap.sh is the command.
 *
 * Same semantics as the process runtime: the exit status comes from the daemon (so an agent that
 * restarted finds it again by container id), stop is SIGTERM to the whole workload then a kill after
 * the grace, cleanup removes what the run left. Where this machine differs from a GPU host:
 * FORGE_LOCAL_GPU_PASSTHROUGH=0 launches without GPU device requests while allocation, labels and
 * FORGE_GPU_INDICES stay exactly as they would be.
 */

import { existsSync, mkdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import type Docker from "dockerode";
import { LaunchError, type RunExit, type RunSpec, type Runtime, type RuntimeRef } from "../runtime.js";
import { forgeletSettings } from "../settings.js";

// Resolved from node_modules at run time instead of bundled into dist/forgelet.mjs: dockerode's ssh2
// dependency has optional native addons (.node files) that esbuild cannot bundle, and a local unix
// socket never needs ssh. dockerode is a runtime dependency in package.json, so it is always there.
const DockerClient = createRequire(import.meta.url)("dockerode") as typeof Docker;

export const MANAGED_LABEL = "starforge.managed";
const RUN_ROOT_INSIDE = "/sf";
const BOOTSTRAP = `${RUN_ROOT_INSIDE}/.starforge/capsule/bootstrap.sh`;
const DEFAULT_SOCKET = "/var/run/docker.sock";
const PREFLIGHT_TIMEOUT_MS = 10_000;
// DeviceRequests (GPUs through the API) arrived in Engine API 1.40 (Docker 19.03).
const MIN_API = [1, 40] as const;

export interface DockerRuntimeOptions {
  keepRuns?: boolean;
  /** false = FORGE_LOCAL_GPU_PASSTHROUGH=0: no GPU device requests (machines without GPUs). */
  gpuPassthrough?: boolean;
  /** The daemon's unix socket (default: DOCKER_HOST=unix://… or /var/run/docker.sock). */
  socketPath?: string;
  /** "uid:gid" the workload runs as (default: the agent's own, unless the agent is root). */
  user?: string;
  /** /dev/shm size; docker's 64 MB breaks PyTorch DataLoader workers and NCCL. */
  shmSizeMb?: number;
  /** How long to wait between tries while the daemon does not answer during `wait`. */
  retryMs?: number;
  /**
   * The image image-less jobs run in (`--default-image`): the node then runs them too (the same JobSpec
   * as on a process or Slurm fleet). Unset: a job without an image is not this node's.
   */
  defaultImage?: string;
}

/** Where the daemon listens; only unix sockets, because the run directory is bind-mounted from this host. */
export function dockerSocket(env: NodeJS.ProcessEnv = process.env): string {
  const host = forgeletSettings(env).dockerHost;
  if (!host) return DEFAULT_SOCKET;
  if (host.startsWith("unix://")) return host.slice("unix://".length) || DEFAULT_SOCKET;
  throw new Error(
    `DOCKER_HOST=${host} is not a unix socket; forgelet bind-mounts run directories from this host, so it needs the local daemon (unix:///var/run/docker.sock)`,
  );
}

export function containerName(spec: Pick<RunSpec, "runId" | "rank">): string {
  // Docker names allow [a-zA-Z0-9_.-]; run ids already fit, but never let one produce an invalid name.
  return `sf-${spec.runId.replace(/[^a-zA-Z0-9_.-]/g, "-")}-r${spec.rank}`;
}

/** The daemon's message and HTTP status from a dockerode error, without trusting its shape. */
function dockerError(err: unknown): { status: number | undefined; message: string } {
  if (typeof err !== "object" || err === null) return { status: undefined, message: String(err) };
  const e = err as { statusCode?: unknown; json?: unknown; message?: unknown };
  const status = typeof e.statusCode === "number" ? e.statusCode : undefined;
  const json = e.json as { message?: unknown } | null | undefined;
  const message =
    json && typeof json.message === "string"
      ? json.message
      : typeof e.message === "string"
        ? e.message
        : String(err);
  return { status, message: message.trim() };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function describe(code: number): string {
  return code > 128 ? `killed by signal ${code - 128} (exit ${code})` : `exited with code ${code}`;
}

export class DockerRuntime implements Runtime {
  readonly kind = "docker" as const;
  private readonly docker: Docker;
  readonly socketPath: string;
  readonly gpuPassthrough: boolean;

  constructor(
    private readonly runsRoot: string,
    private readonly opts: DockerRuntimeOptions = {},
  ) {
    this.socketPath = opts.socketPath ?? dockerSocket();
    this.gpuPassthrough = opts.gpuPassthrough ?? forgeletSettings().gpuPassthrough;
    this.docker = new DockerClient({ socketPath: this.socketPath });
  }

  async preflight(): Promise<void> {
    mkdirSync(this.runsRoot, { recursive: true });
    let version: { ApiVersion?: unknown };
    try {
      // A socket that accepts but never answers must not hang the agent's start.
      const timeout = new Promise<never>((_, ko) => {
        setTimeout(
          () => ko(new Error(`no answer within ${PREFLIGHT_TIMEOUT_MS / 1000} s`)),
          PREFLIGHT_TIMEOUT_MS,
        ).unref();
      });
      await Promise.race([this.docker.ping(), timeout]);
      version = (await Promise.race([this.docker.version(), timeout])) as { ApiVersion?: unknown };
    } catch (err) {
      throw new Error(
        `docker runtime selected but no Docker daemon answers at ${this.socketPath}: ${dockerError(err).message}; start dockerd or choose --runtime process`,
      );
    }
    const [major = 0, minor = 0] = String(version.ApiVersion ?? "0.0")
      .split(".")
      .map(Number);
    if (major < MIN_API[0] || (major === MIN_API[0] && minor < MIN_API[1])) {
      throw new Error(
        `the Docker daemon speaks API ${String(version.ApiVersion)}; forgelet needs 1.40+ (Docker 19.03+)`,
      );
    }
    if (this.opts.defaultImage) {
      try {
        await this.requireImage(this.opts.defaultImage);
      } catch (err) {
        throw new Error(`--default-image: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  async launch(spec: RunSpec): Promise<RuntimeRef> {
    const image = spec.image ?? this.opts.defaultImage ?? null;
    if (image === null) {
      throw new LaunchError(
        "this job has no image, and this docker node has no --default-image for image-less jobs",
        false,
      );
    }
    const bootstrap = join(spec.runDir, ".starforge", "capsule", "bootstrap.sh");
    if (!existsSync(bootstrap)) throw new LaunchError(`capsule bootstrap missing at ${bootstrap}`, true);
    await this.requireImage(image);

    const name = containerName(spec);
    let container: Docker.Container;
    try {
      container = await this.create(name, image, spec).catch(async (err: unknown) => {
        // A leftover of an earlier attempt that nobody cleaned up holds the name: replace it, unless running.
        if (dockerError(err).status !== 409) throw err;
        const old = await this.docker.getContainer(name).inspect();
        if (old.State.Running)
          throw new Error(`a container named ${name} is already running (${old.Id.slice(0, 12)})`);
        await this.docker.getContainer(name).remove({ force: true, v: true });
        return this.create(name, image, spec);
      });
    } catch (err) {
      throw new LaunchError(`docker could not create ${name}: ${dockerError(err).message}`, true);
    }
    try {
      await container.start();
    } catch (err) {
      const { message } = dockerError(err);
      await container.remove({ force: true, v: true }).catch(() => undefined);
      const hint = /could not select device driver/.test(message)
        ? " (no NVIDIA container runtime on this node: install nvidia-container-toolkit, or set FORGE_LOCAL_GPU_PASSTHROUGH=0 on a machine without GPUs)"
        : "";
      throw new LaunchError(`docker could not start ${name}: ${message}${hint}`, true);
    }
    return { kind: "docker", id: container.id };
  }

  async alive(ref: RuntimeRef): Promise<boolean> {
    try {
      return (await this.docker.getContainer(ref.id).inspect()).State.Running;
    } catch (err) {
      if (dockerError(err).status === 404) return false;
      throw err;
    }
  }

  async wait(ref: RuntimeRef, _spec: RunSpec): Promise<RunExit> {
    const container = this.docker.getContainer(ref.id);
    for (;;) {
      try {
        // "not-running" also answers at once for a container that ended while no agent was watching.
        await container.wait({ condition: "not-running" });
        const { State } = await container.inspect();
        if (State.Running) continue;
        // The daemon saw the kernel's OOM killer in the container's cgroup: the node's limit, not the code.
        if (State.OOMKilled)
          return { exitCode: State.ExitCode, reason: "OOM-killed by the host", infra: true };
        if (State.Error) return { exitCode: State.ExitCode, reason: `docker: ${State.Error}`, infra: true };
        return { exitCode: State.ExitCode, reason: describe(State.ExitCode), infra: false };
      } catch (err) {
        if (dockerError(err).status === 404) {
          return { exitCode: null, reason: "the container is gone (removed from outside)", infra: true };
        }
        // The daemon restarted or the socket dropped: the container's fate is still recorded; ask again.
        await sleep(this.opts.retryMs ?? 1000);
      }
    }
  }

  async stop(ref: RuntimeRef, graceMs: number): Promise<void> {
    const container = this.docker.getContainer(ref.id);
    try {
      // docker stop: the stop signal (SIGTERM) to the init process, which passes it to the workload's
      // process group, then SIGKILL after t seconds.
      await container.stop({ t: Math.max(0, Math.ceil(graceMs / 1000)) });
    } catch (err) {
      const { status } = dockerError(err);
      if (status === 304 || status === 404) return; // already stopped, or gone
      throw err;
    }
    if (await this.alive(ref)) await container.kill().catch(() => undefined);
  }

  async cleanup(ref: RuntimeRef | null, spec: RunSpec): Promise<void> {
    // No ref: the agent may have died between creating the container and journaling it; find it by name.
    const container = this.docker.getContainer(ref?.id ?? containerName(spec));
    try {
      // Not AutoRemove: `docker logs` stays available until here, after the runner shipped the logs.
      await container.remove({ force: true, v: true });
    } catch (err) {
      if (dockerError(err).status !== 404) throw err;
    }
    if (!this.opts.keepRuns) rmSync(spec.runDir, { recursive: true, force: true });
  }

  async list(): Promise<Array<{ ref: RuntimeRef; labels: Record<string, string> }>> {
    // Exited but not yet cleaned containers count too: they still hold logs and disk.
    const found = await this.docker.listContainers({
      all: true,
      filters: { label: [`${MANAGED_LABEL}=true`] },
    });
    return found.map((c) => ({ ref: { kind: "docker" as const, id: c.Id }, labels: c.Labels }));
  }

  // private helpers -----------------------------------------------------------------

  private async requireImage(image: string): Promise<void> {
    try {
      await this.docker.getImage(image).inspect();
    } catch (err) {
      const { status, message } = dockerError(err);
      if (status === 404) {
        // No registry is reachable from a node; pulling would hang or fail obscurely. Say what to do.
        throw new LaunchError(
          `image ${image} is not on this node and is never pulled; build or load it here (scripts/build-image.sh, docker load)`,
          false,
        );
      }
      throw new LaunchError(`docker could not inspect image ${image}: ${message}`, true);
    }
  }

  private create(name: string, image: string, spec: RunSpec): Promise<Docker.Container> {
    const env = {
      // Into the container's configuration (the Docker API), never into a file of the run directory;
      // first, so a secret can never shadow a variable StarForge sets.
      ...spec.secrets,
      ...spec.env,
      FORGE_RUN_ROOT: RUN_ROOT_INSIDE,
      // The image it runs in (the node's --default-image for a job that names none).
      FORGE_IMAGE: image,
      // docker-init (tini) forwards SIGTERM to the whole process group, as the process runtime signals
      // its group: bootstrap.sh and the python it starts both see it.
      TINI_KILL_PROCESS_GROUP: "1",
    };
    // No CUDA_VISIBLE_DEVICES: the NVIDIA runtime exposes exactly DeviceIDs, renumbered from 0 inside.
    const gpus =
      this.gpuPassthrough && spec.gpuIndices.length > 0
        ? [{ Driver: "nvidia", DeviceIDs: spec.gpuIndices.map(String), Capabilities: [["gpu"]] }]
        : undefined;
    const { cpus, memoryMb } = spec.resources;
    const memory = memoryMb === undefined ? undefined : Math.round(memoryMb * 1024 * 1024);
    const uid = process.getuid?.();
    const user =
      this.opts.user ?? (uid === undefined || uid === 0 ? undefined : `${uid}:${process.getgid?.()}`);
    return this.docker.createContainer({
      name,
      Image: image,
      Cmd: ["bash", BOOTSTRAP],
      WorkingDir: RUN_ROOT_INSIDE,
      Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
      Labels: { ...spec.labels, [MANAGED_LABEL]: "true" },
      // Files the workload writes into the run directory belong to the agent, which must delete them.
      User: user,
      HostConfig: {
        // Host network only: the control plane is on 127.0.0.1 and docker's bridge addresses are off-limits.
        NetworkMode: "host",
        // A typed bind mount, not "src:dst" Binds: a relative path there would silently become a named
        // volume, and a colon in the path would split it; a missing source fails instead of being created.
        Mounts: [{ Type: "bind", Source: resolve(spec.runDir), Target: RUN_ROOT_INSIDE, ReadOnly: false }],
        Init: true,
        ShmSize: (this.opts.shmSizeMb ?? 2048) * 1024 * 1024,
        NanoCpus: cpus === undefined ? undefined : Math.round(cpus * 1e9),
        Memory: memory,
        // No swap beyond the limit: a run over its memory is OOM-killed (and reported so), not slowed down.
        MemorySwap: memory,
        DeviceRequests: gpus,
      },
    });
  }
}
