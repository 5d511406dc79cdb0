/**
 * Nodes as tests add them: the options, and the Node object a kubelet with the NVIDIA device plugin
 * would report for them.
 */
import type { KubeObject } from "./resources.js";
import { kubeTime } from "./store.js";

export interface AddNodeOptions {
  name: string;
  gpus: number;
  gpuResource?: string;
  product?: string;
  cpu?: string | number;
  memory?: string;
  ready?: boolean;
  unschedulable?: boolean;
  labels?: Record<string, string>;
}

/** A Node as a kubelet with the NVIDIA device plugin (and GPU feature discovery) reports it. */
export function nodeObject(o: AddNodeOptions): Omit<KubeObject, "metadata" | "apiVersion" | "kind"> & {
  labels: Record<string, string>;
} {
  const ready = o.ready ?? true;
  const gpu = o.gpus > 0 ? { [o.gpuResource ?? "nvidia.com/gpu"]: String(o.gpus) } : {};
  const resources = { cpu: String(o.cpu ?? 16), memory: o.memory ?? "64Gi", pods: "110", ...gpu };
  const product: Record<string, string> = o.product
    ? { "nvidia.com/gpu.product": o.product, "nvidia.com/gpu.count": String(o.gpus) }
    : {};
  const taints = [
    ...(o.unschedulable ? [{ key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" }] : []),
    ...(ready ? [] : [{ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" }]),
  ];
  return {
    labels: {
      "kubernetes.io/hostname": o.name,
      "kubernetes.io/os": "linux",
      "kubernetes.io/arch": "amd64",
      ...product,
      ...o.labels,
    },
    spec: { ...(o.unschedulable ? { unschedulable: true } : {}), ...(taints.length ? { taints } : {}) },
    status: {
      capacity: resources,
      allocatable: resources,
      conditions: [
        {
          type: "Ready",
          status: ready ? "True" : "False",
          reason: ready ? "KubeletReady" : "KubeletNotReady",
          message: ready ? "kubelet is posting ready status" : "container runtime network not ready",
          lastHeartbeatTime: kubeTime(),
          lastTransitionTime: kubeTime(),
        },
      ],
      addresses: [
        { type: "InternalIP", address: "10.0.0.10" },
        { type: "Hostname", address: o.name },
      ],
      nodeInfo: {
        kubeletVersion: "v1.31.0",
        containerRuntimeVersion: "containerd://1.7.20",
        operatingSystem: "linux",
        architecture: "amd64",
        osImage: "Ubuntu 22.04.4 LTS",
        kernelVersion: "5.15.0-117-generic",
      },
    },
  };
}
