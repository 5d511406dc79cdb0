/**
 * Every RayJob status the KubeRay operator (v1.x) writes, and every pod signal the runtime reads, as the
 * run event the agent reports: waiting (with the reason shown as RUNTIME_WAITING), running, or ended with
 * an exit code, a reason and whether the infrastructure is to blame (retried) or the workload (not).
 */
import type { CoreV1Event, V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { exitCodeOf, observeRayJob, type RayJobObject } from "../../forgelet/runtimes/kuberay/states.js";

const job = (status: RayJobObject["status"], deadline?: number): RayJobObject => ({
  metadata: { name: "sf-run-x-e1" },
  spec: deadline ? { activeDeadlineSeconds: deadline } : {},
  status: { rayClusterName: "sf-run-x-e1-abcde", ...status },
});

function pod(name: string, type: "head" | "worker", status: V1Pod["status"]): V1Pod {
  return {
    metadata: {
      name,
      labels: { "ray.io/node-type": type, "starforge.dev/rank": type === "head" ? "0" : "1" },
    },
    status,
  };
}
const running = (name: string, type: "head" | "worker" = "head") =>
  pod(name, type, {
    phase: "Running",
    conditions: [{ type: "Ready", status: "True" }],
    containerStatuses: [
      { name: "ray-head", image: "img", imageID: "", ready: true, restartCount: 0, state: { running: {} } },
    ],
  });
const event = (podName: string, reason: string, message: string): CoreV1Event => ({
  metadata: {},
  involvedObject: { kind: "Pod", name: podName },
  reason,
  message,
});

describe("jobDeploymentStatus × jobStatus", () => {
  it.each([
    ["", "", "waiting", /is starting \(created; 0 of its pods ready\)/],
    ["Initializing", "", "waiting", /sf-run-x-e1-abcde is starting \(Initializing/],
    ["Running", "", "waiting", /the Ray job is being submitted/],
    ["Running", "PENDING", "waiting", /the Ray job is PENDING/],
    ["Waiting", "", "waiting", /starting \(Waiting/],
  ])("%s / %s → %s", (dep, js, phase, reason) => {
    const o = observeRayJob(job({ jobDeploymentStatus: dep, jobStatus: js }), [], []);
    expect(o.phase).toBe(phase);
    expect((o as { reason: string }).reason).toMatch(reason);
  });

  it("Running / RUNNING → running", () => {
    expect(
      observeRayJob(job({ jobDeploymentStatus: "Running", jobStatus: "RUNNING" }), [running("h")], []),
    ).toEqual({
      phase: "running",
    });
  });

  it("Complete / SUCCEEDED → exit 0", () => {
    expect(observeRayJob(job({ jobDeploymentStatus: "Complete", jobStatus: "SUCCEEDED" }), [], [])).toEqual({
      phase: "ended",
      exitCode: 0,
      reason: "the Ray job SUCCEEDED",
      infra: false,
    });
  });

  it("Failed / FAILED (AppFailed) → the entrypoint's exit code, the workload's failure", () => {
    const o = observeRayJob(
      job({
        jobDeploymentStatus: "Failed",
        jobStatus: "FAILED",
        reason: "AppFailed",
        message:
          "Job entrypoint command failed with exit code 3, last available logs (truncated to 20,000 chars):\nboom",
      }),
      [],
      [],
    );
    expect(o).toEqual({
      phase: "ended",
      exitCode: 3,
      reason:
        "the Ray job FAILED (Failed: AppFailed): Job entrypoint command failed with exit code 3, last available logs (truncated to 20,000 chars):",
      infra: false,
    });
  });

  it("Complete / FAILED (KubeRay before 1.2) → the exit code too", () => {
    const o = observeRayJob(
      job({
        jobDeploymentStatus: "Complete",
        jobStatus: "FAILED",
        message: "Job entrypoint command failed with exit code 2",
      }),
      [],
      [],
    );
    expect(o).toMatchObject({ phase: "ended", exitCode: 2, infra: false });
  });

  it("Running / SUCCEEDED or FAILED (K8sJobMode: KubeRay waits for its submitter) → the Ray job's end decides", () => {
    expect(observeRayJob(job({ jobDeploymentStatus: "Running", jobStatus: "SUCCEEDED" }), [], [])).toEqual({
      phase: "ended",
      exitCode: 0,
      reason: "the Ray job SUCCEEDED",
      infra: false,
    });
    expect(
      observeRayJob(
        job({
          jobDeploymentStatus: "Running",
          jobStatus: "FAILED",
          message: "Job entrypoint command failed with exit code 4",
        }),
        [],
        [],
      ),
    ).toMatchObject({ phase: "ended", exitCode: 4, infra: false });
  });

  it("Failed (JobDeploymentStatusTransitionGracePeriodExceeded) after the Ray job FAILED → the workload's failure", () => {
    const o = observeRayJob(
      job({
        jobDeploymentStatus: "Failed",
        jobStatus: "FAILED",
        reason: "JobDeploymentStatusTransitionGracePeriodExceeded",
        message: "Job entrypoint command failed with exit code 2",
      }),
      [],
      [],
    );
    expect(o).toMatchObject({ phase: "ended", exitCode: 2, infra: false });
  });

  it("Running / PENDING and Running / (none) are flagged as the Ray job pending (a job that ran and goes back there was lost)", () => {
    for (const js of ["", "PENDING"]) {
      expect(observeRayJob(job({ jobDeploymentStatus: "Running", jobStatus: js }), [], [])).toMatchObject({
        phase: "waiting",
        rayPending: true,
      });
    }
    expect(observeRayJob(job({ jobDeploymentStatus: "Initializing" }), [], [])).not.toHaveProperty(
      "rayPending",
      true,
    );
  });

  it("Complete / STOPPED → ended, no exit code", () => {
    expect(
      observeRayJob(job({ jobDeploymentStatus: "Complete", jobStatus: "STOPPED" }), [], []),
    ).toMatchObject({
      phase: "ended",
      exitCode: null,
      reason: "the Ray job was STOPPED",
      infra: false,
    });
  });

  it.each([
    ["DeadlineExceeded", false, /time limit \(activeDeadlineSeconds 60\) was exceeded/],
    ["PreRunningDeadlineExceeded", true, /did not start the job in time/],
    ["SubmissionFailed", true, /could not submit the job to Ray/],
    ["JobDeploymentStatusTransitionGracePeriodExceeded", true, /lost track of the Ray job/],
    ["JobStatusCheckTimeoutExceeded", true, /stopped answering/],
    ["ValidationFailed", false, /refused the RayJob/],
  ])("Failed (%s) → infra %s", (reason, infra, text) => {
    const o = observeRayJob(
      job({ jobDeploymentStatus: "Failed", jobStatus: "RUNNING", reason, message: "m" }, 60),
      [],
      [],
    );
    expect(o).toMatchObject({ phase: "ended", exitCode: null, infra });
    expect((o as { reason: string }).reason).toMatch(text);
  });

  it("ValidationFailed (the deployment status itself) → KubeRay's refusal, the workload's", () => {
    expect(
      observeRayJob(job({ jobDeploymentStatus: "ValidationFailed", message: "bad spec" }), [], []),
    ).toMatchObject({
      phase: "ended",
      infra: false,
      reason: "KubeRay refused the RayJob: bad spec",
    });
  });

  it.each(["Suspending", "Suspended"])("%s (outside StarForge) → ended, infrastructure", (dep) => {
    expect(observeRayJob(job({ jobDeploymentStatus: dep }), [], [])).toMatchObject({
      phase: "ended",
      infra: true,
    });
  });

  it("Retrying (KubeRay's own retry) → ended, infrastructure: the control plane decides retries", () => {
    expect(
      observeRayJob(job({ jobDeploymentStatus: "Retrying", reason: "AppFailed" }), [], []),
    ).toMatchObject({
      phase: "ended",
      infra: true,
    });
  });

  it("exitCodeOf reads Ray's message, or says it does not know", () => {
    expect(exitCodeOf("Job entrypoint command failed with exit code 143")).toBe(143);
    expect(exitCodeOf("something else")).toBeNull();
    expect(exitCodeOf(undefined)).toBeNull();
  });
});

describe("pod signals", () => {
  const initializing = job({ jobDeploymentStatus: "Initializing" });
  const runningJob = job({ jobDeploymentStatus: "Running", jobStatus: "RUNNING" });

  it("ErrImagePull / ImagePullBackOff → waiting, the image named, flagged as an image pull", () => {
    for (const reason of ["ErrImagePull", "ImagePullBackOff"]) {
      const p = pod("h", "head", {
        phase: "Pending",
        containerStatuses: [
          {
            name: "ray-head",
            image: "reg/x:1",
            imageID: "",
            ready: false,
            restartCount: 0,
            state: { waiting: { reason, message: "manifest unknown" } },
          },
        ],
      });
      expect(observeRayJob(initializing, [p], [])).toEqual({
        phase: "waiting",
        reason: `image reg/x:1 cannot be pulled: head pod h (rank 0): ${reason}: manifest unknown`,
        imagePull: true,
      });
    }
  });

  it("InvalidImageName → ended at once, the user's to fix", () => {
    const p = pod("h", "head", {
      phase: "Pending",
      containerStatuses: [
        {
          name: "ray-head",
          image: "Bad Name",
          imageID: "",
          ready: false,
          restartCount: 0,
          state: { waiting: { reason: "InvalidImageName", message: "bad" } },
        },
      ],
    });
    expect(observeRayJob(initializing, [p], [])).toMatchObject({
      phase: "ended",
      infra: false,
      reason: /InvalidImageName/,
    });
  });

  it("Unschedulable → waiting with the scheduler's message (from the condition, else its FailedScheduling event)", () => {
    const p = pod("w", "worker", {
      phase: "Pending",
      conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable" }],
    });
    const o = observeRayJob(
      initializing,
      [p],
      [event("w", "FailedScheduling", "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.")],
    );
    expect(o).toEqual({
      phase: "waiting",
      reason:
        "worker pod w (rank 1) cannot be scheduled (Unschedulable): 0/3 nodes are available: 3 Insufficient nvidia.com/gpu.",
    });
  });

  it("OOMKilled → the workload's failure, exit 137", () => {
    const p = pod("h", "head", {
      phase: "Running",
      containerStatuses: [
        {
          name: "ray-head",
          image: "i",
          imageID: "",
          ready: false,
          restartCount: 0,
          state: { terminated: { reason: "OOMKilled", exitCode: 137 } },
        },
      ],
    });
    expect(observeRayJob(runningJob, [p], [])).toEqual({
      phase: "ended",
      exitCode: 137,
      reason: "head pod h (rank 0): container ray-head was killed for exceeding its memory limit (OOMKilled)",
      infra: false,
    });
  });

  it("Evicted → infrastructure", () => {
    const p = pod("w", "worker", {
      phase: "Failed",
      reason: "Evicted",
      message: "The node was low on resource: memory.",
    });
    expect(observeRayJob(runningJob, [running("h"), p], [])).toEqual({
      phase: "ended",
      exitCode: null,
      reason: "worker pod w (rank 1) was evicted: The node was low on resource: memory.",
      infra: true,
    });
  });

  it("preempted (DisruptionTarget), or only its event left once the pod is gone → infrastructure", () => {
    const p = pod("w", "worker", {
      phase: "Running",
      conditions: [
        { type: "DisruptionTarget", status: "True", reason: "PreemptionByScheduler", message: "by pod x" },
      ],
    });
    expect(observeRayJob(runningJob, [p], [])).toMatchObject({
      phase: "ended",
      infra: true,
      reason: "worker pod w (rank 1) was preempted by a higher-priority pod: by pod x",
    });
    expect(
      observeRayJob(runningJob, [running("h")], [event("w", "Preempted", "Preempted by pod y on node n1")]),
    ).toMatchObject({
      phase: "ended",
      infra: true,
      reason: "pod w was preempted: Preempted by pod y on node n1",
    });
  });

  it("a Ray container that cannot start Ray (exit 127: the image has no `ray`) → the user's failure, not retried", () => {
    const p = pod("h", "head", {
      phase: "Running",
      containerStatuses: [
        {
          name: "ray-head",
          image: "pytorch/pytorch:2.3",
          imageID: "",
          ready: false,
          restartCount: 2,
          state: { waiting: { reason: "CrashLoopBackOff" } },
          lastState: { terminated: { reason: "Error", exitCode: 127 } },
        },
      ],
    });
    expect(observeRayJob(initializing, [p], [])).toMatchObject({
      phase: "ended",
      exitCode: 127,
      infra: false,
      reason:
        "head pod h (rank 0): the image pytorch/pytorch:2.3 cannot start Ray (exit 127); a KubeRay fleet runs images with Ray installed",
    });
  });

  it("the Ray head restarted → infrastructure (the Ray job on it is lost)", () => {
    const p = pod("h", "head", {
      phase: "Running",
      containerStatuses: [
        {
          name: "ray-head",
          image: "i",
          imageID: "",
          ready: true,
          restartCount: 1,
          state: { running: {} },
          lastState: { terminated: { reason: "Error", exitCode: 1 } },
        },
      ],
    });
    expect(observeRayJob(runningJob, [p], [])).toMatchObject({
      phase: "ended",
      infra: true,
      reason: /the Ray head \(h\) restarted \(Error\)/,
    });
  });

  it("a failed Ray job whose pod was OOM-killed says OOM, not just FAILED", () => {
    const p = pod("h", "head", {
      phase: "Running",
      containerStatuses: [
        {
          name: "ray-head",
          image: "i",
          imageID: "",
          ready: false,
          restartCount: 0,
          state: { terminated: { reason: "OOMKilled", exitCode: 137 } },
        },
      ],
    });
    const failed = job({
      jobDeploymentStatus: "Failed",
      jobStatus: "FAILED",
      reason: "AppFailed",
      message: "Job entrypoint command failed with exit code 137",
    });
    expect(observeRayJob(failed, [p], [])).toMatchObject({ exitCode: 137, reason: /OOMKilled/ });
  });
});
