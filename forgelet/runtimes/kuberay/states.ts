/**
 * What a RayJob and its pods say, as the agent's run events (pure; the tables are in docs/runtimes.md).
 *
 * KubeRay's two status fields: `jobDeploymentStatus` is where the RayJob's machinery is (the cluster
 * starting, the job submitted, finished), `jobStatus` is the Ray job itself (PENDING, RUNNING, SUCCEEDED,
 * FAILED, STOPPED). The pods say what KubeRay does not: an image that cannot be pulled or a pod the
 * scheduler cannot place (the run waits, with that reason), a container killed for memory (the
 * workload's failure), an evicted or preempted pod or a restarted head (the infrastructure's: retried).
 */
import type { CoreV1Event, V1Pod } from "@kubernetes/client-node";

export interface RayJobStatus {
  jobStatus?: string;
  jobDeploymentStatus?: string;
  reason?: string;
  message?: string;
  rayClusterName?: string;
  startTime?: string;
  endTime?: string;
}

export interface RayJobObject {
  metadata?: {
    name?: string;
    uid?: string;
    labels?: Record<string, string>;
    deletionTimestamp?: string | Date;
    resourceVersion?: string;
  };
  spec?: { activeDeadlineSeconds?: number };
  status?: RayJobStatus;
}

export type Observation =
  | { phase: "waiting"; reason: string; imagePull?: boolean; rayPending?: boolean }
  | { phase: "running" }
  | { phase: "ended"; exitCode: number | null; reason: string; infra: boolean };

const IMAGE_PULL = new Set(["ErrImagePull", "ImagePullBackOff"]);
/** Waiting reasons that never resolve by waiting: the run fails now, as the user's to fix. */
const HOPELESS = new Set(["InvalidImageName", "ErrImageNeverPull"]);
/** DisruptionTarget reasons: the pod is being removed by the cluster, not by the workload. */
const DISRUPTIONS: Record<string, string> = {
  PreemptionByScheduler: "preempted by a higher-priority pod",
  PreemptionByKubeScheduler: "preempted by a higher-priority pod",
  EvictionByEvictionAPI: "evicted (eviction API: a drain or a disruption budget)",
  DeletionByTaintManager: "evicted by a node taint",
  DeletionByPodGC: "removed by the pod garbage collector (its node is gone)",
  TerminationByKubelet: "terminated by the kubelet (node pressure or shutdown)",
};

/** "Job entrypoint command failed with exit code 3, last available logs…" → 3. */
export function exitCodeOf(message: string | undefined): number | null {
  const m = /exit code (-?\d+)/i.exec(message ?? "");
  return m ? Number(m[1]) : null;
}

function podName(p: V1Pod): string {
  return p.metadata?.name ?? "?";
}

function role(p: V1Pod): string {
  const rank = p.metadata?.labels?.["starforge.dev/rank"];
  const type = p.metadata?.labels?.["ray.io/node-type"] ?? "pod";
  return `${type} pod ${podName(p)}${rank !== undefined ? ` (rank ${rank})` : ""}`;
}

/** The newest event about a pod with one of these reasons. */
function eventFor(
  events: readonly CoreV1Event[],
  pod: string,
  reasons: readonly string[],
): CoreV1Event | undefined {
  return events
    .filter((e) => e.involvedObject?.name === pod && reasons.includes(e.reason ?? ""))
    .sort((a, b) => stamp(b) - stamp(a))[0];
}

function stamp(e: CoreV1Event): number {
  const t = e.lastTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp;
  return t ? new Date(t as string | Date).getTime() : 0;
}

/** A pod's signal that decides the run by itself (evicted, preempted, OOM-killed, head restarted), if any. */
export function podVerdict(pods: readonly V1Pod[], events: readonly CoreV1Event[]): Observation | null {
  for (const p of pods) {
    const st = p.status;
    if (st?.phase === "Failed" && st.reason === "Evicted") {
      return {
        phase: "ended",
        exitCode: null,
        reason: `${role(p)} was evicted: ${st.message ?? "node pressure"}`,
        infra: true,
      };
    }
    const disruption = st?.conditions?.find((c) => c.type === "DisruptionTarget" && c.status === "True");
    if (disruption) {
      const why =
        DISRUPTIONS[disruption.reason ?? ""] ?? `disrupted (${disruption.reason ?? "unknown reason"})`;
      return {
        phase: "ended",
        exitCode: null,
        reason: `${role(p)} was ${why}${disruption.message ? `: ${disruption.message}` : ""}`,
        infra: true,
      };
    }
    for (const c of st?.containerStatuses ?? []) {
      const term = c.state?.terminated ?? c.lastState?.terminated;
      if (term?.reason === "OOMKilled") {
        return {
          phase: "ended",
          exitCode: term.exitCode ?? 137,
          reason: `${role(p)}: container ${c.name} was killed for exceeding its memory limit (OOMKilled)`,
          infra: false,
        };
      }
      // `ray start` not found (or not runnable) in the image: the job's image cannot run here, whoever retries.
      if ((term?.exitCode === 127 || term?.exitCode === 126) && (c.restartCount ?? 0) > 0) {
        return {
          phase: "ended",
          exitCode: term.exitCode,
          reason: `${role(p)}: the image ${c.image} cannot start Ray (exit ${term.exitCode}); a KubeRay fleet runs images with Ray installed`,
          infra: false,
        };
      }
      if (p.metadata?.labels?.["ray.io/node-type"] === "head" && (c.restartCount ?? 0) > 0) {
        return {
          phase: "ended",
          exitCode: null,
          reason: `the Ray head (${podName(p)}) restarted${term?.reason ? ` (${term.reason})` : ""}: the Ray job on it is lost`,
          infra: true,
        };
      }
    }
  }
  // A pod already gone leaves its events: preemption deletes the pod, eviction may have been cleaned up.
  for (const e of events) {
    if (e.involvedObject?.kind !== "Pod") continue;
    if (e.reason === "Preempted" || e.reason === "Evicted") {
      return {
        phase: "ended",
        exitCode: null,
        reason:
          `pod ${e.involvedObject.name} was ${e.reason === "Preempted" ? "preempted" : "evicted"}: ${e.message ?? ""}`.trim(),
        infra: true,
      };
    }
  }
  return null;
}

/** Why pods are not running yet (image pull, scheduling, configuration), in the words Kubernetes uses. */
export function podWaiting(pods: readonly V1Pod[], events: readonly CoreV1Event[]): Observation | null {
  for (const p of pods) {
    for (const c of [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])]) {
      const w = c.state?.waiting;
      if (!w?.reason || w.reason === "ContainerCreating" || w.reason === "PodInitializing") continue;
      const text = `${role(p)}: ${w.reason}${w.message ? `: ${w.message}` : ""}`;
      if (HOPELESS.has(w.reason)) return { phase: "ended", exitCode: null, reason: text, infra: false };
      if (IMAGE_PULL.has(w.reason)) {
        return { phase: "waiting", reason: `image ${c.image} cannot be pulled: ${text}`, imagePull: true };
      }
      return { phase: "waiting", reason: text };
    }
    const sched = p.status?.conditions?.find((c) => c.type === "PodScheduled" && c.status === "False");
    if (sched) {
      const ev = eventFor(events, podName(p), ["FailedScheduling"]);
      return {
        phase: "waiting",
        reason:
          `${role(p)} cannot be scheduled (${sched.reason ?? "Unschedulable"}): ${sched.message ?? ev?.message ?? ""}`.trim(),
      };
    }
  }
  return null;
}

const FAILED_REASONS: Record<
  string,
  { infra: boolean; say: (s: RayJobStatus, deadline?: number) => string }
> = {
  DeadlineExceeded: {
    infra: false,
    say: (_s, d) =>
      `the time limit (activeDeadlineSeconds ${d ?? "?"}) was exceeded: KubeRay ended the RayJob`,
  },
  PreRunningDeadlineExceeded: {
    infra: true,
    say: (s) => `the Ray cluster did not start the job in time: ${s.message ?? ""}`.trim(),
  },
  SubmissionFailed: {
    infra: true,
    say: (s) => `KubeRay could not submit the job to Ray: ${s.message ?? ""}`.trim(),
  },
  JobDeploymentStatusTransitionGracePeriodExceeded: {
    infra: true,
    say: (s) => `KubeRay lost track of the Ray job: ${s.message ?? ""}`.trim(),
  },
  JobStatusCheckTimeoutExceeded: {
    infra: true,
    say: (s) => `the Ray head stopped answering about the job: ${s.message ?? ""}`.trim(),
  },
  ValidationFailed: { infra: false, say: (s) => `KubeRay refused the RayJob: ${s.message ?? ""}`.trim() },
};

/**
 * The run as the RayJob and its pods (and the events about them) show it. A RayJob that disappears is
 * the runtime's to judge (its own stop, or someone else's deletion).
 */
export function observeRayJob(
  job: RayJobObject,
  pods: readonly V1Pod[],
  events: readonly CoreV1Event[],
): Observation {
  const s = job.status ?? {};
  const dep = s.jobDeploymentStatus ?? "";
  const js = s.jobStatus ?? "";
  // The Ray job's own end decides, whatever the deployment status says: in K8sJobMode KubeRay keeps it
  // `Running` until the submitter Job finishes (up to minutes) while jobStatus is already terminal.
  if (js === "SUCCEEDED" && (dep === "Running" || dep === "Complete"))
    return { phase: "ended", exitCode: 0, reason: "the Ray job SUCCEEDED", infra: false };
  if ((js === "FAILED" || js === "STOPPED") && dep === "Running")
    return rayJobEnded(s, dep, js, pods, events);
  if (dep === "Complete" || dep === "Failed" || dep === "ValidationFailed") {
    if (js === "SUCCEEDED" && dep === "Complete")
      return { phase: "ended", exitCode: 0, reason: "the Ray job SUCCEEDED", infra: false };
    // KubeRay gave up waiting for the submitter after the Ray job FAILED: the workload's failure.
    if (js === "FAILED" && s.reason === "JobDeploymentStatusTransitionGracePeriodExceeded")
      return rayJobEnded(s, dep, js, pods, events);
    const known = FAILED_REASONS[s.reason ?? (dep === "ValidationFailed" ? "ValidationFailed" : "")];
    if (known)
      return {
        phase: "ended",
        exitCode: null,
        reason: known.say(s, job.spec?.activeDeadlineSeconds),
        infra: known.infra,
      };
    return rayJobEnded(s, dep, js, pods, events);
  }
  const pod = podVerdict(pods, events);
  if (pod) return pod;
  if (dep === "Suspending" || dep === "Suspended") {
    return {
      phase: "ended",
      exitCode: null,
      reason: `the RayJob was suspended outside StarForge (${dep})`,
      infra: true,
    };
  }
  if (dep === "Retrying") {
    return {
      phase: "ended",
      exitCode: null,
      reason: `KubeRay is retrying the RayJob (${s.reason ?? "a failed attempt"}): the control plane decides retries, so it is ended`,
      infra: true,
    };
  }
  if (dep === "Running" && js === "RUNNING") return { phase: "running" };
  const waiting = podWaiting(pods, events);
  if (waiting) return waiting;
  if (dep === "Running")
    return {
      phase: "waiting",
      reason: `the Ray job is ${js || "being submitted"} on the Ray cluster`,
      rayPending: js === "" || js === "PENDING",
    };
  const ready = pods.filter((p) =>
    p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
  ).length;
  return {
    phase: "waiting",
    reason:
      `the Ray cluster ${s.rayClusterName ?? ""} is starting (${dep || "created"}; ${ready} of its pods ready)`.replace(
        "  ",
        " ",
      ),
  };
}

/** A Ray job that ended by itself: a pod's own end explains it best (OOM, eviction), else Ray's words. */
function rayJobEnded(
  s: RayJobStatus,
  dep: string,
  js: string,
  pods: readonly V1Pod[],
  events: readonly CoreV1Event[],
): Observation {
  const pod = podVerdict(pods, events);
  if (pod) return pod;
  if (js === "STOPPED")
    return { phase: "ended", exitCode: null, reason: "the Ray job was STOPPED", infra: false };
  return {
    phase: "ended",
    exitCode: exitCodeOf(s.message),
    reason: `the Ray job ${js || "ended"} (${dep}${s.reason ? `: ${s.reason}` : ""})${s.message ? `: ${firstLine(s.message)}` : ""}`,
    infra: false,
  };
}

function firstLine(s: string): string {
  return s.split("\n")[0]!.slice(0, 300);
}
