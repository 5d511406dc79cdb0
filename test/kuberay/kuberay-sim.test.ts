/**
 * The KubeRay operator simulator (test/support/kuberay-sim.ts) that forgelet's KubeRay runtime is tested
 * against, through @kubernetes/client-node: KubeRay's status sequences for success and failure, labels
 * and placement, each injected fault (missing Secret, image pull, unschedulable, OOM, eviction,
 * preemption, head loss, deadline, retries, suspend), an API outage, and nothing left after a delete.
 * It simulates the KubeRay operator with the scheduler and kubelet: no real scheduling or resource
 * accounting, and the entrypoint runs as a local process (see the support file's header).
 */
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import type { Json, KubeObject } from "../support/k8s-sim.js";
import { processGroupAlive } from "../support/kuberay-sim.js";
import {
  api,
  boot,
  createJob,
  eventsAbout,
  op,
  podsOf,
  rayJobsPath,
  record,
  rj,
  shutDown,
  sim,
  statusOf,
  waitDeployment,
  waitFor,
} from "./sim-fixtures.js";

afterEach(shutDown);

describe("the KubeRay operator simulator", () => {
  const secretEnv = [
    { name: "SF_TOKEN", valueFrom: { secretKeyRef: { name: "run-secret", key: "token" } } },
    { name: "SF_RUN", value: "r-1" },
  ];

  async function runSecret(): Promise<void> {
    const body = {
      metadata: { name: "run-secret" },
      data: { token: Buffer.from("s3cr3t").toString("base64") },
    };
    await api().core.createNamespacedSecret({ namespace: sim.namespace, body });
  }

  it("process mode: runs the entrypoint with the head's env to SUCCEEDED, through KubeRay's sequence", async () => {
    await boot("process");
    await runSecret();
    const w = await record(rayJobsPath());
    await createJob("ok", {
      entrypoint: 'echo "token=$SF_TOKEN run=$SF_RUN home=$HOME"; exit 0',
      env: secretEnv,
      labels: { "starforge.dev/run": "r-1" },
    });
    const done = await waitDeployment("ok", "Complete", "SUCCEEDED");

    const steps = w.events.map(
      (e) => `${e.object.status?.jobDeploymentStatus ?? ""}/${e.object.status?.jobStatus ?? ""}`,
    );
    const distinct = steps.filter((s, i) => s !== steps[i - 1]);
    expect(distinct).toEqual([
      "/",
      "Initializing/",
      "Running/",
      "Running/PENDING",
      "Running/RUNNING",
      "Complete/SUCCEEDED",
    ]);
    expect(w.events[1]?.object.metadata.finalizers).toEqual(["ray.io/rayjob-finalizer"]);
    expect(done).toMatchObject({
      jobId: expect.stringMatching(/^ok-[a-z0-9]{5}$/),
      rayClusterName: expect.stringMatching(/^ok-[a-z0-9]{5}$/),
      dashboardURL: `${done.rayClusterName}-head-svc.starforge.svc.cluster.local:8265`,
      message: "Job finished successfully.",
      failed: 0,
      succeeded: 1,
      startTime: expect.any(String),
      endTime: expect.any(String),
      rayJobInfo: { startTime: expect.any(String), endTime: expect.any(String) },
    });
    expect(op?.logs("ok")).toMatch(/^token=s3cr3t run=r-1 home=\/tmp\/kuberay-sim-home-\w+\n$/);

    const cluster = w.events.length && sim.store.list("events").find((e) => e.reason === "CreatedRayCluster");
    expect(cluster && (cluster.involvedObject as Json).name).toBe("ok");
    const scheduled = sim
      .list("events")
      .filter((e) => e.reason === "Scheduled")
      .map((e) => e.message);
    expect(scheduled).toEqual([
      expect.stringMatching(
        new RegExp(`^Successfully assigned starforge/${done.rayClusterName}-head-\\w{5} to gpu-node-1$`),
      ),
      expect.stringMatching(
        new RegExp(
          `^Successfully assigned starforge/${done.rayClusterName}-gpu-worker-\\w{5} to gpu-node-2$`,
        ),
      ),
    ]);
    const kubelet = sim
      .list("events")
      .filter((e) => (e.source as Json).component === "kubelet")
      .map((e) => e.reason);
    expect(kubelet.slice(0, 4)).toEqual(["Pulling", "Pulling", "Pulled", "Created"]);
    // shutdownAfterJobFinishes with ttl 0: the RayCluster and its pods go, the RayJob stays.
    await waitFor(
      "the RayCluster gone",
      () => sim.list("rayclusters").length === 0 && sim.list("pods").length === 0,
    );
    expect(sim.get("rayjobs", "ok")).toBeDefined();
    expect(op?.liveProcessGroups()).toEqual([]);
    w.stop();
  });

  it("labels the RayCluster and its pods as KubeRay does and places them on the affinity's node", async () => {
    await boot("script");
    await createJob("lab", { labels: { "starforge.dev/run": "r-7" }, workers: 2 });
    await waitDeployment("lab", "Running", "PENDING");
    const [cluster] = sim.list("rayclusters");
    expect(cluster?.metadata.labels).toEqual({
      "app.kubernetes.io/managed-by": "forgelet",
      "starforge.dev/run": "r-7",
      "ray.io/originated-from-cr-name": "lab",
      "ray.io/originated-from-crd": "RayJob",
      "ray.io/job-submission-mode": "K8sJobMode",
    });
    expect(cluster?.metadata.ownerReferences).toEqual([
      {
        apiVersion: "ray.io/v1",
        kind: "RayJob",
        name: "lab",
        uid: sim.get("rayjobs", "lab")?.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(cluster?.status).toMatchObject({
      state: "ready",
      desiredWorkerReplicas: 2,
      readyWorkerReplicas: 2,
    });
    const pods = podsOf("lab");
    const head = pods.find((p) => p.metadata.labels?.["ray.io/node-type"] === "head");
    expect(head?.metadata.name).toMatch(new RegExp(`^${cluster?.metadata.name}-head-\\w{5}$`));
    expect(head?.metadata.labels).toMatchObject({
      "ray.io/cluster": cluster?.metadata.name,
      "ray.io/group": "headgroup",
      "ray.io/is-ray-node": "yes",
      "starforge.dev/run": "lab",
    });
    expect(head?.spec?.nodeName).toBe("gpu-node-1");
    expect(head?.status).toMatchObject({
      phase: "Running",
      containerStatuses: [{ name: "ray-head", ready: true, state: { running: {} } }],
    });
    expect(((head?.status?.conditions ?? []) as Json[]).map((c) => `${c.type}=${c.status}`).sort()).toEqual([
      "ContainersReady=True",
      "Initialized=True",
      "PodScheduled=True",
      "Ready=True",
    ]);
    const workers = pods.filter((p) => p.metadata.labels?.["ray.io/node-type"] === "worker");
    expect(workers.map((p) => [p.spec?.nodeName, p.metadata.labels?.["ray.io/group"]])).toEqual([
      ["gpu-node-2", "gpu"],
      ["gpu-node-2", "gpu"],
    ]);
    expect(workers[0]?.metadata.name).toMatch(new RegExp(`^${cluster?.metadata.name}-gpu-worker-\\w{5}$`));
    const { core } = api();
    const byEvent = await core.listNamespacedEvent({
      namespace: sim.namespace,
      fieldSelector: `involvedObject.kind=Pod,involvedObject.name=${head?.metadata.name}`,
    });
    expect(byEvent.items.map((e) => e.reason)).toEqual([
      "Scheduled",
      "Pulling",
      "Pulled",
      "Created",
      "Started",
    ]);
    expect(byEvent.items[1]?.involvedObject.fieldPath).toBe("spec.containers{ray-head}");
  });

  it("process mode: a failing entrypoint fails the RayJob with Ray's message, and backoffLimit 0 never retries", async () => {
    await boot("process");
    await createJob("bad", { entrypoint: "echo starting; echo 'Traceback: boom' >&2; exit 3" });
    const s = await waitDeployment("bad", "Failed", "FAILED");
    expect(s).toMatchObject({
      reason: "AppFailed",
      message:
        "Job entrypoint command failed with exit code 3, last available logs (truncated to 20,000 chars):\nstarting\nTraceback: boom",
      failed: 1,
      succeeded: 0,
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(statusOf("bad")).toMatchObject({ jobDeploymentStatus: "Failed", failed: 1 });
    expect(
      sim
        .list("events")
        .some((e) => e.reason === "CreatedRayCluster" && (e.involvedObject as Json).name === "bad"),
    ).toBe(true);
    expect(sim.list("events").filter((e) => e.reason === "CreatedRayCluster")).toHaveLength(1);
  });

  it("a missing Secret keeps the head in CreateContainerConfigError and the RayJob Initializing", async () => {
    await boot("process");
    await createJob("nosecret", { env: secretEnv, entrypoint: 'test "$SF_TOKEN" = s3cr3t' });
    const head = await waitFor("CreateContainerConfigError", () =>
      podsOf("nosecret").find((p) => JSON.stringify(p.status).includes("CreateContainerConfigError")),
    );
    expect(head.status).toMatchObject({
      phase: "Pending",
      containerStatuses: [
        {
          state: {
            waiting: { reason: "CreateContainerConfigError", message: 'secret "run-secret" not found' },
          },
        },
      ],
    });
    expect(
      eventsAbout(head.metadata.name).some(
        (e) => e.reason === "Failed" && e.message === 'Error: secret "run-secret" not found',
      ),
    ).toBe(true);
    // KubeRay's HeadPodReady condition names the waiting container's reason; the RayJob mirrors it.
    const headReady = () =>
      ((statusOf("nosecret").rayClusterStatus as Json | undefined)?.conditions as Json[] | undefined)?.find(
        (c) => c.type === "HeadPodReady",
      );
    await waitFor("HeadPodReady with the reason", () => headReady()?.reason === "CreateContainerConfigError");
    expect(headReady()).toMatchObject({ status: "False", message: 'secret "run-secret" not found' });
    expect(statusOf("nosecret").jobDeploymentStatus).toBe("Initializing");
    await runSecret();
    await waitDeployment("nosecret", "Complete", "SUCCEEDED");
  });

  it("an image that cannot be pulled: ErrImagePull, then ImagePullBackOff, the RayJob Initializing", async () => {
    await boot("script");
    await createJob("pull");
    op?.imagePullFails("pull");
    const head = await waitFor("ImagePullBackOff", () =>
      podsOf("pull").find((p) => JSON.stringify(p.status).includes("ImagePullBackOff")),
    );
    expect(head.status).toMatchObject({
      phase: "Pending",
      containerStatuses: [
        {
          state: {
            waiting: {
              reason: "ImagePullBackOff",
              message: 'Back-off pulling image "rayproject/ray:2.41.0-gpu"',
            },
          },
        },
      ],
    });
    const reasons = eventsAbout(head.metadata.name).map((e) => `${e.type}/${e.reason}`);
    expect(reasons).toEqual([
      "Normal/Scheduled",
      "Normal/Pulling",
      "Warning/Failed",
      "Warning/Failed",
      "Normal/BackOff",
      "Warning/Failed",
    ]);
    expect(statusOf("pull").jobDeploymentStatus).toBe("Initializing");
  });

  it("a pod that cannot be scheduled: PodScheduled False Unschedulable, FailedScheduling from default-scheduler", async () => {
    await boot("script");
    const why =
      "0/2 nodes are available: 2 Insufficient nvidia.com/gpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.";
    op?.unschedulable("sched", why);
    // Several operator ticks pass before the RayJob exists (as under load): the fault holds meanwhile.
    await new Promise((r) => setTimeout(r, 200));
    await createJob("sched");
    const pod = await waitFor("Unschedulable", () =>
      podsOf("sched").find((p) => JSON.stringify(p.status).includes("Unschedulable")),
    );
    expect(pod.spec?.nodeName).toBeUndefined();
    expect(pod.status).toMatchObject({
      phase: "Pending",
      conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable", message: why }],
    });
    const failed = eventsAbout(pod.metadata.name).find((e) => e.reason === "FailedScheduling");
    expect(failed).toMatchObject({
      type: "Warning",
      message: why,
      source: { component: "default-scheduler" },
    });
    expect(statusOf("sched").jobDeploymentStatus).toBe("Initializing");

    await createJob("lost-node", { spec: {} });
    sim.patchNode("gpu-node-1", { unschedulable: true });
    await createJob("cordoned");
    const cordoned = await waitFor("cordoned", () =>
      podsOf("cordoned").find((p) => JSON.stringify(p.status).includes("Unschedulable")),
    );
    expect(JSON.stringify(cordoned.status)).toContain(
      "0/2 nodes are available: 1 node(s) were unschedulable, 1 node(s) didn't match Pod's node affinity/selector.",
    );
  });

  it("a worker OOMKilled, evicted or preempted fails the workload: the RayJob Failed (AppFailed)", async () => {
    await boot("process");
    const sleeper = "echo up; sleep 30";
    // The RayClusters stay after the failure (no shutdownAfterJobFinishes), to show the replaced workers.
    const spec = { shutdownAfterJobFinishes: false };
    for (const name of ["oom", "evicted", "preempted"]) await createJob(name, { entrypoint: sleeper, spec });
    for (const name of ["oom", "evicted", "preempted"]) await waitDeployment(name, "Running", "RUNNING");

    const worker = (name: string) =>
      podsOf(name).find((p) => p.metadata.labels?.["ray.io/node-type"] === "worker");
    op?.oomKill("oom", "worker");
    const oomed = await waitFor("restartCount 1", () => {
      const c = ((worker("oom")?.status?.containerStatuses ?? []) as Json[])[0];
      return c?.restartCount === 1 && c;
    });
    expect(oomed).toMatchObject({
      lastState: { terminated: { reason: "OOMKilled", exitCode: 137 } },
      state: { running: {} },
    });

    const evictedPod = worker("evicted");
    op?.evict("evicted", String(evictedPod?.metadata.name));
    const evictedEvent = await waitFor("Evicted event", () =>
      eventsAbout(String(evictedPod?.metadata.name)).find((e) => e.reason === "Evicted"),
    );
    expect(evictedEvent.message).toMatch(/^The node was low on resource: memory\./);

    const preemptedPod = worker("preempted");
    op?.preempt("preempted", String(preemptedPod?.metadata.name));
    const preempted = eventsAbout(String(preemptedPod?.metadata.name)).find((e) => e.reason === "Preempted");
    expect(preempted).toMatchObject({ type: "Normal", source: { component: "default-scheduler" } });

    for (const name of ["oom", "evicted", "preempted"]) {
      const s = await waitDeployment(name, "Failed", "FAILED");
      expect(s.reason).toBe("AppFailed");
      expect(s.message).toBe(
        "Job entrypoint command failed with exit code -9, last available logs (truncated to 20,000 chars):\nup",
      );
    }
    // KubeRay replaces the evicted and the preempted worker.
    await waitFor("replacement workers", () =>
      [worker("evicted"), worker("preempted")].every(
        (p) =>
          p?.status?.phase === "Running" &&
          p.metadata.name !== evictedPod?.metadata.name &&
          p.metadata.name !== preemptedPod?.metadata.name,
      ),
    );
  });

  it("losing the head loses the Ray job: K8sJobMode resubmits it until the submitter's backoffLimit is spent", async () => {
    await boot("process");
    await createJob("head", { entrypoint: "echo run; sleep 30" });
    await waitDeployment("head", "Running", "RUNNING");
    // RUNNING as the supervisor spawns the entrypoint: on a loaded machine bash may not have printed yet,
    // and a head lost before that leaves no first "run" to count.
    await waitFor("the first run's output", () => op?.logs("head") === "run\n");
    const w = await record(rayJobsPath(), { resourceVersion: sim.store.resourceVersion });

    op?.restartHead("head");
    await waitFor("a second run", () => op?.logs("head") === "run\nrun\n");
    const headPod = podsOf("head").find((p) => p.metadata.labels?.["ray.io/node-type"] === "head");
    expect(((headPod?.status?.containerStatuses ?? []) as Json[])[0]).toMatchObject({
      restartCount: 1,
      lastState: { terminated: { exitCode: 1, reason: "Error" } },
      state: { running: {} },
    });
    op?.oomKill("head", "head");
    await waitFor("a third run", () => op?.logs("head") === "run\nrun\nrun\n");
    await waitDeployment("head", "Running", "RUNNING");
    op?.restartHead("head");
    const s = await waitDeployment("head", "Failed");
    expect(s).toMatchObject({
      jobStatus: "RUNNING",
      reason: "SubmissionFailed",
      message:
        "Job submission has failed. Reason: BackoffLimitExceeded. Message: Job has reached the specified backoff limit",
    });
    const statuses = w.events.map((e) => e.object.status?.jobStatus).filter((x, i, a) => x !== a[i - 1]);
    expect(statuses).toEqual(["PENDING", "RUNNING", "PENDING", "RUNNING"]);
    w.stop();
  });

  it("HTTPMode resubmits after a head loss, SidecarMode fails", async () => {
    await boot("script");
    await createJob("http", { spec: { submissionMode: "HTTPMode" } });
    await createJob("sidecar", { spec: { submissionMode: "SidecarMode" } });
    for (const name of ["http", "sidecar"]) {
      op?.run(name);
      await waitDeployment(name, "Running", "RUNNING");
      op?.restartHead(name);
    }
    await waitDeployment("http", "Running", "PENDING");
    expect(await waitDeployment("sidecar", "Failed")).toMatchObject({ reason: "SubmissionFailed" });
    op?.run("http");
    op?.finish("http", "SUCCEEDED");
    await waitDeployment("http", "Complete", "SUCCEEDED");
  });

  it("activeDeadlineSeconds: Failed with DeadlineExceeded, jobStatus as it was; shutdownAfterJobFinishes then stops the entrypoint", async () => {
    await boot("process");
    // 2 s: startTime has second precision, so the deadline may come up to a second early.
    await createJob("late", { entrypoint: "sleep 30", spec: { activeDeadlineSeconds: 2 } });
    await waitDeployment("late", "Running", "RUNNING");
    const s = await waitDeployment("late", "Failed");
    expect(s).toMatchObject({ jobStatus: "RUNNING", reason: "DeadlineExceeded", failed: 1 });
    expect(s.message).toMatch(
      /^The RayJob has passed the activeDeadlineSeconds\. StartTime: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0000 UTC\. ActiveDeadlineSeconds: 2$/,
    );
    await waitFor(
      "the entrypoint gone with the cluster",
      () => sim.list("pods").length === 0 && op?.liveProcessGroups().length === 0,
    );
  });

  it("backoffLimit 1: a failure is Retrying on a new RayCluster, the second is final", async () => {
    await boot("script");
    await createJob("retry", { spec: { backoffLimit: 1 } });
    await waitDeployment("retry", "Running", "PENDING");
    const first = String(statusOf("retry").rayClusterName);
    op?.finish("retry", "FAILED", "Job entrypoint command failed with exit code 1. No logs available.");
    await waitFor("a new cluster", () => {
      const name = statusOf("retry").rayClusterName;
      return (
        name &&
        name !== first &&
        statusOf("retry").jobDeploymentStatus === "Running" &&
        statusOf("retry").jobStatus === "PENDING"
      );
    });
    expect(sim.get("rayclusters", first)).toBeUndefined();
    expect(statusOf("retry")).toMatchObject({ failed: 1, succeeded: 0 });
    op?.finish("retry", "FAILED");
    expect(await waitDeployment("retry", "Failed", "FAILED")).toMatchObject({
      failed: 2,
      reason: "AppFailed",
    });
  });

  it("suspend: the RayCluster goes and the RayJob is Suspended with its status reset", async () => {
    await boot("script");
    await createJob("susp");
    await waitDeployment("susp", "Running", "PENDING");
    op?.suspend("susp");
    const s = await waitDeployment("susp", "Suspended");
    expect(s.rayClusterName).toBeUndefined();
    expect(s.jobStatus).toBeUndefined();
    await waitFor("no pods", () => sim.list("pods").length === 0 && sim.list("rayclusters").length === 0);
  });

  it("an API outage breaks watches; the job goes on, and a watch from the last resourceVersion catches up", async () => {
    await boot("process");
    await createJob("outage", { entrypoint: "echo before; sleep 0.6; echo after" });
    await waitDeployment("outage", "Running", "RUNNING");
    const w = await record(rayJobsPath(), { resourceVersion: sim.store.resourceVersion }, sim.token);
    const seen = sim.store.resourceVersion;
    await sim.outage(true);
    expect(await w.done).toBeInstanceOf(Error);
    const down = await api()
      .custom.listNamespacedCustomObject({ ...rj() })
      .catch((e: Error) => e);
    expect(String(down)).toMatch(/ECONNREFUSED/);
    await waitDeployment("outage", "Complete", "SUCCEEDED");
    await sim.outage(false);
    const again = await record(rayJobsPath(), { resourceVersion: seen }, sim.token);
    await waitFor("the missed change", () =>
      again.events.some((e) => e.object.status?.jobStatus === "SUCCEEDED"),
    );
    expect(op?.logs("outage")).toBe("before\nafter\n");
    again.stop();

    await sim.outage(150);
    await waitFor("back", () => sim.requests.length > 0);
    await new Promise((r) => setTimeout(r, 250));
    expect(
      (await api().custom.getNamespacedCustomObject({ ...rj(), name: "outage" })) as KubeObject,
    ).toBeDefined();
  });

  it("a deleted RayJob leaves nothing: no process (nor its children), RayCluster, pod or temp dir; stop() kills the rest", async () => {
    await boot("process");
    const leftBefore = readdirSync(tmpdir()).filter((d) => d.startsWith("kuberay-sim-"));
    // It ignores SIGTERM and leaves a child behind: only SIGKILL of its process group ends it all.
    await createJob("del", { entrypoint: "trap '' TERM; (sleep 60 &); sleep 60" });
    await waitDeployment("del", "Running", "RUNNING");
    const groups = op?.liveProcessGroups() ?? [];
    expect(groups).toHaveLength(1);
    await api().custom.deleteNamespacedCustomObject({
      ...rj(),
      name: "del",
      propagationPolicy: "Background",
    });
    await waitFor(
      "all gone",
      () =>
        !sim.get("rayjobs", "del") && sim.list("rayclusters").length === 0 && sim.list("pods").length === 0,
    );
    expect(op?.liveProcessGroups()).toEqual([]);
    expect(groups.filter(processGroupAlive)).toEqual([]);
    expect(readdirSync(tmpdir()).filter((d) => d.startsWith("kuberay-sim-"))).toEqual(leftBefore);

    await createJob("left", { entrypoint: "sleep 60" });
    await waitDeployment("left", "Running", "RUNNING");
    const left = op?.liveProcessGroups() ?? [];
    expect(left).toHaveLength(1);
    await op?.stop(); // shutDown stops it again: a no-op
    expect(left.filter(processGroupAlive)).toEqual([]);
  });
});
