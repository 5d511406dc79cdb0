/**
 * The object types the simulated API server stores, and the table of the resources it serves (kind,
 * group, scope, status subresource, the field selectors each supports).
 */

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

export interface ResourceDef {
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

export const ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

export const RESOURCES: Record<ResourceName, ResourceDef> = {
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

export const apiVersionOf = (d: ResourceDef) => (d.group ? `${d.group}/${d.version}` : d.version);
/** `rayjobs.ray.io`, `pods`: how the API server names a resource in its messages. */
export const qualified = (d: ResourceDef) => (d.group ? `${d.name}.${d.group}` : d.name);
