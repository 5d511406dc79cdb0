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
 *
 * This module is the simulator's public face; its parts live in k8s-sim/: resources.ts and errors.ts
 * (object types, Status errors), store.ts (objects, history, garbage collection), selectors.ts,
 * rbac.ts, admission.ts, requests.ts and handlers.ts (the REST verbs), discovery.ts, nodes.ts, and
 * server.ts (HTTP, authentication, outages, the helpers tests call).
 */

export { KubeError, type Status } from "./k8s-sim/errors.js";
export type { AddNodeOptions } from "./k8s-sim/nodes.js";
export { RBAC_FILE } from "./k8s-sim/rbac.js";
export type {
  Json,
  KubeObject,
  NewObject,
  ObjectMeta,
  OwnerReference,
  ResourceName,
} from "./k8s-sim/resources.js";
export { K8sSim, type K8sSimOptions, type RequestLogEntry, startK8sSim } from "./k8s-sim/server.js";
export {
  type Change,
  type DeleteOptions,
  KubeStore,
  kubeTime,
  randomSuffix,
  type WatchEvent,
} from "./k8s-sim/store.js";
