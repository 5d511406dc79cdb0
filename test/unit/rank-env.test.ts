import { describe, expect, it } from "vitest";
import { JOB_API_VERSION, JobSpec, totalGpus } from "../../contract/jobspec.schema.js";
import {
  LAUNCH_API_VERSION,
  LaunchRequest,
  type Placement,
  rankEnv,
} from "../../contract/launch-request.schema.js";

const D = (c: string) => `sha256:${c.repeat(64)}`;

const spec = JobSpec.parse({
  api_version: JOB_API_VERSION,
  metadata: { name: "grpo-run" },
  recipe: { name: "verl/grpo", version: "1.0.0", digest: D("a") },
  framework: { kind: "verl", version: "0.4", runtime_id: "torch" },
  source: { workspace: null },
  resources: {
    pools: [
      { name: "trainer", profile: "h200", series: "h200", nodes: 2, gpus_per_node: 8 },
      { name: "rollout", profile: "l40s", series: "l40s", nodes: 1, gpus_per_node: 2 },
    ],
    roles: { trainer: "trainer", rollout: "rollout" },
  },
  provenance: { git_commit: null, git_dirty: false, config_sha: D("b") },
});

const placement: Placement[] = [
  { rank: 0, pool: "trainer", node_id: "nod_a", gpu_indices: [0, 1, 2, 3, 4, 5, 6, 7] },
  { rank: 1, pool: "trainer", node_id: "nod_b", gpu_indices: [0, 1, 2, 3, 4, 5, 6, 7] },
  { rank: 2, pool: "rollout", node_id: "nod_c", gpu_indices: [1, 3] },
];

const req: LaunchRequest = LaunchRequest.parse({
  api_version: LAUNCH_API_VERSION,
  job_id: "job_1",
  run_id: "run_1",
  attempt: 1,
  epoch: 1,
  fleet_id: "flt_1",
  user_id: "usr_1",
  spec,
  entrypoint: { kind: "script", path: "train.sh" },
  image: "ghcr.io/acme/train:1.0",
  placement,
  world_size: 3,
  workspace: { manifest: null },
  capsule: { files: { "bootstrap.sh": D("c") } },
  ingest: { endpoint: "https://sf.example/v1/ingest", token: "tok-secret" },
  env: { HF_HOME: "/cache/hf", STARFORGE_TOKEN: "user-tries-to-override" },
});

describe("rankEnv", () => {
  it("gives rank 0 its rank, the world size, itself as master and its GPUs", () => {
    const env = rankEnv(req, 0);
    expect(env).toMatchObject({
      FORGE_JOB_ID: "job_1",
      FORGE_RANK: "0",
      FORGE_WORLD_SIZE: "3",
      FORGE_MASTER_NODE: "nod_a",
      FORGE_CLUSTER_NUM_NODES: "2",
      FORGE_CLUSTER_GPUS_PER_NODE: "8",
      FORGE_GPU_INDICES: "0,1,2,3,4,5,6,7",
      FORGE_IMAGE: "ghcr.io/acme/train:1.0",
    });
  });

  it("points every other rank at rank 0's node", () => {
    expect(rankEnv(req, 1)).toMatchObject({ FORGE_RANK: "1", FORGE_MASTER_NODE: "nod_a" });
    expect(rankEnv(req, 2)).toMatchObject({ FORGE_RANK: "2", FORGE_MASTER_NODE: "nod_a" });
  });

  it("describes the rank's own pool and exactly its allocated GPU indices", () => {
    expect(rankEnv(req, 2)).toMatchObject({
      FORGE_CLUSTER_NUM_NODES: "1",
      FORGE_CLUSTER_GPUS_PER_NODE: "2",
      FORGE_GPU_INDICES: "1,3",
    });
  });

  it("carries the ingest wire-format variables", () => {
    expect(rankEnv(req, 1)).toMatchObject({
      STARFORGE_ENDPOINT: "https://sf.example/v1/ingest",
      STARFORGE_RUN_ID: "run_1",
      STARFORGE_TOKEN: "tok-secret",
      STARFORGE_ENABLED: "1",
    });
  });

  it("keeps the request's extra env but never lets it override the run's identity", () => {
    const env = rankEnv(req, 0);
    expect(env.HF_HOME).toBe("/cache/hf");
    expect(env.STARFORGE_TOKEN).toBe("tok-secret");
  });

  it("refuses a rank that is not in the placement", () => {
    expect(() => rankEnv(req, 3)).toThrow(/rank 3 is not in the placement/);
  });

  it("matches the spec's GPU total over all ranks", () => {
    const total = placement.reduce(
      (n, p) => n + (rankEnv(req, p.rank).FORGE_GPU_INDICES ?? "").split(",").length,
      0,
    );
    expect(total).toBe(totalGpus(spec));
  });
});

describe("JobSpec", () => {
  it("refuses a pool named twice and a role pointing at no pool", () => {
    const input = JobSpec.parse(spec);
    const twice = {
      ...input,
      resources: { ...input.resources, pools: [input.resources.pools[0]!, input.resources.pools[0]!] },
    };
    expect(JobSpec.safeParse(twice).success).toBe(false);
    const dangling = { ...input, resources: { ...input.resources, roles: { critic: "critic" } } };
    expect(JobSpec.safeParse(dangling).success).toBe(false);
    expect(JobSpec.safeParse(input).success).toBe(true);
  });
});
