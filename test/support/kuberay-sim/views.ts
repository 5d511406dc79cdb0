/**
 * Typed views of what the operator reads (the API simulator validated the RayJob against the CRD),
 * and small readers and writers over them.
 */
import type { Json, KubeObject } from "../k8s-sim.js";

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
}

export interface Container {
  name: string;
  image?: string;
  env?: EnvVar[];
  envFrom?: Array<{ secretRef?: { name: string; optional?: boolean } }>;
  volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
  lifecycle?: { preStop?: { exec?: { command?: string[] } } };
}

export interface Volume {
  name: string;
  secret?: { secretName: string; defaultMode?: number; optional?: boolean };
}

/** A secret volume as the container sees it: its files at the mount path. */
export interface SecretMount {
  mountPath: string;
  mode: number;
  files: Record<string, string>;
}

export interface NodeSelectorTerm {
  matchFields?: Array<{ key: string; operator: string; values?: string[] }>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

export interface PodSpec {
  containers: Container[];
  volumes?: Volume[];
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  affinity?: {
    nodeAffinity?: {
      requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] };
    };
  };
  terminationGracePeriodSeconds?: number;
  restartPolicy?: string;
}

export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: PodSpec;
}

export interface WorkerGroup {
  groupName: string;
  replicas?: number;
  minReplicas?: number;
  maxReplicas?: number;
  suspend?: boolean;
  template: PodTemplate;
}

export interface RayClusterSpec {
  headGroupSpec: { template: PodTemplate };
  workerGroupSpecs?: WorkerGroup[];
}

export interface RayJobSpec {
  entrypoint?: string;
  suspend?: boolean;
  shutdownAfterJobFinishes?: boolean;
  ttlSecondsAfterFinished?: number;
  activeDeadlineSeconds?: number;
  preRunningDeadlineSeconds?: number;
  backoffLimit?: number;
  submissionMode?: string;
  submitterConfig?: { backoffLimit?: number };
  jobId?: string;
  rayClusterSpec: RayClusterSpec;
}

export interface ContainerStatus {
  name: string;
  state: Json;
  lastState: Json;
  ready: boolean;
  started?: boolean;
  restartCount: number;
  image?: string;
  imageID?: string;
  containerID?: string;
}

export const specOf = (job: KubeObject) => job.spec as unknown as RayJobSpec;
export const statusOf = (o: KubeObject) => (o.status ?? {}) as Json & Record<string, unknown>;
export const str = (v: unknown) => (typeof v === "string" ? v : "");

export function containersOf(pod: KubeObject): Container[] {
  return (pod.spec?.containers as Container[] | undefined) ?? [];
}

export function ownerRef(o: KubeObject) {
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    name: o.metadata.name,
    uid: o.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

export function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}
