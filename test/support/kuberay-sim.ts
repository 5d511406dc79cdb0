/**
 * A SIMULATOR of the KubeRay operator (v1.x RayJob and RayCluster controllers) and of what it relies on in
 * a cluster — the scheduler (binding pods to the node their affinity names), the kubelet (image pull,
 * container start, restarts, graceful pod deletion, Events) and Ray's job supervisor on the head (running
 * the entrypoint) — for tests of forgelet's KubeRay runtime. It works on a K8sSim's store directly, as
 * in-cluster controllers would (so it keeps running through an API outage), one reconcile step per object
 * per tick.
 *
 * The sequences follow ray-operator/controllers/ray/rayjob_controller.go and raycluster_controller.go
 * (KubeRay master, Aug 2026 ≈ v1.7) and Ray's dashboard job manager for job statuses and messages. In
 * "process" mode the entrypoint runs here as `bash -c` in its own process group with the head container's
 * env (secretKeyRef resolved); in "script" mode the test moves the Ray job with run()/finish().
 *
 * It does NOT do: Services, the K8sJobMode submitter Job/pod or SidecarMode container (the job is
 * submitted as if by them), InteractiveMode, autoscaling, GCS fault tolerance, batch schedulers,
 * deletionStrategy, clusterSelector, the validating webhook, CRD defaulting, real scheduling (no
 * resource fit, taints only from the named node), $(VAR) expansion, fieldRef/configMap env, image pulls,
 * or isolation of the entrypoint (it runs on this machine). Linux only (/proc for process groups).
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { constants, tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Json,
  type K8sSim,
  type KubeObject,
  type KubeStore,
  kubeTime,
  randomSuffix,
} from "./k8s-sim.js";

export interface KubeRaySimOptions {
  mode: "process" | "script";
  /** PATH of the entrypoint process (default: this process's). */
  path?: string;
  tickMs?: number;
  /** Multiplies every grace period (pod termination, Ray's stop wait), so tests need not wait 30 s. */
  graceScale?: number;
}

type RayJobStatusValue = "PENDING" | "RUNNING" | "SUCCEEDED" | "FAILED" | "STOPPED";

export interface KubeRaySim {
  /** The entrypoint's stdout and stderr (every run of the RayJob of that name, in order). */
  logs(rayJob: string): string;
  /** Script mode: the Ray job starts (PENDING → RUNNING) once submitted. */
  run(rayJob: string): void;
  /** Script mode: the Ray job ends (after run(), or from PENDING). */
  finish(rayJob: string, status: "SUCCEEDED" | "FAILED", message?: string): void;
  imagePullFails(rayJob: string): void;
  unschedulable(rayJob: string, message: string): void;
  oomKill(rayJob: string, pod?: string): void;
  evict(rayJob: string, pod: string): void;
  preempt(rayJob: string, pod: string): void;
  restartHead(rayJob: string): void;
  suspend(rayJob: string): void;
  /** Process groups of entrypoints that still have a live process. */
  liveProcessGroups(): number[];
  /** Errors the reconcilers threw (a bug in the simulator or an impossible object). */
  readonly errors: string[];
  stop(): Promise<void>;
}

export function startKubeRaySim(sim: K8sSim, options: KubeRaySimOptions): KubeRaySim {
  return new KubeRayOperator(sim, options);
}

const FINALIZER = "ray.io/rayjob-finalizer";
/** Ray's default RAY_JOB_STOP_WAIT_TIME_S: SIGTERM, then SIGKILL after this long (job_supervisor.py). */
const RAY_JOB_STOP_WAIT_S = 3;
const TERMINAL = new Set(["SUCCEEDED", "FAILED", "STOPPED"]);

// ---------------------------------------------------------------------------------------------------
// Typed views of what the operator reads (the API simulator validated the RayJob against the CRD)

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
}

interface Container {
  name: string;
  image?: string;
  env?: EnvVar[];
  envFrom?: Array<{ secretRef?: { name: string; optional?: boolean } }>;
  volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
  lifecycle?: { preStop?: { exec?: { command?: string[] } } };
}

interface Volume {
  name: string;
  secret?: { secretName: string; defaultMode?: number; optional?: boolean };
}

/** A secret volume as the container sees it: its files at the mount path. */
interface SecretMount {
  mountPath: string;
  mode: number;
  files: Record<string, string>;
}

interface NodeSelectorTerm {
  matchFields?: Array<{ key: string; operator: string; values?: string[] }>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

interface PodSpec {
  containers: Container[];
  volumes?: Volume[];
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  affinity?: {
    nodeAffinity?: {
      requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] };
    };
  };
  terminationGracePeriodSeconds?: number;
  restartPolicy?: string;
}

interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: PodSpec;
}

interface WorkerGroup {
  groupName: string;
  replicas?: number;
  minReplicas?: number;
  maxReplicas?: number;
  suspend?: boolean;
  template: PodTemplate;
}

interface RayClusterSpec {
  headGroupSpec: { template: PodTemplate };
  workerGroupSpecs?: WorkerGroup[];
}

interface RayJobSpec {
  entrypoint?: string;
  suspend?: boolean;
  shutdownAfterJobFinishes?: boolean;
  ttlSecondsAfterFinished?: number;
  activeDeadlineSeconds?: number;
  preRunningDeadlineSeconds?: number;
  backoffLimit?: number;
  submissionMode?: string;
  submitterConfig?: { backoffLimit?: number };
  jobId?: string;
  rayClusterSpec: RayClusterSpec;
}

interface ContainerStatus {
  name: string;
  state: Json;
  lastState: Json;
  ready: boolean;
  started?: boolean;
  restartCount: number;
  image?: string;
  imageID?: string;
  containerID?: string;
}

const specOf = (job: KubeObject) => job.spec as unknown as RayJobSpec;
const statusOf = (o: KubeObject) => (o.status ?? {}) as Json & Record<string, unknown>;
const str = (v: unknown) => (typeof v === "string" ? v : "");

// ---------------------------------------------------------------------------------------------------
// Per-RayJob and per-pod state that lives outside the API (Ray's job table, the kubelet's processes)

/** The Ray job on the head, as Ray's job manager keeps it: lost with the head (no GCS fault tolerance). */
interface RayRun {
  status: RayJobStatusValue;
  message: string;
  startTime?: number;
  endTime?: number;
  /** Where this run's output starts in the RayJob's log (Ray quotes the tail of a failed run). */
  logFrom: number;
}

interface JobState {
  run?: RayRun;
  submitterFailures: number;
  imagePullFails: boolean;
  unschedulable?: string;
  scriptRun: boolean;
  scriptFinish?: { status: "SUCCEEDED" | "FAILED"; message?: string };
}

/** A local process group standing in for the job driver on a head pod. */
interface Entrypoint {
  pgid: number;
  dirs: string[];
  /** Its outcome is no one's to report (the head went away, or Ray was told to stop it). */
  lost: boolean;
  stopping: boolean;
  killTimer?: NodeJS.Timeout;
}

interface PodState {
  env?: Record<string, string>;
  /** The head container's preStop hook while the kubelet runs it (deletion waits for it, within the grace). */
  preStop?: { done: boolean };
  mounts?: SecretMount[];
  terminatingAt?: number;
  restartPending?: Json;
  pullReported?: boolean;
}

class KubeRayOperator implements KubeRaySim {
  readonly errors: string[] = [];
  private readonly store: KubeStore;
  private readonly ns: string;
  private readonly graceScale: number;
  private readonly timer: NodeJS.Timeout;
  private readonly jobs = new Map<string, JobState>();
  private readonly pods = new Map<string, PodState>();
  private readonly entrypoints = new Map<string, Entrypoint>();
  private readonly logBuffers = new Map<string, string>();
  private nextIp = 10;

  constructor(
    sim: K8sSim,
    private readonly options: KubeRaySimOptions,
  ) {
    this.store = sim.store;
    this.ns = sim.namespace;
    this.graceScale = options.graceScale ?? 1;
    this.store.kubeletAttached = true;
    this.timer = setInterval(() => this.tick(), options.tickMs ?? 100);
  }

  logs(rayJob: string): string {
    return this.logBuffers.get(rayJob) ?? "";
  }

  run(rayJob: string): void {
    this.state(rayJob).scriptRun = true;
  }

  finish(rayJob: string, status: "SUCCEEDED" | "FAILED", message?: string): void {
    this.state(rayJob).scriptFinish = { status, ...(message ? { message } : {}) };
  }

  imagePullFails(rayJob: string): void {
    this.state(rayJob).imagePullFails = true;
  }

  unschedulable(rayJob: string, message: string): void {
    this.state(rayJob).unschedulable = message;
  }

  /** The container's cgroup hits its memory limit: OOMKilled (137), then restarted by the kubelet. */
  oomKill(rayJob: string, pod = "head"): void {
    const p = this.runningPod(rayJob, pod);
    const terminated = {
      exitCode: 137,
      reason: "OOMKilled",
      startedAt: this.startedAt(p),
      finishedAt: kubeTime(),
    };
    this.patchPod(p, (s) => {
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
    this.podState(p).restartPending = terminated;
    this.lose(rayJob, p);
  }

  /** The kubelet evicts the pod under node pressure: phase Failed, reason Evicted; KubeRay replaces it. */
  evict(rayJob: string, pod: string): void {
    const p = this.runningPod(rayJob, pod);
    const c0 = containersOf(p);
    const message = `The node was low on resource: memory. Threshold quantity: 100Mi, available: 52Mi. Container ${c0[0]?.name} was using 14Gi, request is 8Gi, has larger consumption of memory. `;
    this.patchPod(p, (s) => {
      Object.assign(s, { phase: "Failed", reason: "Evicted", message });
      for (const c of s.containerStatuses) {
        const terminated = {
          exitCode: 137,
          reason: "Error",
          startedAt: this.startedAt(p),
          finishedAt: kubeTime(),
        };
        Object.assign(c, { state: { terminated }, ready: false, started: false });
      }
      setCondition(s.conditions, "DisruptionTarget", "True", "TerminationByKubelet", message);
      setCondition(s.conditions, "Ready", "False", "PodFailed", "");
      setCondition(s.conditions, "ContainersReady", "False", "PodFailed", "");
    });
    const host = str(p.spec?.nodeName);
    this.event(p, "Warning", "Evicted", message, "kubelet", host);
    this.event(p, "Normal", "Killing", `Stopping container ${c0[0]?.name}`, "kubelet", host, c0[0]?.name);
    this.lose(rayJob, p);
  }

  /** The scheduler preempts the pod for a higher-priority one: DisruptionTarget, then graceful deletion. */
  preempt(rayJob: string, pod: string): void {
    const p = this.runningPod(rayJob, pod);
    this.patchPod(p, (s) => {
      const m = "default-scheduler: preempting to accommodate a higher priority pod";
      setCondition(s.conditions, "DisruptionTarget", "True", "PreemptionByScheduler", m);
    });
    const node = str(p.spec?.nodeName);
    this.event(
      p,
      "Normal",
      "Preempted",
      `Preempted by pod ${randomUUID()} on node ${node}`,
      "default-scheduler",
    );
    this.lose(rayJob, p);
    this.store.delete("pods", this.ns, p.metadata.name);
  }

  /** The Ray head container exits and the kubelet restarts it at once (restartPolicy Always). */
  restartHead(rayJob: string): void {
    const p = this.runningPod(rayJob, "head");
    const finishedAt = kubeTime();
    this.patchPod(p, (s) => {
      const c = s.containerStatuses[0];
      if (!c) return;
      c.lastState = {
        terminated: { exitCode: 1, reason: "Error", startedAt: this.startedAt(p), finishedAt },
      };
      c.state = { running: { startedAt: finishedAt } };
      c.restartCount += 1;
    });
    const c0 = containersOf(p)[0];
    this.event(
      p,
      "Normal",
      "Started",
      `Started container ${c0?.name}`,
      "kubelet",
      str(p.spec?.nodeName),
      c0?.name,
    );
    this.headLost(rayJob);
  }

  /** What a user's `spec.suspend: true` does. */
  suspend(rayJob: string): void {
    const job = this.store.get("rayjobs", this.ns, rayJob);
    if (!job) throw new Error(`no RayJob ${rayJob}`);
    this.store.replace("rayjobs", { ...job, spec: { ...job.spec, suspend: true } });
  }

  liveProcessGroups(): number[] {
    return [...this.entrypoints.values()].map((e) => e.pgid).filter(processGroupAlive);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.store.kubeletAttached = false;
    for (const [uid, e] of this.entrypoints) {
      clearTimeout(e.killTimer);
      signalGroup(e.pgid, "SIGKILL");
      killMarked(uid);
    }
    const deadline = Date.now() + 5000;
    while (this.liveProcessGroups().length && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    for (const e of this.entrypoints.values()) removeDirs(e.dirs);
    this.entrypoints.clear();
  }

  // -------------------------------------------------------------------------------------------------
  // The loop

  private tick(): void {
    const guard = (what: string, fn: () => void) => {
      try {
        fn();
      } catch (err) {
        this.errors.push(`${what}: ${err instanceof Error ? err.stack : String(err)}`);
      }
    };
    for (const job of this.store.list("rayjobs", this.ns))
      guard(`RayJob ${job.metadata.name}`, () => this.reconcileJob(job));
    for (const c of this.store.list("rayclusters", this.ns))
      guard(`RayCluster ${c.metadata.name}`, () => this.reconcileCluster(c));
    for (const p of this.store.list("pods", this.ns))
      guard(`pod ${p.metadata.name}`, () => this.reconcilePod(p));
    guard("cleanup", () => this.forgetGone());
  }

  /** Drops the state of RayJobs and pods that no longer exist. */
  private forgetGone(): void {
    const jobs = new Set(this.store.list("rayjobs", this.ns).map((j) => j.metadata.name));
    for (const name of this.jobs.keys()) if (!jobs.has(name)) this.jobs.delete(name);
    const pods = new Set(this.store.list("pods", this.ns).map((p) => p.metadata.uid));
    for (const uid of this.pods.keys()) if (!pods.has(uid)) this.pods.delete(uid);
  }

  // -------------------------------------------------------------------------------------------------
  // RayJob controller

  private reconcileJob(job: KubeObject): void {
    const st = this.state(job.metadata.name);
    if (job.metadata.deletionTimestamp) {
      this.finalize(job);
      return;
    }
    switch (str(statusOf(job).jobDeploymentStatus)) {
      case "":
        this.initialize(job);
        return;
      case "Initializing":
        this.initializing(job);
        return;
      case "Running":
        this.running(job, st);
        return;
      case "Retrying":
      case "Suspending":
        this.tearDown(job, st);
        return;
      case "Suspended":
        if (!specOf(job).suspend)
          this.setStatus(job, { jobStatus: undefined, jobDeploymentStatus: undefined });
        return;
      case "Complete":
      case "Failed":
        this.finished(job);
        return;
    }
  }

  /** New: the finalizer first (so a deletion can stop the Ray job), then Initializing with the names. */
  private initialize(job: KubeObject): void {
    let cur = job;
    if (!cur.metadata.finalizers?.includes(FINALIZER)) {
      cur = this.store.replace("rayjobs", {
        ...cur,
        metadata: { ...cur.metadata, finalizers: [...(cur.metadata.finalizers ?? []), FINALIZER] },
      });
    }
    const s = statusOf(cur);
    const name = cur.metadata.name;
    this.setStatus(cur, {
      jobId: str(s.jobId) || specOf(cur).jobId || `${name}-${randomSuffix()}`,
      rayClusterName: str(s.rayClusterName) || `${name}-${randomSuffix()}`,
      jobDeploymentStatus: "Initializing",
      startTime: kubeTime(),
      failed: s.failed ?? 0,
      succeeded: s.succeeded ?? 0,
    });
  }

  private initializing(job: KubeObject): void {
    if (this.suspendOrDeadline(job, true)) return;
    const s = statusOf(job);
    const cluster = this.store.get("rayclusters", this.ns, str(s.rayClusterName));
    if (!cluster) {
      this.createCluster(job);
      return;
    }
    if (cluster.status?.state !== "ready") {
      if (!same(s.rayClusterStatus, cluster.status))
        this.setStatus(job, { rayClusterStatus: cluster.status });
      return;
    }
    const dashboardURL = `${cluster.metadata.name}-head-svc.${this.ns}.svc.cluster.local:8265`;
    this.setStatus(job, { dashboardURL, jobDeploymentStatus: "Running", rayClusterStatus: cluster.status });
  }

  /** Running: submit the Ray job once the head is up (again, after a head loss), then mirror its status. */
  private running(job: KubeObject, st: JobState): void {
    if (this.suspendOrDeadline(job, false)) return;
    const s = statusOf(job);
    const cluster = this.store.get("rayclusters", this.ns, str(s.rayClusterName));
    if (!cluster) {
      this.createCluster(job);
      return;
    }
    if (!st.run) {
      if (!this.headReady(cluster)) return;
      st.run = {
        status: "PENDING",
        message: "Job has not started yet.",
        logFrom: this.logs(job.metadata.name).length,
      };
    } else this.advance(job, st, st.run);
    const run = st.run;
    if (run.status === str(s.jobStatus)) return;
    const info = {
      ...(run.startTime ? { startTime: kubeTime(run.startTime) } : {}),
      ...(run.endTime ? { endTime: kubeTime(run.endTime) } : {}),
    };
    const patch = {
      jobStatus: run.status,
      message: run.message,
      rayJobInfo: info,
      rayClusterStatus: cluster.status,
    };
    if (!TERMINAL.has(run.status)) {
      this.setStatus(job, patch);
      return;
    }
    const failed = run.status === "FAILED";
    this.terminal(job, {
      ...patch,
      jobDeploymentStatus: failed ? "Failed" : "Complete",
      reason: failed ? "AppFailed" : undefined,
    });
  }

  /** The Ray job's own progress: the entrypoint starts (process mode) or the test moves it (script mode). */
  private advance(job: KubeObject, st: JobState, run: RayRun): void {
    if (this.options.mode === "process") {
      if (run.status === "PENDING") this.startEntrypoint(job, st, run);
      return;
    }
    if (run.status === "PENDING" && st.scriptRun) {
      st.scriptRun = false;
      Object.assign(run, { status: "RUNNING", message: "Job is currently running.", startTime: Date.now() });
    } else if (st.scriptFinish && !TERMINAL.has(run.status)) {
      const { status, message } = st.scriptFinish;
      st.scriptFinish = undefined;
      const fallback =
        status === "SUCCEEDED"
          ? "Job finished successfully."
          : "Job entrypoint command failed with exit code 1. No logs available.";
      Object.assign(run, { status, message: message ?? fallback, endTime: Date.now() });
    }
  }

  /** Both in Initializing and Running: spec.suspend, activeDeadlineSeconds, preRunningDeadlineSeconds. */
  private suspendOrDeadline(job: KubeObject, initializing: boolean): boolean {
    const spec = specOf(job);
    const s = statusOf(job);
    if (spec.suspend) {
      this.setStatus(job, { jobDeploymentStatus: "Suspending" });
      return true;
    }
    const started = Date.parse(str(s.startTime));
    const startedGo = goTime(str(s.startTime));
    const deadline = spec.activeDeadlineSeconds;
    if (deadline !== undefined && Date.now() >= started + deadline * 1000) {
      const message = `The RayJob has passed the activeDeadlineSeconds. StartTime: ${startedGo}. ActiveDeadlineSeconds: ${deadline}`;
      this.terminal(job, { jobDeploymentStatus: "Failed", reason: "DeadlineExceeded", message });
      return true;
    }
    const pre = spec.preRunningDeadlineSeconds;
    if (initializing && pre !== undefined && Date.now() >= started + pre * 1000) {
      const message = `The RayJob has passed the preRunningDeadlineSeconds. StartTime: ${startedGo}. PreRunningDeadlineSeconds: ${pre}`;
      this.terminal(job, { jobDeploymentStatus: "Failed", reason: "PreRunningDeadlineExceeded", message });
      return true;
    }
    return false;
  }

  /**
   * A terminal status write: counters, endTime, and KubeRay's retry rule — Failed with failed <
   * backoffLimit+1 becomes Retrying, except after DeadlineExceeded.
   */
  private terminal(job: KubeObject, patch: Json): void {
    const s = statusOf(job);
    const failedNow = patch.jobDeploymentStatus === "Failed";
    const failed = Number(s.failed ?? 0) + (failedNow ? 1 : 0);
    const succeeded = Number(s.succeeded ?? 0) + (patch.jobStatus === "SUCCEEDED" ? 1 : 0);
    const limit = specOf(job).backoffLimit ?? 0;
    const retry =
      failedNow &&
      failed < limit + 1 &&
      !["DeadlineExceeded", "JobStatusCheckTimeoutExceeded"].includes(str(patch.reason));
    const deployment = retry ? "Retrying" : patch.jobDeploymentStatus;
    this.setStatus(job, {
      ...patch,
      jobDeploymentStatus: deployment,
      failed,
      succeeded,
      ...(retry ? {} : { endTime: kubeTime() }),
    });
  }

  /** Retrying and Suspending: delete the RayCluster, wait until it is gone, reset the status. */
  private tearDown(job: KubeObject, st: JobState): void {
    const s = statusOf(job);
    const cluster = this.store.get("rayclusters", this.ns, str(s.rayClusterName));
    if (cluster) {
      if (!cluster.metadata.deletionTimestamp) this.deleteCluster(job, cluster);
      return;
    }
    st.run = undefined;
    st.submitterFailures = 0;
    const suspending = s.jobDeploymentStatus === "Suspending";
    this.setStatus(job, {
      rayClusterStatus: {},
      rayClusterName: undefined,
      dashboardURL: undefined,
      jobId: undefined,
      message: undefined,
      reason: undefined,
      rayJobInfo: {},
      jobStatus: undefined,
      jobDeploymentStatus: suspending ? "Suspended" : undefined,
    });
  }

  /** Complete or Failed: with shutdownAfterJobFinishes, the RayCluster goes ttlSecondsAfterFinished after endTime. */
  private finished(job: KubeObject): void {
    const spec = specOf(job);
    if (!spec.shutdownAfterJobFinishes) return;
    const due = Date.parse(str(statusOf(job).endTime)) + (spec.ttlSecondsAfterFinished ?? 0) * 1000;
    if (Date.now() < due) return;
    const cluster = this.store.get("rayclusters", this.ns, str(statusOf(job).rayClusterName));
    if (cluster && !cluster.metadata.deletionTimestamp) this.deleteCluster(job, cluster);
  }

  /**
   * Being deleted: stop the Ray job if it is not finished (SIGTERM, SIGKILL after Ray's wait), and
   * remove the finalizer whether that worked or not; the garbage collector takes the RayCluster.
   */
  private finalize(job: KubeObject): void {
    if (!job.metadata.finalizers?.includes(FINALIZER)) return;
    const e = this.entrypointOf(job);
    if (!TERMINAL.has(str(statusOf(job).jobStatus)) && e && !e.stopping) {
      e.stopping = true;
      signalGroup(e.pgid, "SIGTERM");
      // Ray reads its wait from the job supervisor's environment: the head container's.
      const head = this.headPod(str(statusOf(job).rayClusterName));
      const configured = Number(head ? this.podState(head).env?.RAY_JOB_STOP_WAIT_TIME_S : undefined);
      const wait = (configured > 0 ? configured : RAY_JOB_STOP_WAIT_S) * 1000 * this.graceScale;
      e.killTimer = setTimeout(() => signalGroup(e.pgid, "SIGKILL"), wait).unref();
    }
    const finalizers = job.metadata.finalizers.filter((f) => f !== FINALIZER);
    this.store.replace("rayjobs", { ...job, metadata: { ...job.metadata, finalizers } });
  }

  private createCluster(job: KubeObject): void {
    const spec = specOf(job);
    const name = str(statusOf(job).rayClusterName);
    const labels = {
      ...job.metadata.labels,
      "ray.io/originated-from-cr-name": job.metadata.name,
      "ray.io/originated-from-crd": "RayJob",
      "ray.io/job-submission-mode": spec.submissionMode ?? "K8sJobMode",
    };
    this.store.create("rayclusters", {
      metadata: {
        name,
        namespace: this.ns,
        labels,
        ...(job.metadata.annotations ? { annotations: job.metadata.annotations } : {}),
        ownerReferences: [ownerRef(job)],
      },
      spec: structuredClone(spec.rayClusterSpec) as unknown as Json,
    });
    this.event(
      job,
      "Normal",
      "CreatedRayCluster",
      `Created RayCluster ${this.ns}/${name}`,
      "rayjob-controller",
    );
  }

  private deleteCluster(job: KubeObject, cluster: KubeObject): void {
    this.store.delete("rayclusters", this.ns, cluster.metadata.name, { propagationPolicy: "Background" });
    const message = `Deleted cluster ${this.ns}/${cluster.metadata.name}`;
    this.event(job, "Normal", "DeletedRayCluster", message, "rayjob-controller");
  }

  private setStatus(job: KubeObject, patch: Json): void {
    const cur = this.store.get("rayjobs", this.ns, job.metadata.name);
    if (!cur) return;
    const status: Json = { ...cur.status, ...patch };
    for (const [k, v] of Object.entries(status)) if (v === undefined) delete status[k];
    this.store.replace("rayjobs", { ...cur, status });
    Object.assign(job, this.store.get("rayjobs", this.ns, job.metadata.name));
  }

  // -------------------------------------------------------------------------------------------------
  // Losing the head: the Ray job goes with it (its state lives in the head's GCS)

  /**
   * What follows depends on who submits: in K8sJobMode the submitter pod's `ray job logs --follow` fails,
   * the submitter Job retries, finds no job and submits it again (a fresh run) — until the Job's
   * backoffLimit (default 2) is spent; in HTTPMode the operator resubmits on "job not found"; in
   * SidecarMode the head pod (restartPolicy Never) fails with its submitter container.
   */
  private headLost(rayJob: string): void {
    const st = this.state(rayJob);
    const job = this.store.get("rayjobs", this.ns, rayJob);
    if (!job || !st.run || TERMINAL.has(st.run.status) || statusOf(job).jobDeploymentStatus !== "Running")
      return;
    const e = this.entrypointOf(job);
    if (e) {
      e.lost = true;
      signalGroup(e.pgid, "SIGKILL");
    }
    st.run = undefined;
    const mode = specOf(job).submissionMode ?? "K8sJobMode";
    if (mode === "K8sJobMode") {
      st.submitterFailures += 1;
      if (st.submitterFailures <= (specOf(job).submitterConfig?.backoffLimit ?? 2)) return;
      const message =
        "Job submission has failed. Reason: BackoffLimitExceeded. Message: Job has reached the specified backoff limit";
      this.terminal(job, { jobDeploymentStatus: "Failed", reason: "SubmissionFailed", message });
    } else if (mode === "SidecarMode") {
      const message = "Ray head pod container ray-job-submitter terminated with exit code 1: Error";
      this.terminal(job, { jobDeploymentStatus: "Failed", reason: "SubmissionFailed", message });
    }
  }

  /** A fault took `pod` away: on the head the Ray job is lost; on a worker the workload fails (the driver is killed). */
  private lose(rayJob: string, pod: KubeObject): void {
    if (pod.metadata.labels?.["ray.io/node-type"] === "head") {
      this.headLost(rayJob);
      return;
    }
    const job = this.store.get("rayjobs", this.ns, rayJob);
    const e = job && this.entrypointOf(job);
    if (e) signalGroup(e.pgid, "SIGKILL");
    const run = this.state(rayJob).run;
    if (this.options.mode === "script" && run && !TERMINAL.has(run.status)) {
      Object.assign(run, {
        status: "FAILED",
        message: "Job entrypoint command failed with exit code -9. No logs available.",
        endTime: Date.now(),
      });
    }
  }

  // -------------------------------------------------------------------------------------------------
  // The entrypoint (Ray's job supervisor runs it on the head with the head container's environment)

  private startEntrypoint(job: KubeObject, st: JobState, run: RayRun): void {
    const head = this.headPod(str(statusOf(job).rayClusterName));
    if (!head) return;
    const env = this.podState(head).env ?? {};
    const mounted: string[] = [];
    for (const m of this.podState(head).mounts ?? []) {
      mkdirSync(m.mountPath, { recursive: true, mode: 0o700 });
      for (const [file, content] of Object.entries(m.files))
        writeFileSync(join(m.mountPath, file), content, { mode: m.mode });
      mounted.push(m.mountPath);
    }
    const home = mkdtempSync(join(tmpdir(), "kuberay-sim-home-"));
    const cwd = mkdtempSync(join(tmpdir(), "kuberay-sim-job-"));
    const child = spawn("bash", ["-c", specOf(job).entrypoint ?? ""], {
      cwd,
      // The marker stands for the container's cgroup: whatever the entrypoint starts (also in its own
      // session) ends with the container.
      env: {
        ...env,
        PATH: this.options.path ?? process.env.PATH ?? "/usr/bin:/bin",
        HOME: home,
        [POD_MARKER]: head.metadata.uid,
      },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const name = job.metadata.name;
    const append = (d: Buffer) => this.logBuffers.set(name, this.logs(name) + d.toString("utf8"));
    child.stdout?.on("data", append);
    child.stderr?.on("data", append);
    const e: Entrypoint = {
      pgid: child.pid ?? -1,
      dirs: [home, cwd, ...mounted],
      lost: false,
      stopping: false,
    };
    // A head container restarted in place: the previous run's process group is already killed.
    const previous = this.entrypoints.get(head.metadata.uid);
    if (previous) removeDirs(previous.dirs);
    this.entrypoints.set(head.metadata.uid, e);
    child.on("error", (err) => this.ended(name, st, run, e, null, null, err));
    child.on("exit", (code, signal) => this.ended(name, st, run, e, code, signal));
    Object.assign(run, { status: "RUNNING", message: "Job is currently running.", startTime: Date.now() });
  }

  /** Ray's verdict on an entrypoint that exited: its words (job_supervisor.py, common.py). */
  private ended(
    name: string,
    st: JobState,
    run: RayRun,
    e: Entrypoint,
    code: number | null,
    signal: NodeJS.Signals | null,
    err?: Error,
  ): void {
    if (e.lost || st.run !== run || TERMINAL.has(run.status)) return;
    run.endTime = Date.now();
    if (e.stopping)
      return void Object.assign(run, { status: "STOPPED", message: "Job was intentionally stopped." });
    if (code === 0)
      return void Object.assign(run, { status: "SUCCEEDED", message: "Job finished successfully." });
    // Python's Popen.returncode: -N for a process killed by signal N.
    const exit = err ? 1 : (code ?? -(signalNumber(signal) ?? 9));
    const tail = this.tailOf(name, run);
    const message = tail
      ? `Job entrypoint command failed with exit code ${exit}, last available logs (truncated to 20,000 chars):\n${tail}`
      : `Job entrypoint command failed with exit code ${exit}. No logs available.`;
    Object.assign(run, { status: "FAILED", message });
  }

  /** The last 10 lines of this run's output, at most 20,000 characters (Ray's NUM_LOG_LINES_ON_ERROR). */
  private tailOf(name: string, run: RayRun): string {
    const text = this.logs(name).slice(run.logFrom);
    return text.split("\n").filter(Boolean).slice(-10).join("\n").slice(-20_000);
  }

  private entrypointOf(job: KubeObject): Entrypoint | undefined {
    const head = this.headPod(str(statusOf(job).rayClusterName));
    return head ? this.entrypoints.get(head.metadata.uid) : undefined;
  }

  // -------------------------------------------------------------------------------------------------
  // RayCluster controller

  private reconcileCluster(cluster: KubeObject): void {
    if (cluster.metadata.deletionTimestamp) return;
    const spec = cluster.spec as unknown as RayClusterSpec;
    const pods = this.podsOf(cluster.metadata.name).filter((p) => !p.metadata.deletionTimestamp);
    for (const p of pods.filter((x) => x.status?.phase === "Failed" || x.status?.phase === "Succeeded")) {
      this.store.delete("pods", this.ns, p.metadata.name);
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
    if (!same(status, cluster.status)) this.store.replace("rayclusters", { ...cluster, status });
  }

  /** KubeRay's calculateStatus, in part: `state: ready` once every pod ran (sticky), counts, head, conditions. */
  private clusterStatus(cluster: KubeObject, spec: RayClusterSpec): Json {
    const prev = statusOf(cluster);
    const pods = this.podsOf(cluster.metadata.name).filter((p) => !p.metadata.deletionTimestamp);
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
    const pod = this.store.create("pods", {
      metadata: {
        generateName: type === "head" ? `${name}-head-` : `${name}-${group}-worker-`,
        namespace: this.ns,
        labels,
        ...(template.metadata?.annotations ? { annotations: template.metadata.annotations } : {}),
        ownerReferences: [ownerRef(cluster)],
      },
      spec: { restartPolicy: "Always", ...structuredClone(template.spec) } as unknown as Json,
      status: { phase: "Pending", qosClass: "BestEffort" },
    });
    const message = `Created ${type} Pod ${this.ns}/${pod.metadata.name}`;
    this.event(
      cluster,
      "Normal",
      type === "head" ? "CreatedHeadPod" : "CreatedWorkerPod",
      message,
      "raycluster-controller",
    );
  }

  private podsOf(cluster: string): KubeObject[] {
    return this.store.list("pods", this.ns, (p) => p.metadata.labels?.["ray.io/cluster"] === cluster);
  }

  private headPod(cluster: string): KubeObject | undefined {
    return this.podsOf(cluster).find(
      (p) => p.metadata.labels?.["ray.io/node-type"] === "head" && !p.metadata.deletionTimestamp,
    );
  }

  private headReady(cluster: KubeObject): boolean {
    const head = this.headPod(cluster.metadata.name);
    return head !== undefined && podReady(head);
  }

  // -------------------------------------------------------------------------------------------------
  // Scheduler and kubelet

  private reconcilePod(pod: KubeObject): void {
    if (pod.metadata.deletionTimestamp) {
      this.terminate(pod);
      return;
    }
    const phase = pod.status?.phase;
    if (phase === "Failed" || phase === "Succeeded") return;
    if (!pod.spec?.nodeName) {
      this.schedule(pod);
      return;
    }
    const ps = this.podState(pod);
    if (ps.restartPending) {
      this.restartContainer(pod, ps);
      return;
    }
    if (phase === "Pending") this.startContainers(pod, ps);
  }

  private schedule(pod: KubeObject): void {
    const st = this.jobStateOfPod(pod);
    if (st?.unschedulable) {
      this.unschedulablePod(pod, st.unschedulable);
      return;
    }
    const spec = pod.spec as unknown as PodSpec;
    const wanted = affinityNode(spec);
    const nodes = this.store.list("nodes");
    const node = wanted ?? nodes.find(schedulable)?.metadata.name ?? (nodes.length ? undefined : "sim-node");
    const target = nodes.find((n) => n.metadata.name === node);
    if (!node || (nodes.length && (!target || !schedulable(target)))) {
      this.unschedulablePod(pod, schedulingFailure(nodes, target));
      return;
    }
    this.patchPod(
      pod,
      (s) => {
        s.conditions = [condition("PodScheduled", "True")];
      },
      { nodeName: node },
    );
    this.event(
      pod,
      "Normal",
      "Scheduled",
      `Successfully assigned ${this.ns}/${pod.metadata.name} to ${node}`,
      "default-scheduler",
    );
  }

  private unschedulablePod(pod: KubeObject, message: string): void {
    const cur = ((pod.status?.conditions as Json[] | undefined) ?? []).find((c) => c.type === "PodScheduled");
    if (cur?.message === message) return;
    this.patchPod(pod, (s) => {
      s.conditions = [condition("PodScheduled", "False", "Unschedulable", message)];
    });
    this.event(pod, "Warning", "FailedScheduling", message, "default-scheduler");
  }

  /** ContainerCreating, then the image (or its failure), the env (or CreateContainerConfigError), then Running. */
  private startContainers(pod: KubeObject, ps: PodState): void {
    const spec = pod.spec as unknown as PodSpec;
    const host = spec.nodeName ?? "";
    const main = spec.containers[0];
    const image = main?.image ?? "";
    const isHead = pod.metadata.labels?.["ray.io/node-type"] === "head";
    const statuses = (pod.status?.containerStatuses as ContainerStatus[] | undefined) ?? [];
    if (!statuses.length) {
      this.setWaiting(pod, "ContainerCreating", undefined, true);
      this.event(pod, "Normal", "Pulling", `Pulling image "${image}"`, "kubelet", host, main?.name);
      return;
    }
    if (isHead && this.jobStateOfPod(pod)?.imagePullFails) {
      this.failPull(pod, image, host, main?.name);
      return;
    }
    const mounts = this.resolveMounts(pod, main);
    if (typeof mounts === "string") {
      // The kubelet cannot mount it: the container is never created (ContainerCreating), FailedMount.
      const waiting = statuses[0]?.state.waiting as Json | undefined;
      if (waiting?.message === mounts) return;
      this.setWaiting(pod, "ContainerCreating", mounts, false);
      this.event(pod, "Warning", "FailedMount", mounts, "kubelet", host, main?.name);
      return;
    }
    ps.mounts = mounts;
    const env = this.resolveEnv(pod, main);
    if (typeof env === "string") {
      const waiting = statuses[0]?.state.waiting as Json | undefined;
      if (waiting?.message === env) return;
      this.setWaiting(pod, "CreateContainerConfigError", env, false);
      this.event(pod, "Warning", "Failed", `Error: ${env}`, "kubelet", host, main?.name);
      return;
    }
    ps.env = env;
    for (const c of spec.containers) {
      this.event(
        pod,
        "Normal",
        "Pulled",
        `Successfully pulled image "${c.image}" in 812ms (812ms including waiting). Image size: 1482219532 bytes.`,
        "kubelet",
        host,
        c.name,
      );
      this.event(pod, "Normal", "Created", `Created container: ${c.name}`, "kubelet", host, c.name);
      this.event(pod, "Normal", "Started", `Started container ${c.name}`, "kubelet", host, c.name);
    }
    const startedAt = kubeTime();
    this.patchPod(pod, (s) => {
      s.phase = "Running";
      s.podIP = s.podIP ?? `10.244.0.${this.nextIp++}`;
      s.podIPs = [{ ip: s.podIP }];
      for (const c of s.containerStatuses) {
        Object.assign(c, {
          state: { running: { startedAt } },
          ready: true,
          started: true,
          containerID: `containerd://${randomHex()}`,
        });
      }
      for (const t of ["Initialized", "ContainersReady", "Ready"]) setCondition(s.conditions, t, "True");
    });
  }

  private failPull(pod: KubeObject, image: string, host: string, container?: string): void {
    const ps = this.podState(pod);
    const statuses = (pod.status?.containerStatuses as ContainerStatus[] | undefined) ?? [];
    const reason = str((statuses[0]?.state.waiting as Json | undefined)?.reason);
    if (!ps.pullReported) {
      ps.pullReported = true;
      const why = `rpc error: code = NotFound desc = failed to pull and unpack image "${image}": failed to resolve reference "${image}": ${image}: not found`;
      this.setWaiting(pod, "ErrImagePull", why, false);
      this.event(
        pod,
        "Warning",
        "Failed",
        `Failed to pull image "${image}": ${why}`,
        "kubelet",
        host,
        container,
      );
      this.event(pod, "Warning", "Failed", "Error: ErrImagePull", "kubelet", host, container);
    } else if (reason === "ErrImagePull") {
      this.setWaiting(pod, "ImagePullBackOff", `Back-off pulling image "${image}"`, false);
      this.event(pod, "Normal", "BackOff", `Back-off pulling image "${image}"`, "kubelet", host, container);
      this.event(pod, "Warning", "Failed", "Error: ImagePullBackOff", "kubelet", host, container);
    }
  }

  /** After OOMKilled: the kubelet starts the container again (restartCount+1, lastState.terminated). */
  private restartContainer(pod: KubeObject, ps: PodState): void {
    const terminated = ps.restartPending;
    ps.restartPending = undefined;
    const startedAt = kubeTime();
    this.patchPod(pod, (s) => {
      const c = s.containerStatuses[0];
      if (c)
        Object.assign(c, {
          lastState: { terminated },
          state: { running: { startedAt } },
          ready: true,
          started: true,
          restartCount: c.restartCount + 1,
        });
      for (const t of ["ContainersReady", "Ready"]) setCondition(s.conditions, t, "True");
    });
    const c0 = containersOf(pod)[0];
    this.event(
      pod,
      "Normal",
      "Started",
      `Started container ${c0?.name}`,
      "kubelet",
      str(pod.spec?.nodeName),
      c0?.name,
    );
  }

  /**
   * Graceful deletion: SIGTERM to the pod's processes, SIGKILL once the grace period (scaled) is over,
   * then the pod is removed. A head pod going while its RayJob runs takes the Ray job with it.
   */
  private terminate(pod: KubeObject): void {
    const ps = this.podState(pod);
    const e = this.entrypoints.get(pod.metadata.uid);
    if (ps.terminatingAt === undefined) {
      ps.terminatingAt = Date.now();
      this.loseHeadOf(pod);
      // The kubelet runs the container's preStop hook first, and only then sends SIGTERM.
      const hook = containersOf(pod)[0]?.lifecycle?.preStop?.exec?.command;
      if (e && hook?.length) ps.preStop = this.runPreStop(hook, ps.env ?? {});
      else if (e) signalGroup(e.pgid, "SIGTERM");
      for (const c of containersOf(pod)) {
        this.event(
          pod,
          "Normal",
          "Killing",
          `Stopping container ${c.name}`,
          "kubelet",
          str(pod.spec?.nodeName),
          c.name,
        );
      }
    }
    const grace = (pod.metadata.deletionGracePeriodSeconds ?? 30) * 1000 * this.graceScale;
    if (ps.preStop) {
      if (!ps.preStop.done && Date.now() - ps.terminatingAt < grace) return;
      ps.preStop = undefined;
      // SIGTERM to a Ray container's PID 1 (`ray start --block`) ends every Ray process at once.
      if (e) killMarked(pod.metadata.uid);
    }
    if (e && processGroupAlive(e.pgid)) {
      if (Date.now() - ps.terminatingAt < grace) return;
      signalGroup(e.pgid, "SIGKILL");
      return;
    }
    if (e) {
      clearTimeout(e.killTimer);
      killMarked(pod.metadata.uid);
      removeDirs(e.dirs);
      this.entrypoints.delete(pod.metadata.uid);
    }
    this.store.remove("pods", this.ns, pod.metadata.name);
  }

  /** Runs a preStop exec hook as the kubelet does: in the container (here: with its environment). */
  private runPreStop(command: string[], env: Record<string, string>): { done: boolean } {
    const state = { done: false };
    const child = spawn(command[0]!, command.slice(1), {
      env: { ...env, PATH: this.options.path ?? process.env.PATH ?? "/usr/bin:/bin" },
      stdio: "ignore",
    });
    child.on("exit", () => {
      state.done = true;
    });
    child.on("error", () => {
      state.done = true;
    });
    return state;
  }

  /** A head pod deleted under a Running RayJob (preempted, or removed by hand). */
  private loseHeadOf(pod: KubeObject): void {
    if (pod.metadata.labels?.["ray.io/node-type"] !== "head") return;
    const job = this.jobOfPod(pod);
    if (job && !job.metadata.deletionTimestamp) this.headLost(job.metadata.name);
  }

  /**
   * The container's secret volumes (files and where they are mounted), or why the kubelet cannot mount
   * them (`MountVolume.SetUp failed …`). The entrypoint process sees them at their mount paths, as the
   * head pod would: the simulator writes them there (on this host) and removes them with the pod.
   */
  private resolveMounts(pod: KubeObject, c: Container | undefined): SecretMount[] | string {
    const volumes = (pod.spec as unknown as PodSpec).volumes ?? [];
    const out: SecretMount[] = [];
    for (const m of c?.volumeMounts ?? []) {
      const v = volumes.find((x) => x.name === m.name);
      if (!v?.secret) continue;
      const s = this.store.get("secrets", this.ns, v.secret.secretName);
      if (!s) {
        if (v.secret.optional) continue;
        return `MountVolume.SetUp failed for volume "${v.name}" : secret "${v.secret.secretName}" not found`;
      }
      const files: Record<string, string> = {};
      for (const [k, b64] of Object.entries((s.data ?? {}) as Record<string, string>)) files[k] = decode(b64);
      out.push({ mountPath: m.mountPath, mode: v.secret.defaultMode ?? 0o644, files });
    }
    return out;
  }

  /** The head container's env as the kubelet builds it, or why it cannot (CreateContainerConfigError). */
  private resolveEnv(pod: KubeObject, c: Container | undefined): Record<string, string> | string {
    const env: Record<string, string> = { HOSTNAME: pod.metadata.name };
    const secret = (name: string) => this.store.get("secrets", this.ns, name);
    for (const from of c?.envFrom ?? []) {
      if (!from.secretRef) continue;
      const s = secret(from.secretRef.name);
      if (!s && !from.secretRef.optional) return `secret "${from.secretRef.name}" not found`;
      for (const [k, v] of Object.entries((s?.data ?? {}) as Record<string, string>)) env[k] = decode(v);
    }
    for (const v of c?.env ?? []) {
      const ref = v.valueFrom?.secretKeyRef;
      if (!ref) {
        env[v.name] = v.value ?? "";
        continue;
      }
      const s = secret(ref.name);
      const data = (s?.data ?? {}) as Record<string, string>;
      if (!s && !ref.optional) return `secret "${ref.name}" not found`;
      if (s && data[ref.key] === undefined && !ref.optional)
        return `couldn't find key ${ref.key} in Secret ${this.ns}/${ref.name}`;
      if (data[ref.key] !== undefined) env[v.name] = decode(data[ref.key] ?? "");
    }
    return env;
  }

  private setWaiting(pod: KubeObject, reason: string, message: string | undefined, first: boolean): void {
    const spec = pod.spec as unknown as PodSpec;
    const notReady = `containers with unready status: [${spec.containers.map((c) => c.name).join(" ")}]`;
    this.patchPod(pod, (s) => {
      if (first) {
        s.hostIP = "10.0.0.10";
        s.startTime = kubeTime();
        s.containerStatuses = spec.containers.map((c) => ({
          name: c.name,
          image: c.image,
          imageID: "",
          ready: false,
          started: false,
          restartCount: 0,
          lastState: {},
          state: {},
        }));
        setCondition(s.conditions, "Initialized", "True");
        setCondition(s.conditions, "ContainersReady", "False", "ContainersNotReady", notReady);
        setCondition(s.conditions, "Ready", "False", "ContainersNotReady", notReady);
      }
      const c = s.containerStatuses[0];
      if (c) c.state = { waiting: { reason, ...(message ? { message } : {}) } };
    });
  }

  /** Writes a pod's status through `edit` (and spec fields, for the scheduler's binding). */
  private patchPod(
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

  private startedAt(pod: KubeObject): string {
    const c = ((pod.status?.containerStatuses as ContainerStatus[] | undefined) ?? [])[0];
    return str((c?.state.running as Json | undefined)?.startedAt) || kubeTime();
  }

  // -------------------------------------------------------------------------------------------------
  // Lookups

  private state(rayJob: string): JobState {
    let st = this.jobs.get(rayJob);
    if (!st) {
      st = { submitterFailures: 0, imagePullFails: false, scriptRun: false };
      this.jobs.set(rayJob, st);
    }
    return st;
  }

  private podState(pod: KubeObject): PodState {
    let ps = this.pods.get(pod.metadata.uid);
    if (!ps) {
      ps = {};
      this.pods.set(pod.metadata.uid, ps);
    }
    return ps;
  }

  /** pod → its RayCluster → the RayJob that owns that cluster. */
  private jobOfPod(pod: KubeObject): KubeObject | undefined {
    const cluster = this.store.get("rayclusters", this.ns, pod.metadata.labels?.["ray.io/cluster"] ?? "");
    const owner = cluster?.metadata.ownerReferences?.find((r) => r.kind === "RayJob");
    return owner ? this.store.get("rayjobs", this.ns, owner.name) : undefined;
  }

  private jobStateOfPod(pod: KubeObject): JobState | undefined {
    const job = this.jobOfPod(pod);
    return job ? this.state(job.metadata.name) : undefined;
  }

  /** "head", "worker" (the first), or a pod's name, among the running pods of a RayJob. */
  private runningPod(rayJob: string, which: string): KubeObject {
    const job = this.store.get("rayjobs", this.ns, rayJob);
    const pods = job
      ? this.podsOf(str(statusOf(job).rayClusterName)).filter((p) => p.status?.phase === "Running")
      : [];
    const p = pods.find(
      (x) => x.metadata.name === which || x.metadata.labels?.["ray.io/node-type"] === which,
    );
    if (!p) throw new Error(`RayJob ${rayJob} has no running pod "${which}"`);
    return p;
  }

  private event(
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
}

// ---------------------------------------------------------------------------------------------------
// Helpers

function containersOf(pod: KubeObject): Container[] {
  return (pod.spec?.containers as Container[] | undefined) ?? [];
}

function ownerRef(o: KubeObject) {
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    name: o.metadata.name,
    uid: o.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

function desiredReplicas(g: WorkerGroup): number {
  if (g.suspend) return 0;
  const min = g.minReplicas ?? 0;
  const max = g.maxReplicas ?? 2147483647;
  return Math.min(Math.max(g.replicas ?? min, min), max);
}

function condition(type: string, status: string, reason?: string, message?: string): Json {
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
function setCondition(
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

function podReady(p: KubeObject): boolean {
  const conditions = (p.status?.conditions as Json[] | undefined) ?? [];
  return p.status?.phase === "Running" && conditions.some((c) => c.type === "Ready" && c.status === "True");
}

/** KubeRay's FindHeadPodReadyCondition: the pod's Ready, with the first waiting container's reason. */
function headReadyCondition(head: KubeObject): { status: string; reason: string; message: string } {
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

/** Go's time.Time.String() of a metav1.Time read back from the API (the operator's messages use it). */
function goTime(rfc3339: string): string {
  return rfc3339.replace("T", " ").replace("Z", " +0000 UTC");
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

function decode(base64: string): string {
  return Buffer.from(base64, "base64").toString("utf8");
}

function randomHex(): string {
  return randomUUID().replaceAll("-", "").repeat(2);
}

function signalNumber(signal: NodeJS.Signals | null): number | undefined {
  return signal ? constants.signals[signal] : undefined;
}

/** The environment variable that marks every process of a simulated container. */
const POD_MARKER = "KUBERAY_SIM_POD";

/** SIGKILLs every process of a simulated container (its cgroup, as the container runtime would). */
function killMarked(podUid: string): void {
  const needle = `${POD_MARKER}=${podUid}`;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(needle))
        process.kill(Number(pid), "SIGKILL");
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  if (pgid <= 0) return;
  try {
    process.kill(-pgid, signal);
  } catch {
    // Already gone.
  }
}

/** Whether any process of the group is alive (not a zombie): read from /proc, as PID 1 here may not reap. */
export function processGroupAlive(pgid: number): boolean {
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) === pgid && state !== "Z") return true;
    } catch {
      // The process ended while we looked.
    }
  }
  return false;
}

function removeDirs(dirs: string[]): void {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
