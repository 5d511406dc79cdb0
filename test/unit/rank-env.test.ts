import { describe, expect, it } from "vitest";
import { JOB_API_VERSION, JobSpec, totalGpus } from "../../contract/jobspec.schema.js";
import {
  LAUNCH_API_VERSION,
  LaunchRequest,
  type Placement,
  processLayout,
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

  it("names the rank's pool and the roles the job maps to it", () => {
    expect(rankEnv(req, 0)).toMatchObject({ FORGE_POOL: "trainer", FORGE_ROLES: "trainer" });
    expect(rankEnv(req, 2)).toMatchObject({ FORGE_POOL: "rollout", FORGE_ROLES: "rollout" });
    const twoRoles = LaunchRequest.parse({
      ...req,
      spec: { ...spec, resources: { ...spec.resources, roles: { ref: "rollout", rollout: "rollout" } } },
    });
    expect(rankEnv(twoRoles, 2).FORGE_ROLES).toBe("ref,rollout");
    expect(rankEnv(twoRoles, 0)).not.toHaveProperty("FORGE_ROLES");
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

describe("the distributed environment (torchrun convention)", () => {
  const TORCHRUN = [
    "NNODES",
    "NODE_RANK",
    "GROUP_RANK",
    "WORLD_SIZE",
    "LOCAL_WORLD_SIZE",
    "RANK",
    "LOCAL_RANK",
  ];

  it("a recipe that is not distributed gets none of it (no rendezvous, no RANK/WORLD_SIZE)", () => {
    expect(processLayout(req)).toBeNull();
    const env = rankEnv(req, 1);
    for (const k of [...TORCHRUN, "SF_PROCESSES"]) expect(env[k], k).toBeUndefined();
  });

  it("per_gpu: one process per GPU, global ranks numbered node after node", () => {
    const dist = {
      ...req,
      entrypoint: { kind: "python" as const, module: "ddp.train", processes: "per_gpu" as const },
    };
    expect(processLayout(dist)).toEqual({ mode: "per_gpu", local: [8, 8, 2], base: [0, 8, 16], world: 18 });
    const envs = placement.map((p) => rankEnv(dist, p.rank));
    expect(envs.map((e) => [e.NODE_RANK, e.GROUP_RANK, e.RANK, e.LOCAL_WORLD_SIZE, e.LOCAL_RANK])).toEqual([
      ["0", "0", "0", "8", "0"],
      ["1", "1", "8", "8", "0"],
      ["2", "2", "16", "2", "0"],
    ]);
    for (const e of envs) expect([e.NNODES, e.WORLD_SIZE, e.SF_PROCESSES]).toEqual(["3", "18", "per_gpu"]);
    // The world is exactly the GPUs the run was given.
    expect(Number(envs[0]!.WORLD_SIZE)).toBe(totalGpus(spec));
  });

  it("per_node: the same world; the node's launcher (e.g. torchrun) starts the per-GPU workers", () => {
    const dist = {
      ...req,
      entrypoint: { kind: "script" as const, path: "train.sh", processes: "per_node" as const },
    };
    const env = rankEnv(dist, 2);
    expect(env).toMatchObject({
      SF_PROCESSES: "per_node",
      NNODES: "3",
      NODE_RANK: "2",
      WORLD_SIZE: "18",
      LOCAL_WORLD_SIZE: "2",
    });
  });

  it("a node without GPUs (a CPU pool) still counts as one process", () => {
    const cpu = {
      ...req,
      entrypoint: { kind: "python" as const, module: "ddp.train", processes: "per_gpu" as const },
      placement: [
        { rank: 0, pool: "trainer", node_id: "nod_a", gpu_indices: [] },
        { rank: 1, pool: "trainer", node_id: "nod_b", gpu_indices: [0] },
      ],
    };
    expect(processLayout(cpu)).toMatchObject({ local: [1, 1], base: [0, 1], world: 2 });
  });

  it("the fleet's network variables reach every rank, but never override the platform's own", () => {
    const dist = {
      ...req,
      entrypoint: { kind: "python" as const, module: "ddp.train", processes: "per_gpu" as const },
      env: { NCCL_SOCKET_IFNAME: "ib0", SF_RENDEZVOUS_TIMEOUT_SECONDS: "60", RANK: "99" },
    };
    const env = rankEnv(dist, 1);
    expect(env).toMatchObject({ NCCL_SOCKET_IFNAME: "ib0", SF_RENDEZVOUS_TIMEOUT_SECONDS: "60", RANK: "8" });
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
