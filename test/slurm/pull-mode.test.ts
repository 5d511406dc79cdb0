/**
 * Slurm without a shared directory (pull mode), through slurmrestd's unix socket: forgelet keeps its run directories to itself, and each
 * step builds its rank's run directory on its node's disk with the capsule's pull.py, fetching the
 * capsule, the workspace and the checkpoint to resume from by digest with the run's token. The job
 * never sees the agent's directory: the batch script names only node paths, and the nodes' copies are
 * gone after each run.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as ck from "../support/checkpoints.js";
import { type ControlPlane, call, startControlPlane } from "../support/control-plane.js";
import { expectDdpTrained, submitDdp } from "../support/ddp.js";
import type { ForgeletProc } from "../support/forgelet.js";
import { waitForStatus } from "../support/jobs.js";
import {
  describeState,
  expectNoOrphans,
  newOperator,
  smallNodeProfile,
  waitFor,
} from "../support/lifecycle.js";
import { endedJobsOfRun, expectSqueueEmpty, jobsOfRun, scontrol, startSlurmFleet } from "../support/slurm.js";

const FLEET = "hpc-pull";
let cp: ControlPlane;
let op = "";
let agent: ForgeletProc;
const jobs = new Set<string>();
const workDir = mkdtempSync(join(tmpdir(), "sf-pull-work-"));
const nodeDir = mkdtempSync(join(tmpdir(), "sf-pull-node-"));

beforeAll(async () => {
  cp = await startControlPlane({ agent: false, vars: { SF_COMMAND_RESEND_SECONDS: 1 } });
  op = await newOperator(cp, "pull-op");
  await smallNodeProfile(cp, "h200-1pn", 1);
  await smallNodeProfile(cp, "h200-2pn", 2);
  agent = await startSlurmFleet(cp, FLEET, "login-pull", { workDir, nodeDir });
  expect(agent.log()).toContain(`steps fetch their inputs by digest into ${nodeDir}`);
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail") console.error(await describeState(cp, op, [...jobs], [agent]));
  await expectSqueueEmpty();
  await expectNoOrphans(cp, FLEET, [agent], jobs);
});

afterAll(async () => {
  await agent?.dispose();
  await cp?.stop();
  rmSync(workDir, { recursive: true, force: true });
  rmSync(nodeDir, { recursive: true, force: true });
});

describe("Slurm without a shared directory (pull mode)", () => {
  it("each step fetches its inputs by digest; pause → resume pulls the checkpoint too; nothing is left on the nodes", async () => {
    // Steps enough that the pause lands mid-run on a fast machine too: with 400, a run that reached step 100
    // trained to its last step while Slurm delivered the cancel, and the resumed run had nothing left to do.
    const id = await ck.submitCharlm(cp, op, { fleet: FLEET, name: "pull-charlm", maxSteps: 1000 });
    jobs.add(id);
    const first = (await waitForStatus(cp, op, id, ["RUNNING"], 90_000)).job.current_run_id!;
    // The job runs from its node's own copy, built by pull.py; the script names no path of the agent's.
    const [sj] = jobsOfRun(first);
    const script = scontrol(["write", "batch_script", String(sj!.id), "-"]);
    expect(script).toContain(`${nodeDir}/${first}-r0`);
    expect(script).not.toContain(workDir);
    expect(script).toContain("sbcast");
    await ck.waitForStep(cp, op, id, first, 100, 90_000);
    expect(existsSync(join(nodeDir, `${first}-r0`, "workspace"))).toBe(true);

    expect((await call(cp, op, "POST", `/v1/jobs/${id}/pause`)).body.job).toMatchObject({ status: "PAUSED" });
    await ck.waitReleased(cp, op, id, first);
    const stopStep = await ck.lastCheckpointStep(cp, op, id, first);
    expect(stopStep).toBeGreaterThanOrEqual(100);
    const before = await ck.points(cp, op, id, first);
    expect((await call(cp, op, "POST", `/v1/jobs/${id}/resume`)).status).toBe(200);
    const done = await waitForStatus(cp, op, id, ["SUCCEEDED", "FAILED"], 150_000);
    expect(done.job.status, JSON.stringify(done.runs)).toBe("SUCCEEDED");
    // The second run fetched the first one's checkpoint itself, and continued from it.
    await ck.expectContinued(cp, op, id, done.runs[1]!.id, stopStep, before.at(-1)!.value);
    // The nodes' copies went with their runs.
    await waitFor("the node directory to be empty", () => readdirSync(nodeDir).length === 0, 30_000, 250);
    expect(readdirSync("/tmp").filter((f) => f === `sf-${sj!.id}`)).toEqual([]);
  });

  it("a 2-node torch/ddp job: both nodes get the plan by sbcast and pull their own copy", async () => {
    const id = await submitDdp(cp, op, {
      name: "pull-ddp",
      fleet: FLEET,
      nodes: 2,
      gpusPerNode: 1,
      profile: "h200-1pn",
      hyperparams: { max_steps: 30, checkpoint_every: 10 },
    });
    jobs.add(id);
    await expectDdpTrained(cp, op, id, 2);
    const run = (await waitForStatus(cp, op, id, ["SUCCEEDED"], 10_000)).runs[0]!.id;
    expect((await endedJobsOfRun(run)).map((j) => [j.state, j.nodes])).toEqual([["COMPLETED", "sf-n[1-2]"]]);
    await waitFor("the node directory to be empty", () => readdirSync(nodeDir).length === 0, 30_000, 250);
  });

  it("a job of two pools, one heterogeneous job: each component's ranks pull their own copy and train as one group", async () => {
    const id = await submitDdp(cp, op, {
      name: "pull-het",
      fleet: FLEET,
      pools: [
        { name: "trainer", nodes: 1, gpusPerNode: 2, profile: "h200-2pn" },
        { name: "rollout", nodes: 1, gpusPerNode: 1, profile: "h200-1pn" },
      ],
      hyperparams: { max_steps: 30, checkpoint_every: 10 },
    });
    jobs.add(id);
    await expectDdpTrained(cp, op, id, 3, 240_000, ["trainer", "trainer", "rollout"]);
    const run = (await waitForStatus(cp, op, id, ["SUCCEEDED"], 10_000)).runs[0]!.id;
    const rows = await endedJobsOfRun(run);
    expect(rows.map((j) => [j.component, j.state])).toEqual([
      [0, "COMPLETED"],
      [1, "COMPLETED"],
    ]);
    // (This cluster is one host, so every node sees one /tmp: that each component's nodes got the files
    // by their own sbcast is shown by the rendered script's unit test, not here.)
    await waitFor("the node directory to be empty", () => readdirSync(nodeDir).length === 0, 30_000, 250);
    expect(readdirSync("/tmp").filter((f) => f === `sf-${rows[0]!.id}`)).toEqual([]);
  });
});
