/**
 * Tier 3: a real forgelet (process runtime) against the real control plane, with the failures the
 * issue names: the agent killed and restarted mid-run, its socket dropped mid-run, the workload killed
 * mid-run. Runs must be reattached (never launched twice), failures reported with their reason, GPUs
 * released, and no process left behind.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, call } from "../support/control-plane.js";
import { enrollForgelet, type ForgeletProc } from "../support/forgelet.js";
import { baseSpec, jobState, recipeDigest, waitForStatus } from "../support/jobs.js";
import { newFleet, newUser, sharedControlPlane } from "../support/shared-control-plane.js";
import { uploadWorkspace } from "../support/workspace.js";

let cp: ControlPlane;
let op = "";
let agent: ForgeletProc | null = null;

beforeAll(async () => {
  cp = sharedControlPlane();
  op = (await newUser(cp, "res-op")).token;
});

afterEach(async () => {
  if (agent) {
    // The runner reports the end just before its process exits; the agent then cleans up. Bounded wait.
    const deadline = Date.now() + 15_000;
    while (agent.liveWorkloads().length > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(agent.liveWorkloads(), "workload processes left behind").toEqual([]);
    await agent.dispose();
  }
  agent = null;
});

/** A custom job whose train.sh prints BEGIN once, then a numbered line per tick, then exits 0. */
async function tickingJob(fleet: string, ticks: number, tickSeconds = 0.25) {
  const trainSh = `#!/usr/bin/env bash\nset -euo pipefail\necho BEGIN\nfor i in $(seq 1 ${ticks}); do echo "tick $i"; sleep ${tickSeconds}; done\necho END\n`;
  const workspace = await uploadWorkspace(cp.url, op, [
    { path: "exp/train.sh", content: trainSh, mode: 0o755 },
  ]);
  const spec = baseSpec({
    name: `ticks-${ticks}`,
    fleet,
    recipe: { name: "custom/custom", version: "1.0.0", digest: await recipeDigest(cp, op, "custom/custom") },
    framework: { kind: "custom", version: "1", runtime_id: "bash", image: null },
    workspace,
    experimentDir: "exp",
  });
  const r = await call(cp, op, "POST", "/v1/jobs", spec);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return (r.body.job as { id: string }).id;
}

async function logLines(id: string): Promise<string[]> {
  const r = await call(cp, op, "GET", `/v1/jobs/${id}/logs?limit=1000`);
  return (r.body.lines as Array<{ line: string }>).map((l) => l.line);
}

async function allocated(fleet: string): Promise<number> {
  return ((await call(cp, cp.adminToken, "GET", `/v1/fleets/${fleet}`)).body.totals as { allocated: number })
    .allocated;
}

describe("forgelet resilience (process runtime)", () => {
  it("reattaches a run after the agent is killed and restarted mid-run: it completes and is never launched twice", async () => {
    const fleet = await newFleet(cp, "res-kill");
    agent = await enrollForgelet(cp, fleet, { name: `${fleet}-1` });
    const id = await tickingJob(fleet, 24);
    await waitForStatus(cp, op, id, ["RUNNING"], 60_000);
    await agent.kill();
    expect(agent.liveWorkloads().length).toBe(1);
    await new Promise((r) => setTimeout(r, 1000));
    await agent.start();
    const done = await waitForStatus(cp, op, id, ["SUCCEEDED", "FAILED"], 60_000);
    expect(done.job.status, JSON.stringify(done.events)).toBe("SUCCEEDED");
    expect(done.runs).toHaveLength(1);
    expect(done.events.filter((e) => e.edge === "dispatch")).toHaveLength(1);
    const lines = await logLines(id);
    expect(lines.filter((l) => l === "BEGIN")).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith("tick "))).toEqual(
      Array.from({ length: 24 }, (_, i) => `tick ${i + 1}`),
    );
    expect(await allocated(fleet)).toBe(0);
  });

  it("reattaches a run after the agent's socket drops mid-run", async () => {
    const fleet = await newFleet(cp, "res-drop");
    agent = await enrollForgelet(cp, fleet, { name: `${fleet}-1` });
    const id = await tickingJob(fleet, 16);
    await waitForStatus(cp, op, id, ["RUNNING"], 60_000);
    agent.dropConnection();
    const done = await waitForStatus(cp, op, id, ["SUCCEEDED", "FAILED"], 60_000);
    expect(done.job.status).toBe("SUCCEEDED");
    expect(done.runs).toHaveLength(1);
    expect(agent.log()).toMatch(/disconnected[\s\S]*connected to/);
    expect((await logLines(id)).filter((l) => l === "BEGIN")).toHaveLength(1);
  });

  it("fails a run whose workload is killed mid-run, with the exit reason, and frees its GPUs", async () => {
    const fleet = await newFleet(cp, "res-oom");
    agent = await enrollForgelet(cp, fleet, { name: `${fleet}-1` });
    const id = await tickingJob(fleet, 400);
    await waitForStatus(cp, op, id, ["RUNNING"], 60_000);
    const [pgid] = agent.liveWorkloads();
    expect(pgid).toBeGreaterThan(0);
    process.kill(-pgid!, "SIGKILL");
    const done = await waitForStatus(cp, op, id, ["FAILED", "SUCCEEDED"], 30_000);
    expect(done.job.status).toBe("FAILED");
    expect(done.runs[0]!.reason).toMatch(/killed|without an exit status/);
    expect(await allocated(fleet)).toBe(0);
  });

  it("stops a running job through the agent: the workload ends and the GPUs are freed", async () => {
    const fleet = await newFleet(cp, "res-stop");
    agent = await enrollForgelet(cp, fleet, { name: `${fleet}-1` });
    const id = await tickingJob(fleet, 400);
    await waitForStatus(cp, op, id, ["RUNNING"], 60_000);
    expect((await call(cp, op, "POST", `/v1/jobs/${id}/stop`)).status).toBe(200);
    const deadline = Date.now() + 40_000;
    while ((await allocated(fleet)) > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    expect(await allocated(fleet)).toBe(0);
    expect((await jobState(cp, op, id)).job.status).toBe("STOPPED");
    expect(agent.liveWorkloads()).toEqual([]);
  });
});
