/**
 * KubeRay's RayCluster controller (raycluster_controller.go): it keeps a head pod and each worker
 * group's replicas, replaces failed pods, and writes the cluster's status.
 */
import type { Json, KubeObject } from "../k8s-sim.js";
import type { OperatorContext } from "./context.js";
import { headReadyCondition, podReady, setCondition } from "./pod-status.js";
import {
  ownerRef,
  type PodTemplate,
  type RayClusterSpec,
  same,
  statusOf,
  type WorkerGroup,
} from "./views.js";

export class RayClusterController {
  constructor(private readonly ctx: OperatorContext) {}

  reconcileCluster(cluster: KubeObject): void {
    if (cluster.metadata.deletionTimestamp) return;
    const spec = cluster.spec as unknown as RayClusterSpec;
    const pods = this.ctx.podsOf(cluster.metadata.name).filter((p) => !p.metadata.deletionTimestamp);
    for (const p of pods.filter((x) => x.status?.phase === "Failed" || x.status?.phase === "Succeeded")) {
      this.ctx.store.delete("pods", this.ctx.ns, p.metadata.name);
    }
    const live = pods.filter((p) => p.status?.phase !== "Failed" && p.status?.phase !== "Succeeded");
    if (!live.some((p) => p.metadata.labels?.["ray.io/node-type"] === "head")) {
      this.createPod(cluster, spec.headGroupSpec.template, "head", "headgroup");
    }
    for (const g of spec.workerGroupSpecs ?? []) {
      const have = live.filter((p) => p.metadata.labels?.["ray.io/group"] === g.groupName).length;
      for (let i = have; i < desiredReplicas(g); i++)
        this.createPod(cluster, g.template, "worker", g.groupName);
    }
    const status = this.clusterStatus(cluster, spec);
    if (!same(status, cluster.status)) this.ctx.store.replace("rayclusters", { ...cluster, status });
  }

  /** KubeRay's calculateStatus, in part: `state: ready` once every pod ran (sticky), counts, head, conditions. */
  private clusterStatus(cluster: KubeObject, spec: RayClusterSpec): Json {
    const prev = statusOf(cluster);
    const pods = this.ctx.podsOf(cluster.metadata.name).filter((p) => !p.metadata.deletionTimestamp);
    const workers = pods.filter((p) => p.metadata.labels?.["ray.io/node-type"] === "worker");
    const head = pods.find((p) => p.metadata.labels?.["ray.io/node-type"] === "head");
    const groups = spec.workerGroupSpecs ?? [];
    const desired = groups.reduce((n, g) => n + desiredReplicas(g), 0);
    const allReady = pods.length === desired + 1 && pods.every(podReady);
    const conditions = (prev.conditions as Json[] | undefined) ?? [];
    const next = structuredClone(conditions);
    const headCond = head
      ? headReadyCondition(head)
      : { status: "False", reason: "HeadPodNotFound", message: "Head Pod not found" };
    setCondition(next, "HeadPodReady", headCond.status, headCond.reason, headCond.message, true);
    const provisioned = next.find((c) => c.type === "RayClusterProvisioned");
    if (provisioned?.status !== "True") {
      const [st, reason, message] = allReady
        ? ["True", "AllPodRunningAndReadyFirstTime", "All Ray Pods are ready for the first time"]
        : ["False", "RayClusterPodsProvisioning", "RayCluster Pods are being provisioned for first time"];
      setCondition(next, "RayClusterProvisioned", st, reason, message, true);
    }
    return {
      ...(allReady || prev.state === "ready" ? { state: "ready" } : {}),
      desiredWorkerReplicas: desired,
      minWorkerReplicas: groups.reduce((n, g) => n + (g.minReplicas ?? 0), 0),
      maxWorkerReplicas: groups.reduce((n, g) => n + (g.maxReplicas ?? 2147483647), 0),
      readyWorkerReplicas: workers.filter(podReady).length,
      availableWorkerReplicas: workers.filter((p) => p.status?.phase === "Running").length,
      endpoints: { client: "10001", dashboard: "8265", "gcs-server": "6379", metrics: "8080" },
      head: head?.status?.podIP
        ? {
            podName: head.metadata.name,
            podIP: head.status.podIP,
            serviceName: `${cluster.metadata.name}-head-svc`,
          }
        : {},
      conditions: next,
      observedGeneration: cluster.metadata.generation,
    };
  }

  private createPod(
    cluster: KubeObject,
    template: PodTemplate,
    type: "head" | "worker",
    group: string,
  ): void {
    const name = cluster.metadata.name;
    const protectedKeys = new Set(["ray.io/node-type", "ray.io/group", "ray.io/cluster"]);
    const own = Object.entries(template.metadata?.labels ?? {}).filter(([k]) => !protectedKeys.has(k));
    const labels = {
      "ray.io/is-ray-node": "yes",
      "ray.io/cluster": name,
      "ray.io/node-type": type,
      "ray.io/group": group,
      "ray.io/identifier": `${name}-${type}`,
      "app.kubernetes.io/name": "kuberay",
      "app.kubernetes.io/created-by": "kuberay-operator",
      ...Object.fromEntries(own),
    };
    const pod = this.ctx.store.create("pods", {
      metadata: {
        generateName: type === "head" ? `${name}-head-` : `${name}-${group}-worker-`,
        namespace: this.ctx.ns,
        labels,
        ...(template.metadata?.annotations ? { annotations: template.metadata.annotations } : {}),
        ownerReferences: [ownerRef(cluster)],
      },
      spec: { restartPolicy: "Always", ...structuredClone(template.spec) } as unknown as Json,
      status: { phase: "Pending", qosClass: "BestEffort" },
    });
    const message = `Created ${type} Pod ${this.ctx.ns}/${pod.metadata.name}`;
    this.ctx.event(
      cluster,
      "Normal",
      type === "head" ? "CreatedHeadPod" : "CreatedWorkerPod",
      message,
      "raycluster-controller",
    );
  }
}

function desiredReplicas(g: WorkerGroup): number {
  if (g.suspend) return 0;
  const min = g.minReplicas ?? 0;
  const max = g.maxReplicas ?? 2147483647;
  return Math.min(Math.max(g.replicas ?? min, min), max);
}
