/**
 * KubeRay's RayJob controller (rayjob_controller.go): the finalizer, Initializing, Running (submitting
 * the Ray job and mirroring its status), deadlines, retries, suspension, teardown and deletion; and
 * what losing the head does to the Ray job.
 */
import { type Json, type KubeObject, kubeTime, randomSuffix } from "../k8s-sim.js";
import { type JobState, type OperatorContext, type RayRun, TERMINAL } from "./context.js";
import type { JobSupervisor } from "./job-supervisor.js";
import { signalGroup } from "./process-group.js";
import { ownerRef, same, specOf, statusOf, str } from "./views.js";

const FINALIZER = "ray.io/rayjob-finalizer";
/** Ray's default RAY_JOB_STOP_WAIT_TIME_S: SIGTERM, then SIGKILL after this long (job_supervisor.py). */
const RAY_JOB_STOP_WAIT_S = 3;

export class RayJobController {
  constructor(
    private readonly ctx: OperatorContext,
    private readonly supervisor: JobSupervisor,
  ) {}

  reconcileJob(job: KubeObject): void {
    const st = this.ctx.state(job.metadata.name);
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
      cur = this.ctx.store.replace("rayjobs", {
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
    const cluster = this.ctx.store.get("rayclusters", this.ctx.ns, str(s.rayClusterName));
    if (!cluster) {
      this.createCluster(job);
      return;
    }
    if (cluster.status?.state !== "ready") {
      if (!same(s.rayClusterStatus, cluster.status))
        this.setStatus(job, { rayClusterStatus: cluster.status });
      return;
    }
    const dashboardURL = `${cluster.metadata.name}-head-svc.${this.ctx.ns}.svc.cluster.local:8265`;
    this.setStatus(job, { dashboardURL, jobDeploymentStatus: "Running", rayClusterStatus: cluster.status });
  }

  /** Running: submit the Ray job once the head is up (again, after a head loss), then mirror its status. */
  private running(job: KubeObject, st: JobState): void {
    if (this.suspendOrDeadline(job, false)) return;
    const s = statusOf(job);
    const cluster = this.ctx.store.get("rayclusters", this.ctx.ns, str(s.rayClusterName));
    if (!cluster) {
      this.createCluster(job);
      return;
    }
    if (!st.run) {
      if (!this.ctx.headReady(cluster)) return;
      st.run = {
        status: "PENDING",
        message: "Job has not started yet.",
        logFrom: this.ctx.logs(job.metadata.name).length,
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
    if (this.ctx.options.mode === "process") {
      if (run.status === "PENDING") this.supervisor.startEntrypoint(job, st, run);
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
    const cluster = this.ctx.store.get("rayclusters", this.ctx.ns, str(s.rayClusterName));
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
    const cluster = this.ctx.store.get("rayclusters", this.ctx.ns, str(statusOf(job).rayClusterName));
    if (cluster && !cluster.metadata.deletionTimestamp) this.deleteCluster(job, cluster);
  }

  /**
   * Being deleted: stop the Ray job if it is not finished (SIGTERM, SIGKILL after Ray's wait), and
   * remove the finalizer whether that worked or not; the garbage collector takes the RayCluster.
   */
  private finalize(job: KubeObject): void {
    if (!job.metadata.finalizers?.includes(FINALIZER)) return;
    const e = this.ctx.entrypointOf(job);
    if (!TERMINAL.has(str(statusOf(job).jobStatus)) && e && !e.stopping) {
      e.stopping = true;
      signalGroup(e.pgid, "SIGTERM");
      // Ray reads its wait from the job supervisor's environment: the head container's.
      const head = this.ctx.headPod(str(statusOf(job).rayClusterName));
      const configured = Number(head ? this.ctx.podState(head).env?.RAY_JOB_STOP_WAIT_TIME_S : undefined);
      const wait = (configured > 0 ? configured : RAY_JOB_STOP_WAIT_S) * 1000 * this.ctx.graceScale;
      e.killTimer = setTimeout(() => signalGroup(e.pgid, "SIGKILL"), wait).unref();
    }
    const finalizers = job.metadata.finalizers.filter((f) => f !== FINALIZER);
    this.ctx.store.replace("rayjobs", { ...job, metadata: { ...job.metadata, finalizers } });
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
    this.ctx.store.create("rayclusters", {
      metadata: {
        name,
        namespace: this.ctx.ns,
        labels,
        ...(job.metadata.annotations ? { annotations: job.metadata.annotations } : {}),
        ownerReferences: [ownerRef(job)],
      },
      spec: structuredClone(spec.rayClusterSpec) as unknown as Json,
    });
    this.ctx.event(
      job,
      "Normal",
      "CreatedRayCluster",
      `Created RayCluster ${this.ctx.ns}/${name}`,
      "rayjob-controller",
    );
  }

  private deleteCluster(job: KubeObject, cluster: KubeObject): void {
    this.ctx.store.delete("rayclusters", this.ctx.ns, cluster.metadata.name, {
      propagationPolicy: "Background",
    });
    const message = `Deleted cluster ${this.ctx.ns}/${cluster.metadata.name}`;
    this.ctx.event(job, "Normal", "DeletedRayCluster", message, "rayjob-controller");
  }

  private setStatus(job: KubeObject, patch: Json): void {
    const cur = this.ctx.store.get("rayjobs", this.ctx.ns, job.metadata.name);
    if (!cur) return;
    const status: Json = { ...cur.status, ...patch };
    for (const [k, v] of Object.entries(status)) if (v === undefined) delete status[k];
    this.ctx.store.replace("rayjobs", { ...cur, status });
    Object.assign(job, this.ctx.store.get("rayjobs", this.ctx.ns, job.metadata.name));
  }

  // -------------------------------------------------------------------------------------------------
  // Losing the head: the Ray job goes with it (its state lives in the head's GCS)

  /**
   * What follows depends on who submits: in K8sJobMode the submitter pod's `ray job logs --follow` fails,
   * the submitter Job retries, finds no job and submits it again (a fresh run) — until the Job's
   * backoffLimit (default 2) is spent; in HTTPMode the operator resubmits on "job not found"; in
   * SidecarMode the head pod (restartPolicy Never) fails with its submitter container.
   */
  headLost(rayJob: string): void {
    const st = this.ctx.state(rayJob);
    const job = this.ctx.store.get("rayjobs", this.ctx.ns, rayJob);
    if (!job || !st.run || TERMINAL.has(st.run.status) || statusOf(job).jobDeploymentStatus !== "Running")
      return;
    const e = this.ctx.entrypointOf(job);
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
  lose(rayJob: string, pod: KubeObject): void {
    if (pod.metadata.labels?.["ray.io/node-type"] === "head") {
      this.headLost(rayJob);
      return;
    }
    const job = this.ctx.store.get("rayjobs", this.ctx.ns, rayJob);
    const e = job && this.ctx.entrypointOf(job);
    if (e) signalGroup(e.pgid, "SIGKILL");
    const run = this.ctx.state(rayJob).run;
    if (this.ctx.options.mode === "script" && run && !TERMINAL.has(run.status)) {
      Object.assign(run, {
        status: "FAILED",
        message: "Job entrypoint command failed with exit code -9. No logs available.",
        endTime: Date.now(),
      });
    }
  }
}

/** Go's time.Time.String() of a metav1.Time read back from the API (the operator's messages use it). */
function goTime(rfc3339: string): string {
  return rfc3339.replace("T", " ").replace("Z", " +0000 UTC");
}
