import { type ApiException, VersionApi } from "@kubernetes/client-node";
import { afterEach, describe, expect, it } from "vitest";
import type { Json, KubeObject } from "../support/k8s-sim.js";
import {
  api,
  boot,
  createJob,
  rayJob,
  rayJobsPath,
  record,
  refused,
  rj,
  shutDown,
  sim,
  statusOf,
  waitDeployment,
  waitFor,
} from "./sim-fixtures.js";

afterEach(shutDown);

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
