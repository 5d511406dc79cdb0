/**
 * The Kubernetes calls the KubeRay runtime makes, through @kubernetes/client-node (the maintained client),
 * in one namespace — exactly what deploy/kuberay/rbac.yaml grants: RayJobs (create, get, list, watch,
 * delete), RayClusters and pods and events (read), Secrets (create, delete), nodes (read).
 *
 * Errors are sorted once here: `KubeUnavailable` (the API server cannot answer right now: connection
 * refused or reset, 429, 5xx — waited out by the caller), `KubeRefused` (a final answer: 400/403/422…),
 * and a 404 is null, never an error.
 */
import {
  ApiException,
  CoreV1Api,
  type CoreV1Event,
  CustomObjectsApi,
  KubeConfig,
  type KubernetesObject,
  ListWatch,
  type V1Node,
  type V1Pod,
  Watch,
} from "@kubernetes/client-node";
import { GROUP, PLURAL, VERSION } from "./render.js";
import type { RayJobObject } from "./states.js";

export class KubeUnavailable extends Error {
  override name = "KubeUnavailable";
}

export class KubeRefused extends Error {
  override name = "KubeRefused";
  constructor(
    message: string,
    readonly code: number,
    readonly reason: string,
  ) {
    super(message);
  }
}

/** A Status body's message and reason (the API server's own words), if the error carries one. */
function statusOf(err: ApiException<unknown>): { message: string; reason: string } {
  let body: unknown = err.body;
  if (typeof body === "string") {
    const text = body;
    try {
      body = JSON.parse(text);
    } catch {
      return { message: text.slice(0, 300), reason: "" };
    }
  }
  const b = (body ?? {}) as { message?: string; reason?: string };
  return { message: b.message ?? err.message.split("\n")[0]!, reason: b.reason ?? "" };
}

/** Sorts an error from the client: null for 404, else one of ours. */
export function classify(err: unknown, what: string): KubeUnavailable | KubeRefused | null {
  if (err instanceof ApiException) {
    if (err.code === 404) return null;
    const s = statusOf(err);
    if (err.code === 429 || err.code >= 500) {
      return new KubeUnavailable(`${what}: the API server answered ${err.code} ${s.reason}: ${s.message}`);
    }
    const hint =
      err.code === 401
        ? " (the credentials were refused: check the kubeconfig or the service account token)"
        : err.code === 403
          ? " (not allowed: apply deploy/kuberay/rbac.yaml for this namespace)"
          : "";
    return new KubeRefused(`${what}: ${err.code} ${s.reason}: ${s.message}${hint}`, err.code, s.reason);
  }
  const m = err instanceof Error ? err.message : String(err);
  return new KubeUnavailable(`${what}: the API server cannot be reached (${m})`);
}

async function call<T>(what: string, fn: () => Promise<T>): Promise<T | null> {
  try {
    return await fn();
  } catch (err) {
    const c = classify(err, what);
    if (c === null) return null;
    throw c;
  }
}

export interface KubeOptions {
  /** A kubeconfig file; absent: $KUBECONFIG, ~/.kube/config, or the pod's service account in-cluster. */
  kubeconfig?: string | null;
  /** The kubeconfig context (default: its current context). */
  context?: string | null;
  namespace: string;
}

export class KubeApi {
  readonly kc: KubeConfig;
  readonly namespace: string;
  private readonly core: CoreV1Api;
  private readonly custom: CustomObjectsApi;

  constructor(o: KubeOptions) {
    this.kc = new KubeConfig();
    if (o.kubeconfig) this.kc.loadFromFile(o.kubeconfig);
    else this.kc.loadFromDefault();
    if (o.context) this.kc.setCurrentContext(o.context);
    this.namespace = o.namespace;
    this.core = this.kc.makeApiClient(CoreV1Api);
    this.custom = this.kc.makeApiClient(CustomObjectsApi);
  }

  /** Where the client talks to (for messages). */
  server(): string {
    return this.kc.getCurrentCluster()?.server ?? "(no cluster in the kubeconfig)";
  }

  private rj() {
    return { group: GROUP, version: VERSION, namespace: this.namespace, plural: PLURAL };
  }

  async nodes(labelSelector?: string): Promise<V1Node[]> {
    const list = await call("listing nodes", () => this.core.listNode({ labelSelector }));
    return list?.items ?? [];
  }

  async createRayJob(body: object): Promise<RayJobObject> {
    // Strict: an unknown field is refused (400), never silently pruned from what we rendered.
    const r = await call("creating a RayJob", () =>
      this.custom.createNamespacedCustomObject({ ...this.rj(), body, fieldValidation: "Strict" }),
    );
    return r as RayJobObject;
  }

  async rayJob(name: string): Promise<RayJobObject | null> {
    return (await call(`reading RayJob ${name}`, () =>
      this.custom.getNamespacedCustomObject({ ...this.rj(), name }),
    )) as RayJobObject | null;
  }

  async rayJobs(labelSelector: string): Promise<RayJobObject[]> {
    const list = (await call("listing RayJobs", () =>
      this.custom.listNamespacedCustomObject({ ...this.rj(), labelSelector }),
    )) as { items?: RayJobObject[] } | null;
    return list?.items ?? [];
  }

  /** Foreground: the RayJob stays (deletionTimestamp set) until its RayCluster and pods are gone. */
  async deleteRayJob(name: string): Promise<void> {
    await call(`deleting RayJob ${name}`, () =>
      this.custom.deleteNamespacedCustomObject({ ...this.rj(), name, propagationPolicy: "Foreground" }),
    );
  }

  async rayClusters(labelSelector: string): Promise<KubernetesObject[]> {
    const list = (await call("listing RayClusters", () =>
      this.custom.listNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: this.namespace,
        plural: "rayclusters",
        labelSelector,
      }),
    )) as { items?: KubernetesObject[] } | null;
    return list?.items ?? [];
  }

  async pods(labelSelector: string): Promise<V1Pod[]> {
    const list = await call("listing pods", () =>
      this.core.listNamespacedPod({ namespace: this.namespace, labelSelector }),
    );
    return list?.items ?? [];
  }

  async podEvents(): Promise<CoreV1Event[]> {
    const list = await call("listing events", () =>
      this.core.listNamespacedEvent({ namespace: this.namespace, fieldSelector: "involvedObject.kind=Pod" }),
    );
    return list?.items ?? [];
  }

  async createSecret(body: object): Promise<void> {
    await call("creating the run's Secret", () =>
      this.core.createNamespacedSecret({ namespace: this.namespace, body: body as never }),
    );
  }

  async deleteSecret(name: string): Promise<void> {
    await call(`deleting Secret ${name}`, () =>
      this.core.deleteNamespacedSecret({ namespace: this.namespace, name }),
    );
  }

  /** list + watch of our RayJobs (re-listed after a 410); the caller restarts it after an error. */
  rayJobInformer(labelSelector: string): ListWatch<RayJobObject & KubernetesObject> {
    const path = `/apis/${GROUP}/${VERSION}/namespaces/${this.namespace}/${PLURAL}`;
    const list = async () => {
      const r = (await this.custom.listNamespacedCustomObject({ ...this.rj(), labelSelector })) as {
        items: Array<RayJobObject & KubernetesObject>;
        metadata?: { resourceVersion?: string };
      };
      return r as never;
    };
    return new ListWatch(path, new Watch(this.kc), list, false, labelSelector);
  }
}
