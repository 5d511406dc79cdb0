/**
 * forgelet: the on-prem agent. `enroll` trades a one-shot enrollment token for a node credential;
 * `run` dials out to the control plane and runs what it is given with the runtime you choose.
 */

import { existsSync, mkdirSync } from "node:fs";
import { userInfo } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { Inventory } from "../contract/agent-frames.schema.js";
import { writeFileAtomic } from "../contract/node-files.js";
import { Agent } from "./agent.js";
import { DOCTOR_HELP, doctorCommand } from "./doctor.js";
import { clusterInventory, detectInventory } from "./inventory.js";
import { checkAdvertiseAddr, detectAdvertiseAddr } from "./network.js";
import { installFetchProxy } from "./proxy.js";
import { checkProxySettings } from "./proxy-env.js";
import type { Runtime } from "./runtime.js";
import { ProcessRuntime } from "./runtimes/process.js";
import { DEFAULT_NODE_DIR } from "./runtimes/pull.js";
import { SLURM_API_VERSIONS, slurmApi } from "./runtimes/slurm/adapters.js";
import { checkEndpoint, SlurmRest } from "./runtimes/slurm/rest.js";
import { SlurmRuntime } from "./runtimes/slurm/runtime.js";
import { SlurmToken } from "./runtimes/slurm/token.js";
import { installServiceCommand, SERVICE_HELP } from "./service.js";
import { CredentialFile, forgeletSettings, readCredential } from "./settings.js";

const VERSION = "0.1.0";

const HELP = `forgelet — the StarForge agent that runs training jobs on this machine's GPUs

It only ever dials OUT to the control plane (a WebSocket), so it works behind firewalls and NAT.

Usage:
  forgelet enroll --server URL --token TOKEN [--state-dir DIR]
      Trade a one-shot enrollment token (from an admin: POST /v1/fleets/<fleet>/enrollment-tokens, or
      \`sf admin fleet enroll-token <fleet>\`) for this node's credential, stored 0600 in the state dir.

  forgelet run --runtime process|docker|slurm|kuberay [options]
      Connect and run jobs. The runtime is explicit: there is no silent fallback from one to another.
        --simulate-gpus N      declare N GPUs on a machine without any (accounting and labels stay real)
        --gpu-series SERIES    GPU series to offer, e.g. h200 (detected from nvidia-smi when omitted)
        --name NAME            node name (default: the hostname)
        --label KEY=VALUE      node label, repeatable
        --default-image IMAGE  docker, kuberay: run jobs that name no image in IMAGE (on docker it must be
                               on the node), so the same JobSpec runs here as on process and Slurm fleets
        --advertise-addr ADDR  the address other nodes reach this one at, for multi-node jobs (rank 0
                               listens there); default: the IPv4 address of the default-route interface
        --work-dir DIR         where run directories go (default: <state-dir>/runs)
        --keep-runs            keep run directories after a run ends (debugging)
        --state-dir DIR        credential, journal and blob cache (default: $FORGELET_HOME or ~/.forgelet)
        --server URL           use this control plane URL instead of the one saved at enrollment

  Slurm (--runtime slurm): one forgelet on a login node fronts the whole cluster. Its GPU nodes (GRES)
  appear in the fleet; each run is one Slurm batch job, pinned to the nodes the control plane chose.
        --slurmrestd URL       http://HOST:PORT or unix:/path/to/slurmrestd.socket (required)
        --shared-dir DIR       run directories: a directory every compute node sees at the same path
                               (jobs run as --slurm-user and must be able to write there)
        --node-dir DIR         without --shared-dir (pull mode): each step fetches its inputs by digest
                               from the control plane with its run token, verifies them, and runs in
                               DIR on its node's own disk (default /tmp/starforge-runs); the compute
                               nodes must reach the control plane
        --slurm-user NAME      the Slurm user jobs run as (X-SLURM-USER-NAME; default: this user)
        --slurm-token-file F   a file holding the JWT (SLURM_JWT=… or the bare token), re-read when it
                               changes; default: \`scontrol token\` on this host, renewed at half its life
        --slurm-token-lifespan SECONDS   lifespan asked of scontrol token (default 3600)
        --slurm-api-version V  slurmrestd API version (default v0.0.38, Slurm 22.05)
        --partition NAME       submit there, and offer only that partition's nodes
        --account NAME         Slurm account for every job
        --qos NAME             Slurm QOS for every job
        --slurm-path PATH      PATH of the jobs on the compute nodes (default: forgelet's own PATH)
        --gpu-series SERIES    series of nodes whose GRES has no type (gpu:4); typed GRES (gpu:a100:4)
                               name their own
        --cluster-refresh S    re-read the cluster's nodes every S seconds (default 30)

  KubeRay (--runtime kuberay): one forgelet (in the cluster or anywhere that reaches its API server)
  fronts a Kubernetes cluster with the KubeRay operator. Its GPU nodes appear in the fleet; each run is
  one RayJob (ray.io/v1) in --namespace, pinned to the nodes the control plane chose; every pod fetches
  its inputs by digest from the control plane with its run token (the pods must reach it). Needs the
  RBAC in deploy/kuberay/rbac.yaml.
        --kubeconfig FILE      kubeconfig to use (default: $KUBECONFIG, ~/.kube/config, or the pod's
                               service account when forgelet runs in the cluster)
        --kube-context NAME    kubeconfig context (default: its current context)
        --namespace NS         where RayJobs go (default: starforge)
        --gpu-resource NAME    the GPU resource of the device plugin (default nvidia.com/gpu)
        --gpu-series-label KEY node label naming the GPU model (default nvidia.com/gpu.product)
        --gpu-series SERIES    series of GPU nodes without that label
        --node-selector SEL    only nodes matching this label selector are the fleet's
        --service-account NAME service account of the Ray pods (default: the namespace's default)
        --node-dir DIR         where each pod builds its run directory (default /tmp/starforge-runs)
        --image-pull-timeout S fail a run whose image cannot be pulled for S seconds (default 300)
        --cluster-refresh S    re-read the cluster's nodes every S seconds (default 30)

${DOCTOR_HELP}
${SERVICE_HELP}
Environment:
  FORGELET_HOME                 default state directory
  HTTPS_PROXY, HTTP_PROXY       proxy for the control plane's https:// (and wss://), http:// (and ws://) URLs
  NO_PROXY                      hosts reached directly: host, .domain, host:port, or *
  FORGE_LOCAL_GPU_PASSTHROUGH   docker runtime: 0 = launch containers without GPU devices (machines without GPUs)
  FORGE_K8S_GPU_PASSTHROUGH     kuberay runtime: 0 = pods request no GPUs from Kubernetes (Ray still counts them)

Examples:
  forgelet enroll --server https://sf.example.com --token sfe_…
  forgelet run --runtime docker
  forgelet run --runtime process --simulate-gpus 4 --gpu-series h200
  forgelet run --runtime docker --advertise-addr 10.0.4.17   # multi-node: the fabric address peers use
  forgelet run --runtime slurm --slurmrestd unix:/run/slurmrestd/slurmrestd.socket \
      --shared-dir /shared/starforge --partition gpu --slurm-token-file /etc/forgelet/slurm.jwt
  forgelet run --runtime kuberay --namespace ml-training --default-image rayproject/ray:2.9.0-py310-gpu
  forgelet doctor --runtime docker
  sudo forgelet install-service --runtime docker
`;

function fail(msg: string): never {
  process.stderr.write(`forgelet: ${msg}\n`);
  process.exit(2);
}

function stateDirOf(v: string | undefined): string {
  return v ? resolve(v) : forgeletSettings().home;
}

async function enroll(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { server: { type: "string" }, token: { type: "string" }, "state-dir": { type: "string" } },
  });
  if (!values.server || !values.token)
    fail("enroll needs --server URL and --token TOKEN (see forgelet --help)");
  const server = values.server.replace(/\/+$/, "");
  const stateDir = stateDirOf(values["state-dir"]);
  let res: Response;
  try {
    res = await fetch(`${server}/v1/agents/enroll`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: values.token }),
    });
  } catch (err) {
    fail(`cannot reach ${server}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) {
    const e = (body.error ?? {}) as { code?: string; message?: string };
    fail(`enrollment refused: ${e.code ?? res.status}: ${e.message ?? "no details"}`);
  }
  const cred = CredentialFile.parse({ server, ...body });
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  writeFileAtomic(join(stateDir, "credential.json"), JSON.stringify(cred, null, 2), 0o600);
  process.stdout.write(
    `enrolled node ${cred.node_id} in fleet ${cred.fleet}; credential saved to ${join(stateDir, "credential.json")}\nnext: forgelet run --runtime process|docker\n`,
  );
}

type RunFlags = Record<string, string | boolean | string[] | undefined>;

async function runtimeFor(
  kind: string,
  runsDir: string,
  v: RunFlags,
  log: (m: string) => void,
): Promise<Runtime> {
  const keepRuns = v["keep-runs"] === true;
  if (kind === "process") return new ProcessRuntime(runsDir, { keepRuns });
  if (kind === "docker") {
    const { DockerRuntime } = await import("./runtimes/docker.js");
    const defaultImage = typeof v["default-image"] === "string" ? v["default-image"] : undefined;
    return new DockerRuntime(runsDir, { keepRuns, defaultImage });
  }
  if (kind === "slurm") return slurmRuntime(runsDir, v, log);
  if (kind === "kuberay") return kuberayRuntime(v, log);
  fail(`unknown runtime "${kind}"; choose --runtime process, docker, slurm or kuberay`);
}

async function slurmRuntime(runsDir: string, v: RunFlags, log: (m: string) => void): Promise<Runtime> {
  const str = (k: string) => (typeof v[k] === "string" ? (v[k] as string) : undefined);
  const url = str("slurmrestd");
  if (!url) fail("--runtime slurm needs --slurmrestd http://HOST:PORT or unix:/path/to/slurmrestd.socket");
  const badUrl = checkEndpoint(url);
  if (badUrl) fail(badUrl);
  if (str("shared-dir") && str("node-dir")) {
    fail("--shared-dir and --node-dir exclude each other: a shared directory, or pull mode into --node-dir");
  }
  const lifespan = Number(str("slurm-token-lifespan") ?? "3600");
  if (!Number.isInteger(lifespan) || lifespan < 60)
    fail("--slurm-token-lifespan takes whole seconds, at least 60");
  const version = str("slurm-api-version") ?? "v0.0.38";
  if (!(SLURM_API_VERSIONS as readonly string[]).includes(version)) {
    fail(`--slurm-api-version ${version} is not supported; supported: ${SLURM_API_VERSIONS.join(", ")}`);
  }
  const token = new SlurmToken({ file: str("slurm-token-file"), lifespanSeconds: lifespan });
  const rest = new SlurmRest({ url, user: str("slurm-user") ?? userInfo().username, token });
  const shared = str("shared-dir") !== undefined;
  log(
    shared
      ? `run directories on the shared directory ${runsDir}`
      : `no shared directory: steps fetch their inputs by digest into ${str("node-dir") ?? DEFAULT_NODE_DIR} on their nodes (pull mode)`,
  );
  return new SlurmRuntime({
    api: slurmApi(version, rest),
    sharedDir: shared ? runsDir : null,
    nodeDir: str("node-dir"),
    workDir: runsDir,
    partition: str("partition") ?? null,
    account: str("account") ?? null,
    qos: str("qos") ?? null,
    path: str("slurm-path"),
    gpuSeries: str("gpu-series"),
    keepRuns: v["keep-runs"] === true,
    log,
  });
}

async function kuberayRuntime(v: RunFlags, log: (m: string) => void): Promise<Runtime> {
  const str = (k: string) => (typeof v[k] === "string" ? (v[k] as string) : undefined);
  const { KubeApi } = await import("./runtimes/kuberay/k8s.js");
  const { KubeRayRuntime } = await import("./runtimes/kuberay/runtime.js");
  const namespace = str("namespace") ?? "starforge";
  if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(namespace)) {
    fail(`--namespace ${namespace} is not a Kubernetes namespace name (lowercase letters, digits, '-')`);
  }
  const pullTimeout = Number(str("image-pull-timeout") ?? "300");
  if (!Number.isFinite(pullTimeout) || pullTimeout < 10)
    fail("--image-pull-timeout takes seconds, at least 10");
  const passthrough = process.env.FORGE_K8S_GPU_PASSTHROUGH;
  if (passthrough !== undefined && passthrough !== "0" && passthrough !== "1") {
    fail(`FORGE_K8S_GPU_PASSTHROUGH is 0 or 1, not "${passthrough}"`);
  }
  const kubeconfig = str("kubeconfig");
  if (kubeconfig && !existsSync(kubeconfig)) fail(`--kubeconfig ${kubeconfig}: no such file`);
  let api: InstanceType<typeof KubeApi>;
  try {
    api = new KubeApi({ kubeconfig, context: str("kube-context"), namespace });
  } catch (err) {
    fail(`cannot load the Kubernetes configuration: ${err instanceof Error ? err.message : String(err)}`);
  }
  log(
    `Kubernetes API ${api.server()}, namespace ${namespace}; pods fetch their inputs by digest (pull mode)`,
  );
  return new KubeRayRuntime({
    api,
    defaultImage: str("default-image") ?? null,
    gpuResource: str("gpu-resource"),
    gpuPassthrough: passthrough !== "0",
    gpuSeriesLabel: str("gpu-series-label"),
    gpuSeries: str("gpu-series"),
    nodeSelector: str("node-selector") ?? null,
    serviceAccountName: str("service-account") ?? null,
    nodeDir: str("node-dir"),
    imagePullTimeoutMs: pullTimeout * 1000,
    keepRuns: v["keep-runs"] === true,
    log,
  });
}

async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      runtime: { type: "string" },
      "simulate-gpus": { type: "string" },
      "gpu-series": { type: "string" },
      name: { type: "string" },
      label: { type: "string", multiple: true },
      "work-dir": { type: "string" },
      "keep-runs": { type: "boolean", default: false },
      "state-dir": { type: "string" },
      server: { type: "string" },
      "advertise-addr": { type: "string" },
      slurmrestd: { type: "string" },
      "shared-dir": { type: "string" },
      "node-dir": { type: "string" },
      "slurm-user": { type: "string" },
      "slurm-token-file": { type: "string" },
      "slurm-token-lifespan": { type: "string" },
      "slurm-api-version": { type: "string" },
      partition: { type: "string" },
      account: { type: "string" },
      qos: { type: "string" },
      "slurm-path": { type: "string" },
      "cluster-refresh": { type: "string" },
      "default-image": { type: "string" },
      kubeconfig: { type: "string" },
      "kube-context": { type: "string" },
      namespace: { type: "string" },
      "gpu-resource": { type: "string" },
      "gpu-series-label": { type: "string" },
      "node-selector": { type: "string" },
      "service-account": { type: "string" },
      "image-pull-timeout": { type: "string" },
    },
  });
  if (!values.runtime) fail("choose a runtime explicitly: --runtime process, docker, slurm or kuberay");
  const slurm = values.runtime === "slurm";
  const kuberay = values.runtime === "kuberay";
  const cluster = slurm || kuberay;
  const kuberayOnly = [
    "kubeconfig",
    "kube-context",
    "namespace",
    "gpu-resource",
    "gpu-series-label",
    "node-selector",
    "service-account",
    "image-pull-timeout",
  ] as const;
  const strayK = kuberayOnly.filter((k) => values[k] !== undefined);
  if (!kuberay && strayK.length > 0) fail(`--${strayK[0]} is for --runtime kuberay only`);
  const bothClusters = ["node-dir", "cluster-refresh"] as const;
  const strayC = bothClusters.filter((k) => values[k] !== undefined);
  if (!cluster && strayC.length > 0) fail(`--${strayC[0]} is for --runtime slurm or kuberay only`);
  const slurmOnly = [
    "slurmrestd",
    "shared-dir",
    "slurm-user",
    "slurm-token-file",
    "slurm-token-lifespan",
    "slurm-api-version",
    "partition",
    "account",
    "qos",
    "slurm-path",
  ] as const;
  const stray = slurmOnly.filter((k) => values[k] !== undefined);
  if (!slurm && stray.length > 0) fail(`--${stray[0]} is for --runtime slurm only`);
  if (slurm && values["simulate-gpus"] !== undefined) {
    fail("--simulate-gpus is not for --runtime slurm: the cluster's GRES say how many GPUs each node has");
  }
  if (kuberay && values["simulate-gpus"] !== undefined) {
    fail("--simulate-gpus is not for --runtime kuberay: the nodes' allocatable GPUs say how many each has");
  }
  if (values["default-image"] !== undefined && values.runtime !== "docker" && !kuberay) {
    fail("--default-image is for --runtime docker or kuberay only");
  }
  const refreshSeconds = Number(values["cluster-refresh"] ?? "30");
  if (!Number.isFinite(refreshSeconds) || refreshSeconds < 1)
    fail("--cluster-refresh takes seconds, at least 1");
  const stateDir = stateDirOf(values["state-dir"]);
  const saved = readCredential(stateDir);
  if (!saved) fail(`no credential in ${stateDir}; run \`forgelet enroll --server URL --token TOKEN\` first`);
  const cred = values.server ? { ...saved, server: values.server.replace(/\/+$/, "") } : saved;
  const runsDir = resolve(values["shared-dir"] ?? values["work-dir"] ?? join(stateDir, "runs"));
  const labels = Object.fromEntries(
    (values.label ?? []).map((l) => {
      const i = l.indexOf("=");
      if (i < 1) fail(`--label takes KEY=VALUE, got "${l}"`);
      return [l.slice(0, i), l.slice(i + 1)];
    }),
  );
  const simulate = values["simulate-gpus"] === undefined ? undefined : Number(values["simulate-gpus"]);
  if (simulate !== undefined && (!Number.isInteger(simulate) || simulate < 1 || simulate > 64)) {
    fail("--simulate-gpus takes a whole number from 1 to 64");
  }
  const advertise = values["advertise-addr"] ?? detectAdvertiseAddr();
  const badAddr = checkAdvertiseAddr(advertise);
  if (badAddr) fail(badAddr);
  const log = (msg: string) => process.stderr.write(`${new Date().toISOString()} forgelet: ${msg}\n`);
  const runtime = await runtimeFor(values.runtime, runsDir, values, log);
  let inventory: Inventory;
  try {
    await runtime.preflight();
    inventory = runtime.cluster
      ? await clusterInventory(runtime.cluster, {
          runtime: runtime.kind,
          name: values.name,
          labels,
          agentVersion: VERSION,
          // A Kubernetes agent with a default image runs image-less jobs too.
          ...(kuberay && values["default-image"] ? { workloads: ["image", "bare"] as const } : {}),
        })
      : await detectInventory({
          runtime: runtime.kind,
          simulateGpus: simulate,
          gpuSeries: values["gpu-series"],
          name: values.name,
          labels,
          agentVersion: VERSION,
          advertiseAddr: advertise,
          // A docker node with a default image runs image-less jobs too.
          ...(values["default-image"] ? { workloads: ["image", "bare"] as const } : {}),
        });
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
  const agent = new Agent({
    server: cred.server,
    credential: cred.credential,
    stateDir,
    runsDir,
    runtime,
    inventory,
    log,
    backoffMaxMs: forgeletSettings().backoffMaxMs,
    // Containers see the run directory at /sf; the process runtime uses the host path.
    runRootInside: runtime.kind === "docker" ? "/sf" : undefined,
    inventoryRefreshMs: refreshSeconds * 1000,
  });
  log(
    inventory.nodes
      ? `agent ${cred.node_id} (${inventory.hostname}) in fleet ${cred.fleet} fronts ${inventory.nodes.length} ${runtime.kind} node(s): ${inventory.nodes.map((n) => `${n.name} ${n.gpus}× ${n.gpu_series} ${n.state}`).join(", ")}; run directories in ${runsDir}`
      : `node ${cred.node_id} (${inventory.hostname}) in fleet ${cred.fleet}: ${inventory.gpus.length}× ${inventory.gpu_series}, runtime ${runtime.kind}, peers reach it at ${advertise}`,
  );
  await agent.start();
  // SIGUSR1 drops the connection as a network failure would (operations and resilience tests).
  process.on("SIGUSR1", () => agent.dropConnection());
  const shutdown = () => {
    log("stopping (workloads keep running and are reattached on the next start)");
    void agent.stop().then(() => process.exit(0));
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
}

async function main(): Promise<void> {
  const [cmd, ...rest] = process.argv.slice(2);
  if (!cmd || cmd === "--help" || cmd === "-h" || cmd === "help") {
    process.stdout.write(HELP);
    return;
  }
  if (cmd === "--version") {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    process.stdout.write(HELP);
    return;
  }
  // Every request and the socket honour HTTPS_PROXY / HTTP_PROXY / NO_PROXY (forgelet/proxy.ts).
  const proxy = forgeletSettings().proxy;
  const badProxy = checkProxySettings(proxy);
  if (badProxy) fail(badProxy);
  await installFetchProxy(proxy);
  if (cmd === "enroll") return enroll(rest);
  if (cmd === "run") return run(rest);
  if (cmd === "doctor") return doctorCommand(rest);
  if (cmd === "install-service") return installServiceCommand(rest, VERSION);
  fail(`unknown command "${cmd}"; see forgelet --help`);
}

main().catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
