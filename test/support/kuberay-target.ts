/**
 * Where the KubeRay closed loop runs: the SIMULATOR (default: test/support/k8s-sim.ts with the simulated
 * KubeRay operator in process mode), or a REAL cluster when SF_KUBERAY_KUBECONFIG names a kubeconfig
 * whose current context has the KubeRay operator and deploy/kuberay/rbac.yaml applied.
 *
 * Both are used the same way: forgelet reaches the API server through a loopback TCP proxy (so a test
 * can cut it off for an outage, as an API server restart would), and the tests read what exists through
 * the Kubernetes API itself (an admin view: every RayJob, RayCluster, pod and Secret with our labels).
 * What only the simulator can give (the entrypoint's own output, its processes) is optional.
 *
 * A real cluster's pods must reach the control plane: SF_KUBERAY_CP_HOST is the address of this machine
 * they reach (the control plane listens there), SF_KUBERAY_IMAGE an image with Ray and Python
 * (default rayproject/ray:2.9.0), SF_KUBERAY_GPU_RESOURCE the nodes' GPU resource, SF_KUBERAY_NAMESPACE.
 */
import { writeFileSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { CoreV1Api, CustomObjectsApi, KubeConfig } from "@kubernetes/client-node";
import { type K8sSim, startK8sSim } from "./k8s-sim.js";
import { type KubeRaySim, startKubeRaySim } from "./kuberay-sim.js";

export const LIVE_KUBECONFIG = process.env.SF_KUBERAY_KUBECONFIG ?? "";
const OURS = "app.kubernetes.io/managed-by=forgelet";

export interface KubeTarget {
  kind: "simulator" | "cluster";
  /** The kubeconfig forgelet gets (through the proxy). */
  kubeconfig: string;
  namespace: string;
  /** forgelet's --default-image. */
  image: string;
  /** forgelet's --gpu-resource, when not the default. */
  gpuResource: string | null;
  /** Where the control plane listens (the pods reach it there). */
  cpHost: string;
  /** How many ready GPU nodes the fleet should show. */
  gpuNodes: number;
  /** Every RayJob, RayCluster, pod and Secret with our labels, as "kind/name". */
  ours(): Promise<string[]>;
  /** A RayJob's uid (it changes if the RayJob is ever created again), or null. */
  rayJobUid(name: string): Promise<string | null>;
  /** Cuts forgelet off the API server for `ms` (connections refused and broken), then lets it back. */
  outage(ms: number): Promise<void>;
  /** Simulator only: the entrypoint's output, and its processes and reconcile errors left. */
  sim: { logs(name: string): string; liveProcessGroups(): number[]; errors: string[] } | null;
  close(): Promise<void>;
}

/** A TCP proxy on loopback in front of `host:port`, which an outage closes and reopens on the same port. */
class TcpProxy {
  private server: Server;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(
    private readonly host: string,
    private readonly target: number,
  ) {
    this.server = this.make();
  }

  private make(): Server {
    return createServer((client) => {
      const upstream = connect(this.target, this.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on("close", () => this.sockets.delete(s));
        s.on("error", () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((ok) => this.server.listen(this.port, "127.0.0.1", ok));
    this.port = (this.server.address() as { port: number }).port;
  }

  async down(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((ok) => this.server.close(ok));
    this.server = this.make();
  }
}

/** The kubeconfig's current cluster, pointed at the proxy (TLS still checked against the real name). */
function proxied(kc: KubeConfig, proxyPort: number): string {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error("the kubeconfig has no current cluster");
  const url = new URL(cluster.server);
  const server = `${url.protocol}//127.0.0.1:${proxyPort}`;
  const out = new KubeConfig();
  out.loadFromOptions({
    clusters: [{ ...cluster, server, tlsServerName: cluster.tlsServerName ?? url.hostname }],
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.getCurrentContext(),
  });
  return out.exportConfig();
}

function upstreamOf(kc: KubeConfig): { host: string; port: number } {
  const url = new URL(kc.getCurrentCluster()!.server);
  return { host: url.hostname, port: Number(url.port || (url.protocol === "https:" ? 443 : 80)) };
}

async function inspector(kc: KubeConfig, namespace: string) {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const core = kc.makeApiClient(CoreV1Api);
  const cr = (plural: string) => ({ group: "ray.io", version: "v1", namespace, plural, labelSelector: OURS });
  return {
    async ours(): Promise<string[]> {
      const names = (kind: string, items: Array<{ metadata?: { name?: string } }>) =>
        items.map((o) => `${kind}/${o.metadata?.name}`);
      const jobs = (await custom.listNamespacedCustomObject(cr("rayjobs"))) as { items: [] };
      const clusters = (await custom.listNamespacedCustomObject(cr("rayclusters"))) as { items: [] };
      const pods = await core.listNamespacedPod({ namespace, labelSelector: OURS });
      const secrets = await core.listNamespacedSecret({ namespace, labelSelector: OURS });
      return [
        ...names("rayjob", jobs.items),
        ...names("raycluster", clusters.items),
        ...names("pod", pods.items),
        ...names("secret", secrets.items),
      ];
    },
    async rayJobUid(name: string): Promise<string | null> {
      try {
        const j = (await custom.getNamespacedCustomObject({ ...cr("rayjobs"), name })) as {
          metadata: { uid: string };
        };
        return j.metadata.uid;
      } catch {
        return null;
      }
    },
  };
}

export async function kubeTarget(
  dir: string,
  simNodes: Array<{ name: string; gpus: number }>,
): Promise<KubeTarget> {
  let sim: K8sSim | null = null;
  let ray: KubeRaySim | null = null;
  let admin: KubeConfig;
  let forgelet: KubeConfig;
  let namespace: string;
  if (LIVE_KUBECONFIG) {
    admin = new KubeConfig();
    admin.loadFromFile(LIVE_KUBECONFIG);
    forgelet = admin;
    namespace = process.env.SF_KUBERAY_NAMESPACE ?? "starforge";
  } else {
    sim = await startK8sSim();
    ray = startKubeRaySim(sim, { mode: "process", graceScale: 0.5 });
    for (const n of simNodes) sim.addNode({ name: n.name, gpus: n.gpus, cpu: 16, memory: "64Gi" });
    admin = new KubeConfig();
    admin.loadFromString(sim.kubeconfig(sim.adminToken));
    forgelet = new KubeConfig();
    forgelet.loadFromString(sim.kubeconfig());
    namespace = sim.namespace;
  }
  const up = upstreamOf(forgelet);
  const proxy = new TcpProxy(up.host, up.port);
  await proxy.listen();
  const kubeconfig = join(dir, "kubeconfig.forgelet");
  writeFileSync(kubeconfig, proxied(forgelet, proxy.port), { mode: 0o600 });
  const look = await inspector(admin, namespace);
  const gpuResource = process.env.SF_KUBERAY_GPU_RESOURCE ?? null;
  let gpuNodes = simNodes.length;
  if (LIVE_KUBECONFIG) {
    const nodes = await admin.makeApiClient(CoreV1Api).listNode();
    gpuNodes = nodes.items.filter(
      (n) => Number(n.status?.allocatable?.[gpuResource ?? "nvidia.com/gpu"] ?? 0) > 0,
    ).length;
    if (gpuNodes === 0)
      throw new Error(`no node of the cluster has allocatable ${gpuResource ?? "nvidia.com/gpu"}`);
  }
  return {
    kind: LIVE_KUBECONFIG ? "cluster" : "simulator",
    kubeconfig,
    namespace,
    image:
      process.env.SF_KUBERAY_IMAGE ??
      (LIVE_KUBECONFIG ? "rayproject/ray:2.9.0" : "starforge/python:bookworm"),
    gpuResource,
    cpHost: LIVE_KUBECONFIG ? (process.env.SF_KUBERAY_CP_HOST ?? "") : "127.0.0.1",
    gpuNodes,
    ours: () => look.ours(),
    rayJobUid: (name) => look.rayJobUid(name),
    async outage(ms: number) {
      await proxy.down();
      setTimeout(() => void proxy.listen(), ms).unref();
    },
    sim: ray
      ? { logs: (n) => ray!.logs(n), liveProcessGroups: () => ray!.liveProcessGroups(), errors: ray.errors }
      : null,
    async close() {
      await proxy.down();
      await ray?.stop();
      await sim?.close();
    },
  };
}
