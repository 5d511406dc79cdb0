/**
 * The scheduler, as far as the simulator goes: it binds a pod to the node its affinity (or
 * nodeSelector) names, or to the first schedulable node, and reports FailedScheduling otherwise.
 */
import type { Json, KubeObject } from "../k8s-sim.js";
import type { OperatorContext } from "./context.js";
import { condition } from "./pod-status.js";
import type { PodSpec } from "./views.js";

export class Scheduler {
  constructor(private readonly ctx: OperatorContext) {}

  schedule(pod: KubeObject): void {
    const st = this.ctx.jobStateOfPod(pod);
    if (st?.unschedulable) {
      this.unschedulablePod(pod, st.unschedulable);
      return;
    }
    const spec = pod.spec as unknown as PodSpec;
    const wanted = affinityNode(spec);
    const nodes = this.ctx.store.list("nodes");
    const node = wanted ?? nodes.find(schedulable)?.metadata.name ?? (nodes.length ? undefined : "sim-node");
    const target = nodes.find((n) => n.metadata.name === node);
    if (!node || (nodes.length && (!target || !schedulable(target)))) {
      this.unschedulablePod(pod, schedulingFailure(nodes, target));
      return;
    }
    this.ctx.patchPod(
      pod,
      (s) => {
        s.conditions = [condition("PodScheduled", "True")];
      },
      { nodeName: node },
    );
    this.ctx.event(
      pod,
      "Normal",
      "Scheduled",
      `Successfully assigned ${this.ctx.ns}/${pod.metadata.name} to ${node}`,
      "default-scheduler",
    );
  }

  private unschedulablePod(pod: KubeObject, message: string): void {
    const cur = ((pod.status?.conditions as Json[] | undefined) ?? []).find((c) => c.type === "PodScheduled");
    if (cur?.message === message) return;
    this.ctx.patchPod(pod, (s) => {
      s.conditions = [condition("PodScheduled", "False", "Unschedulable", message)];
    });
    this.ctx.event(pod, "Warning", "FailedScheduling", message, "default-scheduler");
  }
}

/** The node a required node affinity (or nodeSelector) pins the pod to. */
function affinityNode(spec: PodSpec): string | undefined {
  const terms =
    spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  for (const t of terms) {
    const f = t.matchFields?.find((x) => x.key === "metadata.name" && x.operator === "In");
    const e = t.matchExpressions?.find((x) => x.key === "kubernetes.io/hostname" && x.operator === "In");
    const name = f?.values?.[0] ?? e?.values?.[0];
    if (name) return name;
  }
  return spec.nodeSelector?.["kubernetes.io/hostname"];
}

function schedulable(node: KubeObject): boolean {
  const ready = ((node.status?.conditions as Json[] | undefined) ?? []).some(
    (c) => c.type === "Ready" && c.status === "True",
  );
  return ready && node.spec?.unschedulable !== true;
}

/** The scheduler's FailedScheduling message for a pod pinned to `target` (or to a node that does not exist). */
function schedulingFailure(nodes: KubeObject[], target: KubeObject | undefined): string {
  const n = nodes.length;
  const others = target ? n - 1 : n;
  const why: string[] = [];
  if (target?.spec?.unschedulable === true) why.push("1 node(s) were unschedulable");
  else if (target) why.push("1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }");
  if (others > 0) why.push(`${others} node(s) didn't match Pod's node affinity/selector`);
  return `0/${n} nodes are available: ${why.join(", ")}. preemption: 0/${n} nodes are available: ${n} Preemption is not helpful for scheduling.`;
}
