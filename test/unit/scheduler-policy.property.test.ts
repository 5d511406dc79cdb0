import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TimeWindow } from "../../contract/api.schema.js";
import type { Pool } from "../../contract/profile-grammar.js";
import {
  type Decision,
  decide,
  jobGpus,
  type NodeInput,
  type PolicyInput,
  type QueuedJobInput,
  type UserInput,
} from "../../durable-objects/fleet/scheduler/policy.js";
import { NOW } from "./policy-fixtures.js";

// Nodes come in two series; jobs sometimes ask for a third that no node has.
const NODE_SERIES = ["h200", "h200", "l40s"] as const;
const JOB_SERIES = ["h200", "h200", "h200", "l40s", "l40s", "h100"] as const;
const USERS = ["alice", "bob", "carol"] as const;
// SF_RUNS=20000 searches harder (multi-pool placement counterexamples needed thousands of runs to show).
const RUNS = { numRuns: Number(process.env.SF_RUNS ?? 500) };

const arbNode = (i: number): fc.Arbitrary<NodeInput> =>
  fc
    .record({ series: fc.constantFrom(...NODE_SERIES), gpus: fc.constantFrom(8, 8, 8, 4, 2, 0) })
    .chain(({ series, gpus }) =>
      fc.record({
        id: fc.constant(`nod_${i}`),
        name: fc.constant(`node-${String(i).padStart(2, "0")}`),
        series: fc.constant(series),
        gpus: fc.constant(gpus),
        schedulable: fc.integer({ min: 0, max: 5 }).map((x) => x > 0),
        used: fc.subarray([...Array(gpus).keys()], { maxLength: Math.ceil(gpus / 2) }),
        // A Slurm node: the pools of one job never share it (one heterogeneous job's components).
        runtime: fc.constantFrom(null, null, "slurm"),
      }),
    );

const arbFleet: fc.Arbitrary<NodeInput[]> = fc
  .constantFrom(4, 8, 2, 6, 1, 3, 5, 0)
  .chain((n) => (n === 0 ? fc.constant([]) : fc.tuple(...Array.from({ length: n }, (_, i) => arbNode(i)))));

const arbPool = (name: string): fc.Arbitrary<Pool> =>
  fc.record({
    name: fc.constant(name),
    profile: fc.constant("p"),
    series: fc.constantFrom(...JOB_SERIES),
    nodes: fc.constantFrom(1, 1, 1, 2, 3),
    gpus_per_node: fc.constantFrom(1, 2, 3, 4, 8),
  });

const arbPools: fc.Arbitrary<Pool[]> = fc.oneof(
  { weight: 3, arbitrary: arbPool("default").map((p) => [p]) },
  { weight: 1, arbitrary: fc.tuple(arbPool("trainer"), arbPool("rollout")) },
);

const arbQueue: fc.Arbitrary<QueuedJobInput[]> = fc
  .array(
    fc.record({
      userId: fc.constantFrom(...USERS),
      priority: fc.integer({ min: 0, max: 3 }),
      pools: arbPools,
    }),
    { minLength: 1, maxLength: 10 },
  )
  .chain((jobs) =>
    // Unique queue sequence numbers, in an order unrelated to the array order.
    fc
      .shuffledSubarray([...jobs.keys()], { minLength: jobs.length, maxLength: jobs.length })
      .map((seqs) => jobs.map((j, i) => ({ ...j, id: `job_${i}`, queueSeq: seqs[i]! }))),
  );

/** Roomy or tight GPU and GPU-hour limits, drawn independently so each quota gets exercised alone. */
const arbUser: fc.Arbitrary<UserInput> = fc.record({
  quota: fc.record({
    max_gpus: fc.oneof(fc.constant(1000), fc.integer({ min: 0, max: 24 })),
    max_jobs: fc.constant(20),
    daily_gpu_hours: fc.oneof(
      { weight: 3, arbitrary: fc.constant(100_000) },
      fc.integer({ min: 0, max: 50 }),
    ),
    allowed_profiles: fc.constant<string[]>([]),
    max_priority_class: fc.constant("normal"),
    priority: fc.constant(10),
  }),
  runningGpus: fc.constantFrom(0, 0, 4, 16),
  recentGpuSeconds: fc.integer({ min: 0, max: 200_000 }),
  gpuSecondsToday: fc.integer({ min: 0, max: 40 * 3600 }),
});

// carol has no user row: the policy must still handle her jobs.
const arbUsers = fc.record({ alice: arbUser, bob: arbUser });

const arbWindows: fc.Arbitrary<TimeWindow[]> = fc.array(
  fc.record({
    series: fc.option(fc.constantFrom(...JOB_SERIES), { nil: undefined }),
    days: fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 7 }),
    start: fc.constantFrom("00:00", "08:00", "12:00", "22:00"),
    end: fc.constantFrom("06:00", "12:00", "18:00", "24:00"),
    tz: fc.constantFrom("UTC", "Asia/Tokyo"),
  }),
  { maxLength: 2 },
);

const arbInput: fc.Arbitrary<PolicyInput> = fc.record({
  now: fc.integer({ min: NOW - 7 * 86_400_000, max: NOW + 7 * 86_400_000 }),
  draining: fc.oneof(
    { weight: 12, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constant({ note: "maintenance" }) },
  ),
  windows: fc.oneof({ weight: 6, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: arbWindows }),
  nodes: arbFleet,
  queue: arbQueue,
  users: arbUsers,
});

/** GPU indices handed out by this decision, per node, in dispatch order (duplicates kept). */
function allocatedByNode(d: Decision): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const x of d.dispatch) {
    for (const p of x.placement) out.set(p.node_id, [...(out.get(p.node_id) ?? []), ...p.gpu_indices]);
  }
  return out;
}

describe("decide: invariants over random fleets and queues", () => {
  it("never hands out a GPU twice, nor one already in use, nor one the node lacks", () => {
    fc.assert(
      fc.property(arbInput, (inp) => {
        const d = decide(inp);
        for (const [nodeId, gpus] of allocatedByNode(d)) {
          const n = inp.nodes.find((x) => x.id === nodeId);
          expect(n).toBeDefined();
          expect(new Set(gpus).size).toBe(gpus.length);
          for (const g of gpus) {
            expect(n!.used).not.toContain(g);
            expect(g).toBeGreaterThanOrEqual(0);
            expect(g).toBeLessThan(n!.gpus);
          }
          expect(gpus.length + n!.used.length).toBeLessThanOrEqual(n!.gpus);
        }
      }),
      RUNS,
    );
  });

  it("gives every dispatched job exactly its shape on schedulable nodes of the right series", () => {
    fc.assert(
      fc.property(arbInput, (inp) => {
        const d = decide(inp);
        for (const x of d.dispatch) {
          const j = inp.queue.find((q) => q.id === x.jobId)!;
          expect(x.placement.map((p) => p.rank)).toEqual(x.placement.map((_, i) => i));
          for (const p of j.pools) {
            const ranks = x.placement.filter((r) => r.pool === p.name);
            expect(ranks).toHaveLength(p.nodes);
            expect(new Set(ranks.map((r) => r.node_id)).size).toBe(p.nodes);
            for (const r of ranks) {
              const n = inp.nodes.find((nn) => nn.id === r.node_id)!;
              expect(n.series).toBe(p.series);
              expect(n.schedulable).toBe(true);
              expect(r.gpu_indices).toHaveLength(p.gpus_per_node);
            }
          }
          // Nothing beyond the job's pools.
          expect(x.placement).toHaveLength(j.pools.reduce((s, p) => s + p.nodes, 0));
          const onSlurm = x.placement
            .map((r) => r.node_id)
            .filter((id) => inp.nodes.find((n) => n.id === id)!.runtime === "slurm");
          expect(new Set(onSlurm).size, "a Slurm node holds one pool of a job").toBe(onSlurm.length);
        }
      }),
      RUNS,
    );
  });

  it("accounts for every queued job exactly once, with a reason when it waits", () => {
    fc.assert(
      fc.property(arbInput, (inp) => {
        const d = decide(inp);
        const sent = d.dispatch.map((x) => x.jobId);
        const waiting = Object.keys(d.pending);
        expect(new Set(sent).size).toBe(sent.length);
        expect(sent.filter((id) => waiting.includes(id))).toEqual([]);
        expect([...sent, ...waiting].sort()).toEqual(inp.queue.map((q) => q.id).sort());
        for (const reasons of Object.values(d.pending)) {
          expect(reasons.length).toBeGreaterThanOrEqual(1);
          for (const r of reasons) expect(r.message.length).toBeGreaterThan(0);
        }
      }),
      RUNS,
    );
  });

  it("leaves a job waiting for capacity only when it fits nowhere, even in what the pass left free", () => {
    // Free GPUs only shrink during a pass: a job that fits what is left at the end fitted at its turn too,
    // so a CAPACITY wait then would be a wrong answer (placement summarizes nodes instead of scanning them).
    fc.assert(
      fc.property(arbInput, (inp) => {
        const d = decide(inp);
        const taken = allocatedByNode(d);
        const freeAtEnd = (n: NodeInput) => n.gpus - n.used.length - (taken.get(n.id)?.length ?? 0);
        for (const job of inp.queue) {
          const reasons = d.pending[job.id];
          if (!reasons || job.pools.length !== 1 || reasons.some((r) => r.code !== "CAPACITY")) continue;
          const pool = job.pools[0]!;
          const room = inp.nodes.filter(
            (n) => n.schedulable && n.series === pool.series && freeAtEnd(n) >= pool.gpus_per_node,
          );
          expect(room.length, job.id).toBeLessThan(pool.nodes);
          expect(reasons[0]!.details).toMatchObject({
            free_gpus: expect.any(Number),
            nodes_available: expect.any(Number),
          });
        }
      }),
      RUNS,
    );
  });

  it("is deterministic", () => {
    fc.assert(
      fc.property(arbInput, (inp) => {
        expect(decide(structuredClone(inp))).toEqual(decide(inp));
      }),
      RUNS,
    );
  });

  it("does not depend on the order rows are listed in", () => {
    fc.assert(
      fc.property(
        arbInput.chain((inp) =>
          fc.record({
            inp: fc.constant(inp),
            nodes: fc.shuffledSubarray([...inp.nodes], { minLength: inp.nodes.length }),
            queue: fc.shuffledSubarray([...inp.queue], { minLength: inp.queue.length }),
          }),
        ),
        ({ inp, nodes, queue }) => {
          expect(decide({ ...inp, nodes, queue })).toEqual(decide(inp));
        },
      ),
      RUNS,
    );
  });

  it("keeps each user's held plus newly dispatched GPUs within max_gpus", () => {
    fc.assert(
      fc.property(arbInput, (inp) => {
        const d = decide(inp);
        for (const [userId, u] of Object.entries(inp.users)) {
          const mine = d.dispatch
            .map((x) => inp.queue.find((q) => q.id === x.jobId)!)
            .filter((j) => j.userId === userId);
          if (mine.length === 0) continue;
          const gpus = mine.reduce((s, j) => s + jobGpus(j), 0);
          expect(u.runningGpus + gpus).toBeLessThanOrEqual(u.quota.max_gpus);
          expect(u.gpuSecondsToday / 3600).toBeLessThan(u.quota.daily_gpu_hours);
        }
      }),
      RUNS,
    );
  });

  it("dispatches nothing while draining and says so for every job", () => {
    fc.assert(
      fc.property(arbInput, (inp) => {
        const d = decide({ ...inp, draining: { note: "n" } });
        expect(d.dispatch).toEqual([]);
        for (const q of inp.queue) expect(d.pending[q.id]!.map((r) => r.code)).toContain("FLEET_DRAINING");
      }),
      RUNS,
    );
  });

  it("never leaves a job waiting only on capacity when it would fit on the GPUs left free", () => {
    // Work conservation: if a job waits for CAPACITY alone, running it on what the decision left free
    // must also fail; otherwise the scheduler idled GPUs it could have used.
    fc.assert(
      fc.property(arbInput, (inp) => {
        const d = decide(inp);
        const taken = allocatedByNode(d);
        const leftover = inp.nodes.map((n) => ({ ...n, used: [...n.used, ...(taken.get(n.id) ?? [])] }));
        for (const [id, reasons] of Object.entries(d.pending)) {
          if (!reasons.every((r) => r.code === "CAPACITY")) continue;
          const j = inp.queue.find((q) => q.id === id)!;
          const alone = decide({ ...inp, nodes: leftover, queue: [j], users: {} });
          expect(alone.dispatch).toEqual([]);
        }
      }),
      RUNS,
    );
  });
});
