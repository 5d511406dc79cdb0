/**
 * The Kubernetes API simulator and the KubeRay operator simulator that forgelet's KubeRay runtime is
 * tested against, proven through @kubernetes/client-node 1.4.0 (the runtime's own client): the wire
 * format (lists, watches from a resourceVersion, 410 Expired, Status errors), the status subresource,
 * the RBAC of deploy/kuberay/rbac.yaml (what the runtime needs and nothing more), Foreground deletion,
 * an API outage, and KubeRay's status sequences for success, failure and each injected fault.
 *
 * These are simulators: of kube-apiserver (with the garbage collector), and of the KubeRay operator with
 * the scheduler and kubelet; no admission webhooks, CEL rules, defaulting, real scheduling or resource
 * accounting, and the entrypoint runs as a local process (see the header of each support file).
 */
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import {
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  VersionApi,
  Watch,
} from "@kubernetes/client-node";
import { afterEach, describe, expect, it } from "vitest";
import { type Json, type K8sSim, type KubeObject, startK8sSim } from "../support/k8s-sim.js";
import {
  type KubeRaySim,
  type KubeRaySimOptions,
  processGroupAlive,
  startKubeRaySim,
} from "../support/kuberay-sim.js";

let sim: K8sSim;
let op: KubeRaySim | undefined;

async function boot(mode?: KubeRaySimOptions["mode"]): Promise<void> {
  sim = await startK8sSim({ bookmarkIntervalMs: 100 });
  sim.addNode({ name: "gpu-node-1", gpus: 8, product: "NVIDIA-H100-80GB-HBM3" });
  sim.addNode({ name: "gpu-node-2", gpus: 8, product: "NVIDIA-H100-80GB-HBM3" });
  if (mode) op = startKubeRaySim(sim, { mode, tickMs: 20, graceScale: 0.01 });
}

afterEach(async () => {
  if (op) expect(op.errors).toEqual([]);
  await op?.stop();
  op = undefined;
  await sim?.close();
});

function api(token = sim.token) {
  const kc = new KubeConfig();
  kc.loadFromString(sim.kubeconfig(token));
  return { kc, core: kc.makeApiClient(CoreV1Api), custom: kc.makeApiClient(CustomObjectsApi) };
}

const rj = () => ({ group: "ray.io", version: "v1", namespace: sim.namespace, plural: "rayjobs" });

interface JobOptions {
  entrypoint?: string;
  labels?: Record<string, string>;
  env?: Json[];
  spec?: Json;
  workers?: number;
}

/** A RayJob as forgelet renders one: head and workers pinned to a node, the run's Secret in the head's env. */
function rayJob(name: string, o: JobOptions = {}): Json {
  const pinned = (node: string, container: string, env: Json[] = []) => ({
    metadata: { labels: { "starforge.dev/run": name } },
    spec: {
      containers: [{ name: container, image: "rayproject/ray:2.41.0-gpu", env }],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: [node] }] }],
          },
        },
      },
      terminationGracePeriodSeconds: 30,
    },
  });
  const workers = o.workers ?? 1;
  return {
    apiVersion: "ray.io/v1",
    kind: "RayJob",
    metadata: { name, labels: { "app.kubernetes.io/managed-by": "forgelet", ...o.labels } },
    spec: {
      entrypoint: o.entrypoint ?? "python train.py",
      shutdownAfterJobFinishes: true,
      ttlSecondsAfterFinished: 0,
      backoffLimit: 0,
      rayClusterSpec: {
        headGroupSpec: { rayStartParams: {}, template: pinned("gpu-node-1", "ray-head", o.env) },
        workerGroupSpecs: workers
          ? [
              {
                groupName: "gpu",
                replicas: workers,
                minReplicas: workers,
                maxReplicas: workers,
                rayStartParams: {},
                template: pinned("gpu-node-2", "ray-worker"),
              },
            ]
          : [],
      },
      ...o.spec,
    },
  };
}

async function createJob(name: string, o: JobOptions = {}): Promise<KubeObject> {
  return (await api().custom.createNamespacedCustomObject({
    ...rj(),
    body: rayJob(name, o),
    fieldValidation: "Strict",
  })) as KubeObject;
}

/** The Status a refused call answered with. */
async function refused(call: Promise<unknown>): Promise<{ code: number; body: Json }> {
  try {
    await call;
  } catch (err) {
    if (err instanceof ApiException) {
      const body = typeof err.body === "string" && err.body ? (JSON.parse(err.body) as Json) : {};
      return { code: err.code, body };
    }
    throw err;
  }
  throw new Error("the call was not refused");
}

async function waitFor<T>(what: string, probe: () => T | undefined | false, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const statusOf = (name: string) => (sim.get("rayjobs", name)?.status ?? {}) as Json;
const podsOf = (name: string) => sim.list("pods", `ray.io/cluster=${statusOf(name).rayClusterName}`);
const eventsAbout = (name: string) =>
  sim.list("events").filter((e) => (e.involvedObject as Json).name === name);

async function waitDeployment(name: string, deployment: string, jobStatus?: string): Promise<Json> {
  return waitFor(`RayJob ${name} ${deployment}/${jobStatus ?? "-"}`, () => {
    const s = statusOf(name);
    return (
      s.jobDeploymentStatus === deployment && (jobStatus === undefined || s.jobStatus === jobStatus) && s
    );
  });
}

interface Recorded {
  events: Array<{ type: string; object: KubeObject }>;
  done: Promise<unknown>;
  stop: () => void;
}

/** Every event of a watch through client-node's Watch, and how it ended (null, or the error). */
async function record(
  path: string,
  query: Record<string, string | number | boolean> = {},
  token = sim.adminToken,
): Promise<Recorded> {
  const events: Recorded["events"] = [];
  let end: (v: unknown) => void = () => {};
  const done = new Promise((r) => {
    end = r;
  });
  const req = await new Watch(api(token).kc).watch(
    path,
    query,
    (type, object) => events.push({ type, object }),
    end,
  );
  return { events, done, stop: () => req.abort() };
}

const rayJobsPath = () => `/apis/ray.io/v1/namespaces/${sim.namespace}/rayjobs`;

describe("the Kubernetes API simulator, through @kubernetes/client-node", () => {
  it("serves version and discovery", async () => {
    await boot();
    const kc = api().kc;
    expect((await kc.makeApiClient(VersionApi).getCode()).gitVersion).toMatch(/^v1\.31/);
    const resources = await api().custom.getAPIResources({ group: "ray.io", version: "v1" });
    expect(resources.resources.map((r) => r.name)).toEqual([
      "rayjobs",
      "rayjobs/status",
      "rayclusters",
      "rayclusters/status",
    ]);
  });

  it("creates, gets and lists RayJobs by label; answers 409 for a second create and 404 for a missing one", async () => {
    await boot();
    const created = await createJob("run-a", { labels: { "starforge.dev/run": "a" } });
    expect(created.metadata).toMatchObject({ name: "run-a", namespace: "starforge", generation: 1 });
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    await createJob("run-b", { labels: { "starforge.dev/run": "b" } });
    const generated = (await api().custom.createNamespacedCustomObject({
      ...rj(),
      body: { ...rayJob(""), metadata: { generateName: "run-" } },
    })) as KubeObject;
    expect(generated.metadata.name).toMatch(/^run-[bcdfghjklmnpqrstvwxz2456789]{5}$/);

    const got = (await api().custom.getNamespacedCustomObject({ ...rj(), name: "run-a" })) as KubeObject;
    expect(got).toMatchObject({
      apiVersion: "ray.io/v1",
      kind: "RayJob",
      metadata: { uid: created.metadata.uid },
    });
    const list = (await api().custom.listNamespacedCustomObject({
      ...rj(),
      labelSelector: "starforge.dev/run in (a,c)",
    })) as Json;
    expect(list).toMatchObject({ kind: "RayJobList", apiVersion: "ray.io/v1" });
    expect((list.items as KubeObject[]).map((i) => [i.kind, i.metadata.name])).toEqual([["RayJob", "run-a"]]);
    const notA = (await api().custom.listNamespacedCustomObject({
      ...rj(),
      labelSelector: "starforge.dev/run!=a",
    })) as Json;
    expect((notA.items as KubeObject[]).map((i) => i.metadata.name).sort()).toEqual(
      ["run-b", generated.metadata.name].sort(),
    );
    const pods = await api().core.listNamespacedPod({ namespace: sim.namespace });
    expect(pods.kind).toBe("PodList");

    const again = await refused(createJob("run-a"));
    expect(again).toMatchObject({
      code: 409,
      body: { kind: "Status", status: "Failure", reason: "AlreadyExists" },
    });
    expect(again.body.message).toBe('rayjobs.ray.io "run-a" already exists');
    const missing = await refused(api().custom.getNamespacedCustomObject({ ...rj(), name: "nope" }));
    expect(missing).toMatchObject({
      code: 404,
      body: {
        reason: "NotFound",
        message: 'rayjobs.ray.io "nope" not found',
        details: { name: "nope", group: "ray.io", kind: "rayjobs" },
      },
    });
    expect(sim.requests.filter((r) => r.method === "POST" && r.path === rayJobsPath())).toHaveLength(4);
  });

  it("decodes RayJobs as the API server does: unknown fields 400 under Strict or pruned with a Warning, schema violations 422", async () => {
    await boot();
    const unknown = rayJob("typo");
    (unknown.spec as Json).shutdownAfterJobFinish = true;
    const strict = await refused(
      api().custom.createNamespacedCustomObject({ ...rj(), body: unknown, fieldValidation: "Strict" }),
    );
    expect(strict).toMatchObject({ code: 400, body: { reason: "BadRequest" } });
    expect(strict.body.message).toBe(
      'RayJob in version "v1" cannot be handled as a RayJob: strict decoding error: unknown field "spec.shutdownAfterJobFinish"',
    );

    const res = await fetch(`${sim.url}${rayJobsPath()}`, {
      method: "POST",
      headers: { authorization: `Bearer ${sim.token}`, "content-type": "application/json" },
      body: JSON.stringify(unknown),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("warning")).toBe('299 - "unknown field \\"spec.shutdownAfterJobFinish\\""');
    expect(sim.get("rayjobs", "typo")?.spec?.shutdownAfterJobFinish).toBeUndefined();

    const wrongType = rayJob("bad");
    (wrongType.spec as Json).backoffLimit = "zero";
    const invalid = await refused(
      api().custom.createNamespacedCustomObject({ ...rj(), body: wrongType, fieldValidation: "Strict" }),
    );
    expect(invalid).toMatchObject({
      code: 422,
      body: { reason: "Invalid", details: { name: "bad", kind: "RayJob" } },
    });
    expect(invalid.body.message).toContain('RayJob.ray.io "bad" is invalid: spec.backoffLimit');
  });

  it("watches from a resourceVersion, replaying what changed since, with bookmarks; 410 Expired after compaction", async () => {
    await boot();
    await createJob("w-1", { labels: { "starforge.dev/run": "w" } });
    const list = (await api().custom.listNamespacedCustomObject({ ...rj() })) as {
      metadata: { resourceVersion: string };
    };
    const rv = list.metadata.resourceVersion;
    await createJob("w-2", { labels: { "starforge.dev/run": "w" } });
    await createJob("other", { labels: { "starforge.dev/run": "x" } });
    await api().custom.deleteNamespacedCustomObject({ ...rj(), name: "w-1" });

    const w = await record(
      rayJobsPath(),
      { resourceVersion: rv, labelSelector: "starforge.dev/run=w", allowWatchBookmarks: true },
      sim.token,
    );
    await waitFor("replay and a bookmark", () => w.events.some((e) => e.type === "BOOKMARK"));
    const changes = w.events
      .filter((e) => e.type !== "BOOKMARK")
      .map((e) => [e.type, e.object.metadata.name]);
    expect(changes).toEqual([
      ["ADDED", "w-2"],
      ["DELETED", "w-1"],
    ]);
    const bookmark = w.events.find((e) => e.type === "BOOKMARK");
    expect(bookmark?.object).toMatchObject({
      kind: "RayJob",
      apiVersion: "ray.io/v1",
      metadata: { resourceVersion: expect.any(String) },
    });
    await createJob("w-3", { labels: { "starforge.dev/run": "w" } });
    await waitFor("the live ADDED", () =>
      w.events.some((e) => e.type === "ADDED" && e.object.metadata.name === "w-3"),
    );
    // Relabelled out of the selection: the watcher sees it DELETED, as with the real watch cache.
    const w3 = sim.get("rayjobs", "w-3") as KubeObject;
    const relabelled = { ...w3, metadata: { ...w3.metadata, labels: { "starforge.dev/run": "x" } } };
    await api(sim.adminToken).custom.replaceNamespacedCustomObject({
      ...rj(),
      name: "w-3",
      body: relabelled,
    });
    const left = await waitFor("DELETED on leaving the selection", () =>
      w.events.find((e) => e.type === "DELETED" && e.object.metadata.name === "w-3"),
    );
    expect(left.object.metadata.labels).toEqual({
      "app.kubernetes.io/managed-by": "forgelet",
      "starforge.dev/run": "w",
    });
    w.stop();

    sim.compactHistory();
    const expired = await record(rayJobsPath(), { resourceVersion: rv }, sim.token);
    expect(await expired.done).toBeNull();
    expect(expired.events).toEqual([
      {
        type: "ERROR",
        object: {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: expect.stringMatching(new RegExp(`^too old resource version: ${rv} \\(\\d+\\)$`)),
          reason: "Expired",
          code: 410,
        },
      },
    ]);
    const ended = await record(
      rayJobsPath(),
      { resourceVersion: sim.store.resourceVersion, timeoutSeconds: 1 },
      sim.token,
    );
    expect(await ended.done).toBeNull();
  });

  it("keeps status to the status subresource: neither a create nor an update of the RayJob can set it", async () => {
    await boot();
    const withStatus = { ...rayJob("st"), status: { jobDeploymentStatus: "Complete" } };
    const created = (await api().custom.createNamespacedCustomObject({
      ...rj(),
      body: withStatus,
    })) as KubeObject;
    expect(created.status).toBeUndefined();
    const admin = api(sim.adminToken).custom;
    const cur = (await admin.getNamespacedCustomObject({ ...rj(), name: "st" })) as KubeObject;
    const edited = {
      ...cur,
      spec: { ...cur.spec, entrypoint: "python other.py" },
      status: { jobStatus: "SUCCEEDED" },
    };
    const updated = (await admin.replaceNamespacedCustomObject({
      ...rj(),
      name: "st",
      body: edited,
    })) as KubeObject;
    expect(updated.status).toBeUndefined();
    expect(updated.metadata.generation).toBe(2);
    const statusWrite = { ...updated, spec: { entrypoint: "ignored" }, status: { jobStatus: "RUNNING" } };
    const viaStatus = (await admin.replaceNamespacedCustomObjectStatus({
      ...rj(),
      name: "st",
      body: statusWrite,
    })) as KubeObject;
    expect(viaStatus.status).toEqual({ jobStatus: "RUNNING" });
    expect(viaStatus.spec?.entrypoint).toBe("python other.py");
    expect(viaStatus.metadata.generation).toBe(2);
    const stale = await refused(admin.replaceNamespacedCustomObject({ ...rj(), name: "st", body: edited }));
    expect(stale).toMatchObject({ code: 409, body: { reason: "Conflict" } });
  });

  it("enforces deploy/kuberay/rbac.yaml: 401 without the token, 403 beyond it, and all the runtime needs", async () => {
    await boot();
    const ns = sim.namespace;
    const { core, custom } = api();
    expect(await refused(api("not-the-token").core.listNamespacedPod({ namespace: ns }))).toMatchObject({
      code: 401,
    });

    // What the runtime does: every call succeeds for the ServiceAccount.
    await createJob("rbac-job");
    await custom.getNamespacedCustomObject({ ...rj(), name: "rbac-job" });
    await custom.listNamespacedCustomObject({ ...rj() });
    await custom.listNamespacedCustomObject({ ...rj(), plural: "rayclusters" });
    await core.listNamespacedPod({ namespace: ns });
    // Allowed reads of what does not exist answer 404 (a 403 would come first).
    const getCluster = custom.getNamespacedCustomObject({ ...rj(), plural: "rayclusters", name: "x" });
    expect((await refused(getCluster)).code).toBe(404);
    expect((await refused(core.readNamespacedPod({ namespace: ns, name: "x" }))).code).toBe(404);
    await core.listNamespacedEvent({
      namespace: ns,
      fieldSelector: "involvedObject.kind=Pod,involvedObject.name=x",
    });
    await core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: "run-secret" }, stringData: { token: "t" } },
    });
    expect(sim.get("secrets", "run-secret")?.data).toEqual({ token: "dA==" });
    // Secrets: write-only for forgelet (it creates a run's and deletes it; it never reads one back).
    expect((await refused(core.readNamespacedSecret({ namespace: ns, name: "run-secret" }))).code).toBe(403);
    expect((await refused(core.listNamespacedSecret({ namespace: ns }))).code).toBe(403);
    await core.deleteNamespacedSecret({ namespace: ns, name: "run-secret" });
    expect((await core.listNode()).items.map((n) => n.metadata?.name)).toEqual(["gpu-node-1", "gpu-node-2"]);
    await core.readNode({ name: "gpu-node-1" });
    const paths = [
      rayJobsPath(),
      `/api/v1/namespaces/${ns}/pods`,
      `/apis/ray.io/v1/namespaces/${ns}/rayclusters`,
      "/api/v1/nodes",
    ];
    const watches = await Promise.all(paths.map((path) => record(path, { timeoutSeconds: 1 }, sim.token)));
    expect(await Promise.all(watches.map((w) => w.done))).toEqual([null, null, null, null]);
    expect(watches.every((w) => w.events.every((e) => e.type === "ADDED"))).toBe(true);
    await custom.deleteNamespacedCustomObject({ ...rj(), name: "rbac-job", propagationPolicy: "Foreground" });

    // Nothing more: writes it does not need, other namespaces, the cluster scope.
    const denied = await refused(
      custom.replaceNamespacedCustomObjectStatus({ ...rj(), name: "rbac-job", body: rayJob("rbac-job") }),
    );
    expect(denied).toMatchObject({
      code: 403,
      body: {
        kind: "Status",
        status: "Failure",
        reason: "Forbidden",
        message: `rayjobs.ray.io "rbac-job" is forbidden: User "system:serviceaccount:${ns}:forgelet" cannot update resource "rayjobs/status" in API group "ray.io" in the namespace "${ns}"`,
        details: { name: "rbac-job", group: "ray.io", kind: "rayjobs" },
      },
    });
    const forbidden = [
      custom.deleteNamespacedCustomObject({ ...rj(), plural: "rayclusters", name: "x" }),
      core.deleteNamespacedPod({ namespace: ns, name: "x" }),
      core.deleteCollectionNamespacedSecret({ namespace: ns, labelSelector: "a=b" }),
      core.listNamespacedPod({ namespace: "default" }),
      core.listPodForAllNamespaces(),
      core.createNamespacedEvent({ namespace: ns, body: { metadata: { name: "e" }, involvedObject: {} } }),
      core.deleteNode({ name: "gpu-node-1" }),
    ];
    for (const call of forbidden) expect((await refused(call)).code).toBe(403);
    expect((await refused(core.listPodForAllNamespaces())).body.message).toBe(
      `pods is forbidden: User "system:serviceaccount:${ns}:forgelet" cannot list resource "pods" in API group "" at the cluster scope`,
    );
    await api(sim.adminToken).core.deleteCollectionNamespacedSecret({ namespace: ns, labelSelector: "a=b" });
  });

  it("deletes Foreground: the RayJob keeps a deletionTimestamp until its RayCluster and pods are gone", async () => {
    await boot("script");
    await createJob("fg");
    await waitDeployment("fg", "Running", "PENDING");
    const cluster = String(statusOf("fg").rayClusterName);
    const w = await record(`/apis/ray.io/v1/namespaces/${sim.namespace}/rayjobs`, {
      resourceVersion: sim.store.resourceVersion,
    });
    const pw = await record(`/api/v1/namespaces/${sim.namespace}/pods`, {
      resourceVersion: sim.store.resourceVersion,
    });
    const cw = await record(`/apis/ray.io/v1/namespaces/${sim.namespace}/rayclusters`, {
      resourceVersion: sim.store.resourceVersion,
    });

    const answer = (await api().custom.deleteNamespacedCustomObject({
      ...rj(),
      name: "fg",
      propagationPolicy: "Foreground",
    })) as KubeObject;
    expect(answer.metadata.deletionTimestamp).toBeDefined();
    expect(answer.metadata.finalizers).toEqual(["ray.io/rayjob-finalizer", "foregroundDeletion"]);
    await waitFor("the RayJob gone", () => !sim.get("rayjobs", "fg"));
    await waitFor("its DELETED event", () => w.events.some((e) => e.type === "DELETED"));
    expect(sim.list("rayclusters")).toEqual([]);
    expect(sim.list("pods")).toEqual([]);

    const jobSteps = w.events.map((e) => [e.type, e.object.metadata.finalizers ?? []]);
    expect(jobSteps).toEqual([
      ["MODIFIED", ["ray.io/rayjob-finalizer", "foregroundDeletion"]],
      ["MODIFIED", ["foregroundDeletion"]],
      ["DELETED", ["foregroundDeletion"]],
    ]);
    const podGone = Math.max(
      ...pw.events.filter((e) => e.type === "DELETED").map((e) => Number(e.object.metadata.resourceVersion)),
    );
    const terminating = pw.events.filter((e) => e.type === "MODIFIED" && e.object.metadata.deletionTimestamp);
    expect(terminating.length).toBe(2);
    expect(terminating[0]?.object.metadata.deletionGracePeriodSeconds).toBe(30);
    const clusterGone = cw.events.find((e) => e.type === "DELETED" && e.object.metadata.name === cluster);
    const jobGone = w.events.find((e) => e.type === "DELETED");
    expect(Number(clusterGone?.object.metadata.resourceVersion)).toBeGreaterThan(podGone);
    expect(Number(jobGone?.object.metadata.resourceVersion)).toBeGreaterThan(
      Number(clusterGone?.object.metadata.resourceVersion),
    );
    const gone = await api()
      .custom.deleteNamespacedCustomObject({ ...rj(), name: "fg" })
      .catch((e: ApiException<string>) => e.code);
    expect(gone).toBe(404);
    for (const x of [w, pw, cw]) x.stop();
  });
});

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
    await op?.stop();
    expect(left.filter(processGroupAlive)).toEqual([]);
    op = undefined;
  });
});
