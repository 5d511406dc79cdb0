/**
 * The RayJob (ray.io/v1) of one run, rendered from what the agent prepared (pure). A run is ONE RayJob for
 * all its ranks: rank 0 is the Ray head, rank R ≥ 1 a worker group of one pod, each pinned to the
 * Kubernetes node the Fleet DO chose (required node affinity on the node's name), with the node's GPUs
 * requested as `nvidia.com/gpu` (unless passthrough is off) and always as Ray's logical GPUs. The
 * entrypoint is the capsule's Ray launcher (capsule/rayjob.py): a pod cannot see the agent's disk, so
 * every rank pulls its inputs by digest with the run's token (pull mode, as Slurm without a shared
 * directory). The plan (with the tokens), pull.py and the launcher travel in a Secret owned by the
 * RayJob and mounted into the head pod as files — never in the RayJob, and never as environment
 * variables (Linux limits one to 128 KiB; a plan grows with the workspace and the ranks).
 *
 * submissionMode is K8sJobMode, KubeRay's default: a Kubernetes Job submits the entrypoint once the
 * cluster is up and KubeRay follows the Ray job to its end. It works with every KubeRay v1 release and
 * leaves the submission's log in a pod (`kubectl logs job/<rayjob>`); HTTPMode saves that pod but needs
 * KubeRay ≥ 1.3, SidecarMode ≥ 1.5, and InteractiveMode waits for a person.
 */
import { clusterNodeOf } from "../gather.js";

export const GROUP = "ray.io";
export const VERSION = "v1";
export const PLURAL = "rayjobs";

/** Labels every object of ours carries (RayJob, Secret, and through the templates every pod). */
export const LABEL_MANAGED_BY = "app.kubernetes.io/managed-by";
export const MANAGED_BY = "forgelet";
export const LABEL_RUN = "starforge.dev/run-id";
export const LABEL_JOB = "starforge.dev/job-id";
export const LABEL_EPOCH = "starforge.dev/epoch";
export const LABEL_RANK = "starforge.dev/rank";
/** The run's Secret: the pull plan (with the ranks' tokens), pull.py and the launcher, as files. */
export const SECRET_PLAN_KEY = "plan.json";
export const SECRET_PULL_KEY = "pull.py";
export const SECRET_LAUNCHER_KEY = "rayjob.py";
/**
 * Where the head pod sees the run's Secret. Under /tmp and named after the RayJob: any image can mount
 * there, and the test simulator, which runs the entrypoint on its own host, keeps runs apart.
 */
export const secretMount = (name: string) => `/tmp/starforge-secrets/${name}`;
/** The Ray custom resource that puts rank R's actor on rank R's pod. */
export const rankResource = (rank: number) => `starforge_rank_${rank}`;

export interface KubeRayRankPlan {
  rank: number;
  /** The fleet node id (`<agent>:<kubernetes node name>`). */
  nodeId: string;
  gpus: number;
}

export interface KubeRayRunPlan {
  runId: string;
  jobId: string;
  attempt: number;
  epoch: number;
  namespace: string;
  ranks: KubeRayRankPlan[];
  image: string;
  /** The extended resource the nodes' device plugin advertises (default nvidia.com/gpu). */
  gpuResource: string;
  /** false (FORGE_K8S_GPU_PASSTHROUGH=0): no GPU requests, only Ray's logical GPUs. */
  gpuPassthrough: boolean;
  /** CPUs and memory (MiB) per pod: the run's share of the node, or null to request none. */
  cpusPerPod: number | null;
  memoryPerPodMb: number | null;
  maxRuntimeSeconds: number | null;
  /** capsule/rayjob.py and capsule/pull.py, as text. */
  launcher: string;
  pullScript: string;
  /** Where each rank builds its run directory on its pod's disk. */
  nodeDir: string;
  keepRuns: boolean;
  /** Seconds KubeRay keeps the finished cluster before deleting it (the agent deletes it first). */
  ttlSecondsAfterFinished: number;
  /** SIGTERM to SIGKILL when a run is stopped (the capsule checkpoints in between). */
  stopGraceSeconds: number;
  serviceAccountName?: string | null;
  /**
   * The job's secrets by name: every container gets each from the run's Secret (key `env.<NAME>`), so a
   * value lives only in that Secret, never in the RayJob, a rank's environment file or the pull plan.
   */
  secretNames?: string[];
}

/** The key of a job secret's value in the run's Secret. */
export const secretEnvKey = (name: string) => `env.${name}`;

/** The RayJob's name: the run and epoch, so a restarted agent finds it (≤ 47 characters, as KubeRay asks). */
export function rayJobName(runId: string, epoch: number): string {
  return `sf-${runId.toLowerCase().replaceAll("_", "-")}-e${epoch}`;
}

export function runLabels(plan: Pick<KubeRayRunPlan, "runId" | "jobId" | "epoch">): Record<string, string> {
  return {
    [LABEL_MANAGED_BY]: MANAGED_BY,
    [LABEL_RUN]: plan.runId,
    [LABEL_JOB]: plan.jobId,
    [LABEL_EPOCH]: String(plan.epoch),
  };
}

type Obj = Record<string, unknown>;

/**
 * Kubernetes deletes a stopped run's pods right away (KubeRay removes its finalizer without waiting for
 * the Ray job), and SIGTERM to a Ray container's PID 1 (`ray start --block`) ends every Ray process at
 * once. The preStop hook runs first: it TERMs each rank's capsule (the launcher records its process
 * group) and waits, within the grace, until it checkpointed and exited.
 */
export function preStopScript(plan: Pick<KubeRayRunPlan, "runId" | "nodeDir" | "stopGraceSeconds">): string {
  const files = `${plan.nodeDir}/${plan.runId}-r*.pgid`;
  return [
    `for f in ${files}; do [ -f "$f" ] && kill -TERM -"$(cat "$f")" 2>/dev/null; done`,
    `i=0; while [ "$i" -lt ${plan.stopGraceSeconds + CHECKPOINT_DRAIN_SECONDS} ]; do`,
    `  alive=0; for f in ${files}; do [ -f "$f" ] && kill -0 -"$(cat "$f")" 2>/dev/null && alive=1; done`,
    '  [ "$alive" = 0 ] && break; sleep 1; i=$((i + 1))',
    "done",
  ].join("\n");
}

/** After the stop grace, the capsule may still ship its last checkpoint and logs (its drain). */
const CHECKPOINT_DRAIN_SECONDS = 30;

function container(
  plan: KubeRayRunPlan,
  r: KubeRayRankPlan,
  launcher: Obj[] | null,
  secret: string | null,
): Obj {
  const fromSecret = (plan.secretNames ?? []).map((n) => ({
    name: n,
    valueFrom: { secretKeyRef: { name: rayJobName(plan.runId, plan.epoch), key: secretEnvKey(n) } },
  }));
  const env = launcher || fromSecret.length > 0 ? [...(launcher ?? []), ...fromSecret] : null;
  const limits: Record<string, string> = {};
  const requests: Record<string, string> = {};
  // Requests leave a tenth of the share to what already runs on every node (DaemonSets: CNI, the device
  // plugin, monitoring), so a run taking a whole node can still be scheduled; limits are the full share.
  if (plan.cpusPerPod !== null) {
    limits.cpu = String(plan.cpusPerPod);
    requests.cpu = `${Math.max(100, Math.floor(plan.cpusPerPod * 900))}m`;
  }
  if (plan.memoryPerPodMb !== null) {
    limits.memory = `${plan.memoryPerPodMb}Mi`;
    requests.memory = `${Math.max(1, Math.floor(plan.memoryPerPodMb * 0.9))}Mi`;
  }
  if (plan.gpuPassthrough && r.gpus > 0) {
    limits[plan.gpuResource] = String(r.gpus);
    requests[plan.gpuResource] = String(r.gpus);
  }
  return {
    name: r.rank === 0 ? "ray-head" : "ray-worker",
    image: plan.image,
    lifecycle: { preStop: { exec: { command: ["/bin/sh", "-c", preStopScript(plan)] } } },
    ...(env ? { env } : {}),
    ...(secret
      ? { volumeMounts: [{ name: "starforge-run", mountPath: secretMount(secret), readOnly: true }] }
      : {}),
    ...(Object.keys(limits).length > 0 ? { resources: { requests, limits } } : {}),
  };
}

/** A rank's pod; the head (`secret` set) also mounts the run's Secret and gets the launcher's environment. */
function podTemplate(plan: KubeRayRunPlan, r: KubeRayRankPlan, secret: string | null): Obj {
  const node = clusterNodeOf(r.nodeId);
  return {
    metadata: {
      labels: { ...runLabels(plan), [LABEL_RANK]: String(r.rank) },
      annotations: { "starforge.dev/node": node },
    },
    spec: {
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: [node] }] }],
          },
        },
      },
      // GPU nodes are commonly tainted for their resource; the pod was placed there on purpose.
      tolerations: [{ key: plan.gpuResource, operator: "Exists", effect: "NoSchedule" }],
      terminationGracePeriodSeconds: plan.stopGraceSeconds + CHECKPOINT_DRAIN_SECONDS + 10,
      ...(plan.serviceAccountName ? { serviceAccountName: plan.serviceAccountName } : {}),
      ...(secret
        ? { volumes: [{ name: "starforge-run", secret: { secretName: secret, defaultMode: 0o444 } }] }
        : {}),
      containers: [container(plan, r, secret ? launcherEnv(plan) : null, secret)],
    },
  };
}

function rayStartParams(plan: KubeRayRunPlan, r: KubeRayRankPlan): Record<string, string> {
  return {
    // Ray's logical GPUs, passthrough or not (a run asks Ray for exactly what the Fleet DO counted).
    "num-gpus": String(r.gpus),
    ...(plan.cpusPerPod !== null ? { "num-cpus": String(plan.cpusPerPod) } : {}),
    // KubeRay pastes this onto `ray start`'s command line: a JSON object in single quotes (its own form).
    resources: `'${JSON.stringify({ [rankResource(r.rank)]: 1 })}'`,
  };
}

/** The head's environment: what the launcher needs besides its Secret's files. */
function launcherEnv(plan: KubeRayRunPlan): Obj[] {
  const plain: Record<string, string> = {
    SF_RUN_ID: plan.runId,
    SF_NODE_DIR: plan.nodeDir,
    SF_KEEP_RUNS: plan.keepRuns ? "1" : "0",
    SF_RANK_GPUS: JSON.stringify(Object.fromEntries(plan.ranks.map((r) => [String(r.rank), r.gpus]))),
    // How long Ray waits after SIGTERM before SIGKILL when the Ray job is stopped (its default is 3 s).
    RAY_JOB_STOP_WAIT_TIME_S: String(plan.stopGraceSeconds + CHECKPOINT_DRAIN_SECONDS),
  };
  return Object.entries(plain).map(([name, value]) => ({ name, value }));
}

export function renderRayJob(plan: KubeRayRunPlan): Obj {
  const ranks = [...plan.ranks].sort((a, b) => a.rank - b.rank);
  if (ranks.length === 0 || ranks[0]!.rank !== 0 || ranks.some((r, i) => r.rank !== i)) {
    throw new Error(`run ${plan.runId} has ranks ${ranks.map((r) => r.rank).join(",")}; expected 0..N-1`);
  }
  const nodes = ranks.map((r) => clusterNodeOf(r.nodeId));
  if (new Set(nodes).size !== nodes.length) {
    throw new Error(
      `ranks of run ${plan.runId} share a Kubernetes node (${nodes.join(", ")}); one rank per node`,
    );
  }
  const name = rayJobName(plan.runId, plan.epoch);
  const [head, ...workers] = ranks;
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: "RayJob",
    metadata: {
      name,
      namespace: plan.namespace,
      labels: runLabels(plan),
      annotations: {
        "starforge.dev/attempt": String(plan.attempt),
        "starforge.dev/placement": ranks.map((r, i) => `${r.rank}=${nodes[i]}`).join(","),
      },
    },
    spec: {
      entrypoint: `python3 ${secretMount(name)}/${SECRET_LAUNCHER_KEY}`,
      submissionMode: "K8sJobMode",
      // No backoffLimit: KubeRay's default (0) never retries, and the field (KubeRay ≥ 1.2) would make a
      // 1.1 API server refuse the RayJob under strict field validation.
      shutdownAfterJobFinishes: true,
      ttlSecondsAfterFinished: plan.ttlSecondsAfterFinished,
      ...(plan.maxRuntimeSeconds !== null
        ? { activeDeadlineSeconds: Math.max(1, plan.maxRuntimeSeconds) }
        : {}),
      rayClusterSpec: {
        headGroupSpec: {
          rayStartParams: rayStartParams(plan, head!),
          template: podTemplate(plan, head!, name),
        },
        ...(workers.length > 0
          ? {
              workerGroupSpecs: workers.map((r) => ({
                groupName: `rank-${r.rank}`,
                replicas: 1,
                minReplicas: 1,
                maxReplicas: 1,
                rayStartParams: rayStartParams(plan, r),
                template: podTemplate(plan, r, null),
              })),
            }
          : {}),
      },
    },
  };
}

/** The run's Secret (the pull plan with each rank's token), owned by its RayJob so it goes with it. */
export function renderSecret(
  plan: Pick<KubeRayRunPlan, "runId" | "jobId" | "epoch" | "namespace" | "launcher" | "pullScript">,
  pullPlan: string,
  owner: { name: string; uid: string },
  secrets: Record<string, string> = {},
): Obj {
  const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
  return {
    apiVersion: "v1",
    kind: "Secret",
    type: "Opaque",
    metadata: {
      name: rayJobName(plan.runId, plan.epoch),
      namespace: plan.namespace,
      labels: runLabels(plan),
      // No blockOwnerDeletion: it needs update on rayjobs/finalizers where owner references are enforced.
      ownerReferences: [
        { apiVersion: `${GROUP}/${VERSION}`, kind: "RayJob", name: owner.name, uid: owner.uid },
      ],
    },
    data: {
      [SECRET_PLAN_KEY]: b64(pullPlan),
      [SECRET_PULL_KEY]: b64(plan.pullScript),
      [SECRET_LAUNCHER_KEY]: b64(plan.launcher),
      ...Object.fromEntries(Object.entries(secrets).map(([k, v]) => [secretEnvKey(k), b64(v)])),
    },
  };
}
