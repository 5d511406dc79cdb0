/**
 * Tier 3, gangs on real agents: three forgelet processes (process runtime) in one fleet and jobs asking
 * for 3 nodes. A rank whose launch fails for a real reason on its machine rolls the other ranks back; a
 * rank killed mid-run fails the job and stops the rest. Each test ends with the no-orphans check: no
 * workload process of its job anywhere on the machine, and 0 GPUs allocated in the fleet.
 *
 * Its own control plane, not the project's shared one: it runs with deployment-wide timers other files must
 * not get (SF_COMMAND_RESEND_SECONDS=1, a short SF_RETRY_BACKOFF_SECONDS it waits out).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, startControlPlane } from "../support/control-plane.js";
import { enrollForgelet, type ForgeletProc } from "../support/forgelet.js";
import {
  describeState,
  expectNoOrphans,
  groupsByRank,
  jobDetail,
  marks,
  newFleet,
  newOperator,
  type Placement,
  smallNodeProfile,
  stepper,
  submitCustom,
  tickingWorkspace,
  waitFor,
  waitNodesReady,
  workloadProcesses,
} from "../support/lifecycle.js";

let cp: ControlPlane;
let op = "";
let scratch = "";
let agents: ForgeletProc[] = [];
const RETRY_BACKOFF_SECONDS = 2;

beforeAll(async () => {
  cp = await startControlPlane({
    agent: false,
    vars: { SF_COMMAND_RESEND_SECONDS: 1, SF_RETRY_BACKOFF_SECONDS: RETRY_BACKOFF_SECONDS },
  });
  op = await newOperator(cp, "lc-gang");
  // One GPU per node, so a 3-GPU job is a gang of three nodes (3×1).
  await smallNodeProfile(cp, "h200-1pn", 1);
  scratch = mkdtempSync(join(tmpdir(), "sf-lc-gangs-"));
});

afterEach(async () => {
  for (const a of agents) {
    // A test may leave a regular file where the agent keeps its run directories.
    const runs = join(a.stateDir, "runs");
    if (!statSync(runs, { throwIfNoEntry: false })?.isDirectory()) {
      rmSync(runs, { force: true });
      mkdirSync(runs);
    }
    await a.dispose();
  }
  agents = [];
});

afterAll(async () => {
  await cp?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Three agents named so the scheduler's tie-break (fewest free GPUs, then name) gives them ranks 0, 1, 2. */
async function threeAgents(fleet: string): Promise<ForgeletProc[]> {
  await newFleet(cp, fleet);
  for (const n of ["r0", "r1", "r2"])
    agents.push(await enrollForgelet(cp, fleet, { name: `${fleet}-${n}`, gpus: 2 }));
  // "connected" is not "registered": wait until the fleet has all three nodes (a test may SIGSTOP one).
  await waitNodesReady(cp, fleet, 3);
  return agents;
}

async function placementOf(id: string): Promise<Placement[]> {
  const d = await waitFor(
    `a run for ${id}`,
    async () => {
      const j = await jobDetail(cp, op, id);
      return j.runs.length > 0 ? j : undefined;
    },
    30_000,
  ).catch(async (e: Error) => {
    throw new Error(`${e.message}\n${await describeState(cp, op, [id], agents)}`);
  });
  return d.runs[0]!.placement;
}

describe("gangs on real agents (process runtime)", () => {
  it("gang of 3 nodes with a failing rank-2 launch rolls back ranks 0–1: 2 attempts (max_retries 1), 0 processes and 0 GPUs left", async () => {
    const step = stepper("rollback");
    const fleet = "lc-rollback";
    const [a0, a1, a2] = await threeAgents(fleet);
    // The real condition: where the process runtime materializes runs (<state dir>/runs, the default
    // --work-dir; run directories are <runs>/<run id>-r<rank>) is a regular file on rank 2's machine,
    // so nothing can be created under it — as root too (a chmod would not stop root).
    const runs = join(a2!.stateDir, "runs");
    rmSync(runs, { recursive: true, force: true });
    writeFileSync(runs, "not a directory\n");
    // Rank 2's agent is paused while the launch goes out, so ranks 0 and 1 really start before it
    // looks at the launch (a slow node); the failure itself is the file above.
    process.kill(a2!.pgid(), "SIGSTOP");
    let paused = true;
    try {
      const marker = join(scratch, "rollback.log");
      const workspace = await tickingWorkspace(cp, op, { ticks: 400, tickSeconds: 0.25, markerFile: marker });
      const id = await submitCustom(cp, op, {
        name: "rollback",
        fleet,
        workspace,
        profile: "h200-1pn",
        nodes: 3,
        gpusPerNode: 1,
        maxRetries: 1, // docs/operations.md: an infrastructure failure re-queues while the budget lasts
      });
      const jobIds = new Set([id]);
      const placement = await placementOf(id);
      expect(placement.map((p) => [p.rank, p.node_id])).toEqual([
        [0, a0!.nodeId],
        [1, a1!.nodeId],
        [2, a2!.nodeId],
      ]);
      // Ranks 0 and 1 train (their training process groups are up) while rank 2's agent is paused.
      const seen = new Set<number>();
      await waitFor(
        "ranks 0 and 1 training",
        () => {
          const procs = workloadProcesses(jobIds);
          for (const p of procs) seen.add(p.pgid);
          const g = groupsByRank(procs);
          return g.get(`${id} 0`)?.training.size === 1 && g.get(`${id} 1`)?.training.size === 1;
        },
        30_000,
      ).catch(async (e: Error) => {
        throw new Error(`${e.message}\n${await describeState(cp, op, [id], agents)}`);
      });
      expect((await jobDetail(cp, op, id)).job.status).toBe("RUNNING");
      step("ranks 0 and 1 training; resuming rank 2's agent");
      const t0 = Date.now();
      process.kill(a2!.pgid(), "SIGCONT");
      paused = false;

      const failedFirst = await waitFor(
        "attempt 1 to fail",
        async () => {
          const d = await jobDetail(cp, op, id);
          return d.runs[0]?.status === "FAILED" ? d : undefined;
        },
        20_000,
      ).catch(async (e: Error) => {
        throw new Error(`${e.message}\n${await describeState(cp, op, [id], agents)}`);
      });
      const failMs = Date.now() - t0;
      step(`attempt 1 FAILED ${failMs} ms after rank 2's agent resumed`);
      // Ranks 0 and 1 are stopped: every process of attempt 1 is gone.
      const run1 = failedFirst.runs[0]!;
      await waitFor(
        "attempt 1's processes to be gone",
        () => workloadProcesses(jobIds).every((p) => p.runId !== run1.id),
        20_000,
      );
      const goneMs = Date.now() - t0;
      step(`ranks 0 and 1 of attempt 1 gone ${goneMs} ms after rank 2's agent resumed`);

      const done = await waitFor(
        "attempt 2 to end and the job to stay FAILED",
        async () => {
          const d = await jobDetail(cp, op, id);
          return d.job.status === "FAILED" && d.runs.length === 2 && d.runs.every((r) => r.ended_at !== null)
            ? d
            : undefined;
        },
        30_000,
        200,
      ).catch(async (e: Error) => {
        throw new Error(`${e.message}\n${await describeState(cp, op, [id], agents)}`);
      });
      step("attempt 2 FAILED; budget spent");
      for (const r of done.runs) {
        expect(r.status, JSON.stringify(r)).toBe("FAILED");
        expect(r.reason, "the run names the launch failure").toMatch(/preparing the run failed: ENOTDIR/);
        expect(r.reason).toContain(runs);
      }
      const fails = done.events.filter((e) => e.to === "FAILED");
      expect(fails).toHaveLength(2);
      for (const f of fails) expect(f.detail).toMatchObject({ rank: 2, infra: true });
      expect(done.events.filter((e) => e.edge === "retry")).toHaveLength(1);
      expect(done.runs.map((r) => r.attempt)).toEqual([1, 2]);

      // Attempt 1: ranks 0 and 1 started (the workload's own marker), then were stopped by their agents;
      // rank 2 never ran anything.
      const begun = marks(marker).filter((m) => m.kind === "BEGIN");
      expect(
        begun
          .filter((m) => m.run === run1.id)
          .map((m) => m.rank)
          .sort(),
        "ranks of attempt 1 that started",
      ).toEqual([0, 1]);
      expect(begun.filter((m) => m.rank === 2)).toEqual([]);
      expect(
        marks(marker).filter((m) => m.kind === "END"),
        "no rank trained to its end",
      ).toEqual([]);
      await waitFor(
        "rank 0's stop in its agent's log",
        () => a0!.log().includes(`run ${run1.id} rank 0: stopped`),
        5000,
      );
      await waitFor(
        "rank 1's stop in its agent's log",
        () => a1!.log().includes(`run ${run1.id} rank 1: stopped`),
        5000,
      );
      // …and cleaned: their run directories are removed once the control plane acknowledged the stop.
      await waitFor(
        "attempt 1's run directories on ranks 0 and 1 to be removed",
        () =>
          !existsSync(join(a0!.stateDir, "runs", `${run1.id}-r0`)) &&
          !existsSync(join(a1!.stateDir, "runs", `${run1.id}-r1`)),
        5000,
      );
      expect(a2!.log()).toMatch(
        new RegExp(`run ${run1.id} rank 2: launch_failed \\(preparing the run failed: ENOTDIR`),
      );

      // The budget is spent: no third attempt comes after the backoff it would have had.
      const cleanMs = await expectNoOrphans(cp, fleet, [a0!, a1!], jobIds, seen);
      await new Promise((r) => setTimeout(r, RETRY_BACKOFF_SECONDS * 2 * 1000 + 500));
      const after = await jobDetail(cp, op, id);
      expect([after.job.status, after.runs.length]).toEqual(["FAILED", 2]);
      console.log(
        `[lifecycle] rollback: attempt 1 FAILED ${failMs} ms after rank 2's agent resumed, ranks 0–1 gone after ${goneMs} ms; ` +
          `2 attempts, both FAILED on rank 2's launch; ${seen.size} process groups seen, all gone (${cleanMs} ms more)`,
      );
    } finally {
      if (paused) process.kill(a2!.pgid(), "SIGCONT");
    }
  }, 90_000);

  const FAIL_WITHIN_S = 10;
  const STOPPED_WITHIN_S = 15;
  it(`a rank killed mid-run fails the job within ${FAIL_WITHIN_S} s and stops the rest within ${STOPPED_WITHIN_S} s (gang of 3, max_retries 0)`, async () => {
    const step = stepper("rank-kill");
    const fleet = "lc-rankkill";
    const [a0, a1, a2] = await threeAgents(fleet);
    const marker = join(scratch, "rankkill.log");
    // Quiet ticks (to a file): like a real training between two log lines, the killed rank's training
    // does not die of a broken pipe when its runner is killed; only the agent can end it.
    const workspace = await tickingWorkspace(cp, op, {
      ticks: 400,
      tickSeconds: 0.25,
      markerFile: marker,
      quiet: true,
    });
    const id = await submitCustom(cp, op, {
      name: "rankkill",
      fleet,
      workspace,
      profile: "h200-1pn",
      nodes: 3,
      gpusPerNode: 1,
      maxRetries: 0,
    });
    const jobIds = new Set([id]);
    const placement = await placementOf(id);
    expect(placement.map((p) => p.node_id)).toEqual([a0!.nodeId, a1!.nodeId, a2!.nodeId]);
    const seen = new Set<number>();
    await waitFor(
      "all three ranks training",
      () => {
        const procs = workloadProcesses(jobIds);
        for (const p of procs) seen.add(p.pgid);
        const g = groupsByRank(procs);
        return [0, 1, 2].every((r) => g.get(`${id} ${r}`)?.training.size === 1);
      },
      30_000,
    ).catch(async (e: Error) => {
      throw new Error(`${e.message}\n${await describeState(cp, op, [id], agents)}`);
    });
    expect((await jobDetail(cp, op, id)).job.status).toBe("RUNNING");
    const [pgid] = a1!.liveWorkloads();
    expect(groupsByRank(workloadProcesses(jobIds)).get(`${id} 1`)?.launch).toEqual(new Set([pgid]));
    step(`killing rank 1's workload process group ${pgid}`);
    const t0 = Date.now();
    process.kill(-pgid!, "SIGKILL");

    const failed = await waitFor(
      "the job to fail",
      async () => {
        const d = await jobDetail(cp, op, id);
        return d.job.status === "FAILED" ? d : undefined;
      },
      FAIL_WITHIN_S * 1000,
      50,
    ).catch(async (e: Error) => {
      throw new Error(`${e.message}\n${await describeState(cp, op, [id], agents)}`);
    });
    const failMs = Date.now() - t0;
    step(`job FAILED after ${failMs} ms`);
    expect(failed.runs).toHaveLength(1);
    expect(failed.runs[0]!.reason).toMatch(/killed from outside/);
    expect(failed.events.at(-1)).toMatchObject({ to: "FAILED", detail: { rank: 1, infra: true } });

    // Every rank's processes are gone (the killed rank's training too), and the GPUs are free.
    const cleanMs = await expectNoOrphans(cp, fleet, agents, jobIds, seen, STOPPED_WITHIN_S * 1000 - failMs);
    const stoppedMs = Date.now() - t0;
    step(`no process of the job left, 0 GPUs allocated, ${stoppedMs} ms after the kill`);
    const run = failed.runs[0]!.id;
    await waitFor("agents to log the stops", () => a0!.log().includes(`run ${run} rank 0: stopped`), 5000);
    await waitFor("agents to log the stops", () => a2!.log().includes(`run ${run} rank 2: stopped`), 5000);
    expect(
      marks(marker).filter((m) => m.kind === "END"),
      "no rank trained to its end",
    ).toEqual([]);
    // max_retries 0: the job stays FAILED with its one run.
    expect((await jobDetail(cp, op, id)).runs).toHaveLength(1);
    console.log(
      `[lifecycle] rank kill: FAILED ${failMs} ms after SIGKILL of rank 1, every process of the gang gone and GPUs freed ` +
        `${stoppedMs} ms after it (${cleanMs} ms after FAILED); ${seen.size} process groups seen`,
    );
  }, 90_000);
});
