/**
 * Tier 3, lifecycle proofs with repeated failures: the real control plane (scripts/start.mjs → workerd) and
 * real forgelet processes (process runtime). Agents are SIGKILLed and restarted several times while
 * several jobs run; the whole control plane is stopped and started again on the same state while jobs
 * are being dispatched and are finishing. Each test ends with the no-orphans check: no workload process
 * of its jobs anywhere on the machine, and 0 GPUs allocated in the fleet.
 *
 * Its own control planes, not the project's shared one: it stops and restarts the control plane on its
 * state directory mid-scheduling.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type ControlPlane, call, freePort, startControlPlane } from "../support/control-plane.js";
import { enrollForgelet, type ForgeletProc } from "../support/forgelet.js";
import {
  agentOf,
  describeState,
  expectNoOrphans,
  type FleetView,
  fleetView,
  groupsByRank,
  jobDetail,
  logLines,
  markCounts,
  newFleet,
  newOperator,
  type RunDetail,
  restartAgent,
  sleep,
  stepper,
  submitCustom,
  tickingWorkspace,
  waitFor,
  waitNodesReady,
  workloadProcesses,
} from "../support/lifecycle.js";

/** Everything a test started, stopped in afterEach whatever happened (by PID / process group). */
const started: { agents: ForgeletProc[]; cp: ControlPlane | null; dirs: string[] } = {
  agents: [],
  cp: null,
  dirs: [],
};

afterEach(async () => {
  for (const a of started.agents) await a.dispose().catch(() => {});
  await started.cp?.stop().catch(() => {});
  for (const d of started.dirs) rmSync(d, { recursive: true, force: true });
  started.agents = [];
  started.cp = null;
  started.dirs = [];
});

function scratch(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  started.dirs.push(d);
  return d;
}

const KILLS = 5;
const KILL_JOBS = [1, 1, 1, 1, 2, 2]; // GPUs per job: 8 GPUs on 2 agents × 4, all running at once
const KILL_TICKS = 100; // × 0.25 s = 25 s: each job outlives all the kill cycles

describe("lifecycle under repeated failures (process runtime)", () => {
  it(`agent killed and restarted mid-run ×${KILLS} (2 agents, ${KILL_JOBS.length} concurrent jobs) → 0 runs lost, 0 launched twice`, async () => {
    const step = stepper("kill");
    const cp = await startControlPlane({ agent: false, vars: { SF_COMMAND_RESEND_SECONDS: 1 } });
    started.cp = cp;
    step("control plane up");
    const op = await newOperator(cp, "lc-kill");
    await newFleet(cp, "lc-kill");
    const agents = [
      await enrollForgelet(cp, "lc-kill", { name: "lc-kill-a", gpus: 4 }),
      await enrollForgelet(cp, "lc-kill", { name: "lc-kill-b", gpus: 4 }),
    ];
    started.agents.push(...agents);
    const marker = join(scratch("sf-lc-kill-"), "marks.log");
    const workspace = await tickingWorkspace(cp, op, {
      ticks: KILL_TICKS,
      tickSeconds: 0.25,
      markerFile: marker,
    });
    const ids: string[] = [];
    for (const [i, gpus] of KILL_JOBS.entries()) {
      ids.push(
        await submitCustom(cp, op, {
          name: `kill-${i}`,
          fleet: "lc-kill",
          workspace,
          gpusPerNode: gpus,
          maxRetries: 0, // a retry would hide a lost run
        }),
      );
    }
    const jobIds = new Set(ids);
    step(`${ids.length} jobs submitted`);
    await waitFor(
      `all ${ids.length} jobs RUNNING`,
      async () => {
        for (const id of ids) if ((await jobDetail(cp, op, id)).job.status !== "RUNNING") return false;
        return true;
      },
      60_000,
      250,
    ).catch(async (e: Error) => {
      throw new Error(`${e.message}\n${await describeState(cp, op, ids, agents)}`);
    });
    const seenPgids = new Set<number>();
    /**
     * One launch per job, alive: exactly one launch group (the agent's wrapper and the runner) and at
     * most one training group (the runner starts the training in its own session), never two of either.
     */
    const expectOneWorkloadPerJob = (when: string) => {
      const procs = workloadProcesses(jobIds);
      for (const p of procs) seenPgids.add(p.pgid);
      const groups = groupsByRank(procs);
      expect(
        ids.map((id) => {
          const g = groups.get(`${id} 0`);
          return `launch ${g?.launch.size ?? 0}, training ≤1: ${(g?.training.size ?? 0) <= 1}`;
        }),
        `live process groups per job ${when}`,
      ).toEqual(ids.map(() => "launch 1, training ≤1: true"));
    };
    expectOneWorkloadPerJob("before the first kill");
    step("all jobs RUNNING");

    const cycles: Array<{ lost_after_ms: number; back_ms: number }> = [];
    for (let k = 1; k <= KILLS; k++) {
      const t0 = Date.now();
      step(`kill ${k}`);
      await Promise.all(agents.map((a) => a.kill()));
      // The agents are gone; their workloads (own process groups) keep running.
      expectOneWorkloadPerJob(`with both agents killed (cycle ${k})`);
      // The control plane notices: both nodes are lost (their runs stay RUNNING with their GPUs).
      await waitFor(
        "both nodes lost",
        async () => (await fleetView(cp, "lc-kill")).nodes.every((n) => n.status === "lost"),
        10_000,
      );
      const t1 = Date.now();
      await Promise.all(agents.map((a) => restartAgent(a)));
      await waitNodesReady(cp, "lc-kill", 2);
      cycles.push({ lost_after_ms: t1 - t0, back_ms: Date.now() - t1 });
      step(`agents back and reconciled after kill ${k}`);
      expectOneWorkloadPerJob(`after restart ${k}`);
      for (const id of ids)
        expect((await jobDetail(cp, op, id)).job.status, `job ${id} after restart ${k}`).toBe("RUNNING");
      await sleep(1000); // let the reattached workloads tick before the next kill
    }

    const done = await everyJobEnded(cp, op, ids, 60_000);
    const begins = markCounts(marker, "BEGIN");
    for (const s of done) {
      const id = s.job.id;
      expect(s.job.status, `${id}: ${JSON.stringify(s.events)}`).toBe("SUCCEEDED");
      expect(s.runs, `${id} runs`).toHaveLength(1);
      expect(
        s.events.filter((e) => e.edge === "dispatch"),
        `${id} dispatches`,
      ).toHaveLength(1);
      expect(begins.get(`${id} 0`), `${id}: launches seen by the workload itself`).toBe(1);
      const lines = await logLines(cp, op, id);
      expect(
        lines.filter((l) => l === "BEGIN"),
        `${id}: BEGIN in the log`,
      ).toHaveLength(1);
      expect(
        lines.filter((l) => l.startsWith("tick ")),
        `${id}: ticks`,
      ).toEqual(Array.from({ length: KILL_TICKS }, (_, i) => `tick ${i + 1}`));
    }
    const cleanMs = await expectNoOrphans(cp, "lc-kill", agents, jobIds, seenPgids);
    console.log(
      `[lifecycle] ${KILLS} kill cycles ${JSON.stringify(cycles)}; ${ids.length} jobs SUCCEEDED, 1 run and 1 launch each; ` +
        `${seenPgids.size} process groups seen, all gone ${cleanMs} ms after the last job ended`,
    );
  }, 120_000);

  const RESTARTS = 3;
  const CP_JOBS = [1, 2, 1, 2, 1, 1, 2, 1, 2, 1, 1, 2, 1, 2]; // 20 GPUs of work for 6 GPUs
  it(`control plane restarted mid-scheduling ×${RESTARTS} (3 agents × 2 GPUs, ${CP_JOBS.length} jobs) → 0 GPUs double-booked`, async () => {
    const step = stepper("cp");
    const stateDir = scratch("sf-lc-cp-");
    const port = await freePort();
    const vars = { SF_COMMAND_RESEND_SECONDS: 1 };
    let cp = await startControlPlane({ stateDir, port, agent: false, vars });
    started.cp = cp;
    const op = await newOperator(cp, "lc-cp");
    await newFleet(cp, "lc-cp");
    const agents: ForgeletProc[] = [];
    for (const n of ["a", "b", "c"]) {
      agents.push(await enrollForgelet(cp, "lc-cp", { name: `lc-cp-${n}`, gpus: 2 }));
      started.agents.push(agents.at(-1)!);
    }
    const nodeOfAgent = new Map(agents.map((a) => [a, a.nodeId]));
    const marker = join(scratch("sf-lc-cp-marks-"), "marks.log");
    const workspace = await tickingWorkspace(cp, op, { ticks: 16, tickSeconds: 0.25, markerFile: marker });
    const ids: string[] = [];
    for (const [i, gpus] of CP_JOBS.entries()) {
      ids.push(
        await submitCustom(cp, op, {
          name: `cp-${i}`,
          fleet: "lc-cp",
          workspace,
          gpusPerNode: gpus,
          maxRetries: 0,
        }),
      );
    }
    const jobIds = new Set(ids);
    step(`${ids.length} jobs submitted`);

    // The sampler: the live ledger (GET /v1/fleets/:id, before and after), and between the two reads the
    // physical truth: every live workload process of these jobs, its node (the agent whose run directory
    // it lives in) and the GPUs it was given (CUDA_VISIBLE_DEVICES).
    const violations: string[] = [];
    const seenPgids = new Set<number>();
    const figures = { samples: 0, ledgerSamples: 0, crossChecked: 0, workloadsObserved: 0, peakAllocated: 0 };
    let sampling = true;
    const ledgerProblems = (v: FleetView, tag: string) => {
      const held = v.nodes.reduce((n, node) => n + node.gpus.filter((g) => g.run_id !== null).length, 0);
      if (v.totals.allocated !== held)
        violations.push(`${tag}: totals.allocated ${v.totals.allocated} ≠ ${held} GPUs shown held`);
      if (v.totals.allocated > v.totals.gpus)
        violations.push(`${tag}: ${v.totals.allocated} allocated > ${v.totals.gpus} GPUs`);
      for (const node of v.nodes) {
        if (node.gpus.length !== 2)
          violations.push(`${tag}: node ${node.name} shows ${node.gpus.length} GPUs, has 2`);
      }
      figures.peakAllocated = Math.max(figures.peakAllocated, v.totals.allocated);
    };
    const owner = (v: FleetView | null, node: string, idx: number) =>
      v?.nodes.find((n) => n.id === node)?.gpus.find((g) => g.index === idx)?.run_id ?? null;
    const sampler = (async () => {
      while (sampling) {
        // Unreadable while the control plane restarts (no connection, or an answer that is not the fleet):
        // such a sample has no ledger side; anything but a refused connection is printed.
        const read = () =>
          fleetView(cp, "lc-cp").catch((e: unknown) => {
            if (!/fetch failed/.test(String(e)))
              console.log(`[sampler] unreadable fleet: ${String(e).slice(0, 300)}`);
            return null;
          });
        const before = await read();
        const procs = workloadProcesses(jobIds);
        const ended = markCounts(marker, "END");
        const after = await read();
        figures.samples++;
        const tag = `sample ${figures.samples}`;
        for (const v of [before, after]) if (v) ledgerProblems(v, tag);
        if (before && after) figures.ledgerSamples++;
        // One entry per live (run, rank) still training (no END mark yet): its node and GPUs.
        const training = new Map<string, { node: string; gpus: number[]; launches: Set<number> }>();
        for (const p of procs) {
          seenPgids.add(p.pgid);
          const agent = agentOf(p, agents);
          if (!agent) {
            violations.push(
              `${tag}: process ${p.pid} of ${p.jobId} runs outside every agent's run directory`,
            );
            continue;
          }
          if (ended.has(`${p.jobId} ${p.rank}`)) continue;
          const key = `${p.runId}#${p.rank}`;
          const cur = training.get(key) ?? {
            node: nodeOfAgent.get(agent)!,
            gpus: p.gpus,
            launches: new Set(),
          };
          if (p.group === "launch") cur.launches.add(p.pgid);
          training.set(key, cur);
        }
        const byGpu = new Map<string, string>();
        for (const [key, w] of training) {
          figures.workloadsObserved++;
          if (w.launches.size > 1)
            violations.push(`${tag}: ${key} has ${w.launches.size} launch groups (launched twice)`);
          for (const g of w.gpus) {
            if (g < 0 || g >= 2) violations.push(`${tag}: ${key} was given GPU ${g} of a 2-GPU node`);
            const slot = `${w.node}/${g}`;
            const other = byGpu.get(slot);
            if (other) violations.push(`${tag}: GPU ${slot} used by ${other} and ${key} at once`);
            byGpu.set(slot, key);
            if (before && after) {
              const run = key.split("#")[0]!;
              if (owner(before, w.node, g) !== run && owner(after, w.node, g) !== run) {
                violations.push(
                  `${tag}: ${key} trains on ${slot} but the ledger gives it to ${owner(before, w.node, g)} / ${owner(after, w.node, g)}`,
                );
              } else figures.crossChecked++;
            }
          }
        }
        await sleep(150);
      }
    })();

    const restarts: Array<{ queued: number; running: number; allocated: number; down_ms: number }> = [];
    try {
      for (let k = 1; k <= RESTARTS; k++) {
        // Restart while work is being dispatched: some jobs running, some still queued (or finishing).
        const v = await waitFor(
          `jobs running in lc-cp before restart ${k}`,
          async () => {
            const f = await fleetView(cp, "lc-cp");
            return f.totals.allocated > 0 ? f : undefined;
          },
          60_000,
          100,
        );
        await sleep(700 + 600 * k); // a different point of the run's life each time
        const t0 = Date.now();
        step(`restart ${k}: stopping the control plane (${JSON.stringify(v.totals)})`);
        await cp.stop();
        started.cp = null;
        cp = await startControlPlane({ stateDir, port, agent: false, vars });
        started.cp = cp;
        step(`restart ${k}: control plane up again`);
        restarts.push({
          queued: v.totals.queued,
          running: v.totals.running,
          allocated: v.totals.allocated,
          down_ms: Date.now() - t0,
        });
      }
      const done = await everyJobEnded(cp, op, ids, 90_000);
      sampling = false;
      await sampler;
      expect(violations, "double bookings or ledger inconsistencies").toEqual([]);
      expect(restarts[0]!.queued, "the first restart happened with jobs still queued").toBeGreaterThan(0);

      const begins = markCounts(marker, "BEGIN");
      const allRuns: Array<RunDetail & { job: string }> = [];
      for (const s of done) {
        const id = s.job.id;
        expect(s.job.status, `${id}: ${JSON.stringify(s.events)}`).toBe("SUCCEEDED");
        expect(s.runs, `${id} runs`).toHaveLength(1);
        expect(begins.get(`${id} 0`), `${id}: launches seen by the workload itself`).toBe(1);
        allRuns.push(...s.runs.map((r) => ({ ...r, job: id })));
      }
      // The ledger's whole history: two runs that held the same GPU never held it at the same time.
      expect(
        allRuns.filter((r) => r.ended_at === null),
        "runs still holding GPUs",
      ).toEqual([]);
      let pairs = 0;
      for (const [i, a] of allRuns.entries()) {
        for (const b of allRuns.slice(i + 1)) {
          for (const pa of a.placement)
            for (const pb of b.placement) {
              if (pa.node_id !== pb.node_id) continue;
              const shared = pa.gpu_indices.filter((g) => pb.gpu_indices.includes(g));
              if (shared.length === 0) continue;
              pairs++;
              const overlap =
                Date.parse(a.allocated_at) < Date.parse(b.ended_at!) &&
                Date.parse(b.allocated_at) < Date.parse(a.ended_at!);
              expect(
                overlap,
                `${a.job} and ${b.job} held ${pa.node_id} GPUs ${shared} at the same time`,
              ).toBe(false);
            }
        }
      }
      const cleanMs = await expectNoOrphans(cp, "lc-cp", agents, jobIds, seenPgids);
      console.log(
        `[lifecycle] ${RESTARTS} control-plane restarts ${JSON.stringify(restarts)}; ` +
          `${figures.samples} samples (${figures.ledgerSamples} with the ledger readable before and after), ` +
          `${figures.workloadsObserved} training workloads observed, ${figures.crossChecked} GPU ownerships cross-checked, ` +
          `peak ${figures.peakAllocated}/6 GPUs allocated, ${pairs} GPU-sharing run pairs in the history (none overlapping); ` +
          `${ids.length} jobs SUCCEEDED once each; ${seenPgids.size} process groups seen, all gone in ${cleanMs} ms`,
      );
    } finally {
      sampling = false;
      await sampler;
    }
  }, 150_000);
  it("agent killed between acking a launch and journaling it → launch re-sent (or rank failed) within 10 s, 0 ranks pending forever", async () => {
    // A scripted agent speaking the real protocol plays the agent that died in that window (in forgelet
    // the ack goes out just before the journal write); the control plane is the real one.
    const cp = await startControlPlane({ agent: false, vars: { SF_COMMAND_RESEND_SECONDS: 1 } });
    started.cp = cp;
    const op = await newOperator(cp, "lc-ackgap");
    await newFleet(cp, "lc-ackgap");
    const token = (await call(cp, cp.adminToken, "POST", "/v1/fleets/lc-ackgap/enrollment-tokens", {})).body
      .token;
    const enrolled = await call(cp, null, "POST", "/v1/agents/enroll", { token });
    expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(201);
    const credential = String(enrolled.body.credential);
    const frames: Array<Record<string, unknown>> = [];
    const connect = async () => {
      const ws = new WebSocket(`${cp.url.replace(/^http/, "ws")}/v1/agents/connect`, {
        headers: { authorization: `Bearer ${credential}` },
      });
      ws.on("message", (d) => {
        const t = d.toString();
        if (t !== "pong") frames.push(JSON.parse(t) as Record<string, unknown>);
      });
      await new Promise<void>((ok, ko) => {
        ws.once("open", () => ok());
        ws.once("error", ko);
      });
      const n = frames.length;
      ws.send(
        JSON.stringify({
          v: 1,
          type: "hello",
          id: `frm_hello_${Date.now()}`,
          inventory: {
            hostname: "lc-ackgap-1",
            runtime: "process",
            gpu_series: "h200",
            gpus: [{ index: 0, name: "simulated h200", simulated: true }],
            cpus: 2,
            memory_mb: 1024,
            labels: {},
            agent_version: "scripted",
          },
          journal: [],
        }),
      );
      await waitFor("welcome", () => frames.slice(n).some((f) => f.type === "welcome"), 10_000, 20);
      return ws;
    };
    let ws = await connect();
    const marker = join(scratch("sf-lc-ackgap-"), "marks.log");
    const workspace = await tickingWorkspace(cp, op, { ticks: 4, tickSeconds: 0.25, markerFile: marker });
    const id = await submitCustom(cp, op, { name: "ackgap", fleet: "lc-ackgap", workspace, maxRetries: 0 });
    const launch = await waitFor(
      "the launch",
      () =>
        frames.find((f) => f.type === "launch") as { id: string; request: { run_id: string } } | undefined,
      10_000,
      20,
    );
    ws.send(JSON.stringify({ v: 1, type: "ack", id: "frm_ack_1", ref: launch.id }));
    await sleep(300); // the ack is applied; then the agent dies before its journal knows the run
    ws.terminate();
    const before = frames.length;
    ws = await connect(); // back, with an empty journal
    const resentWithin = 10; // seconds: ten re-send intervals
    const outcome = await waitFor(
      "the launch again, or the rank failed",
      async () => {
        const again = frames.slice(before).some((f) => f.type === "launch");
        const d = await jobDetail(cp, op, id);
        return again ? "launch re-sent" : d.job.status !== "SUBMITTED" ? `job ${d.job.status}` : undefined;
      },
      resentWithin * 1000,
      250,
    ).catch(async (e: Error) => {
      const d = await jobDetail(cp, op, id);
      const v = await fleetView(cp, "lc-ackgap");
      return `${e.message}: job ${d.job.status}, run ${d.runs[0]?.status}, ${v.totals.allocated} GPU held, frames since the second hello: ${JSON.stringify(frames.slice(before).map((f) => f.type))}`;
    });
    expect(outcome, `run ${launch.request.run_id} after the agent came back without it`).toMatch(
      /^(launch re-sent|job (FAILED|QUEUED))$/,
    );
    // The scripted agent cannot run it: it says so, and nothing is left held.
    if (outcome === "launch re-sent") {
      const again = frames.slice(before).find((f) => f.type === "launch") as {
        id: string;
        rank: number;
        request: { run_id: string; epoch: number };
      };
      ws.send(JSON.stringify({ v: 1, type: "ack", id: "frm_ack_2", ref: again.id }));
      ws.send(
        JSON.stringify({
          v: 1,
          type: "report",
          id: "frm_report_1",
          run_id: again.request.run_id,
          epoch: again.request.epoch,
          rank: again.rank,
          event: "launch_failed",
          exit_code: null,
          reason: "scripted agent: nothing runs here",
          infra: true,
          ts: new Date().toISOString(),
        }),
      );
    }
    await expectNoOrphans(cp, "lc-ackgap", [], new Set([id]));
    ws.terminate();
  }, 60_000);
});

/** Waits until every job is SUCCEEDED, FAILED or STOPPED; returns their details. */
function everyJobEnded(cp: ControlPlane, op: string, ids: string[], timeoutMs: number) {
  return waitFor(
    "every job to end",
    async () => {
      const states = await Promise.all(ids.map((id) => jobDetail(cp, op, id)));
      return states.every((s) => ["SUCCEEDED", "FAILED", "STOPPED"].includes(s.job.status))
        ? states
        : undefined;
    },
    timeoutMs,
    250,
  );
}
