/**
 * Pod and RayCluster conditions as the kubelet and KubeRay write them, and the readiness the
 * operator reads from them.
 */
import { type Json, type KubeObject, kubeTime } from "../k8s-sim.js";
import { type ContainerStatus, str } from "./views.js";

export function condition(type: string, status: string, reason?: string, message?: string): Json {
  return {
    type,
    status,
    lastProbeTime: null,
    lastTransitionTime: kubeTime(),
    ...(reason ? { reason } : {}),
    ...(message ? { message } : {}),
  };
}

/** Sets a condition in place; the transition time moves only when the status does. */
export function setCondition(
  list: Json[],
  type: string,
  status: string,
  reason?: string,
  message?: string,
  metav1 = false,
): void {
  const i = list.findIndex((c) => c.type === type);
  const prev = list[i];
  const next = metav1
    ? { type, status, reason, message: message ?? "", lastTransitionTime: kubeTime() }
    : condition(type, status, reason, message);
  if (prev?.status === status) next.lastTransitionTime = prev.lastTransitionTime;
  if (i >= 0) list[i] = next;
  else list.push(next);
}

export function podReady(p: KubeObject): boolean {
  const conditions = (p.status?.conditions as Json[] | undefined) ?? [];
  return p.status?.phase === "Running" && conditions.some((c) => c.type === "Ready" && c.status === "True");
}

/** KubeRay's FindHeadPodReadyCondition: the pod's Ready, with the first waiting container's reason. */
export function headReadyCondition(head: KubeObject): { status: string; reason: string; message: string } {
  const ready = ((head.status?.conditions as Json[] | undefined) ?? []).find((c) => c.type === "Ready");
  if (!ready) return { status: "False", reason: "Unknown", message: "" };
  if (ready.status === "True") return { status: "True", reason: "HeadPodRunningAndReady", message: "" };
  const statuses = (head.status?.containerStatuses as ContainerStatus[] | undefined) ?? [];
  const waiting = statuses.map((c) => c.state.waiting as Json | undefined).find((w) => w?.reason);
  return {
    status: "False",
    reason: str(waiting?.reason) || str(ready.reason),
    message: str(waiting?.message) || str(ready.message),
  };
}
