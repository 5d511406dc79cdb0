/**
 * A SIMULATOR of the Kubernetes API server (kube-apiserver, with the garbage collector of
 * kube-controller-manager) for tests of forgelet's KubeRay runtime: no API server can run on this
 * machine. It speaks the real wire format over node:http on 127.0.0.1 (random port), so the runtime's
 * unchanged @kubernetes/client-node (or kubectl) talks to it as to a cluster.
 *
 * It serves core v1 nodes, pods, events and secrets and ray.io/v1 rayjobs and rayclusters (with their
 * status subresource): get, list, watch (resourceVersion replay, bookmarks, timeoutSeconds, the in-stream
 * 410 Expired), create (generateName, 409, RayJobs checked with validateRayJob: strict decoding 400,
 * schema 422, or pruned with a Warning under fieldValidation=Warn), update, delete and deletecollection
 * (finalizers, Foreground/Background/Orphan propagation through ownerReferences, graceful pod deletion
 * finished by a kubelet when one is attached), label and field selectors, Status errors, bearer tokens,
 * and the RBAC of deploy/kuberay/rbac.yaml, enforced (403) for the ServiceAccount's token.
 *
 * It does NOT do: admission webhooks, CEL rules, defaulting, PATCH, server-side apply, Table output,
 * pagination (limit/continue), protobuf, HTTPS, namespaces as objects, dry-run, or real scheduling and
 * resource accounting (see kuberay-sim.ts for the operator, scheduler and kubelet stand-ins).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments, stringify } from "yaml";
import { z } from "zod";
import { validateRayJob } from "./crd-schema.js";

export type Json = Record<string, unknown>;

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name: string;
  generateName?: string;
  namespace?: string;
  uid: string;
  resourceVersion: string;
  generation?: number;
  creationTimestamp: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: Json;
  status?: Json;
  [field: string]: unknown;
}

/** An object as a client sends it: the server fills in uid, resourceVersion, timestamps. */
export type NewObject = Omit<KubeObject, "metadata" | "apiVersion" | "kind"> & {
  apiVersion?: string;
  kind?: string;
  metadata: Partial<ObjectMeta>;
};

export type ResourceName = "nodes" | "pods" | "events" | "secrets" | "rayjobs" | "rayclusters";

interface ResourceDef {
  name: ResourceName;
  singular: string;
  kind: string;
  group: string;
  version: string;
  namespaced: boolean;
  /** Writes to the main resource keep the stored status; status is written through /status only. */
  statusSubresource: boolean;
  /** metadata.generation is kept (bumped on spec changes), as for pods and custom resources. */
  generation: boolean;
  /** Field selectors this resource supports besides metadata.name and metadata.namespace. */
  fields: string[];
}

const ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

const RESOURCES: Record<ResourceName, ResourceDef> = {
  nodes: res("nodes", "node", "Node", "", false, true, false, ["spec.unschedulable"]),
  pods: res("pods", "pod", "Pod", "", true, true, true, ["spec.nodeName", "status.phase"]),
  events: res("events", "event", "Event", "", true, false, false, [
    "involvedObject.kind",
    "involvedObject.name",
    "involvedObject.namespace",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.fieldPath",
    "reason",
    "type",
    "source",
    "reportingComponent",
  ]),
  secrets: res("secrets", "secret", "Secret", "", true, false, false, ["type"]),
  rayjobs: res("rayjobs", "rayjob", "RayJob", "ray.io", true, true, true, []),
  rayclusters: res("rayclusters", "raycluster", "RayCluster", "ray.io", true, true, true, []),
};

function res(
  name: ResourceName,
  singular: string,
  kind: string,
  group: string,
  namespaced: boolean,
  statusSubresource: boolean,
  generation: boolean,
  fields: string[],
): ResourceDef {
  return { name, singular, kind, group, version: "v1", namespaced, statusSubresource, generation, fields };
}

const apiVersionOf = (d: ResourceDef) => (d.group ? `${d.group}/${d.version}` : d.version);
/** `rayjobs.ray.io`, `pods`: how the API server names a resource in its messages. */
const qualified = (d: ResourceDef) => (d.group ? `${d.name}.${d.group}` : d.name);

// ---------------------------------------------------------------------------------------------------
// Status errors

export interface Status {
  kind: "Status";
  apiVersion: "v1";
  metadata: Json;
  status: "Failure" | "Success";
  message?: string;
  reason?: string;
  details?: Json;
  code?: number;
}

/** A request the API server refuses: carries the Status it answers with. */
export class KubeError extends Error {
  constructor(readonly status: Status & { code: number }) {
    super(status.message);
  }
}

function failure(code: number, reason: string, message: string, details?: Json): KubeError {
  const status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure" } as const;
  return new KubeError({ ...status, message, reason, ...(details ? { details } : {}), code });
}

function detailsOf(d: ResourceDef, name?: string): Json {
  return { ...(name ? { name } : {}), ...(d.group ? { group: d.group } : {}), kind: d.name };
}

const notFound = (d: ResourceDef, name: string) =>
  failure(404, "NotFound", `${qualified(d)} "${name}" not found`, detailsOf(d, name));
const alreadyExists = (d: ResourceDef, name: string) =>
  failure(409, "AlreadyExists", `${qualified(d)} "${name}" already exists`, detailsOf(d, name));
const conflict = (d: ResourceDef, name: string, why: string) =>
  failure(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${qualified(d)} "${name}": ${why}`,
    detailsOf(d, name),
  );
const badRequest = (message: string) => failure(400, "BadRequest", message);
const noSuchResource = () => failure(404, "NotFound", "the server could not find the requested resource", {});

// ---------------------------------------------------------------------------------------------------
// The store

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

// ---------------------------------------------------------------------------------------------------
// Selectors

type Predicate = (o: KubeObject) => boolean;

/** A label selector (`a=b`, `a!=b`, `a`, `!a`, `a in (x,y)`, `a notin (x)`, comma = AND). */
function labelSelector(selector: string | undefined): Predicate {
  const requirements = splitOutsideParens(selector ?? "").map(requirement);
  return (o) => requirements.every((r) => r(o.metadata.labels ?? {}));
}

function splitOutsideParens(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of s) {
    if (ch === "," && depth === 0) {
      parts.push(cur);
      cur = "";
      continue;
    }
    if (ch === "(") depth += 1;
    if (ch === ")") depth -= 1;
    cur += ch;
  }
  return [...parts, cur].map((p) => p.trim()).filter(Boolean);
}

const KEY = "([A-Za-z0-9][-A-Za-z0-9_./]*)";

function requirement(raw: string): (labels: Record<string, string>) => boolean {
  const set = new RegExp(`^${KEY}\\s+(in|notin)\\s*\\(([^)]*)\\)$`).exec(raw);
  if (set) {
    const [, key = "", op, list = ""] = set;
    const values = list.split(",").map((v) => v.trim());
    return op === "in"
      ? (l) => l[key] !== undefined && values.includes(l[key])
      : (l) => l[key] === undefined || !values.includes(l[key]);
  }
  const eq = new RegExp(`^${KEY}\\s*(==|=|!=)\\s*([-A-Za-z0-9_.]*)$`).exec(raw);
  if (eq) {
    const [, key = "", op, value] = eq;
    return op === "!=" ? (l) => l[key] !== value : (l) => l[key] === value;
  }
  const absent = new RegExp(`^!${KEY}$`).exec(raw);
  if (absent) return (l) => l[absent[1] ?? ""] === undefined;
  const exists = new RegExp(`^${KEY}$`).exec(raw);
  if (exists) return (l) => l[exists[1] ?? ""] !== undefined;
  throw badRequest(`unable to parse requirement: ${raw}`);
}

/** A field selector (`f=v`, `f==v`, `f!=v`, comma = AND) over the fields this resource indexes. */
function fieldSelector(d: ResourceDef, selector: string | undefined): Predicate {
  const terms = (selector ?? "")
    .split(",")
    .filter(Boolean)
    .map((t) => {
      const m = /^([\w.]+)\s*(==|=|!=)\s*(.*)$/.exec(t.trim());
      if (!m) throw badRequest(`invalid field selector: ${t}`);
      const [, field = "", op, value] = m;
      if (!["metadata.name", "metadata.namespace", ...d.fields].includes(field)) {
        throw badRequest(`field label not supported: ${field}`);
      }
      return { field, negate: op === "!=", value };
    });
  return (o) => terms.every((t) => (fieldValue(o, t.field) === t.value) !== t.negate);
}

function fieldValue(o: KubeObject, path: string): string {
  if (path === "source") return String((o.source as Json | undefined)?.component ?? "");
  let v: unknown = o;
  for (const part of path.split(".")) v = v && typeof v === "object" ? (v as Json)[part] : undefined;
  return v === undefined || v === null ? "" : String(v);
}

// ---------------------------------------------------------------------------------------------------
// RBAC (deploy/kuberay/rbac.yaml, enforced)

const Rule = z.object({
  apiGroups: z.array(z.string()).default([]),
  resources: z.array(z.string()).default([]),
  verbs: z.array(z.string()),
  resourceNames: z.array(z.string()).optional(),
});
const Meta = z.object({ name: z.string(), namespace: z.string().optional() });
const Subject = z.object({ kind: z.string(), name: z.string(), namespace: z.string().optional() });
const RoleRef = z.object({ kind: z.enum(["Role", "ClusterRole"]), name: z.string() });
const RbacDoc = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("ServiceAccount"), metadata: Meta }),
  z.object({ kind: z.enum(["Role", "ClusterRole"]), metadata: Meta, rules: z.array(Rule) }),
  z.object({
    kind: z.enum(["RoleBinding", "ClusterRoleBinding"]),
    metadata: Meta,
    roleRef: RoleRef,
    subjects: z.array(Subject),
  }),
]);
type RbacDoc = z.infer<typeof RbacDoc>;
type RbacRule = z.infer<typeof Rule>;

interface Access {
  verb: string;
  group: string;
  /** `rayjobs`, or `rayjobs/status` for a subresource. */
  resource: string;
  namespace?: string;
  name?: string;
}

const RBAC_FILE = fileURLToPath(new URL("../../deploy/kuberay/rbac.yaml", import.meta.url));

/**
 * The rules of a manifest, per user. Every `namespace:` in the file is read as `namespace`, as if the
 * file had been edited for that namespace before `kubectl apply`.
 */
class Rbac {
  private readonly docs: RbacDoc[];

  constructor(file: string, namespace: string) {
    this.docs = parseAllDocuments(readFileSync(file, "utf8")).map((doc) => {
      const d = RbacDoc.parse(doc.toJS());
      if (d.metadata.namespace) d.metadata.namespace = namespace;
      if ("subjects" in d) for (const s of d.subjects) if (s.namespace) s.namespace = namespace;
      return d;
    });
  }

  permits(user: string, a: Access): boolean {
    return this.rulesFor(user, a.namespace).some((r) => ruleMatches(r, a));
  }

  private rulesFor(user: string, namespace: string | undefined): RbacRule[] {
    const rules: RbacRule[] = [];
    for (const b of this.docs) {
      if (b.kind !== "RoleBinding" && b.kind !== "ClusterRoleBinding") continue;
      if (b.kind === "RoleBinding" && b.metadata.namespace !== namespace) continue;
      if (!b.subjects.some((s) => subjectName(s) === user)) continue;
      const role = this.docs.find(
        (r) =>
          r.kind === b.roleRef.kind &&
          r.metadata.name === b.roleRef.name &&
          (r.kind === "ClusterRole" || r.metadata.namespace === b.metadata.namespace),
      );
      if (role && "rules" in role) rules.push(...role.rules);
    }
    return rules;
  }
}

function subjectName(s: z.infer<typeof Subject>): string {
  return s.kind === "ServiceAccount" ? `system:serviceaccount:${s.namespace}:${s.name}` : s.name;
}

function ruleMatches(r: RbacRule, a: Access): boolean {
  const any = (list: string[], v: string) => list.includes("*") || list.includes(v);
  if (!any(r.apiGroups, a.group) || !any(r.verbs, a.verb) || !any(r.resources, a.resource)) return false;
  return !r.resourceNames?.length || (a.name !== undefined && r.resourceNames.includes(a.name));
}

function forbidden(user: string, a: Access, d: ResourceDef): KubeError {
  const what = a.name ? `${qualified(d)} "${a.name}"` : qualified(d);
  const where = a.namespace ? `in the namespace "${a.namespace}"` : "at the cluster scope";
  const message = `${what} is forbidden: User "${user}" cannot ${a.verb} resource "${a.resource}" in API group "${a.group}" ${where}`;
  return failure(403, "Forbidden", message, detailsOf(d, a.name));
}

// ---------------------------------------------------------------------------------------------------
// Admission of what clients write

type FieldValidation = "Strict" | "Warn" | "Ignore";

const UNKNOWN_FIELD = ": unknown field";

/**
 * A RayJob as the API server decodes and validates it: unknown fields are a strict decoding error
 * (400) under fieldValidation=Strict, else pruned (with a Warning under Warn, the server's default);
 * schema problems are 422 Invalid. Returns the warnings.
 */
function admitRayJob(obj: KubeObject, validation: FieldValidation): string[] {
  const problems = validateRayJob(obj);
  const unknown = problems
    .filter((p) => p.endsWith(UNKNOWN_FIELD))
    .map((p) => p.slice(0, -UNKNOWN_FIELD.length));
  const invalid = problems.filter((p) => !p.endsWith(UNKNOWN_FIELD));
  const named = unknown.map((f) => `unknown field "${f}"`);
  if (unknown.length && validation === "Strict") {
    throw badRequest(
      `RayJob in version "v1" cannot be handled as a RayJob: strict decoding error: ${named.join(", ")}`,
    );
  }
  if (invalid.length) {
    const list = invalid.length === 1 ? invalid[0] : `[${invalid.join(", ")}]`;
    const causes = invalid.map((p) => ({ reason: "FieldValueInvalid", message: p, field: p.split(": ")[0] }));
    const details = { name: obj.metadata.name, group: "ray.io", kind: "RayJob", causes };
    throw failure(422, "Invalid", `RayJob.ray.io "${obj.metadata.name}" is invalid: ${list}`, details);
  }
  for (const field of unknown) prune(obj, field);
  return validation === "Warn" ? named : [];
}

/** Deletes `spec.a[0].b` (a Kubernetes field path) from `obj`. */
function prune(obj: KubeObject, path: string): void {
  const parts = [...path.matchAll(/\[([^\]]*)\]|([^.[\]]+)/g)].map((m) => m[1] ?? m[2] ?? "");
  let node: unknown = obj;
  for (const p of parts.slice(0, -1)) node = node && typeof node === "object" ? (node as Json)[p] : undefined;
  if (node && typeof node === "object") delete (node as Json)[parts.at(-1) ?? ""];
}

/** Secrets: `stringData` is write-only, merged into `data` (base64). */
function admitSecret(obj: KubeObject): void {
  const stringData = (obj.stringData ?? {}) as Record<string, string>;
  const data = { ...((obj.data ?? {}) as Record<string, string>) };
  for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(v).toString("base64");
  delete obj.stringData;
  obj.data = data;
  obj.type ??= "Opaque";
}

// ---------------------------------------------------------------------------------------------------
// The HTTP server

export interface RequestLogEntry {
  method: string;
  path: string;
  query: Record<string, string>;
}

export interface AddNodeOptions {
  name: string;
  gpus: number;
  gpuResource?: string;
  product?: string;
  cpu?: string | number;
  memory?: string;
  ready?: boolean;
  unschedulable?: boolean;
  labels?: Record<string, string>;
}

export interface K8sSimOptions {
  namespace?: string;
  /** The RBAC manifest to enforce for the ServiceAccount's token (default deploy/kuberay/rbac.yaml). */
  rbacFile?: string;
  /** How many changes a watch can replay (older resourceVersions get 410). */
  historyLimit?: number;
  /** How often a watch with allowWatchBookmarks=true gets a BOOKMARK (a real server: about a minute). */
  bookmarkIntervalMs?: number;
}

interface Route {
  d: ResourceDef;
  namespace?: string;
  name?: string;
  sub?: "status";
}

export async function startK8sSim(options: K8sSimOptions = {}): Promise<K8sSim> {
  const sim = new K8sSim(options);
  await sim.listen();
  return sim;
}

export class K8sSim {
  readonly store: KubeStore;
  readonly requests: RequestLogEntry[] = [];
  readonly namespace: string;
  readonly token = `sa-${randomBytes(16).toString("hex")}`;
  readonly adminToken = `admin-${randomBytes(16).toString("hex")}`;
  /** Who the ServiceAccount token authenticates as. */
  readonly user: string;
  private readonly rbac: Rbac;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly nodeInputs = new Map<string, AddNodeOptions>();
  private readonly bookmarkIntervalMs: number;
  private port = 0;
  private up = false;
  private outageTimer: NodeJS.Timeout | undefined;

  constructor(options: K8sSimOptions) {
    this.namespace = options.namespace ?? "starforge";
    this.user = `system:serviceaccount:${this.namespace}:forgelet`;
    this.store = new KubeStore(options.historyLimit);
    this.rbac = new Rbac(options.rbacFile ?? RBAC_FILE, this.namespace);
    this.bookmarkIntervalMs = options.bookmarkIntervalMs ?? 1000;
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.on("connection", (s: Socket) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Listens (again, on the same port after an outage). */
  async listen(): Promise<void> {
    if (this.up) return;
    await new Promise<void>((ok, fail) => {
      this.server.once("error", fail);
      this.server.listen(this.port, "127.0.0.1", () => {
        this.server.off("error", fail);
        ok();
      });
    });
    this.port = (this.server.address() as AddressInfo).port;
    this.up = true;
  }

  /**
   * An API server restart: stops accepting connections and breaks every open one (watches end
   * mid-stream). `ms`: listen again after that long; `true`/`false`: down/up until told otherwise.
   * Resolves once the server is down (or, for `false`, up). The store and the operator go on.
   */
  async outage(what: number | boolean): Promise<void> {
    clearTimeout(this.outageTimer);
    if (what === false) return this.listen();
    await this.stopListening();
    if (typeof what === "number") this.outageTimer = setTimeout(() => this.relisten(), what);
  }

  async close(): Promise<void> {
    clearTimeout(this.outageTimer);
    this.store.close();
    await this.stopListening();
  }

  /** A kubeconfig for the ServiceAccount (or another token). client-node 1.x refuses plain http unless insecure-skip-tls-verify is set. */
  kubeconfig(token: string = this.token): string {
    const cluster = "starforge-sim";
    return stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: cluster, cluster: { server: this.url, "insecure-skip-tls-verify": true } }],
      users: [{ name: "forgelet", user: { token } }],
      contexts: [{ name: cluster, context: { cluster, user: "forgelet", namespace: this.namespace } }],
      "current-context": cluster,
    });
  }

  writeKubeconfig(dir: string, token: string = this.token): string {
    const path = join(dir, "kubeconfig");
    writeFileSync(path, this.kubeconfig(token), { mode: 0o600 });
    return path;
  }

  /** The objects of a resource in the sim's namespace (all nodes for `nodes`), read as the admin. */
  list(resource: ResourceName, selector?: string): KubeObject[] {
    const ns = RESOURCES[resource].namespaced ? this.namespace : undefined;
    return this.store.list(resource, ns, labelSelector(selector));
  }

  get(resource: ResourceName, name: string): KubeObject | undefined {
    return this.store.get(resource, RESOURCES[resource].namespaced ? this.namespace : undefined, name);
  }

  compactHistory(): void {
    this.store.compact();
  }

  addNode(o: AddNodeOptions): KubeObject {
    this.nodeInputs.set(o.name, o);
    const { labels, ...rest } = nodeObject(o);
    return this.store.create("nodes", { ...rest, metadata: { name: o.name, labels } });
  }

  /** Changes a node added with addNode (GPU count, readiness, cordon, labels…). */
  patchNode(name: string, patch: Partial<Omit<AddNodeOptions, "name">>): KubeObject {
    const prev = this.nodeInputs.get(name);
    const cur = this.store.get("nodes", undefined, name);
    if (!prev || !cur) throw new Error(`no node ${name} added by addNode`);
    const o = { ...prev, ...patch };
    this.nodeInputs.set(name, o);
    const { labels, ...rest } = nodeObject(o);
    return this.store.replace("nodes", { ...cur, ...rest, metadata: { ...cur.metadata, labels } });
  }

  /** Back after an outage; should the port be taken meanwhile, try again shortly (a restart would). */
  private relisten(): void {
    this.listen().catch(() => {
      this.outageTimer = setTimeout(() => this.relisten(), 100);
    });
  }

  private async stopListening(): Promise<void> {
    if (!this.up) return;
    this.up = false;
    const closed = new Promise<void>((ok) => this.server.close(() => ok()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://sim");
    const query = Object.fromEntries(url.searchParams);
    const method = req.method ?? "GET";
    this.requests.push({ method, path: url.pathname, query });
    try {
      const user = this.authenticate(req);
      const body = await readBody(req);
      const discovery = this.discovery(url.pathname);
      if (discovery && method === "GET") return sendJson(res, 200, discovery);
      const route = parseRoute(url.pathname);
      const access = accessOf(method, route, query);
      if (user !== "admin" && !this.rbac.permits(user, access)) throw forbidden(user, access, route.d);
      await this.dispatch(method, route, query, body, res);
    } catch (err) {
      const status =
        err instanceof KubeError ? err.status : failure(500, "InternalError", String(err)).status;
      if (!res.headersSent) sendJson(res, status.code, status);
      else res.end();
    }
  }

  private authenticate(req: IncomingMessage): string {
    const auth = req.headers.authorization ?? "";
    if (auth === `Bearer ${this.adminToken}`) return "admin";
    if (auth === `Bearer ${this.token}`) return this.user;
    throw failure(401, "Unauthorized", "Unauthorized");
  }

  private async dispatch(
    method: string,
    r: Route,
    query: Record<string, string>,
    body: unknown,
    res: ServerResponse,
  ): Promise<void> {
    const watch = query.watch === "true" || query.watch === "1";
    if (method === "GET" && watch) return this.watch(r, query, res);
    if (method === "GET" && r.name) return sendJson(res, 200, this.mustGet(r));
    if (method === "GET") return sendJson(res, 200, this.listOf(r, query));
    if (method === "POST" && !r.name) return this.create(r, query, body, res);
    if (method === "PUT" && r.name) return sendJson(res, 200, this.update(r, query, body));
    if (method === "DELETE" && r.name) return this.deleteOne(r, query, body, res);
    if (method === "DELETE") return sendJson(res, 200, this.deleteCollection(r, query));
    throw failure(
      405,
      "MethodNotAllowed",
      "the server does not allow this method on the requested resource",
      {},
    );
  }

  private mustGet(r: Route): KubeObject {
    const obj = this.store.get(r.d.name, r.namespace, r.name ?? "");
    if (!obj) throw notFound(r.d, r.name ?? "");
    return obj;
  }

  private listOf(r: Route, query: Record<string, string>): Json {
    const match = matcher(r, query);
    return listBody(r.d, this.store.resourceVersion, this.store.list(r.d.name, r.namespace, match));
  }

  private create(r: Route, query: Record<string, string>, body: unknown, res: ServerResponse): void {
    const obj = this.decode(r, body);
    const m = obj.metadata;
    if (!m.name && !m.generateName) {
      throw failure(
        422,
        "Invalid",
        `${r.d.group ? `${r.d.kind}.${r.d.group}` : r.d.kind} "" is invalid: metadata.name: Required value: name or generateName is required`,
      );
    }
    m.name ||= `${m.generateName}${randomSuffix()}`;
    for (const field of [
      "uid",
      "resourceVersion",
      "creationTimestamp",
      "deletionTimestamp",
      "generation",
    ] as const) {
      delete m[field];
    }
    // With a status subresource, a create's status is dropped before validation (the CR strategy).
    if (r.d.statusSubresource) delete obj.status;
    const warnings = this.admit(r.d, obj, query);
    const created = this.store.create(r.d.name, obj);
    sendJson(res, 201, created, warnings);
  }

  private update(r: Route, query: Record<string, string>, body: unknown): KubeObject {
    const cur = this.mustGet(r);
    const obj = this.decode(r, body);
    if (obj.metadata.name !== r.name) {
      throw badRequest(
        `the name of the object (${obj.metadata.name}) does not match the name on the URL (${r.name})`,
      );
    }
    const rv = obj.metadata.resourceVersion;
    if (rv && rv !== cur.metadata.resourceVersion) {
      throw conflict(
        r.d,
        cur.metadata.name,
        "the object has been modified; please apply your changes to the latest version and try again",
      );
    }
    if (r.sub === "status") return this.store.replace(r.d.name, { ...cur, status: obj.status ?? {} });
    // Only these of the metadata are the client's to change; status is the subresource's.
    const { labels, annotations, finalizers, ownerReferences } = obj.metadata;
    const metadata = { ...cur.metadata, labels, annotations, finalizers, ownerReferences };
    for (const k of Object.keys(metadata) as Array<keyof ObjectMeta>) {
      if (metadata[k] === undefined) delete metadata[k];
    }
    const next: KubeObject = { ...obj, metadata };
    if (r.d.statusSubresource) delete next.status;
    if (r.d.statusSubresource && cur.status) next.status = cur.status;
    this.admit(r.d, next, query);
    return this.store.replace(r.d.name, next);
  }

  private deleteOne(r: Route, query: Record<string, string>, body: unknown, res: ServerResponse): void {
    const { object, gone } = this.store.delete(
      r.d.name,
      r.namespace,
      r.name ?? "",
      deleteOptions(query, body),
    );
    // The generic registry answers a finished deletion with a Status, except where the resource
    // returns the deleted object (pods); a pending one (finalizers, grace) with the object.
    if (!gone || r.d.name === "pods") {
      sendJson(res, 200, object);
      return;
    }
    const m = object.metadata;
    sendJson(res, 200, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: { ...detailsOf(r.d, m.name), uid: m.uid },
    });
  }

  private deleteCollection(r: Route, query: Record<string, string>): Json {
    const o = deleteOptions(query, undefined);
    const deleted = this.store
      .list(r.d.name, r.namespace, matcher(r, query))
      .map((x) => this.store.delete(r.d.name, x.metadata.namespace, x.metadata.name, o).object);
    return listBody(r.d, this.store.resourceVersion, deleted);
  }

  /** The body as an object of this resource, or 400 as the API server would decode it. */
  private decode(r: Route, body: unknown): KubeObject {
    if (!body || typeof body !== "object" || Array.isArray(body))
      throw badRequest("the body of the request was not a JSON object");
    const obj = structuredClone(body) as KubeObject;
    const expected = apiVersionOf(r.d);
    // Built-in types take their kind from the URL when the body has none; custom resources cannot.
    if (!r.d.group) {
      obj.apiVersion ??= expected;
      obj.kind ??= r.d.kind;
    }
    if (!obj.kind) throw badRequest(`Object 'Kind' is missing in '${JSON.stringify(body)}'`);
    if (obj.apiVersion !== expected || obj.kind !== r.d.kind) {
      throw badRequest(
        `the API version in the data (${obj.apiVersion}) does not match the expected API version (${expected})`,
      );
    }
    obj.metadata = { ...(obj.metadata ?? {}) };
    const ns = obj.metadata.namespace;
    if (r.d.namespaced && ns && ns !== r.namespace) {
      throw badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      );
    }
    if (r.d.namespaced) obj.metadata.namespace = r.namespace;
    return obj;
  }

  private admit(d: ResourceDef, obj: KubeObject, query: Record<string, string>): string[] {
    if (d.name === "secrets") admitSecret(obj);
    if (d.name !== "rayjobs") return [];
    const v = query.fieldValidation ?? "Warn";
    if (v !== "Strict" && v !== "Warn" && v !== "Ignore")
      throw badRequest(`fieldValidation must be one of Strict, Warn, Ignore, got ${v}`);
    return admitRayJob(obj, v);
  }

  /** A watch: replay from resourceVersion (or the current state), then live changes, as NDJSON. */
  private watch(r: Route, query: Record<string, string>, res: ServerResponse): void {
    const match = matcher(r, query);
    const inScope = (c: Change) =>
      c.resource === r.d.name && (!r.namespace || c.object.metadata.namespace === r.namespace);
    const send = (type: string, object: unknown) => res.write(`${JSON.stringify({ type, object })}\n`);
    const emit = (c: Change) => {
      const e = inScope(c) ? watchEventOf(c, match) : undefined;
      if (e) send(e.type, e.object);
    };
    res.writeHead(200, { "content-type": "application/json", "cache-control": "no-cache, private" });
    // A watch with nothing to replay must still answer: clients wait for the headers.
    res.flushHeaders();
    const rv = query.resourceVersion;
    let replay: Change[] = [];
    if (rv && rv !== "0") {
      const since = this.store.since(Number(rv));
      if (!Array.isArray(since)) {
        send("ERROR", failure(410, "Expired", `too old resource version: ${rv} (${since.expired})`).status);
        res.end();
        return;
      }
      replay = since;
    } else {
      for (const object of this.store.list(r.d.name, r.namespace, match)) send("ADDED", object);
    }
    const unsubscribe = this.store.subscribe(emit);
    for (const c of replay) emit(c);
    const timers: NodeJS.Timeout[] = [];
    if (query.allowWatchBookmarks === "true") {
      const bookmark = () => {
        const metadata = { resourceVersion: this.store.resourceVersion };
        send("BOOKMARK", { kind: r.d.kind, apiVersion: apiVersionOf(r.d), metadata });
      };
      timers.push(setInterval(bookmark, this.bookmarkIntervalMs));
    }
    const timeout = Number(query.timeoutSeconds);
    if (timeout > 0) timers.push(setTimeout(() => res.end(), timeout * 1000));
    res.on("close", () => {
      unsubscribe();
      for (const t of timers) clearTimeout(t);
    });
  }

  private discovery(path: string): Json | undefined {
    const resources = (group: string) =>
      Object.values(RESOURCES)
        .filter((d) => d.group === group)
        .flatMap((d) => [
          {
            name: d.name,
            singularName: d.singular,
            namespaced: d.namespaced,
            kind: d.kind,
            verbs: ALL_VERBS,
          },
          ...(d.statusSubresource
            ? [
                {
                  name: `${d.name}/status`,
                  singularName: "",
                  namespaced: d.namespaced,
                  kind: d.kind,
                  verbs: ["get", "patch", "update"],
                },
              ]
            : []),
        ]);
    const rayGroup = {
      name: "ray.io",
      versions: [{ groupVersion: "ray.io/v1", version: "v1" }],
      preferredVersion: { groupVersion: "ray.io/v1", version: "v1" },
    };
    const docs: Record<string, Json> = {
      "/api": {
        kind: "APIVersions",
        versions: ["v1"],
        serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: `127.0.0.1:${this.port}` }],
      },
      "/api/v1": { kind: "APIResourceList", groupVersion: "v1", resources: resources("") },
      "/apis": { kind: "APIGroupList", apiVersion: "v1", groups: [rayGroup] },
      "/apis/ray.io": { kind: "APIGroup", apiVersion: "v1", ...rayGroup },
      "/apis/ray.io/v1": {
        kind: "APIResourceList",
        apiVersion: "v1",
        groupVersion: "ray.io/v1",
        resources: resources("ray.io"),
      },
      "/version": {
        major: "1",
        minor: "31",
        gitVersion: "v1.31.0-starforge-sim",
        gitCommit: "0000000000000000000000000000000000000000",
        gitTreeState: "clean",
        buildDate: "2024-08-13T00:00:00Z",
        goVersion: "go1.22.5",
        compiler: "gc",
        platform: "linux/amd64",
      },
    };
    return docs[path.replace(/\/$/, "")];
  }
}

/** `/api/v1/namespaces/ns/pods/name/status`, `/apis/ray.io/v1/rayjobs`, … → what it addresses. */
function parseRoute(path: string): Route {
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  let group = "";
  let rest: string[];
  if (parts[0] === "api" && parts[1] === "v1") rest = parts.slice(2);
  else if (parts[0] === "apis" && parts[2] === "v1") {
    group = parts[1] ?? "";
    rest = parts.slice(3);
  } else throw noSuchResource();
  const namespace = rest[0] === "namespaces" && rest.length >= 3 ? rest[1] : undefined;
  if (namespace !== undefined) rest = rest.slice(2);
  const [plural, name, sub, ...extra] = rest;
  const d = Object.values(RESOURCES).find((x) => x.name === plural && x.group === group);
  const subOk = sub === undefined || (sub === "status" && d?.statusSubresource);
  if (
    !d ||
    extra.length ||
    !subOk ||
    (namespace !== undefined && !d.namespaced) ||
    (d.namespaced && name && !namespace)
  ) {
    throw noSuchResource();
  }
  return { d, namespace, name, sub: sub === "status" ? "status" : undefined };
}

function accessOf(method: string, r: Route, query: Record<string, string>): Access {
  const watch = query.watch === "true" || query.watch === "1";
  const verbs: Record<string, string> = r.name
    ? { GET: watch ? "watch" : "get", PUT: "update", PATCH: "patch", DELETE: "delete" }
    : { GET: watch ? "watch" : "list", POST: "create", DELETE: "deletecollection" };
  return {
    verb: verbs[method] ?? method.toLowerCase(),
    group: r.d.group,
    resource: r.sub ? `${r.d.name}/${r.sub}` : r.d.name,
    ...(r.namespace ? { namespace: r.namespace } : {}),
    ...(r.name ? { name: r.name } : {}),
  };
}

function matcher(r: Route, query: Record<string, string>): Predicate {
  const labels = labelSelector(query.labelSelector);
  const fields = fieldSelector(r.d, query.fieldSelector);
  return (o) => (!r.name || o.metadata.name === r.name) && labels(o) && fields(o);
}

/**
 * What a watcher with this filter sees of a change: an object entering the selection is ADDED; one
 * leaving it is DELETED, carrying its last matching state at the change's resourceVersion (as the
 * watch cache does); else the change as it is.
 */
function watchEventOf(c: Change, match: Predicate): WatchEvent | undefined {
  const before = c.previous !== undefined && match(c.previous);
  if (c.type === "DELETED") return before || match(c.object) ? c : undefined;
  if (match(c.object)) return { type: before ? "MODIFIED" : "ADDED", object: c.object };
  if (!before || !c.previous) return undefined;
  const object = structuredClone(c.previous);
  object.metadata.resourceVersion = String(c.rv);
  return { type: "DELETED", object };
}

/** A list answer. Built-in lists (PodList…) carry items without kind/apiVersion; custom resource lists with. */
function listBody(d: ResourceDef, resourceVersion: string, items: KubeObject[]): Json {
  const shown = d.group ? items : items.map(({ kind: _k, apiVersion: _a, ...rest }) => rest);
  return { kind: `${d.kind}List`, apiVersion: apiVersionOf(d), metadata: { resourceVersion }, items: shown };
}

function deleteOptions(query: Record<string, string>, body: unknown): DeleteOptions {
  const b = (body && typeof body === "object" ? body : {}) as Json;
  const policy = (query.propagationPolicy ?? b.propagationPolicy) as DeleteOptions["propagationPolicy"];
  const orphan = query.orphanDependents ?? b.orphanDependents;
  const grace = query.gracePeriodSeconds ?? b.gracePeriodSeconds;
  return {
    ...(policy
      ? { propagationPolicy: policy }
      : orphan === "true" || orphan === true
        ? { propagationPolicy: "Orphan" }
        : {}),
    ...(grace !== undefined ? { gracePeriodSeconds: Number(grace) } : {}),
    ...(b.preconditions ? { preconditions: b.preconditions as DeleteOptions["preconditions"] } : {}),
  };
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest("the body of the request could not be decoded as JSON");
  }
}

function sendJson(res: ServerResponse, code: number, body: unknown, warnings: string[] = []): void {
  const headers: Record<string, string | string[]> = { "content-type": "application/json" };
  if (warnings.length) headers.warning = warnings.map((w) => `299 - ${JSON.stringify(w)}`);
  res.writeHead(code, headers).end(JSON.stringify(body));
}

/** A Node as a kubelet with the NVIDIA device plugin (and GPU feature discovery) reports it. */
function nodeObject(o: AddNodeOptions): Omit<KubeObject, "metadata" | "apiVersion" | "kind"> & {
  labels: Record<string, string>;
} {
  const ready = o.ready ?? true;
  const gpu = o.gpus > 0 ? { [o.gpuResource ?? "nvidia.com/gpu"]: String(o.gpus) } : {};
  const resources = { cpu: String(o.cpu ?? 16), memory: o.memory ?? "64Gi", pods: "110", ...gpu };
  const product: Record<string, string> = o.product
    ? { "nvidia.com/gpu.product": o.product, "nvidia.com/gpu.count": String(o.gpus) }
    : {};
  const taints = [
    ...(o.unschedulable ? [{ key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" }] : []),
    ...(ready ? [] : [{ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" }]),
  ];
  return {
    labels: {
      "kubernetes.io/hostname": o.name,
      "kubernetes.io/os": "linux",
      "kubernetes.io/arch": "amd64",
      ...product,
      ...o.labels,
    },
    spec: { ...(o.unschedulable ? { unschedulable: true } : {}), ...(taints.length ? { taints } : {}) },
    status: {
      capacity: resources,
      allocatable: resources,
      conditions: [
        {
          type: "Ready",
          status: ready ? "True" : "False",
          reason: ready ? "KubeletReady" : "KubeletNotReady",
          message: ready ? "kubelet is posting ready status" : "container runtime network not ready",
          lastHeartbeatTime: kubeTime(),
          lastTransitionTime: kubeTime(),
        },
      ],
      addresses: [
        { type: "InternalIP", address: "10.0.0.10" },
        { type: "Hostname", address: o.name },
      ],
      nodeInfo: {
        kubeletVersion: "v1.31.0",
        containerRuntimeVersion: "containerd://1.7.20",
        operatingSystem: "linux",
        architecture: "amd64",
        osImage: "Ubuntu 22.04.4 LTS",
        kernelVersion: "5.15.0-117-generic",
      },
    },
  };
}
