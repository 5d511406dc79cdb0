/**
 * Tier 3, the closed loop with the process runtime: `npm start`'s control plane (the project's shared one)
 * and a local forgelet in this file's own fleet, a real submit, the capsule's runner training the stdlib
 * char-LM for real, ingest of metrics, logs and a checkpoint, and readback — with nothing mocked and
 * nothing left running afterwards.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, call } from "../support/control-plane.js";
import type { ForgeletProc } from "../support/forgelet.js";
import { baseSpec, recipeDigest, waitForStatus } from "../support/jobs.js";
import { fleetWithAgent, newUser, sharedControlPlane } from "../support/shared-control-plane.js";

let cp: ControlPlane;
let ada = "";
/** The fleet and local forgelet `npm start` would give: 8 simulated H200s, this file's own. */
let fleet = "";
let agent: ForgeletProc | undefined;

beforeAll(async () => {
  cp = sharedControlPlane();
  ({ fleet, agent } = await fleetWithAgent(cp, "closed-loop"));
  ada = (await newUser(cp, "ada")).token;
});

afterAll(async () => {
  await agent?.dispose();
});

describe("closed loop on the local fleet (process runtime)", () => {
  it("trains python/charlm to SUCCEEDED with falling loss, ordered logs and a downloadable checkpoint", async () => {
    const spec = baseSpec({
      name: "charlm-e2e",
      fleet,
      recipe: {
        name: "python/charlm",
        version: "1.0.0",
        digest: await recipeDigest(cp, ada, "python/charlm"),
      },
      framework: { kind: "python", version: "3", runtime_id: "python3-stdlib", image: null },
      hyperparams: { max_steps: 200, checkpoint_every: 100 },
    });
    const sub = await call(cp, ada, "POST", "/v1/jobs", spec);
    expect(sub.status).toBe(201);
    const id = (sub.body.job as { id: string }).id;

    const done = await waitForStatus(cp, ada, id, ["SUCCEEDED", "FAILED", "STOPPED"], 180_000);
    expect(done.job.status, JSON.stringify(done.events)).toBe("SUCCEEDED");
    expect(done.events.map((e) => e.to)).toEqual(["QUEUED", "SUBMITTED", "PENDING", "RUNNING", "SUCCEEDED"]);

    const metrics = await call(cp, ada, "GET", `/v1/jobs/${id}/metrics?key=train/loss`);
    const points = metrics.body.points as Array<{ step: number; value: number }>;
    expect(points.length).toBeGreaterThan(5);
    expect(points.map((p) => p.step)).toEqual([...points.map((p) => p.step)].sort((a, b) => a - b));
    expect(points.at(-1)!.value).toBeLessThan(points[0]!.value * 0.8);

    const logs = await call(cp, ada, "GET", `/v1/jobs/${id}/logs?limit=1000`);
    const lines = logs.body.lines as Array<{ line: string; seq: number; stream: string }>;
    expect(lines.length).toBeGreaterThan(3);
    const stdout = lines.filter((l) => l.stream === "stdout");
    expect(stdout.map((l) => l.seq)).toEqual(stdout.map((_, i) => i));

    const arts = await call(cp, ada, "GET", `/v1/jobs/${id}/artifacts`);
    const ckpts = (
      arts.body.artifacts as Array<{ kind: string; path: string; digest: string; step: number }>
    ).filter((a) => a.kind === "checkpoint");
    expect(ckpts.map((a) => a.step)).toEqual([100, 200]);
    const res = await fetch(
      `${cp.url}/v1/jobs/${id}/artifacts/download?path=${encodeURIComponent(ckpts[1]!.path)}`,
      {
        headers: { authorization: `Bearer ${ada}` },
      },
    );
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(`sha256:${createHash("sha256").update(bytes).digest("hex")}`).toBe(ckpts[1]!.digest);

    const after = await call(cp, cp.adminToken, "GET", `/v1/fleets/${fleet}`);
    expect((after.body.totals as { allocated: number }).allocated).toBe(0);
  });
});
