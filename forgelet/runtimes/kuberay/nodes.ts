/**
 * A Kubernetes cluster's nodes as fleet nodes (pure): allocatable GPUs of the device plugin's resource,
 * the GPU series from a node label, cordoned = `drain`, NotReady = `down`, CPUs and memory from the
 * node's allocatable quantities.
 */
import type { V1Node } from "@kubernetes/client-node";
import type { ClusterNode } from "../../../contract/agent-frames.schema.js";

/** A Kubernetes node as a fleet node: its GPUs, series, state (cordoned: drain; NotReady: down). */
export function toClusterNode(
  n: V1Node,
  gpuResource: string,
  seriesLabel: string,
  fallbackSeries?: string,
): ClusterNode | null {
  const name = n.metadata?.name;
  if (!name) return null;
  const alloc = n.status?.allocatable ?? {};
  const gpus = Math.min(64, Math.max(0, Number.parseInt(alloc[gpuResource] ?? "0", 10) || 0));
  const ready = n.status?.conditions?.find((c) => c.type === "Ready");
  const down = ready?.status !== "True";
  const cordoned = n.spec?.unschedulable === true;
  const reason = down
    ? `NotReady${ready?.reason ? `: ${ready.reason}` : ""}${ready?.message ? `: ${ready.message}` : ""}`
    : cordoned
      ? "cordoned (spec.unschedulable)"
      : "";
  const labels = n.metadata?.labels ?? {};
  const addr = n.status?.addresses?.find((a) => a.type === "InternalIP")?.address ?? name;
  return {
    name,
    gpu_series: (labels[seriesLabel] ?? fallbackSeries ?? "gpu").toLowerCase().slice(0, 63),
    gpus,
    state: down ? "down" : cordoned ? "drain" : "ready",
    reason: reason.slice(0, 500),
    cpus: Math.floor(quantity(alloc.cpu ?? "0")),
    memory_mb: Math.floor(quantity(alloc.memory ?? "0") / 2 ** 20),
    labels: Object.fromEntries(
      [seriesLabel, "topology.kubernetes.io/zone", "node.kubernetes.io/instance-type"]
        .filter((k) => labels[k])
        .map((k) => [k.slice(0, 63), labels[k]!.slice(0, 200)]),
    ),
    advertise_addr: addr,
  };
}

/** A Kubernetes quantity ("16", "500m", "64Gi", "1e3") as a number (bytes for memory, cores for CPU). */
export function quantity(q: string): number {
  const m = /^([0-9.]+(?:e[0-9]+)?)([a-zA-Z]*)$/.exec(q.trim());
  if (!m) return 0;
  const v = Number(m[1]);
  const units: Record<string, number> = {
    "": 1,
    m: 1e-3,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
  };
  return v * (units[m[2]!] ?? 0);
}
