/**
 * `forgelet doctor`, the host's side: what the runtimes forgelet was asked to check need on this machine
 * (the docker daemon and NVIDIA's container runtime, the GPUs, Slurm, Kubernetes). A runtime not asked for
 * is "skip": a Slurm login node has no docker daemon to find, and that is not a fault.
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { request } from "node:http";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import { z } from "zod";
import { type Check, check } from "./doctor-report.js";
import { withTimeout } from "./doctor-server.js";
import { parseNvidiaSmi } from "./inventory.js";
import { checkEndpoint } from "./runtimes/slurm/rest.js";

const run = promisify(execFile);

export const RUNTIMES = ["process", "docker", "slurm", "kuberay"] as const;
export type RuntimeKind = (typeof RUNTIMES)[number];

export interface HostTarget {
  runtimes: ReadonlySet<RuntimeKind>;
  /** --simulate-gpus: GPUs are declared, nvidia-smi is not consulted. */
  simulateGpus: boolean;
  /** DOCKER_HOST (forgeletSettings().dockerHost). */
  dockerHost: string | undefined;
  gpuPassthrough: boolean;
  slurmrestd: string | undefined;
  kubeconfig: string | undefined;
  kubeContext: string | undefined;
  timeoutMs: number;
}

const notAsked = (id: Check["id"], flag: string) =>
  check(id, "skip", `not asked for (forgelet doctor --runtime ${flag})`);

// DeviceRequests (GPUs through the Engine API) arrived in API 1.40 (Docker 19.03).
const MIN_DOCKER_API = [1, 40] as const;
const DockerVersion = z.object({ Version: z.string(), ApiVersion: z.string() });
const DockerInfo = z.object({
  Runtimes: z.record(z.string(), z.unknown()).optional(),
  CDISpecDirs: z.array(z.string()).nullish(),
});

interface HttpAnswer {
  status: number;
  body: unknown;
}

/** One GET over a unix socket or TCP, bounded in time; the body parsed as JSON when it is JSON. */
function httpGet(
  where: { socketPath: string } | { host: string; port: number },
  path: string,
  timeoutMs: number,
) {
  return new Promise<HttpAnswer>((ok, ko) => {
    const req = request({ ...where, path, method: "GET", timeout: timeoutMs }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        if (text.length < 1 << 20) text += c;
      });
      res.on("end", () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: kept as text
        }
        ok({ status: res.statusCode ?? 0, body });
      });
    });
    req.on("timeout", () => req.destroy(Object.assign(new Error("timed out"), { code: "ETIMEDOUT" })));
    req.on("error", ko);
    req.end();
  });
}

const codeOf = (err: unknown) =>
  (err as { code?: unknown })?.code && typeof (err as { code?: unknown }).code === "string"
    ? String((err as { code: string }).code)
    : undefined;

/** The docker daemon and, when it answers, NVIDIA's container runtime in it. */
export async function checkDocker(t: HostTarget): Promise<[Check, Check]> {
  if (!t.runtimes.has("docker")) return [notAsked("docker", "docker"), notAsked("nvidia-runtime", "docker")];
  const host = t.dockerHost;
  if (host && !host.startsWith("unix://")) {
    return [
      check(
        "docker",
        "fail",
        `DOCKER_HOST=${host} is not a unix socket`,
        "forgelet bind-mounts run directories from this host, so it needs the local daemon: unset DOCKER_HOST or set unix:///var/run/docker.sock",
      ),
      check("nvidia-runtime", "skip", "needs the docker daemon"),
    ];
  }
  const socketPath = host?.slice("unix://".length) || "/var/run/docker.sock";
  let version: z.infer<typeof DockerVersion>;
  let info: z.infer<typeof DockerInfo>;
  try {
    version = DockerVersion.parse((await httpGet({ socketPath }, "/version", t.timeoutMs)).body);
    info = DockerInfo.parse((await httpGet({ socketPath }, "/info", t.timeoutMs)).body);
  } catch (err) {
    const code = codeOf(err);
    const fix =
      code === "EACCES"
        ? `let this user use ${socketPath}: usermod -aG docker $(id -un) (the service unit has SupplementaryGroups=docker)`
        : code === "ENOENT" || code === "ECONNREFUSED"
          ? "install and start Docker: systemctl enable --now docker"
          : "check the docker daemon: docker info";
    const why = code ?? (err instanceof Error ? err.message : String(err));
    return [
      check("docker", "fail", `no docker daemon answers at ${socketPath} (${why})`, fix),
      check("nvidia-runtime", "skip", "needs the docker daemon"),
    ];
  }
  const [major = 0, minor = 0] = version.ApiVersion.split(".").map(Number);
  const docker =
    major > MIN_DOCKER_API[0] || (major === MIN_DOCKER_API[0] && minor >= MIN_DOCKER_API[1])
      ? check("docker", "ok", `Docker Engine ${version.Version} (API ${version.ApiVersion}) at ${socketPath}`)
      : check(
          "docker",
          "fail",
          `Docker Engine ${version.Version} speaks API ${version.ApiVersion}; GPUs need 1.40 (Docker 19.03)`,
          "upgrade Docker",
        );
  return [docker, nvidiaRuntime(t, info)];
}

function nvidiaRuntime(t: HostTarget, info: z.infer<typeof DockerInfo>): Check {
  if (!t.gpuPassthrough) {
    return check(
      "nvidia-runtime",
      "warn",
      "GPU passthrough is off (FORGE_LOCAL_GPU_PASSTHROUGH=0): containers start without GPUs",
      "on a GPU host unset FORGE_LOCAL_GPU_PASSTHROUGH",
    );
  }
  if (info.Runtimes && "nvidia" in info.Runtimes) {
    return check("nvidia-runtime", "ok", "the daemon has the nvidia runtime");
  }
  const cdi = (info.CDISpecDirs ?? []).flatMap((d) =>
    existsSync(d)
      ? readdirSync(d)
          .filter((f) => /nvidia/i.test(f))
          .map((f) => join(d, f))
      : [],
  );
  if (cdi.length > 0) return check("nvidia-runtime", "ok", `NVIDIA CDI spec ${cdi[0]}`);
  // `docker run --gpus` (a DeviceRequest) works through this hook even without the runtime registered.
  const hook = (process.env.PATH ?? "")
    .split(delimiter)
    .map((d) => join(d, "nvidia-container-runtime-hook"))
    .find((p) => existsSync(p));
  if (hook) return check("nvidia-runtime", "ok", `NVIDIA container hook ${hook}`);
  return check(
    "nvidia-runtime",
    "fail",
    "the docker daemon has no NVIDIA runtime, CDI spec or container hook: containers would get no GPUs",
    "install the NVIDIA Container Toolkit, then: nvidia-ctk runtime configure --runtime=docker && systemctl restart docker",
  );
}

/** The GPUs forgelet offers on a process or docker node, as nvidia-smi lists them. */
export async function checkGpus(t: HostTarget): Promise<Check> {
  if (!t.runtimes.has("process") && !t.runtimes.has("docker")) {
    return check(
      "gpus",
      "skip",
      "not asked for (forgelet doctor --runtime process|docker; a cluster's nodes hold the GPUs)",
    );
  }
  if (t.simulateGpus)
    return check("gpus", "skip", "simulated GPUs (--simulate-gpus): nvidia-smi is not consulted");
  let out: string;
  try {
    out = (
      await withTimeout(
        run("nvidia-smi", ["--query-gpu=index,uuid,name,memory.total", "--format=csv,noheader,nounits"]),
        t.timeoutMs,
      )
    ).stdout;
  } catch (err) {
    if (codeOf(err) === "ENOENT") {
      return check(
        "gpus",
        "fail",
        "nvidia-smi is not installed: no NVIDIA driver",
        "install the NVIDIA driver; on a machine without GPUs run forgelet with --simulate-gpus N --gpu-series SERIES",
      );
    }
    const said = String((err as { stdout?: string }).stdout ?? "")
      .trim()
      .split("\n")[0];
    return check(
      "gpus",
      "fail",
      `nvidia-smi failed: ${said || (err instanceof Error ? err.message : String(err))}`,
      "the driver is not loaded: reboot after installing it, or see dmesg",
    );
  }
  const gpus = parseNvidiaSmi(out);
  if (gpus.length === 0)
    return check("gpus", "fail", "nvidia-smi lists no GPU", "check the driver: nvidia-smi");
  const names = [...new Set(gpus.map((g) => g.name))].join(", ");
  const mem = gpus[0]?.memory_mb ? `, ${Math.round(gpus[0].memory_mb / 1024)} GiB each` : "";
  return check("gpus", "ok", `${gpus.length}× ${names}${mem}`);
}

/** slurmrestd when given (what forgelet uses), else the Slurm client tools. */
export async function checkSlurm(t: HostTarget): Promise<Check> {
  if (!t.runtimes.has("slurm")) return notAsked("slurm", "slurm");
  const partitions = await sinfo(t.timeoutMs);
  if (t.slurmrestd) {
    const bad = checkEndpoint(t.slurmrestd);
    if (bad)
      return check(
        "slurm",
        "fail",
        bad,
        "pass --slurmrestd http://HOST:PORT or unix:/path/to/slurmrestd.socket",
      );
    const where = t.slurmrestd.startsWith("unix:")
      ? { socketPath: t.slurmrestd.slice("unix:".length) }
      : { host: new URL(t.slurmrestd).hostname, port: Number(new URL(t.slurmrestd).port || 80) };
    try {
      const a = await httpGet(where, "/openapi/v3", t.timeoutMs);
      const sees = partitions.ok ? `; sinfo sees partitions ${partitions.text}` : "";
      return check("slurm", "ok", `slurmrestd answers at ${t.slurmrestd} (HTTP ${a.status})${sees}`);
    } catch (err) {
      return check(
        "slurm",
        "fail",
        `slurmrestd does not answer at ${t.slurmrestd} (${codeOf(err) ?? (err instanceof Error ? err.message : String(err))})`,
        "start slurmrestd (systemctl start slurmrestd) and check the address forgelet run --slurmrestd gets",
      );
    }
  }
  if (!partitions.ok) {
    return check(
      "slurm",
      "fail",
      `sinfo: ${partitions.text}`,
      "install the Slurm client and its slurm.conf on this host, or pass --slurmrestd URL",
    );
  }
  return check(
    "slurm",
    "warn",
    `sinfo sees partitions ${partitions.text}; slurmrestd not checked`,
    "forgelet run --runtime slurm talks to slurmrestd: pass --slurmrestd URL to check it",
  );
}

async function sinfo(timeoutMs: number): Promise<{ ok: boolean; text: string }> {
  try {
    const out = (await withTimeout(run("sinfo", ["-h", "-o", "%P"]), timeoutMs)).stdout;
    const parts = out
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
    return parts.length ? { ok: true, text: parts.join(", ") } : { ok: false, text: "no partition" };
  } catch (err) {
    if (codeOf(err) === "ENOENT") return { ok: false, text: "not installed" };
    const said = String((err as { stderr?: string }).stderr ?? "")
      .trim()
      .split("\n")[0];
    return { ok: false, text: said || (err instanceof Error ? err.message : String(err)) };
  }
}

/** The kubeconfig loads and its API server lists nodes (what the KubeRay runtime reads first). */
export async function checkKube(t: HostTarget): Promise<Check> {
  if (!t.runtimes.has("kuberay")) return notAsked("kube", "kuberay");
  if (t.kubeconfig && !existsSync(t.kubeconfig)) {
    return check(
      "kube",
      "fail",
      `--kubeconfig ${t.kubeconfig}: no such file`,
      "pass the kubeconfig forgelet run gets",
    );
  }
  const { KubeApi, KubeRefused } = await import("./runtimes/kuberay/k8s.js");
  let api: InstanceType<typeof KubeApi>;
  try {
    api = new KubeApi({ kubeconfig: t.kubeconfig, context: t.kubeContext, namespace: "default" });
  } catch (err) {
    return check(
      "kube",
      "fail",
      `the Kubernetes configuration does not load: ${err instanceof Error ? err.message : String(err)}`,
      "pass --kubeconfig FILE (and --kube-context NAME), or set KUBECONFIG",
    );
  }
  try {
    const nodes = await withTimeout(api.nodes(), t.timeoutMs);
    return check("kube", "ok", `API ${api.server()} answers; ${nodes.length} node(s) visible`);
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    const code = err instanceof KubeRefused ? err.code : 0;
    return check(
      "kube",
      "fail",
      `API ${api.server()}: ${msg}`,
      code === 401
        ? "the API server refused the credentials: check the kubeconfig's user or the service account token"
        : code === 403
          ? "give forgelet's identity the RBAC of deploy/kuberay/rbac.yaml (nodes: get, list)"
          : "check that the API server in the kubeconfig is reachable from this host",
    );
  }
}
