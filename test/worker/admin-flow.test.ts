import { describe, expect, it } from "vitest";
import { ADMIN, api, createFleet, createUser, customSpec, registerNode } from "./helpers.js";

describe("the admin journey of the issue's done-when list", () => {
  it("creates a user, a fleet, submits a job that waits, then runs when capacity arrives", async () => {
    const alice = await createUser("alice");
    await createFleet("lab");
    const submit = await api(alice, "POST", "/v1/jobs", await customSpec({ fleet: "lab", gpus: 4 }));
    expect(submit.status).toBe(201);
    expect(submit.body.job.status).toBe("QUEUED");
    expect(submit.body.job.pending_reasons).toEqual([
      expect.objectContaining({
        code: "NO_NODE_OF_SERIES",
        details: expect.objectContaining({ series: "h200" }),
      }),
    ]);

    const id = submit.body.job.id as string;
    const queued = await api(alice, "GET", `/v1/jobs/${id}`);
    expect(queued.body.job.status).toBe("QUEUED");
    expect(queued.body.job.pending_reasons[0].code).toBe("NO_NODE_OF_SERIES");

    await registerNode("lab", "gpu-a", 8);
    const after = await api(alice, "GET", `/v1/jobs/${id}`);
    expect(after.body.job.status).toBe("SUBMITTED");
    expect(after.body.job.pending_reasons).toEqual([]);
    expect(after.body.runs).toHaveLength(1);
    expect(after.body.runs[0].placement).toEqual([
      expect.objectContaining({ rank: 0, gpu_indices: [0, 1, 2, 3] }),
    ]);
    expect(after.body.events.map((e: { edge: string }) => e.edge)).toEqual(["admitted", "dispatch"]);

    const fleet = await api(ADMIN, "GET", "/v1/fleets/lab");
    expect(fleet.body.totals).toMatchObject({ gpus: 8, allocated: 4, free: 4 });
  });
});
