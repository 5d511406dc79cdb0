/**
 * Tier 3, multi-node training for real (process runtime): a real control plane (npm start) and two real
 * forgelet processes on this machine that advertise different loopback addresses (127.0.0.2 and
 * 127.0.0.3), as two GPU nodes on one network would. A torch/ddp job spans both: each node rank's runner
 * meets the others through the control plane, and the ranks train as one PyTorch process group (gloo on
 * CPU; the fleet's network settings pin gloo to the loopback interface). Only the GPUs are simulated.
 *
 * Failure paths: a rank killed mid-run, a node refusing the launch, a rank whose agent never takes the
 * launch (the rendezvous times out naming it). Each ends with the no-orphans check.
 */
import { mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { STOP_GRACE_SECONDS } from "../../durable-objects/fleet/rules/runs.js";
import * as ck from "../support/checkpoints.js";
import { type ControlPlane, call, groupAlive, startControlPlane } from "../support/control-plane.js";
import {
  continuesThenStop,
  expectDdpTrained,
  gangStopStep,
  runLines,
  submitDdp,
  torchPythonDir,
  untilStep,
} from "../support/ddp.js";
import { enrollForgelet, type ForgeletProc } from "../support/forgelet.js";
import { waitForStatus } from "../support/jobs.js";
import {
  describeState,
  expectNoOrphans,
  fleetView,
  jobDetail,
  newOperator,
  smallNodeProfile,
  stepper,
  waitFor,
  waitNodesReady,
  workloadProcesses,
} from "../support/lifecycle.js";
import { newSfHome, sf } from "../support/sf.js";

const FLEET = "mn";
const ADDRS = { "mn-a": "127.0.0.2", "mn-b": "127.0.0.3" } as const;
let cp: ControlPlane;
let op = "";
let agents: ForgeletProc[] = [];
const byName = new Map<string, ForgeletProc>();
const jobs = new Set<string>();

beforeAll(async () => {
  const torch = torchPythonDir();
  cp = await startControlPlane({ agent: false, vars: { SF_COMMAND_RESEND_SECONDS: 1 } });
  op = await newOperator(cp, "mn-op");
  const q = await call(cp, cp.adminToken, "PUT", "/v1/users/mn-op/quota", {
    max_gpus: 16,
    max_jobs: 20,
    daily_gpu_hours: 1000,
  });
  expect(q.status, JSON.stringify(q.body)).toBe(200);
  await smallNodeProfile(cp, "h200-1pn", 1);
  await smallNodeProfile(cp, "h200-2pn", 2);
  const f = await call(cp, cp.adminToken, "POST", "/v1/fleets", {
    name: FLEET,
    kind: "process",
    network: { env: { GLOO_SOCKET_IFNAME: "lo" }, rendezvous_timeout_seconds: 60 },
  });
  expect(f.status, JSON.stringify(f.body)).toBe(201);
  for (const [name, addr] of Object.entries(ADDRS)) {
    const agent = await enrollForgelet(cp, FLEET, {
      name,
      gpus: 2,
      args: ["--advertise-addr", addr],
      // The workloads' python3 is one that has torch (Debian's python3-torch on CI).
      env: { PATH: `${torch}:${process.env.PATH}`, OMP_NUM_THREADS: "1" },
    });
    agents.push(agent);
    byName.set(name, agent);
  }
  await waitNodesReady(cp, FLEET, 2);
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail") {
    console.error(await describeState(cp, op, [...jobs], agents));
    console.error(`--- control plane (tail)\n${cp.output().split("\n").slice(-40).join("\n")}`);
  }
  // Every test leaves nothing running: no process of its jobs, 0 GPUs allocated — within what a stop
  // promises (SIGTERM, SIGKILL after the stop grace). A gang's ranks usually end within seconds; one
  // CI run saw a rank take over 20 s, so how long it took is shown whenever it is slow.
  try {
    const ms = await expectNoOrphans(cp, FLEET, agents, jobs, new Set(), (STOP_GRACE_SECONDS + 10) * 1000);
    if (ms > 5000) console.log(`[${ctx.task.name}] the workloads took ${(ms / 1000).toFixed(1)} s to end`);
  } catch (e) {
    console.error(await describeState(cp, op, [...jobs], agents));
    throw e;
  }
});

afterAll(async () => {
  for (const a of agents) await a.dispose();
  agents = [];
  await cp?.stop();
});

/** The node (agent name) each node rank of the job's current run was placed on. */
async function nodesByRank(id: string): Promise<string[]> {
  const view = await fleetView(cp, FLEET);
  const d = await waitFor(
    `a run for ${id}`,
    async () => {
      const j = await jobDetail(cp, op, id);
      return j.runs.length > 0 ? j : undefined;
    },
    30_000,
  );
  const run = d.runs.at(-1)!;
  return [...run.placement]
    .sort((a, b) => a.rank - b.rank)
    .map((p) => view.nodes.find((n) => n.id === p.node_id)!.name);
}

describe("multi-node torch/ddp on two agents (process runtime)", () => {
  it("the fleet view shows the address each node's peers reach it at", async () => {
    const view = await fleetView(cp, FLEET);
    const shown = Object.fromEntries(
      view.nodes.map((n) => [n.name, (n as unknown as { advertise_addr: string }).advertise_addr]),
    );
    expect(shown).toEqual(ADDRS);
  });

  it("2 nodes × 1 GPU: both ranks join one process group, the loss is identical and falls, the checkpoint downloads", async () => {
    const id = await submitDdp(cp, op, {
      name: "ddp-2x1",
      fleet: FLEET,
      nodes: 2,
      gpusPerNode: 1,
      profile: "h200-1pn",
      hyperparams: { max_steps: 60, checkpoint_every: 30 },
    });
    jobs.add(id);
    const nodes = await nodesByRank(id);
    await expectDdpTrained(cp, op, id, 2);
    // Rank 0 listened where its node is reached: its agent's advertise address, on the port it chose.
    const d = await jobDetail(cp, op, id);
    const lines = await runLines(cp, op, id, d.runs[0]!.id);
    const masters = new Set(
      lines
        .map((l) => /joined the process group: backend gloo, master (\S+):(\d+)$/.exec(l.line)?.[1])
        .filter(Boolean),
    );
    expect([...masters]).toEqual([ADDRS[nodes[0] as keyof typeof ADDRS]]);
  });

  it("2 nodes × 2 GPUs, one process per GPU: world size 4, every rank's lines under its own rank", async () => {
    const id = await submitDdp(cp, op, {
      name: "ddp-2x2",
      fleet: FLEET,
      nodes: 2,
      gpusPerNode: 2,
      profile: "h200-2pn",
      hyperparams: { max_steps: 40, checkpoint_every: 20 },
    });
    jobs.add(id);
    await expectDdpTrained(cp, op, id, 4);
    const d = await jobDetail(cp, op, id);
    const lines = await runLines(cp, op, id, d.runs[0]!.id);
    // Ranks 0 and 1 on the first node, 2 and 3 on the second: each process knows its local rank.
    for (const r of [0, 1, 2, 3]) {
      expect(
        lines.some(
          (l) =>
            l.rank === r &&
            l.line.includes(`(local rank ${r % 2}, node ${r < 2 ? 0 : 1} of 2, pool default)`),
        ),
      ).toBe(true);
    }

    // `sf job logs` shows which rank printed each line, and --rank picks one (also when following).
    const user = { home: newSfHome(), server: cp.url, env: { SF_TOKEN: op } };
    const all = await sf(["job", "logs", id], user);
    expect(all.code, all.stderr).toBe(0);
    for (const r of [0, 1, 2, 3])
      expect(all.stdout).toMatch(new RegExp(`^\\[${r}\\] ddp: rank ${r} of 4 `, "m"));
    const three = lines.filter((l) => l.rank === 3).map((l) => l.line);
    const one = await sf(["job", "logs", id, "--rank", "3"], user);
    expect(one.stdout.trimEnd().split("\n")).toEqual(three);
    const followed = await sf(["job", "logs", id, "--rank", "3", "-f", "-q"], user);
    expect(followed.code, followed.stderr).toBe(0);
    expect(followed.stdout).toContain(three.find((l) => l.startsWith("ddp: rank 3 of 4")));
    expect(followed.stdout).not.toMatch(/ddp: rank [012] of 4/);
    const bad = await sf(["job", "logs", id, "--rank", "x"], user);
    expect(bad.code).toBe(2);
  });

  it("pause → resume continues every rank from the checkpoint step", async () => {
    const step = stepper("ddp-pause");
    const id = await submitDdp(cp, op, {
      name: "ddp-pause",
      fleet: FLEET,
      nodes: 2,
      gpusPerNode: 1,
      profile: "h200-1pn",
      hyperparams: { max_steps: 1_000_000, checkpoint_every: 100_000 },
    });
    jobs.add(id);
    const run1 = (await waitFor("run 1", async () => (await jobDetail(cp, op, id)).runs[0], 30_000)).id;
    await untilStep(cp, op, id, run1, 40);
    step("run 1 passed step 40; pausing");
    expect((await call(cp, op, "POST", `/v1/jobs/${id}/pause`)).status).toBe(200);
    await waitFor(
      "run 1 to be released",
      async () => (await jobDetail(cp, op, id)).runs[0]!.ended_at !== null,
      60_000,
    );
    expect((await jobDetail(cp, op, id)).job.status).toBe("PAUSED");
    const stopStep = await gangStopStep(cp, op, id, run1, [0, 1]);
    expect(stopStep, "the stop wrote a checkpoint at the step the gang stopped").toBeGreaterThanOrEqual(40);
    step(`run 1 stopped at step ${stopStep}; resuming`);

    expect((await call(cp, op, "POST", `/v1/jobs/${id}/resume`)).status).toBe(200);
    // Each rank resumed at the step: said by both before the loss continues from stopStep + 1.
    await continuesThenStop(cp, op, id, stopStep, [0, 1]);
  });

  it("preemption takes the whole 2-node gang: both ranks stop at one step, the preemptor runs, the gang resumes there", async () => {
    const step = stepper("ddp-preempt");
    await ck.allowPreemption(cp, "mn-op");
    const id = await submitDdp(cp, op, {
      name: "ddp-low",
      fleet: FLEET,
      nodes: 2,
      gpusPerNode: 2,
      profile: "h200-2pn",
      hyperparams: { max_steps: 1_000_000, checkpoint_every: 100_000 },
      priorityClass: "low",
    });
    jobs.add(id);
    const run1 = (await waitFor("run 1", async () => (await jobDetail(cp, op, id)).runs[0], 30_000)).id;
    await untilStep(cp, op, id, run1, 40);
    step("the gang passed step 40; a high job asks for one GPU");
    const high = await ck.submitCharlm(cp, op, {
      fleet: FLEET,
      name: "ddp-high",
      maxSteps: 100,
      priorityClass: "high",
    });
    jobs.add(high);
    expect((await waitForStatus(cp, op, high, ["SUCCEEDED", "FAILED"], 90_000)).job.status).toBe("SUCCEEDED");
    const run = (await jobDetail(cp, op, id)).runs[0]!;
    expect(run).toMatchObject({ status: "PAUSED" });
    expect(run.ended_at).not.toBeNull();
    const stopStep = await gangStopStep(cp, op, id, run1, [0, 1]);
    step(`the gang stopped at step ${stopStep}; it resumes once the high job is done`);
    await continuesThenStop(cp, op, id, stopStep);
  });

  it("killing one rank's training mid-run fails the job within 15 s and stops the other rank", async () => {
    const step = stepper("ddp-kill");
    const id = await submitDdp(cp, op, {
      name: "ddp-kill",
      fleet: FLEET,
      nodes: 2,
      gpusPerNode: 1,
      profile: "h200-1pn",
      hyperparams: { max_steps: 1_000_000, checkpoint_every: 100_000 },
    });
    jobs.add(id);
    const run = (await waitFor("a run", async () => (await jobDetail(cp, op, id)).runs[0], 30_000)).id;
    await untilStep(cp, op, id, run, 20);
    const victim = workloadProcesses(new Set([id])).find((p) => p.rank === 1 && p.group === "training");
    expect(victim, "node rank 1's training process").toBeDefined();
    const t0 = Date.now();
    process.kill(-victim!.pgid, "SIGKILL");
    step(`killed node rank 1's training (process group ${victim!.pgid})`);
    const failed = await waitFor(
      "the job to fail",
      async () => {
        const d = await jobDetail(cp, op, id);
        return d.job.status === "FAILED" ? d : undefined;
      },
      15_000,
      100,
    );
    const took = Date.now() - t0;
    step(`FAILED after ${took} ms: ${failed.runs[0]!.reason}`);
    expect(took).toBeLessThanOrEqual(15_000);
    // The reason says which rank failed and where (a peer that died with it may report first).
    expect(failed.runs[0]!.reason).toMatch(/^rank [01] on mn-[ab]: /);
    // The other rank is stopped too: nothing of the job is left (afterEach checks every process).
    await waitFor(
      "every process of the job to be gone",
      () => workloadProcesses(new Set([id])).length === 0,
      30_000,
    );
    expect(groupAlive(victim!.pgid)).toBe(false);
  });

  it("a node that refuses the launch fails the run with a reason naming its rank; the rank waiting at the rendezvous is stopped", async () => {
    const step = stepper("ddp-refused");
    const b = byName.get("mn-b")!;
    const runs = join(b.stateDir, "runs");
    // mn-b is frozen first, so the other rank is surely waiting at the rendezvous when mn-b refuses.
    process.kill(-b.pgid(), "SIGSTOP");
    try {
      const id = await submitDdp(cp, op, {
        name: "ddp-refused",
        fleet: FLEET,
        nodes: 2,
        gpusPerNode: 1,
        profile: "h200-1pn",
        hyperparams: { max_steps: 1_000_000 },
      });
      jobs.add(id);
      const nodes = await nodesByRank(id);
      const bRank = nodes.indexOf("mn-b");
      const waiting = await waitFor(
        "the other rank's runner to be up (at the rendezvous)",
        () => workloadProcesses(new Set([id])).find((p) => p.rank === 1 - bRank && p.group === "launch"),
        30_000,
      );
      await new Promise((r) => setTimeout(r, 1000));
      step(`rank ${1 - bRank} is waiting (process group ${waiting.pgid}); mn-b now refuses`);
      // mn-b cannot create run directories: a regular file where they go.
      rmSync(runs, { recursive: true, force: true });
      writeFileSync(runs, "not a directory\n");
      process.kill(-b.pgid(), "SIGCONT");
      const t0 = Date.now();
      const failed = await waitFor(
        "the job to fail",
        async () => {
          const d = await jobDetail(cp, op, id);
          return d.job.status === "FAILED" ? d : undefined;
        },
        30_000,
      );
      expect(failed.runs[0]!.reason).toMatch(
        new RegExp(`^rank ${bRank} on mn-b: preparing the run failed: ENOTDIR`),
      );
      await waitFor("the waiting rank to be stopped", () => !groupAlive(waiting.pgid), 15_000);
      step(`failed and the waiting rank stopped ${Date.now() - t0} ms after mn-b refused`);
      // No rank trained: the process group never formed.
      const lines = await runLines(cp, op, id, failed.runs[0]!.id);
      expect(lines.filter((l) => l.line.includes("joined the process group"))).toEqual([]);
    } finally {
      process.kill(-b.pgid(), "SIGCONT");
      if (!statSync(runs, { throwIfNoEntry: false })?.isDirectory()) {
        rmSync(runs, { force: true });
        mkdirSync(runs);
      }
    }
  });

  it("a rank whose agent never takes the launch: the rendezvous times out naming it, the gang is stopped", async () => {
    const step = stepper("ddp-missing");
    const patched = await call(cp, cp.adminToken, "PATCH", `/v1/fleets/${FLEET}`, {
      network: { env: { GLOO_SOCKET_IFNAME: "lo" }, rendezvous_timeout_seconds: 8 },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const b = byName.get("mn-b")!;
    // Frozen: its socket stays open (so the node is not lost yet), but it takes no launch.
    process.kill(-b.pgid(), "SIGSTOP");
    try {
      const id = await submitDdp(cp, op, {
        name: "ddp-missing",
        fleet: FLEET,
        nodes: 2,
        gpusPerNode: 1,
        profile: "h200-1pn",
        hyperparams: { max_steps: 1_000_000 },
      });
      jobs.add(id);
      const nodes = await nodesByRank(id);
      const bRank = nodes.indexOf("mn-b");
      const failed = await waitFor(
        "the job to fail",
        async () => {
          const d = await jobDetail(cp, op, id);
          return d.job.status === "FAILED" ? d : undefined;
        },
        60_000,
      );
      step(`FAILED: ${failed.runs[0]!.reason}`);
      expect(failed.runs[0]!.reason).toMatch(
        new RegExp(
          `^rank ${1 - bRank} on mn-[ab]: RENDEZVOUS_FAILED: rendezvous timed out after 8s: node rank ${bRank} never joined$`,
        ),
      );
      const fail = failed.events.find((e) => e.to === "FAILED")!;
      expect(fail.detail).toMatchObject({ exit_code: 69, infra: true });
    } finally {
      process.kill(-b.pgid(), "SIGCONT");
      await call(cp, cp.adminToken, "PATCH", `/v1/fleets/${FLEET}`, {
        network: { env: { GLOO_SOCKET_IFNAME: "lo" }, rendezvous_timeout_seconds: 60 },
      });
    }
    // Thawed, mn-b receives the launch of a run that is over and is told to stop it (afterEach: no orphans).
  });
});
