/**
 * The backend-agnostic LaunchRequest the Fleet DO hands an agent: the admitted JobSpec plus everything the
 * control plane decided (placement, run identity, lease epoch, capsule and workspace digests, ingest).
 */
import { z } from "zod";
import { FleetNetwork } from "./api.schema.js";
import { Entrypoint, type ProcessMode } from "./catalog.schema.js";
import { Digest } from "./digest.js";
import { JobSpec } from "./jobspec.schema.js";

export const LAUNCH_API_VERSION = "starforge.dev/launch/v1";

export const Placement = z.object({
  rank: z.number().int().min(0).describe("The rank (from 0) this entry places"),
  pool: z.string().describe("The JobSpec pool the rank belongs to"),
  node_id: z.string().describe("The node it runs on"),
  /** Exactly the GPU indices the Fleet DO allocated on that node. */
  gpu_indices: z
    .array(z.number().int().min(0))
    .describe("The GPUs of that node it holds, by index (numbered from 0)"),
});
export type Placement = z.infer<typeof Placement>;

/**
 * The checkpoint a run continues from: the newest stored checkpoint of an earlier run of the same job
 * (pause/resume, stop/resume, retry). The agent fetches each file by digest from
 * `GET /v1/agents/checkpoints/<run_id>/<path>`, places it under `resume/` in the run directory and sets
 * SF_RESUME_FROM (the file, or the step's directory when the checkpoint has several files).
 */
export const ResumeFrom = z.object({
  run_id: z.string(),
  step: z.number().int().min(0).nullable(),
  files: z.array(z.object({ path: z.string(), digest: Digest, size_bytes: z.number().int().min(0) })).min(1),
});
export type ResumeFrom = z.infer<typeof ResumeFrom>;

export const LaunchRequest = z.object({
  api_version: z.literal(LAUNCH_API_VERSION),
  job_id: z.string(),
  run_id: z.string(),
  attempt: z.number().int().min(1),
  /** Lease epoch: reports carrying another epoch are refused (fencing). */
  epoch: z.number().int().min(1),
  fleet_id: z.string(),
  user_id: z.string(),
  spec: JobSpec,
  /** How the runner starts the workload (from the catalog entry the job was admitted against). */
  entrypoint: Entrypoint,
  /** The image container runtimes run: the spec's, else the framework's default; null = none. */
  image: z.string().nullable(),
  placement: z.array(Placement).min(1),
  world_size: z.number().int().min(1),
  workspace: z.object({ manifest: Digest.nullable() }),
  capsule: z.object({ files: z.record(z.string(), Digest) }),
  ingest: z.object({ endpoint: z.string().url(), token: z.string() }),
  env: z.record(z.string(), z.string()),
  /**
   * The job's secrets, opened for this launch only (docs/security.md): the agent adds them to the
   * workload's environment and never writes them to disk (its saved copy of the launch leaves them out).
   */
  secrets: z.record(z.string(), z.string()).default({}),
  resume_from: ResumeFrom.nullable().default(null),
});
export type LaunchRequest = z.infer<typeof LaunchRequest>;

/**
 * How a distributed run's processes lie over its nodes (placement ranks are nodes): per node, how many
 * processes (`per_gpu`: one per GPU; `per_node`: the one launcher, whose workers are one per GPU) and the
 * global rank of its first one. Null for a run whose recipe is not distributed.
 */
export function processLayout(
  req: Pick<LaunchRequest, "entrypoint" | "placement">,
): { mode: ProcessMode; local: number[]; base: number[]; world: number } | null {
  const mode = req.entrypoint.processes;
  if (!mode) return null;
  const nodes = [...req.placement].sort((a, b) => a.rank - b.rank);
  const local = nodes.map((p) => Math.max(1, p.gpu_indices.length));
  const base = local.map((_, i) => local.slice(0, i).reduce((a, b) => a + b, 0));
  return { mode, local, base, world: local.reduce((a, b) => a + b, 0) };
}

/**
 * The `torchrun` convention a distributed rank reads (PyTorch, DeepSpeed, Accelerate, Lightning, NeMo):
 * what the control plane knows at launch. MASTER_ADDR, MASTER_PORT and the host list come from the
 * rendezvous the runner does first; in `per_gpu` mode the runner sets RANK, LOCAL_RANK and the GPU of
 * each process it starts.
 */
export function distributedEnv(req: LaunchRequest, rank: number): Record<string, string> {
  const layout = processLayout(req);
  if (!layout) return {};
  return {
    SF_PROCESSES: layout.mode,
    NNODES: String(req.placement.length),
    NODE_RANK: String(rank),
    GROUP_RANK: String(rank),
    WORLD_SIZE: String(layout.world),
    LOCAL_WORLD_SIZE: String(layout.local[rank] ?? 1),
    RANK: String(layout.base[rank] ?? 0),
    LOCAL_RANK: "0",
  };
}

/**
 * What a fleet's network settings give every rank (the LaunchRequest's `env`): the collective
 * libraries' variables, and for the runner's rendezvous how long to wait for the other ranks and which
 * ports rank 0 may listen on.
 */
export function networkEnv(network: FleetNetwork | null): Record<string, string> {
  const n = network ?? FleetNetwork.parse({});
  return {
    ...n.env,
    SF_RENDEZVOUS_TIMEOUT_SECONDS: String(n.rendezvous_timeout_seconds),
    ...(n.port_range ? { SF_RENDEZVOUS_PORTS: `${n.port_range[0]}-${n.port_range[1]}` } : {}),
  };
}

/** The job environment every rank gets, derived from the LaunchRequest (no I/O), but its secrets' values. */
export function rankEnv(req: LaunchRequest, rank: number): Record<string, string> {
  const me = req.placement.find((p) => p.rank === rank);
  if (!me) throw new Error(`rank ${rank} is not in the placement`);
  const pool = req.spec.resources.pools.find((p) => p.name === me.pool);
  const rank0 = req.placement.find((p) => p.rank === 0)!;
  const secretNames = Object.keys(req.secrets).sort();
  const roles = Object.entries(req.spec.resources.roles)
    .filter(([, p]) => p === me.pool)
    .map(([role]) => role)
    .sort();
  return {
    ...req.env,
    // Names only: the runtime adds the values where they never touch the disk (RunSpec.secrets), and the
    // runner masks them in what the training prints.
    ...(secretNames.length > 0 ? { SF_SECRET_NAMES: secretNames.join(",") } : {}),
    STARFORGE_ENDPOINT: req.ingest.endpoint,
    STARFORGE_RUN_ID: req.run_id,
    STARFORGE_TOKEN: req.ingest.token,
    STARFORGE_ENABLED: "1",
    FORGE_JOB_ID: req.job_id,
    FORGE_RANK: String(rank),
    FORGE_WORLD_SIZE: String(req.world_size),
    FORGE_MASTER_NODE: rank0.node_id,
    // The rank's pool, and the roles the job maps to it (`resources.roles`), e.g. trainer / rollout.
    FORGE_POOL: me.pool,
    ...(roles.length > 0 ? { FORGE_ROLES: roles.join(",") } : {}),
    FORGE_CLUSTER_NUM_NODES: String(pool?.nodes ?? 1),
    FORGE_CLUSTER_GPUS_PER_NODE: String(pool?.gpus_per_node ?? me.gpu_indices.length),
    FORGE_GPU_INDICES: me.gpu_indices.join(","),
    // The image the rank runs in, for the environment probe (absent when the job names none).
    ...(req.image ? { FORGE_IMAGE: req.image } : {}),
    ...distributedEnv(req, rank),
  };
}
