import { ApiException, CoreV1Api, CustomObjectsApi, KubeConfig, Watch } from "@kubernetes/client-node";
import { expect } from "vitest";
import { type Json, type K8sSim, type KubeObject, startK8sSim } from "../support/k8s-sim.js";
import { type KubeRaySim, type KubeRaySimOptions, startKubeRaySim } from "../support/kuberay-sim.js";

export let sim: K8sSim;
export let op: KubeRaySim | undefined;

export async function boot(mode?: KubeRaySimOptions["mode"]): Promise<void> {
  sim = await startK8sSim({ bookmarkIntervalMs: 100 });
  sim.addNode({ name: "gpu-node-1", gpus: 8, product: "NVIDIA-H100-80GB-HBM3" });
  sim.addNode({ name: "gpu-node-2", gpus: 8, product: "NVIDIA-H100-80GB-HBM3" });
  if (mode) op = startKubeRaySim(sim, { mode, tickMs: 20, graceScale: 0.01 });
}

/** After each test: the operator reported no reconcile error, and both simulators are stopped. */
export async function shutDown(): Promise<void> {
  if (op) expect(op.errors).toEqual([]);
  await op?.stop();
  op = undefined;
  await sim?.close();
}

export function api(token = sim.token) {
  const kc = new KubeConfig();
  kc.loadFromString(sim.kubeconfig(token));
  return { kc, core: kc.makeApiClient(CoreV1Api), custom: kc.makeApiClient(CustomObjectsApi) };
}

export const rj = () => ({ group: "ray.io", version: "v1", namespace: sim.namespace, plural: "rayjobs" });

export interface JobOptions {
  entrypoint?: string;
  labels?: Record<string, string>;
  env?: Json[];
  spec?: Json;
  workers?: number;
}

/** A RayJob as forgelet renders one: head and workers pinned to a node, the run's Secret in the head's env. */
export function rayJob(name: string, o: JobOptions = {}): Json {
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

export async function createJob(name: string, o: JobOptions = {}): Promise<KubeObject> {
  return (await api().custom.createNamespacedCustomObject({
    ...rj(),
    body: rayJob(name, o),
    fieldValidation: "Strict",
  })) as KubeObject;
}

/** The Status a refused call answered with. */
export async function refused(call: Promise<unknown>): Promise<{ code: number; body: Json }> {
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

export async function waitFor<T>(what: string, probe: () => T | undefined | false, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const statusOf = (name: string) => (sim.get("rayjobs", name)?.status ?? {}) as Json;
export const podsOf = (name: string) => sim.list("pods", `ray.io/cluster=${statusOf(name).rayClusterName}`);
export const eventsAbout = (name: string) =>
  sim.list("events").filter((e) => (e.involvedObject as Json).name === name);

export async function waitDeployment(name: string, deployment: string, jobStatus?: string): Promise<Json> {
  return waitFor(`RayJob ${name} ${deployment}/${jobStatus ?? "-"}`, () => {
    const s = statusOf(name);
    return (
      s.jobDeploymentStatus === deployment && (jobStatus === undefined || s.jobStatus === jobStatus) && s
    );
  });
}

export interface Recorded {
  events: Array<{ type: string; object: KubeObject }>;
  done: Promise<unknown>;
  stop: () => void;
}

/** Every event of a watch through client-node's Watch, and how it ended (null, or the error). */
export async function record(
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

export const rayJobsPath = () => `/apis/ray.io/v1/namespaces/${sim.namespace}/rayjobs`;
