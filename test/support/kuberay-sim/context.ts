/**
 * What the operator's parts share: the store and namespace they work on, the state that lives
 * outside the API (Ray's job table, the kubelet's processes, the entrypoints' output), and the
 * lookups and writes they all make (a RayJob's state, a cluster's pods, pod status, Events).
 */
import { type Json, type K8sSim, type KubeObject, type KubeStore, kubeTime } from "../k8s-sim.js";
import type { KubeRaySimOptions } from "./api.js";
import { podReady } from "./pod-status.js";
import { type ContainerStatus, type SecretMount, statusOf, str } from "./views.js";

export type RayJobStatusValue = "PENDING" | "RUNNING" | "SUCCEEDED" | "FAILED" | "STOPPED";

export const TERMINAL = new Set(["SUCCEEDED", "FAILED", "STOPPED"]);

// ---------------------------------------------------------------------------------------------------
// Per-RayJob and per-pod state that lives outside the API (Ray's job table, the kubelet's processes)

/** The Ray job on the head, as Ray's job manager keeps it: lost with the head (no GCS fault tolerance). */
export interface RayRun {
  status: RayJobStatusValue;
  message: string;
  startTime?: number;
  endTime?: number;
  /** Where this run's output starts in the RayJob's log (Ray quotes the tail of a failed run). */
  logFrom: number;
}

export interface JobState {
  run?: RayRun;
  submitterFailures: number;
  imagePullFails: boolean;
  unschedulable?: string;
  scriptRun: boolean;
  scriptFinish?: { status: "SUCCEEDED" | "FAILED"; message?: string };
  /**
   * The RayJob existed at some tick. A fault set up before its RayJob is created (`unschedulable`) must
   * not be forgotten as the state of a RayJob that is gone.
   */
  seen?: boolean;
}

/** A local process group standing in for the job driver on a head pod. */
export interface Entrypoint {
  pgid: number;
  dirs: string[];
  /** Its outcome is no one's to report (the head went away, or Ray was told to stop it). */
  lost: boolean;
  stopping: boolean;
  killTimer?: NodeJS.Timeout;
}

export interface PodState {
  env?: Record<string, string>;
  /** The head container's preStop hook while the kubelet runs it (deletion waits for it, within the grace). */
  preStop?: { done: boolean };
  mounts?: SecretMount[];
  terminatingAt?: number;
  restartPending?: Json;
  pullReported?: boolean;
}

/** The operator's shared state, and the lookups its controllers, kubelet and faults make. */
export class OperatorContext {
  readonly store: KubeStore;
  readonly ns: string;
  readonly graceScale: number;
  readonly jobs = new Map<string, JobState>();
  readonly pods = new Map<string, PodState>();
  readonly entrypoints = new Map<string, Entrypoint>();
  readonly logBuffers = new Map<string, string>();

  constructor(
    sim: K8sSim,
    readonly options: KubeRaySimOptions,
  ) {
    this.store = sim.store;
    this.ns = sim.namespace;
    this.graceScale = options.graceScale ?? 1;
  }

  logs(rayJob: string): string {
    return this.logBuffers.get(rayJob) ?? "";
  }

  podsOf(cluster: string): KubeObject[] {
    return this.store.list("pods", this.ns, (p) => p.metadata.labels?.["ray.io/cluster"] === cluster);
  }

  headPod(cluster: string): KubeObject | undefined {
    return this.podsOf(cluster).find(
      (p) => p.metadata.labels?.["ray.io/node-type"] === "head" && !p.metadata.deletionTimestamp,
    );
  }

  headReady(cluster: KubeObject): boolean {
    const head = this.headPod(cluster.metadata.name);
    return head !== undefined && podReady(head);
  }

  /** Writes a pod's status through `edit` (and spec fields, for the scheduler's binding). */
  patchPod(
    pod: KubeObject,
    edit: (s: Json & { conditions: Json[]; containerStatuses: ContainerStatus[] }) => void,
    spec: Json = {},
  ): void {
    const cur = this.store.get("pods", this.ns, pod.metadata.name);
    if (!cur) return;
    const s = { conditions: [], containerStatuses: [], ...structuredClone(cur.status ?? {}) } as Json & {
      conditions: Json[];
      containerStatuses: ContainerStatus[];
    };
    edit(s);
    Object.assign(pod, this.store.replace("pods", { ...cur, spec: { ...cur.spec, ...spec }, status: s }));
  }

  startedAt(pod: KubeObject): string {
    const c = ((pod.status?.containerStatuses as ContainerStatus[] | undefined) ?? [])[0];
    return str((c?.state.running as Json | undefined)?.startedAt) || kubeTime();
  }

  state(rayJob: string): JobState {
    let st = this.jobs.get(rayJob);
    if (!st) {
      st = { submitterFailures: 0, imagePullFails: false, scriptRun: false };
      this.jobs.set(rayJob, st);
    }
    return st;
  }

  podState(pod: KubeObject): PodState {
    let ps = this.pods.get(pod.metadata.uid);
    if (!ps) {
      ps = {};
      this.pods.set(pod.metadata.uid, ps);
    }
    return ps;
  }

  /** pod → its RayCluster → the RayJob that owns that cluster. */
  jobOfPod(pod: KubeObject): KubeObject | undefined {
    const cluster = this.store.get("rayclusters", this.ns, pod.metadata.labels?.["ray.io/cluster"] ?? "");
    const owner = cluster?.metadata.ownerReferences?.find((r) => r.kind === "RayJob");
    return owner ? this.store.get("rayjobs", this.ns, owner.name) : undefined;
  }

  jobStateOfPod(pod: KubeObject): JobState | undefined {
    const job = this.jobOfPod(pod);
    return job ? this.state(job.metadata.name) : undefined;
  }

  event(
    obj: KubeObject,
    type: "Normal" | "Warning",
    reason: string,
    message: string,
    component: string,
    host?: string,
    container?: string,
  ): void {
    const fieldPath = container ? `spec.containers{${container}}` : undefined;
    this.store.recordEvent(obj, {
      type,
      reason,
      message,
      component,
      ...(host ? { host } : {}),
      ...(fieldPath ? { fieldPath } : {}),
    });
  }

  entrypointOf(job: KubeObject): Entrypoint | undefined {
    const head = this.headPod(str(statusOf(job).rayClusterName));
    return head ? this.entrypoints.get(head.metadata.uid) : undefined;
  }
}
