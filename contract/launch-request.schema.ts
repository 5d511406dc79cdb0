/**
 * The backend-agnostic LaunchRequest the Fleet DO hands an agent: the admitted JobSpec plus everything the
 * control plane decided (placement, run identity, lease epoch, capsule and workspace digests, ingest).
 */
import { z } from "zod";
import { Entrypoint } from "./catalog.schema.js";
import { Digest } from "./digest.js";
import { JobSpec } from "./jobspec.schema.js";

export const LAUNCH_API_VERSION = "starforge.dev/launch/v1";

export const Placement = z.object({
  rank: z.number().int().min(0),
  pool: z.string(),
  node_id: z.string(),
  /** Exactly the GPU indices the Fleet DO allocated on that node. */
  gpu_indices: z.array(z.number().int().min(0)),
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
  resume_from: ResumeFrom.nullable().default(null),
});
export type LaunchRequest = z.infer<typeof LaunchRequest>;

/** The job environment every rank gets, derived from the LaunchRequest (no I/O). */
export function rankEnv(req: LaunchRequest, rank: number): Record<string, string> {
  const me = req.placement.find((p) => p.rank === rank);
  if (!me) throw new Error(`rank ${rank} is not in the placement`);
  const pool = req.spec.resources.pools.find((p) => p.name === me.pool);
  const rank0 = req.placement.find((p) => p.rank === 0)!;
  return {
    ...req.env,
    STARFORGE_ENDPOINT: req.ingest.endpoint,
    STARFORGE_RUN_ID: req.run_id,
    STARFORGE_TOKEN: req.ingest.token,
    STARFORGE_ENABLED: "1",
    FORGE_JOB_ID: req.job_id,
    FORGE_RANK: String(rank),
    FORGE_WORLD_SIZE: String(req.world_size),
    FORGE_MASTER_NODE: rank0.node_id,
    FORGE_CLUSTER_NUM_NODES: String(pool?.nodes ?? 1),
    FORGE_CLUSTER_GPUS_PER_NODE: String(pool?.gpus_per_node ?? me.gpu_indices.length),
    FORGE_GPU_INDICES: me.gpu_indices.join(","),
    // The image the rank runs in, for the environment probe (absent when the job names none).
    ...(req.image ? { FORGE_IMAGE: req.image } : {}),
  };
}
