/**
 * Tier 3: an agent that lost its journal (killed, journal deleted) finds at start the workload it had
 * launched, which nothing claims any more, stops it and tells the control plane; the run is failed as an
 * infrastructure failure rather than left running unseen.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, call } from "../support/control-plane.js";
import { enrollForgelet, type ForgeletProc } from "../support/forgelet.js";
import { jobState } from "../support/jobs.js";
import { submitCustom } from "../support/lifecycle.js";
import { newFleet, newUser, sharedControlPlane } from "../support/shared-control-plane.js";
import { uploadWorkspace } from "../support/workspace.js";

let cp: ControlPlane;
let fleet = "";
let op = "";
let agent: ForgeletProc;

beforeAll(async () => {
  cp = sharedControlPlane();
  op = (await newUser(cp, "orph")).token;
  fleet = await newFleet(cp, "orphans");
  agent = await enrollForgelet(cp, fleet, { name: `${fleet}-box`, gpus: 1 });
});

afterAll(async () => {
  await agent?.dispose();
});

async function until(what: string, cond: () => Promise<boolean> | boolean, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${agent.log()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("the start-up sweep", () => {
  it("stops a workload no journal record claims, reports it on the node, and the run fails as infrastructure", async () => {
    const id = await submitCustom(cp, op, {
      name: "orphan",
      fleet,
      workspace: await uploadWorkspace(cp.url, op, [
        { path: "exp/train.sh", content: "#!/usr/bin/env bash\necho started\nsleep 600\n", mode: 0o755 },
      ]),
      maxRetries: 0,
    });
    await until("RUNNING", async () => (await jobState(cp, op, id)).job.status === "RUNNING");
    await until("a live workload", () => agent.liveWorkloads().length === 1);
    const [pgid] = agent.liveWorkloads();

    await agent.kill();
    rmSync(join(agent.stateDir, "journal.json"));
    // The workload outlived its agent: only the sweep can find it now.
    expect(agent.liveWorkloads()).toEqual([pgid]);
    await agent.start();
    await until("the sweep", () => agent.log().includes("stopped orphan"));
    await until("the workload gone", () => agent.liveWorkloads().length === 0, 20_000);

    // The hello that follows the sweep carries it to the control plane.
    const orphans = async () =>
      (
        (await call(cp, cp.adminToken, "GET", `/v1/fleets/${fleet}/nodes`)).body.nodes as Array<{
          orphans: Array<Record<string, unknown>>;
        }>
      )[0]!.orphans;
    await until("the hello's report", async () => (await orphans()).length > 0);
    expect(await orphans()).toEqual([
      expect.objectContaining({
        run_id: (await jobState(cp, op, id)).runs[0]?.id,
        rank: 0,
        action: "stopped",
      }),
    ]);
    await until("FAILED", async () => (await jobState(cp, op, id)).job.status === "FAILED");
  }, 90_000);
});
