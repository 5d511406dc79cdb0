/**
 * Faults a test injects into a running RayJob's pods: OOMKilled containers, eviction under node
 * pressure, preemption by the scheduler, and a restart of the Ray head container.
 */
import { randomUUID } from "node:crypto";
import { type KubeObject, kubeTime } from "../k8s-sim.js";
import type { OperatorContext } from "./context.js";
import type { RayJobController } from "./job-controller.js";
import { setCondition } from "./pod-status.js";
import { containersOf, statusOf, str } from "./views.js";

export class Faults {
  constructor(
    private readonly ctx: OperatorContext,
    private readonly rayJobs: RayJobController,
  ) {}

  /** The container's cgroup hits its memory limit: OOMKilled (137), then restarted by the kubelet. */
  oomKill(rayJob: string, pod = "head"): void {
    const p = this.runningPod(rayJob, pod);
    const terminated = {
      exitCode: 137,
      reason: "OOMKilled",
      startedAt: this.ctx.startedAt(p),
      finishedAt: kubeTime(),
    };
    this.ctx.patchPod(p, (s) => {
      const c = s.containerStatuses[0];
      if (c) Object.assign(c, { state: { terminated }, ready: false, started: false });
      setCondition(
        s.conditions,
        "Ready",
        "False",
        "ContainersNotReady",
        `containers with unready status: [${c?.name}]`,
      );
      setCondition(
        s.conditions,
        "ContainersReady",
        "False",
        "ContainersNotReady",
        `containers with unready status: [${c?.name}]`,
      );
    });
    this.ctx.podState(p).restartPending = terminated;
    this.rayJobs.lose(rayJob, p);
  }

  /** The kubelet evicts the pod under node pressure: phase Failed, reason Evicted; KubeRay replaces it. */
  evict(rayJob: string, pod: string): void {
    const p = this.runningPod(rayJob, pod);
    const c0 = containersOf(p);
    const message = `The node was low on resource: memory. Threshold quantity: 100Mi, available: 52Mi. Container ${c0[0]?.name} was using 14Gi, request is 8Gi, has larger consumption of memory. `;
    this.ctx.patchPod(p, (s) => {
      Object.assign(s, { phase: "Failed", reason: "Evicted", message });
      for (const c of s.containerStatuses) {
        const terminated = {
          exitCode: 137,
          reason: "Error",
          startedAt: this.ctx.startedAt(p),
          finishedAt: kubeTime(),
        };
        Object.assign(c, { state: { terminated }, ready: false, started: false });
      }
      setCondition(s.conditions, "DisruptionTarget", "True", "TerminationByKubelet", message);
      setCondition(s.conditions, "Ready", "False", "PodFailed", "");
      setCondition(s.conditions, "ContainersReady", "False", "PodFailed", "");
    });
    const host = str(p.spec?.nodeName);
    this.ctx.event(p, "Warning", "Evicted", message, "kubelet", host);
    this.ctx.event(p, "Normal", "Killing", `Stopping container ${c0[0]?.name}`, "kubelet", host, c0[0]?.name);
    this.rayJobs.lose(rayJob, p);
  }

  /** The scheduler preempts the pod for a higher-priority one: DisruptionTarget, then graceful deletion. */
  preempt(rayJob: string, pod: string): void {
    const p = this.runningPod(rayJob, pod);
    this.ctx.patchPod(p, (s) => {
      const m = "default-scheduler: preempting to accommodate a higher priority pod";
      setCondition(s.conditions, "DisruptionTarget", "True", "PreemptionByScheduler", m);
    });
    const node = str(p.spec?.nodeName);
    this.ctx.event(
      p,
      "Normal",
      "Preempted",
      `Preempted by pod ${randomUUID()} on node ${node}`,
      "default-scheduler",
    );
    this.rayJobs.lose(rayJob, p);
    this.ctx.store.delete("pods", this.ctx.ns, p.metadata.name);
  }

  /** The Ray head container exits and the kubelet restarts it at once (restartPolicy Always). */
  restartHead(rayJob: string): void {
    const p = this.runningPod(rayJob, "head");
    const finishedAt = kubeTime();
    this.ctx.patchPod(p, (s) => {
      const c = s.containerStatuses[0];
      if (!c) return;
      c.lastState = {
        terminated: { exitCode: 1, reason: "Error", startedAt: this.ctx.startedAt(p), finishedAt },
      };
      c.state = { running: { startedAt: finishedAt } };
      c.restartCount += 1;
    });
    const c0 = containersOf(p)[0];
    this.ctx.event(
      p,
      "Normal",
      "Started",
      `Started container ${c0?.name}`,
      "kubelet",
      str(p.spec?.nodeName),
      c0?.name,
    );
    this.rayJobs.headLost(rayJob);
  }

  /** "head", "worker" (the first), or a pod's name, among the running pods of a RayJob. */
  private runningPod(rayJob: string, which: string): KubeObject {
    const job = this.ctx.store.get("rayjobs", this.ctx.ns, rayJob);
    const pods = job
      ? this.ctx.podsOf(str(statusOf(job).rayClusterName)).filter((p) => p.status?.phase === "Running")
      : [];
    const p = pods.find(
      (x) => x.metadata.name === which || x.metadata.labels?.["ray.io/node-type"] === which,
    );
    if (!p) throw new Error(`RayJob ${rayJob} has no running pod "${which}"`);
    return p;
  }
}
