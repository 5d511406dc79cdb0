/**
 * The store behind the simulated API server: objects, the resourceVersion counter, the bounded
 * history a watch replays, deletion (finalizers, propagation, graceful pod deletion) and the
 * garbage collector of kube-controller-manager.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { alreadyExists, conflict, notFound } from "./errors.js";
import {
  apiVersionOf,
  type KubeObject,
  type NewObject,
  type ObjectMeta,
  RESOURCES,
  type ResourceDef,
  type ResourceName,
} from "./resources.js";

export interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED";
  object: KubeObject;
}

/** One change of the store, as the watch cache keeps it (with the state before, for selector moves). */
export interface Change extends WatchEvent {
  rv: number;
  resource: ResourceName;
  previous?: KubeObject;
}

export interface DeleteOptions {
  propagationPolicy?: "Foreground" | "Background" | "Orphan";
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
}

interface Entry {
  resource: ResourceName;
  obj: KubeObject;
}

/** Kubernetes' generateName alphabet (no vowels, no 0/1/3: no words, no look-alikes). */
const NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

export function randomSuffix(n = 5): string {
  return [...randomBytes(n)].map((b) => NAME_ALPHABET[b % NAME_ALPHABET.length]).join("");
}

/** metav1.Time: RFC 3339 in seconds, UTC. */
export function kubeTime(at: number = Date.now()): string {
  return new Date(at).toISOString().replace(/\.\d{3}Z$/, "Z");
}

const keyOf = (resource: ResourceName, namespace: string | undefined, name: string) =>
  `${resource}/${namespace ?? ""}/${name}`;

/**
 * The objects, the global resourceVersion counter and a bounded history of changes (what a watch
 * replays). The garbage collector runs after every change, as kube-controller-manager's would shortly.
 */
export class KubeStore {
  /** While true, deleting a pod bound to a node only marks it; the kubelet removes it when stopped. */
  kubeletAttached = false;
  private rv = 1000;
  private compactedRv = 1000;
  private history: Change[] = [];
  private readonly objects = new Map<string, Entry>();
  private readonly listeners = new Set<(c: Change) => void>();
  private gcQueued = false;
  private closed = false;

  constructor(private readonly historyLimit = 5000) {}

  get resourceVersion(): string {
    return String(this.rv);
  }

  get(resource: ResourceName, namespace: string | undefined, name: string): KubeObject | undefined {
    const e = this.objects.get(keyOf(resource, namespace, name));
    return e ? structuredClone(e.obj) : undefined;
  }

  list(
    resource: ResourceName,
    namespace?: string,
    match: (o: KubeObject) => boolean = () => true,
  ): KubeObject[] {
    return [...this.objects.values()]
      .filter((e) => e.resource === resource && (!namespace || e.obj.metadata.namespace === namespace))
      .map((e) => e.obj)
      .filter(match)
      .map((o) => structuredClone(o));
  }

  /** Stores a new object: the server-managed metadata is filled in here. */
  create(resource: ResourceName, input: NewObject): KubeObject {
    const d = RESOURCES[resource];
    const m = input.metadata;
    const name = m.name || `${m.generateName ?? ""}${randomSuffix()}`;
    const namespace = d.namespaced ? m.namespace : undefined;
    if (this.objects.has(keyOf(resource, namespace, name))) throw alreadyExists(d, name);
    const metadata: ObjectMeta = {
      ...m,
      name,
      ...(namespace ? { namespace } : {}),
      uid: randomUUID(),
      resourceVersion: "",
      creationTimestamp: kubeTime(),
      ...(d.generation ? { generation: 1 } : {}),
    };
    return this.write(resource, { ...input, apiVersion: apiVersionOf(d), kind: d.kind, metadata }, "ADDED");
  }

  /**
   * Writes an object as given (trusted callers: the operator, an update already admitted). As in the
   * real store, an object being deleted whose last finalizer is gone (and no grace period pending) goes.
   */
  replace(resource: ResourceName, obj: KubeObject): KubeObject {
    const m = obj.metadata;
    const cur = this.objects.get(keyOf(resource, m.namespace, m.name));
    if (!cur) throw notFound(RESOURCES[resource], m.name);
    const next = structuredClone(obj);
    if (next.metadata.finalizers?.length === 0) delete next.metadata.finalizers;
    if (m.deletionTimestamp && !next.metadata.finalizers && !(m.deletionGracePeriodSeconds ?? 0)) {
      return this.remove(resource, m.namespace, m.name) ?? next;
    }
    const specChanged = JSON.stringify(cur.obj.spec) !== JSON.stringify(next.spec);
    if (specChanged && next.metadata.generation !== undefined) next.metadata.generation += 1;
    return this.write(resource, next, "MODIFIED");
  }

  /** Removes an object now (a DELETED event), whatever its finalizers: the final step of a deletion. */
  remove(resource: ResourceName, namespace: string | undefined, name: string): KubeObject | undefined {
    const key = keyOf(resource, namespace, name);
    const cur = this.objects.get(key);
    if (!cur) return undefined;
    this.objects.delete(key);
    this.rv += 1;
    const object = structuredClone(cur.obj);
    object.metadata.resourceVersion = String(this.rv);
    this.record({ type: "DELETED", rv: this.rv, resource, object, previous: cur.obj });
    return structuredClone(object);
  }

  /**
   * A DELETE as the API server does it: finalizers for the propagation policy, graceful deletion of a
   * running pod, or removal now. `gone` tells which, for the answer.
   */
  delete(
    resource: ResourceName,
    namespace: string | undefined,
    name: string,
    o: DeleteOptions = {},
  ): { object: KubeObject; gone: boolean } {
    const d = RESOURCES[resource];
    const cur = this.get(resource, namespace, name);
    if (!cur) throw notFound(d, name);
    checkPreconditions(d, cur, o.preconditions);
    const finalizers = new Set(cur.metadata.finalizers ?? []);
    if (o.propagationPolicy === "Foreground") finalizers.add("foregroundDeletion");
    if (o.propagationPolicy === "Orphan") finalizers.add("orphan");
    const grace = this.gracePeriod(resource, cur, o.gracePeriodSeconds);
    if (finalizers.size === 0 && grace === 0) {
      return { object: this.remove(resource, namespace, name) ?? cur, gone: true };
    }
    const m = cur.metadata;
    if (m.deletionTimestamp && finalizers.size === (m.finalizers?.length ?? 0))
      return { object: cur, gone: false };
    if (!m.deletionTimestamp) {
      m.deletionTimestamp = kubeTime(Date.now() + grace * 1000);
      m.deletionGracePeriodSeconds = grace;
      if (m.generation !== undefined) m.generation += 1;
    }
    m.finalizers = [...finalizers];
    return { object: this.write(resource, cur, "MODIFIED"), gone: false };
  }

  /** Calls `fn` with every change from now on; returns the unsubscribe. */
  subscribe(fn: (c: Change) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** The changes after `rv`, or the oldest resourceVersion still known when `rv` is older. */
  since(rv: number): Change[] | { expired: number } {
    if (rv < this.compactedRv) return { expired: this.compactedRv };
    return this.history.filter((c) => c.rv > rv);
  }

  /** Forgets the history (etcd compaction): a watch from an older resourceVersion gets 410 Expired. */
  compact(): void {
    this.history = [];
    this.compactedRv = this.rv;
  }

  close(): void {
    this.closed = true;
    this.listeners.clear();
  }

  /**
   * An Event about `involved`, as the scheduler, kubelet or operator records it (core v1 shape;
   * events.k8s.io writes land in the same store and read back the same way).
   */
  recordEvent(
    involved: KubeObject,
    e: {
      type: "Normal" | "Warning";
      reason: string;
      message: string;
      component: string;
      host?: string;
      fieldPath?: string;
    },
  ): void {
    const m = involved.metadata;
    const at = kubeTime();
    this.create("events", {
      metadata: { name: `${m.name}.${randomBytes(8).toString("hex")}`, namespace: m.namespace ?? "default" },
      involvedObject: {
        kind: involved.kind,
        namespace: m.namespace,
        name: m.name,
        uid: m.uid,
        apiVersion: involved.apiVersion,
        resourceVersion: m.resourceVersion,
        ...(e.fieldPath ? { fieldPath: e.fieldPath } : {}),
      },
      reason: e.reason,
      message: e.message,
      source: { component: e.component, ...(e.host ? { host: e.host } : {}) },
      firstTimestamp: at,
      lastTimestamp: at,
      count: 1,
      type: e.type,
      eventTime: null,
      reportingComponent: e.component,
      reportingInstance: e.host ?? "",
    });
  }

  /** Pods on a node with a kubelet attached are deleted gracefully; everything else at once. */
  private gracePeriod(resource: ResourceName, obj: KubeObject, requested: number | undefined): number {
    if (resource !== "pods" || !this.kubeletAttached) return 0;
    const phase = obj.status?.phase;
    if (!obj.spec?.nodeName || phase === "Succeeded" || phase === "Failed") return 0;
    const fromSpec = obj.spec.terminationGracePeriodSeconds;
    return requested ?? (typeof fromSpec === "number" ? fromSpec : 30);
  }

  private write(resource: ResourceName, obj: KubeObject, type: "ADDED" | "MODIFIED"): KubeObject {
    const key = keyOf(resource, obj.metadata.namespace, obj.metadata.name);
    const previous = this.objects.get(key)?.obj;
    this.rv += 1;
    const stored = structuredClone(obj);
    stored.metadata.resourceVersion = String(this.rv);
    this.objects.set(key, { resource, obj: stored });
    this.record({
      type,
      rv: this.rv,
      resource,
      object: structuredClone(stored),
      ...(previous ? { previous } : {}),
    });
    return structuredClone(stored);
  }

  private record(c: Change): void {
    this.history.push(c);
    if (this.history.length > this.historyLimit)
      this.compactedRv = this.history.shift()?.rv ?? this.compactedRv;
    for (const fn of this.listeners) fn(c);
    if (!this.gcQueued && !this.closed) {
      this.gcQueued = true;
      setImmediate(() => this.collectGarbage());
    }
  }

  /**
   * kube-controller-manager's garbage collector, simplified: Foreground owners delete their dependents
   * (transitively, in Foreground when they have dependents) and lose `foregroundDeletion` once no
   * blocking dependent is left; Orphan owners release theirs; objects whose owners are all gone go.
   */
  private collectGarbage(): void {
    this.gcQueued = false;
    if (this.closed) return;
    const entries = [...this.objects.values()];
    const uids = new Set(entries.map((e) => e.obj.metadata.uid));
    const dependentsOf = (uid: string) =>
      [...this.objects.values()].filter((e) => e.obj.metadata.ownerReferences?.some((r) => r.uid === uid));
    for (const e of entries) {
      const resource = e.resource;
      const obj = this.objects.get(keyOf(resource, e.obj.metadata.namespace, e.obj.metadata.name))?.obj;
      if (!obj) continue;
      const m = obj.metadata;
      if (m.deletionTimestamp && m.finalizers?.includes("orphan")) {
        for (const d of dependentsOf(m.uid)) this.replace(d.resource, withoutOwner(d.obj, m.uid));
        this.replace(resource, withoutFinalizer(obj, "orphan"));
      } else if (m.deletionTimestamp && m.finalizers?.includes("foregroundDeletion")) {
        const deps = dependentsOf(m.uid);
        for (const d of deps.filter((x) => !x.obj.metadata.deletionTimestamp)) {
          const policy = dependentsOf(d.obj.metadata.uid).length ? "Foreground" : "Background";
          this.delete(d.resource, d.obj.metadata.namespace, d.obj.metadata.name, {
            propagationPolicy: policy,
          });
        }
        const blocking = deps.some((d) =>
          d.obj.metadata.ownerReferences?.some((r) => r.uid === m.uid && r.blockOwnerDeletion),
        );
        if (!blocking) this.replace(resource, withoutFinalizer(obj, "foregroundDeletion"));
      } else if (
        !m.deletionTimestamp &&
        m.ownerReferences?.length &&
        m.ownerReferences.every((r) => !uids.has(r.uid))
      ) {
        this.delete(resource, m.namespace, m.name, { propagationPolicy: "Background" });
      }
    }
  }
}

function checkPreconditions(d: ResourceDef, cur: KubeObject, p: DeleteOptions["preconditions"]): void {
  const m = cur.metadata;
  if (p?.uid && p.uid !== m.uid) {
    throw conflict(
      d,
      m.name,
      `Precondition failed: UID in precondition: ${p.uid}, UID in object meta: ${m.uid}`,
    );
  }
  if (p?.resourceVersion && p.resourceVersion !== m.resourceVersion) {
    const why = `ResourceVersion in precondition: ${p.resourceVersion}, ResourceVersion in object meta: ${m.resourceVersion}`;
    throw conflict(d, m.name, `Precondition failed: ${why}`);
  }
}

function withoutFinalizer(obj: KubeObject, finalizer: string): KubeObject {
  const next = structuredClone(obj);
  next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== finalizer);
  return next;
}

function withoutOwner(obj: KubeObject, uid: string): KubeObject {
  const next = structuredClone(obj);
  next.metadata.ownerReferences = (next.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
  if (next.metadata.ownerReferences.length === 0) delete next.metadata.ownerReferences;
  return next;
}
