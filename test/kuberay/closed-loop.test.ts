/**
 * The closed loop on a kuberay fleet: a real control plane (npm start), a real forgelet with
 * `--runtime kuberay`, and a cluster: by default the Kubernetes API SIMULATOR (test/support/k8s-sim.ts)
 * with the SIMULATED KubeRay operator (test/support/kuberay-sim.ts) in process mode, which runs each
 * RayJob's entrypoint — the capsule's Ray launcher, from the run's Secret mounted as the head pod would
 * see it — as a local process (the image is named, not run). With SF_KUBERAY_KUBECONFIG the same tests
 * run against a real cluster with the KubeRay operator (test/support/kuberay-target.ts says what else it
 * needs). Either way the launcher's pull.py fetches every input by digest from the control plane with
 * the run's token, and the capsule reports to ingest as on any fleet.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { rayJobName } from "../../forgelet/runtimes/kuberay/render.js";
import * as ck from "../support/checkpoints.js";
import { type ControlPlane, call, startControlPlane } from "../support/control-plane.js";
import { enrollForgelet, type ForgeletProc } from "../support/forgelet.js";
import { waitForStatus } from "../support/jobs.js";
import { type KubeTarget, kubeTarget } from "../support/kuberay-target.js";
import {
  describeState,
  expectNoOrphans,
  jobDetail,
  newOperator,
  restartAgent,
  stepper,
  waitFor,
  waitGpuNodesReady,
} from "../support/lifecycle.js";

const FLEET = "k8s";
let cp: ControlPlane;
let op = "";
let agent: ForgeletProc;
let target: KubeTarget;
const jobs = new Set<string>();
const dir = mkdtempSync(join(tmpdir(), "sf-kuberay-loop-"));
const nodeDir = mkdtempSync(join(tmpdir(), "sf-kuberay-node-"));

beforeAll(async () => {
  target = await kubeTarget(dir, [
    { name: "k8s-gpu-1", gpus: 4 },
    { name: "k8s-gpu-2", gpus: 4 },
  ]);
  if (!target.cpHost)
    throw new Error("SF_KUBERAY_CP_HOST: the address of this machine the cluster's pods reach");
  cp = await startControlPlane({ agent: false, host: target.cpHost, vars: { SF_COMMAND_RESEND_SECONDS: 1 } });
  op = await newOperator(cp, "k8s-op");
  const f = await call(cp, cp.adminToken, "POST", "/v1/fleets", { name: FLEET, kind: "kuberay" });
  expect(f.status, JSON.stringify(f.body)).toBe(201);
  agent = await enrollForgelet(cp, FLEET, {
    name: "k8s-agent",
    runtime: "kuberay",
    args: [
      "--kubeconfig",
      target.kubeconfig,
      "--namespace",
      target.namespace,
      "--default-image",
      target.image,
      ...(target.gpuResource ? ["--gpu-resource", target.gpuResource] : []),
      "--node-dir",
      nodeDir,
      "--cluster-refresh",
      "2",
    ],
  });
  await waitGpuNodesReady(cp, FLEET, target.gpuNodes);
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail") {
    console.error(await describeState(cp, op, [...jobs], [agent]));
    console.error(`--- left in the cluster: ${(await target.ours()).join(", ")}`);
  }
  // Nothing of ours left in the cluster, no process of these jobs on this host, 0 GPUs allocated.
  await waitFor(
    "no RayJob, RayCluster, pod or Secret with StarForge's labels",
    async () => (await target.ours()).length === 0,
    60_000,
    250,
  );
  await expectNoOrphans(cp, FLEET, [agent], jobs);
  if (target.sim) {
    expect(target.sim.liveProcessGroups()).toEqual([]);
    expect(target.sim.errors).toEqual([]);
    expect(readdirSync(nodeDir)).toEqual([]);
  }
});

afterAll(async () => {
  await agent?.dispose();
  await cp?.stop();
  await target?.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(nodeDir, { recursive: true, force: true });
});

/** The RayJob of a run, as the cluster lists it (its name ends with the run's epoch). */
async function rayJobOf(run: string): Promise<string> {
  const prefix = `rayjob/${rayJobName(run, 0).replace(/-e0$/, "-e")}`;
  const found = await waitFor(
    `the RayJob of ${run}`,
    async () => (await target.ours()).find((o) => o.startsWith(prefix)),
    30_000,
    200,
  );
  return found.slice("rayjob/".length);
}

describe(`a kuberay fleet (${process.env.SF_KUBERAY_KUBECONFIG ? "a real cluster" : "Kubernetes API simulator + simulated KubeRay operator"})`, () => {
  it("closed loop: inputs pulled by digest, QUEUED → … → SUCCEEDED with the loss falling, logs and a checkpoint", async () => {
    const id = await ck.submitCharlm(cp, op, { fleet: FLEET, name: "k8s-charlm", maxSteps: 300 });
    jobs.add(id);
    const done = await waitForStatus(cp, op, id, ["SUCCEEDED", "FAILED"], 120_000);
    expect(done.job.status, JSON.stringify(done.runs)).toBe("SUCCEEDED");
    const run = done.runs[0]!.id;
    const epoch = (done.runs[0] as unknown as { epoch: number }).epoch;
    const pts = await ck.points(cp, op, id, run);
    expect(pts.length).toBeGreaterThan(5);
    expect(pts.at(-1)!.value).toBeLessThan(pts[0]!.value);
    expect(await ck.lastCheckpointStep(cp, op, id, run)).toBe(300);
    // The launcher pulled every input by digest, in the head pod (the simulator keeps its output).
    if (target.sim) {
      expect(target.sim.logs(rayJobName(run, epoch))).toMatch(
        /starforge pull: rank 0: \d+ file\(s\) fetched and verified/,
      );
    }
    expect(await ck.logText(cp, op, id, run)).toMatch(/step 300/);
  });

  it("pause → resume: the Ray job's SIGTERM makes the capsule checkpoint; the next RayJob pulls that checkpoint and continues", async () => {
    const id = await ck.submitCharlm(cp, op, { fleet: FLEET, name: "k8s-pause", maxSteps: 2000 });
    jobs.add(id);
    const first = (await waitForStatus(cp, op, id, ["RUNNING"], 60_000)).job.current_run_id!;
    const firstJob = await rayJobOf(first);
    await ck.waitForStep(cp, op, id, first, 100, 60_000);
    expect((await call(cp, op, "POST", `/v1/jobs/${id}/pause`)).body.job).toMatchObject({ status: "PAUSED" });
    await ck.waitReleased(cp, op, id, first);
    const stopStep = await ck.lastCheckpointStep(cp, op, id, first);
    expect(stopStep).toBeGreaterThanOrEqual(100);
    expect(await target.rayJobUid(firstJob)).toBeNull();
    const before = await ck.points(cp, op, id, first);
    expect((await call(cp, op, "POST", `/v1/jobs/${id}/resume`)).status).toBe(200);
    const second = await waitFor(
      "run 2",
      async () => (await waitForStatus(cp, op, id, ["RUNNING", "SUCCEEDED"], 60_000)).runs[1],
      60_000,
    );
    await ck.waitForStep(cp, op, id, second.id, stopStep + 10, 60_000);
    await ck.expectContinued(cp, op, id, second.id, stopStep, before.at(-1)!.value);
    expect((await call(cp, op, "POST", `/v1/jobs/${id}/stop`)).status).toBe(200);
    await waitForStatus(cp, op, id, ["STOPPED"], 60_000);
  });

  it("preemption: a high job displaces one low job; its RayJob is deleted after the capsule checkpointed, and the next one continues from it", async () => {
    await ck.allowPreemption(cp, "k8s-op");
    const charlm = (name: string, priorityClass: string, maxSteps: number) =>
      ck.submitCharlm(cp, op, { fleet: FLEET, name, gpus: 4, maxSteps, priorityClass });
    // Two low jobs fill both nodes (4 GPUs each).
    const lows = [await charlm("k8s-low-a", "low", 3000), await charlm("k8s-low-b", "low", 3000)];
    const firsts = new Map<string, string>();
    for (const id of lows) {
      jobs.add(id);
      const run = (await waitForStatus(cp, op, id, ["RUNNING"], 60_000)).job.current_run_id!;
      firsts.set(id, run);
      await ck.waitForStep(cp, op, id, run, 100, 60_000);
    }
    const rayJobs = new Map(
      await Promise.all(lows.map(async (id) => [id, await rayJobOf(firsts.get(id)!)] as const)),
    );

    const asked = Date.now();
    const high = await charlm("k8s-high", "high", 200);
    jobs.add(high);
    await waitForStatus(cp, op, high, ["RUNNING", "SUCCEEDED"], 75_000);
    expect(Date.now() - asked, "the high job runs within the victim's grace (60 s) + 15 s").toBeLessThan(
      75_000,
    );
    // One victim (the one whose run started last, as the fleet saw them start); the other ran on.
    const runsOf = async (id: string) => (await jobDetail(cp, op, id)).runs;
    const paused = [];
    for (const id of lows) if ((await runsOf(id))[0]!.status === "PAUSED") paused.push(id);
    expect(paused).toHaveLength(1);
    const victim = paused[0]!;
    const spared = lows.find((id) => id !== victim)!;
    expect(await runsOf(spared)).toHaveLength(1);
    const first = firsts.get(victim)!;
    await ck.waitReleased(cp, op, victim, first);
    // The agent deletes the RayJob once the control plane has the run's end.
    const firstJob = rayJobs.get(victim)!;
    await waitFor(
      "the victim's RayJob to be deleted",
      async () => (await target.rayJobUid(firstJob)) === null,
      30_000,
    );
    const stopStep = await ck.lastCheckpointStep(cp, op, victim, first);
    expect(stopStep).toBeGreaterThanOrEqual(100);
    const before = await ck.points(cp, op, victim, first);

    expect((await waitForStatus(cp, op, high, ["SUCCEEDED", "FAILED"], 90_000)).job.status).toBe("SUCCEEDED");
    const second = await waitFor(
      "run 2",
      async () => (await waitForStatus(cp, op, victim, ["RUNNING", "SUCCEEDED"], 60_000)).runs[1],
      60_000,
    );
    await ck.waitForStep(cp, op, victim, second.id, stopStep + 10, 60_000);
    await ck.expectContinued(cp, op, victim, second.id, stopStep, before.at(-1)!.value);
    const events = (await call(cp, op, "GET", `/v1/jobs/${victim}`)).body.events as Array<{
      to: string;
      actor: string;
    }>;
    expect(events.some((e) => e.to === "PAUSED" && e.actor === "system:preempt")).toBe(true);
    expect(events.some((e) => e.to === "FAILED")).toBe(false);
    for (const id of lows) {
      expect((await call(cp, op, "POST", `/v1/jobs/${id}/stop`)).status).toBe(200);
      await waitForStatus(cp, op, id, ["STOPPED", "SUCCEEDED"], 60_000);
    }
  });

  it("stop deletes the RayJob; its RayCluster, pods and Secret go with it, and the training's processes end", async () => {
    const id = await ck.submitCharlm(cp, op, { fleet: FLEET, name: "k8s-stop", maxSteps: 100_000 });
    jobs.add(id);
    const run = (await waitForStatus(cp, op, id, ["RUNNING"], 60_000)).job.current_run_id!;
    await ck.waitForStep(cp, op, id, run, 20, 60_000);
    const name = await rayJobOf(run);
    const during = await target.ours();
    expect(during).toContain(`secret/${name}`);
    expect(during.filter((o) => o.startsWith("pod/"))).toHaveLength(1);
    expect((await call(cp, op, "POST", `/v1/jobs/${id}/stop`)).status).toBe(200);
    await ck.waitReleased(cp, op, id, run);
    // Released only once the RayJob, its RayCluster, pods and Secret are gone.
    expect(await target.ours()).toEqual([]);
  });

  it("a 30 s API server outage during a running job: the job survives and ends SUCCEEDED", async () => {
    const step = stepper("k8s outage");
    const id = await ck.submitCharlm(cp, op, { fleet: FLEET, name: "k8s-outage", maxSteps: 5000 });
    jobs.add(id);
    const run = (await waitForStatus(cp, op, id, ["RUNNING"], 60_000)).job.current_run_id!;
    await ck.waitForStep(cp, op, id, run, 50, 60_000);
    step("running; the API server goes away for 30 s");
    await target.outage(30_000);
    await new Promise((r) => setTimeout(r, 25_000));
    expect((await call(cp, op, "GET", `/v1/jobs/${id}`)).body.job).toMatchObject({ status: "RUNNING" });
    step("still RUNNING near the outage's end");
    // The run still has most of its 5,000 steps to go: on a slow, busy machine that is minutes.
    const done = await waitForStatus(cp, op, id, ["SUCCEEDED", "FAILED"], 300_000);
    expect(done.job.status, JSON.stringify(done.runs)).toBe("SUCCEEDED");
    expect(done.runs).toHaveLength(1);
    expect(agent.log()).toMatch(/cannot (watch RayJobs|observe it) right now/);
  }, 420_000);

  it("forgelet restarts mid-run: the RayJob is reattached, never created twice, and the job ends SUCCEEDED", async () => {
    const id = await ck.submitCharlm(cp, op, { fleet: FLEET, name: "k8s-restart", maxSteps: 800 });
    jobs.add(id);
    const run = (await waitForStatus(cp, op, id, ["RUNNING"], 60_000)).job.current_run_id!;
    await ck.waitForStep(cp, op, id, run, 50, 60_000);
    const name = await rayJobOf(run);
    const uid = await target.rayJobUid(name);
    expect(uid).not.toBeNull();
    await agent.kill();
    await restartAgent(agent);
    await new Promise((r) => setTimeout(r, 3000));
    // The same RayJob (never deleted and created again), followed to its end.
    expect(await target.rayJobUid(name)).toBe(uid);
    const done = await waitForStatus(cp, op, id, ["SUCCEEDED", "FAILED"], 120_000);
    expect(done.job.status, JSON.stringify(done.runs)).toBe("SUCCEEDED");
    expect(done.runs).toHaveLength(1);
  });
});
