/** Multi-node jobs are allocated all-or-nothing across nodes of their series, best-fit. */
import { describe, expect, it } from "vitest";
import { ADMIN, api, createFleet, createUser, customSpec, registerNode } from "./helpers.js";

type Placement = { rank: number; node_id: string; gpu_indices: number[] };

async function job(token: string, id: string) {
  return (await api(token, "GET", `/v1/jobs/${id}`)).body;
}

describe("multi-node gangs", () => {
  it("places a 16-GPU job on two full nodes with ranks 0 and 1", async () => {
    const op = await createUser("gang-a");
    await createFleet("gang-a");
    const a = await registerNode("gang-a", "a", 8);
    const b = await registerNode("gang-a", "b", 8);
    const r = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "gang-a", gpus: 16 }));
    expect(r.body.job.status).toBe("SUBMITTED");
    const placement = (await job(op, r.body.job.id)).runs[0].placement as Placement[];
    expect(placement.map((p) => p.rank)).toEqual([0, 1]);
    expect(new Set(placement.map((p) => p.node_id))).toEqual(new Set([a.id, b.id]));
    for (const p of placement) expect(p.gpu_indices).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it("allocates nothing when one node of the gang is missing, and says why", async () => {
    const op = await createUser("gang-b");
    await createFleet("gang-b");
    await registerNode("gang-b", "only", 8);
    const r = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "gang-b", gpus: 16 }));
    expect(r.body.job.status).toBe("QUEUED");
    expect(r.body.job.pending_reasons).toEqual([
      expect.objectContaining({
        code: "GANG_INCOMPLETE",
        details: expect.objectContaining({ nodes_needed: 2 }),
      }),
    ]);
    const fleet = await api(ADMIN, "GET", "/v1/fleets/gang-b");
    expect(fleet.body.totals.allocated).toBe(0);
  });

  it("waits with nothing held while a node is partly busy, then starts when it frees", async () => {
    const op = await createUser("gang-c");
    await api(ADMIN, "PUT", "/v1/users/gang-c/quota", { max_gpus: 64, max_jobs: 10, daily_gpu_hours: 1000 });
    await createFleet("gang-c");
    await registerNode("gang-c", "a", 8);
    await registerNode("gang-c", "b", 8);
    const small = await api(
      op,
      "POST",
      "/v1/jobs",
      await customSpec({ fleet: "gang-c", gpus: 2, name: "small" }),
    );
    expect(small.body.job.status).toBe("SUBMITTED");
    const big = await api(
      op,
      "POST",
      "/v1/jobs",
      await customSpec({ fleet: "gang-c", gpus: 16, name: "big" }),
    );
    expect(big.body.job.status).toBe("QUEUED");
    expect(big.body.job.pending_reasons[0].code).toBe("CAPACITY");
    expect((await api(ADMIN, "GET", "/v1/fleets/gang-c")).body.totals.allocated).toBe(2);

    const stopped = await api(op, "POST", `/v1/jobs/${small.body.job.id}/stop`);
    expect(stopped.body.job.status).toBe("STOPPED");
    expect((await job(op, big.body.job.id)).job.status).toBe("SUBMITTED");
    expect((await api(ADMIN, "GET", "/v1/fleets/gang-c")).body.totals).toMatchObject({
      allocated: 16,
      free: 0,
    });
  });

  it("packs best-fit: a small job goes to the fuller node so a whole node stays free", async () => {
    const op = await createUser("gang-d");
    await createFleet("gang-d");
    const a = await registerNode("gang-d", "a", 8);
    const b = await registerNode("gang-d", "b", 8);
    await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "gang-d", gpus: 6, name: "six" }));
    const two = await api(
      op,
      "POST",
      "/v1/jobs",
      await customSpec({ fleet: "gang-d", gpus: 2, name: "two" }),
    );
    const placement = (await job(op, two.body.job.id)).runs[0].placement as Placement[];
    const six = (await api(op, "GET", "/v1/jobs?limit=10")).body.jobs.find(
      (j: { name: string }) => j.name === "six",
    );
    const sixNode = ((await job(op, six.id)).runs[0].placement as Placement[])[0]!.node_id;
    expect(placement[0]!.node_id).toBe(sixNode);
    expect(placement[0]!.gpu_indices).toEqual([6, 7]);
    // The node left whole takes a full-node job.
    const eight = await api(
      op,
      "POST",
      "/v1/jobs",
      await customSpec({ fleet: "gang-d", gpus: 8, name: "eight" }),
    );
    expect(eight.body.job.status).toBe("SUBMITTED");
    const eightNode = ((await job(op, eight.body.job.id)).runs[0].placement as Placement[])[0]!.node_id;
    expect(new Set([sixNode, eightNode])).toEqual(new Set([a.id, b.id]));
  });

  it("never places a job on nodes of another GPU series", async () => {
    const op = await createUser("gang-e");
    await createFleet("gang-e");
    await registerNode("gang-e", "h100-box", 8, "h100");
    const r = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "gang-e", gpus: 1 }));
    expect(r.body.job.status).toBe("QUEUED");
    expect(r.body.job.pending_reasons[0]).toMatchObject({
      code: "NO_NODE_OF_SERIES",
      details: { series: "h200" },
    });
  });
});
