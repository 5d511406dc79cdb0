import { describe, expect, it } from "vitest";
import { decide } from "../../durable-objects/fleet/scheduler/policy.js";
import {
  dispatched,
  input,
  job,
  NOW,
  node,
  placementOf,
  pool,
  reasonCodes,
  user,
} from "./policy-fixtures.js";

describe("decide: placement", () => {
  it("reports NO_NODE_OF_SERIES when the fleet has no node of that series", () => {
    const d = decide(input({ nodes: [node("l1", "l40s", 8)], queue: [job("j", [pool("h200", 1, 1)])] }));
    expect(d.dispatch).toEqual([]);
    expect(reasonCodes(d, "j")).toEqual(["NO_NODE_OF_SERIES"]);
    expect(d.pending.j![0]!.details).toMatchObject({ series: "h200" });
  });

  it("reports NO_AGENT_RUNTIME when no node of the series runs the job's kind (image vs process)", () => {
    const processOnly = [node("p1", "h200", 8, { runtime: "process" })];
    const imageJob = decide(
      input({ nodes: processOnly, queue: [job("img", [pool("h200", 1, 1)], { needsImage: true })] }),
    );
    expect(imageJob.dispatch).toEqual([]);
    expect(reasonCodes(imageJob, "img")).toEqual(["NO_AGENT_RUNTIME"]);
    expect(imageJob.pending.img![0]!.details).toMatchObject({ needs: "container", runtimes: "process" });
    const dockerOnly = [node("d1", "h200", 8, { runtime: "docker" })];
    const plain = decide(input({ nodes: dockerOnly, queue: [job("plain", [pool("h200", 1, 1)])] }));
    expect(reasonCodes(plain, "plain")).toEqual(["NO_AGENT_RUNTIME"]);
    // Mixed runtimes: each job goes to a node that can run it; admin-registered nodes (no runtime) run both.
    const mixed = decide(
      input({
        nodes: [...processOnly, ...dockerOnly],
        queue: [job("a", [pool("h200", 1, 1)], { needsImage: true }), job("b", [pool("h200", 1, 1)])],
      }),
    );
    expect(placementOf(mixed, "a")[0]!.node_id).toBe("d1");
    expect(placementOf(mixed, "b")[0]!.node_id).toBe("p1");
    const registered = decide(
      input({
        nodes: [node("r1", "h200", 8)],
        queue: [job("c", [pool("h200", 1, 1)], { needsImage: true })],
      }),
    );
    expect(dispatched(registered)).toEqual(["c"]);
  });

  it("Slurm nodes run image-less jobs only; a docker node with a default image runs both", () => {
    const slurm = [node("s1", "h200", 8, { runtime: "slurm" })];
    const plain = decide(input({ nodes: slurm, queue: [job("plain", [pool("h200", 1, 1)])] }));
    expect(placementOf(plain, "plain")[0]!.node_id).toBe("s1");
    const img = decide(
      input({ nodes: slurm, queue: [job("img", [pool("h200", 1, 1)], { needsImage: true })] }),
    );
    expect(reasonCodes(img, "img")).toEqual(["NO_AGENT_RUNTIME"]);
    expect(img.pending.img![0]!.message).toContain("docker or kuberay");
    const both = [node("d1", "h200", 8, { runtime: "docker", workloads: ["image", "bare"] })];
    const mixed = decide(
      input({
        nodes: both,
        queue: [job("a", [pool("h200", 1, 1)], { needsImage: true }), job("b", [pool("h200", 1, 1)])],
      }),
    );
    expect(dispatched(mixed).sort()).toEqual(["a", "b"]);
  });

  it("keeps a run within one cluster agent's nodes; it never splits one between two clusters", () => {
    const nodes = [
      node("a1", "h200", 4, { runtime: "slurm", domain: "agent-a" }),
      node("b1", "h200", 4, { runtime: "slurm", domain: "agent-b" }),
    ];
    const split = decide(input({ nodes, queue: [job("gang", [pool("h200", 2, 4)])] }));
    expect(dispatched(split)).toEqual([]);
    expect(reasonCodes(split, "gang")).toEqual(["CAPACITY"]);
    expect(split.pending.gang![0]!.message).toContain("must be in one cluster");
    // One more node behind agent a: the gang fits there, and only there.
    const fits = decide(
      input({
        nodes: [...nodes, node("a2", "h200", 4, { runtime: "slurm", domain: "agent-a" })],
        queue: [job("gang", [pool("h200", 2, 4)])],
      }),
    );
    expect(
      placementOf(fits, "gang")
        .map((p) => p.node_id)
        .sort(),
    ).toEqual(["a1", "a2"]);
    // Single-node jobs go anywhere.
    const one = decide(
      input({ nodes, queue: [job("x", [pool("h200", 1, 4)]), job("y", [pool("h200", 1, 4)])] }),
    );
    expect(dispatched(one).sort()).toEqual(["x", "y"]);
  });

  it("reports CAPACITY when nodes of the series exist but are busy", () => {
    const d = decide(
      input({
        nodes: [node("h1", "h200", 8, { used: [0, 1, 2, 3, 4, 5] })],
        queue: [job("j", [pool("h200", 1, 4)])],
      }),
    );
    expect(reasonCodes(d, "j")).toEqual(["CAPACITY"]);
    expect(d.pending.j![0]!.details).toMatchObject({ free_gpus: 2, gpus_per_node: 4 });
  });

  it("reports GANG_INCOMPLETE for 2 nodes of 8 on a one-node fleet and allocates nothing", () => {
    const d = decide(
      input({
        nodes: [node("h1", "h200", 8)],
        queue: [job("gang", [pool("h200", 2, 8)], { priority: 50 }), job("small", [pool("h200", 1, 8)])],
      }),
    );
    expect(reasonCodes(d, "gang")).toEqual(["GANG_INCOMPLETE"]);
    expect(d.pending.gang![0]!.details).toMatchObject({ nodes_needed: 2, nodes_available: 1 });
    // The failed gang held nothing back: the whole node is still there for the next job.
    expect(placementOf(d, "small")).toEqual([
      { rank: 0, pool: "default", node_id: "h1", gpu_indices: [0, 1, 2, 3, 4, 5, 6, 7] },
    ]);
  });

  it("places each rank of a pool on its own node", () => {
    const d = decide(input({ nodes: [node("h1", "h200", 8)], queue: [job("j", [pool("h200", 2, 4)])] }));
    expect(reasonCodes(d, "j")).toEqual(["GANG_INCOMPLETE"]);
    const two = decide(
      input({
        nodes: [node("h1", "h200", 8), node("h2", "h200", 8)],
        queue: [job("j", [pool("h200", 2, 8)])],
      }),
    );
    expect(placementOf(two, "j").map((p) => [p.rank, p.node_id, p.gpu_indices.length])).toEqual([
      [0, "h1", 8],
      [1, "h2", 8],
    ]);
  });

  it("is all-or-nothing across pools: one pool short keeps every pool unplaced", () => {
    const nodes = [node("h1", "h200", 8), node("l1", "l40s", 4, { used: [0, 1, 2] })];
    const rl = job("rl", [pool("h200", 1, 8, "trainer"), pool("l40s", 1, 2, "rollout")], { priority: 50 });
    const after = job("after", [pool("h200", 1, 8)]);
    const d = decide(input({ nodes, queue: [rl, after] }));
    expect(reasonCodes(d, "rl")).toEqual(["CAPACITY"]);
    expect(d.pending.rl![0]!.details).toMatchObject({ pool: "rollout" });
    expect(placementOf(d, "after")[0]!.gpu_indices).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it("places every pool of a multi-pool job with consecutive ranks", () => {
    const nodes = [node("h1", "h200", 8), node("h2", "h200", 8), node("l1", "l40s", 4)];
    const rl = job("rl", [pool("h200", 2, 8, "trainer"), pool("l40s", 1, 2, "rollout")]);
    expect(placementOf(decide(input({ nodes, queue: [rl] })), "rl")).toEqual([
      { rank: 0, pool: "trainer", node_id: "h1", gpu_indices: [0, 1, 2, 3, 4, 5, 6, 7] },
      { rank: 1, pool: "trainer", node_id: "h2", gpu_indices: [0, 1, 2, 3, 4, 5, 6, 7] },
      { rank: 2, pool: "rollout", node_id: "l1", gpu_indices: [0, 1] },
    ]);
  });

  it("lets two pools of one job share a node without sharing GPUs", () => {
    const rl = job("rl", [pool("h200", 1, 4, "trainer"), pool("h200", 1, 4, "rollout")]);
    const place = placementOf(decide(input({ nodes: [node("h1", "h200", 8)], queue: [rl] })), "rl");
    expect(place.map((p) => p.gpu_indices)).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
    ]);
  });

  it("on Slurm, keeps the pools of one job on distinct nodes (a heterogeneous job's components never share one)", () => {
    const rl = job("rl", [pool("h200", 1, 2, "trainer"), pool("h200", 1, 1, "rollout")]);
    const slurm = [node("s1", "h200", 4, { runtime: "slurm" }), node("s2", "h200", 4, { runtime: "slurm" })];
    const place = placementOf(decide(input({ nodes: slurm, queue: [rl] })), "rl");
    // Best fit alone would have put the rollout next to the trainer on s1.
    expect(place.map((p) => [p.pool, p.node_id, p.gpu_indices])).toEqual([
      ["trainer", "s1", [0, 1]],
      ["rollout", "s2", [0]],
    ]);
    // One Slurm node can never hold both pools: said so, not "waiting for capacity".
    const one = decide(input({ nodes: [node("s1", "h200", 8, { runtime: "slurm" })], queue: [rl] }));
    expect(one.dispatch).toEqual([]);
    expect(reasonCodes(one, "rl")).toEqual(["GANG_INCOMPLETE"]);
    expect(one.pending.rl![0]!.message).toMatch(
      /1 of them taken by this job's other pools \(on Slurm, the pools of a job never share a node\)/,
    );
  });

  it("picks the fullest node that still fits (best fit)", () => {
    const nodes = [
      node("empty", "h200", 8),
      node("three-free", "h200", 8, { used: [0, 1, 2, 3, 4] }),
      node("two-free", "h200", 8, { used: [0, 1, 2, 3, 4, 5] }),
    ];
    const place = (gpus: number) =>
      placementOf(decide(input({ nodes, queue: [job("j", [pool("h200", 1, gpus)])] })), "j")[0]!.node_id;
    expect(place(2)).toBe("two-free");
    expect(place(3)).toBe("three-free");
    expect(place(4)).toBe("empty");
  });

  it("takes the lowest free GPU indices", () => {
    const d = decide(
      input({ nodes: [node("h1", "h200", 8, { used: [0, 2, 5] })], queue: [job("j", [pool("h200", 1, 3)])] }),
    );
    expect(placementOf(d, "j")[0]!.gpu_indices).toEqual([1, 3, 4]);
  });

  it("never places a job on a node of another series", () => {
    const nodes = [node("l1", "l40s", 8), node("h1", "h200", 8, { used: [0, 1, 2, 3, 4, 5, 6] })];
    const d = decide(input({ nodes, queue: [job("j", [pool("h200", 1, 4)])] }));
    expect(reasonCodes(d, "j")).toEqual(["CAPACITY"]);
    const ok = decide(input({ nodes, queue: [job("k", [pool("h200", 1, 1)])] }));
    expect(placementOf(ok, "k")[0]).toMatchObject({ node_id: "h1", gpu_indices: [7] });
  });

  it("gives unschedulable nodes nothing, even when they fit best", () => {
    const nodes = [
      node("cordoned", "h200", 8, { schedulable: false }),
      node("h2", "h200", 8, { used: [0, 1, 2, 3] }),
    ];
    const d = decide(
      input({ nodes, queue: [job("a", [pool("h200", 1, 4)]), job("b", [pool("h200", 1, 4)])] }),
    );
    expect(placementOf(d, "a")[0]!.node_id).toBe("h2");
    expect(reasonCodes(d, "b")).toEqual(["CAPACITY"]);
    const only = decide(input({ nodes: [nodes[0]!], queue: [job("c", [pool("h200", 1, 1)])] }));
    expect(only.dispatch).toEqual([]);
    expect(reasonCodes(only, "c")).toEqual(["CAPACITY"]);
  });
});

describe("decide: order", () => {
  const oneNode = [node("h1", "h200", 8)];
  const eight = [pool("h200", 1, 8)];

  it("runs the higher priority first, whatever the queue order", () => {
    const d = decide(
      input({
        nodes: oneNode,
        queue: [
          job("low", eight, { priority: 1, queueSeq: 1 }),
          job("high", eight, { priority: 9, queueSeq: 2 }),
        ],
      }),
    );
    expect(dispatched(d)).toEqual(["high"]);
    expect(reasonCodes(d, "low")).toEqual(["CAPACITY"]);
  });

  it("prefers the user with less recent usage at equal priority", () => {
    const users = { alice: user({}, { recentGpuSeconds: 100 * 3600 }), bob: user() };
    const queue = [
      job("a1", eight, { userId: "alice", queueSeq: 1 }),
      job("b1", eight, { userId: "bob", queueSeq: 2 }),
    ];
    expect(dispatched(decide(input({ nodes: oneNode, queue, users })))).toEqual(["b1"]);
  });

  it("counts GPUs a user holds right now as usage", () => {
    const users = { alice: user({}, { runningGpus: 4 }), bob: user({}, { recentGpuSeconds: 3 * 3600 }) };
    const queue = [
      job("a1", eight, { userId: "alice", queueSeq: 1 }),
      job("b1", eight, { userId: "bob", queueSeq: 2 }),
    ];
    expect(dispatched(decide(input({ nodes: oneNode, queue, users })))).toEqual(["b1"]);
  });

  it("alternates users within one pass by counting what the pass already gave", () => {
    const nodes = [node("h1", "h200", 8), node("h2", "h200", 8)];
    const users = { alice: user(), bob: user() };
    const queue = [
      job("a1", eight, { userId: "alice", queueSeq: 1 }),
      job("a2", eight, { userId: "alice", queueSeq: 2 }),
      job("b1", eight, { userId: "bob", queueSeq: 3 }),
    ];
    const d = decide(input({ nodes, queue, users }));
    expect(dispatched(d)).toEqual(["a1", "b1"]);
    expect(reasonCodes(d, "a2")).toEqual(["CAPACITY"]);
  });

  it("is first-in first-out within one user", () => {
    const queue = [job("later", eight, { queueSeq: 7 }), job("earlier", eight, { queueSeq: 3 })];
    expect(dispatched(decide(input({ nodes: oneNode, queue })))).toEqual(["earlier"]);
  });

  it("backfills: a small job passes a large one that cannot fit yet", () => {
    const nodes = [node("h1", "h200", 8), node("h2", "h200", 8, { used: [0, 1, 2, 3] })];
    const queue = [job("big", [pool("h200", 2, 8)], { priority: 50 }), job("small", [pool("h200", 1, 2)])];
    const d = decide(input({ nodes, queue }));
    expect(reasonCodes(d, "big")).toEqual(["CAPACITY"]);
    expect(placementOf(d, "small")[0]).toMatchObject({ node_id: "h2", gpu_indices: [4, 5] });
  });
});

describe("decide: blockers", () => {
  const nodes = [node("h1", "h200", 8), node("l1", "l40s", 8)];

  it("holds every job with FLEET_DRAINING while the fleet drains", () => {
    const queue = [job("a", [pool("h200", 1, 1)]), job("b", [pool("l40s", 1, 1)])];
    const d = decide(input({ nodes, queue, draining: { note: "driver upgrade" } }));
    expect(d.dispatch).toEqual([]);
    for (const id of ["a", "b"]) expect(reasonCodes(d, id)).toEqual(["FLEET_DRAINING"]);
    expect(d.pending.a![0]!.message).toContain("driver upgrade");
  });

  it("refuses a job that would take a user over max_gpus, counting this pass", () => {
    const users = { alice: user({ max_gpus: 8 }, { runningGpus: 2 }) };
    const queue = [job("a1", [pool("h200", 1, 4)]), job("a2", [pool("l40s", 1, 4)])];
    const d = decide(input({ nodes, queue, users }));
    expect(dispatched(d)).toEqual(["a1"]);
    expect(reasonCodes(d, "a2")).toEqual(["QUOTA_GPUS"]);
    expect(d.pending.a2![0]!.details).toEqual({ limit: 8, in_use: 6, requested: 4 });
  });

  it("lets other work through past a quota-blocked job", () => {
    const users = { alice: user({ max_gpus: 4 }), bob: user() };
    const queue = [
      job("a", [pool("h200", 1, 8)], { userId: "alice", priority: 90 }),
      job("b", [pool("h200", 1, 8)], { userId: "bob" }),
    ];
    const d = decide(input({ nodes, queue, users }));
    expect(reasonCodes(d, "a")).toEqual(["QUOTA_GPUS"]);
    expect(dispatched(d)).toEqual(["b"]);
  });

  it("reports QUOTA_GPU_HOURS once today's GPU-hours are used up", () => {
    const spent = { alice: user({ daily_gpu_hours: 10 }, { gpuSecondsToday: 10 * 3600 }) };
    const d = decide(input({ nodes, queue: [job("a", [pool("h200", 1, 1)])], users: spent }));
    expect(reasonCodes(d, "a")).toEqual(["QUOTA_GPU_HOURS"]);
    const left = { alice: user({ daily_gpu_hours: 10 }, { gpuSecondsToday: 10 * 3600 - 60 }) };
    expect(
      dispatched(decide(input({ nodes, queue: [job("a", [pool("h200", 1, 1)])], users: left }))),
    ).toEqual(["a"]);
  });

  it("reports WINDOW_CLOSED with opens_at and leaves other series running", () => {
    // NOW is Monday 12:00 UTC; the h200 window opens at 20:00.
    const windows = [{ series: "h200", days: [1], start: "20:00", end: "23:00", tz: "UTC" }];
    const queue = [job("h", [pool("h200", 1, 1)]), job("l", [pool("l40s", 1, 1)])];
    const d = decide(input({ nodes, queue, windows }));
    expect(reasonCodes(d, "h")).toEqual(["WINDOW_CLOSED"]);
    expect(d.pending.h![0]!.details).toMatchObject({ series: "h200", opens_at: "2026-01-05T20:00:00.000Z" });
    expect(dispatched(d)).toEqual(["l"]);
    const evening = decide(input({ nodes, queue, windows, now: NOW + 8 * 3_600_000 }));
    expect(dispatched(evening).sort()).toEqual(["h", "l"]);
  });
});
