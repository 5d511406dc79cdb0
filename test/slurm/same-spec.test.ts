/**
 * "Swap the executor, not the job": one JobSpec (python/charlm, no image) runs to SUCCEEDED on a process
 * fleet, a docker fleet, a Slurm fleet and a kuberay fleet of one control plane; only `resources.fleet`
 * differs. Each job takes the same path through the ledger, and trains the same model: the deterministic
 * char-LM ends at the same loss whichever runtime ran it. Real parts where they can run here: forgelet's
 * process runtime, dockerd with the minimal image (the docker agent's --default-image), the Slurm cluster
 * of scripts/start-slurm.sh. Kubernetes cannot run here: the kuberay fleet's agent talks to the API
 * server simulator (test/support/k8s-sim.ts) whose simulated KubeRay operator runs the RayJob's
 * entrypoint as a local process (the image is named, not run).
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { JobSpecInput } from "../../contract/jobspec.schema.js";
import * as ck from "../support/checkpoints.js";
import { type ControlPlane, call, startControlPlane } from "../support/control-plane.js";
import { enrollForgelet, type ForgeletProc } from "../support/forgelet.js";
import { baseSpec, recipeDigest, waitForStatus } from "../support/jobs.js";
import { type K8sSim, startK8sSim } from "../support/k8s-sim.js";
import { type KubeRaySim, startKubeRaySim } from "../support/kuberay-sim.js";
import { describeState, fleetView, newOperator, waitFor } from "../support/lifecycle.js";
import { endedJobsOfRun, expectSqueueEmpty, slurm } from "../support/slurm.js";

const IMAGE = "starforge/python:bookworm";
const FLEETS = { process: "same-p", docker: "same-d", slurm: "same-s", kuberay: "same-k" } as const;
let k8s: K8sSim;
let ray: KubeRaySim;
let cp: ControlPlane;
let op = "";
const agents: ForgeletProc[] = [];
const ids: string[] = [];
const sharedDir = join(slurm.sharedDir, `same-${process.pid}`);

beforeAll(async () => {
  mkdirSync(sharedDir, { recursive: true });
  cp = await startControlPlane({ agent: false, vars: { SF_COMMAND_RESEND_SECONDS: 1 } });
  op = await newOperator(cp, "same-op");
  for (const [kind, name] of Object.entries(FLEETS)) {
    const f = await call(cp, cp.adminToken, "POST", "/v1/fleets", { name, kind, image_allowlist: [] });
    expect(f.status, JSON.stringify(f.body)).toBe(201);
  }
  agents.push(await enrollForgelet(cp, FLEETS.process, { name: "same-proc", gpus: 1 }));
  agents.push(
    await enrollForgelet(cp, FLEETS.docker, {
      name: "same-dock",
      runtime: "docker",
      gpus: 1,
      env: { FORGE_LOCAL_GPU_PASSTHROUGH: "0" },
      args: ["--default-image", IMAGE],
    }),
  );
  agents.push(
    await enrollForgelet(cp, FLEETS.slurm, {
      name: "same-login",
      runtime: "slurm",
      env: { SLURM_CONF: slurm.conf },
      args: ["--slurmrestd", slurm.restd, "--shared-dir", sharedDir, "--cluster-refresh", "2"],
    }),
  );
  k8s = await startK8sSim();
  ray = startKubeRaySim(k8s, { mode: "process" });
  k8s.addNode({ name: "same-k8s-node", gpus: 4 });
  agents.push(
    await enrollForgelet(cp, FLEETS.kuberay, {
      name: "same-k8s",
      runtime: "kuberay",
      args: [
        "--kubeconfig",
        k8s.writeKubeconfig(sharedDir),
        "--namespace",
        k8s.namespace,
        "--default-image",
        IMAGE,
      ],
    }),
  );
  for (const name of Object.values(FLEETS)) {
    await waitFor(
      `a ready GPU node in ${name}`,
      async () => (await fleetView(cp, name)).nodes.some((n) => n.status === "ready" && n.gpus.length > 0),
      30_000,
      200,
    );
  }
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail") console.error(await describeState(cp, op, ids, agents));
  await expectSqueueEmpty();
  await waitFor(
    "no RayJob or pod of ours left",
    () => k8s.list("rayjobs").length + k8s.list("pods").length === 0,
    30_000,
    200,
  );
});

afterAll(async () => {
  for (const a of agents) await a.dispose();
  await cp?.stop();
  await ray?.stop();
  await k8s?.close();
  rmSync(sharedDir, { recursive: true, force: true });
});

describe("the same JobSpec on every runtime", () => {
  it("runs unchanged to SUCCEEDED on the process, docker, Slurm and kuberay fleets, along the same ledger path, to the same loss", async () => {
    const spec = (fleet: string): JobSpecInput =>
      baseSpec({
        name: "same-charlm",
        fleet,
        recipe: { name: "python/charlm", version: "1.0.0", digest },
        framework: { kind: "python", version: "3", runtime_id: "python3-stdlib", image: null },
        hyperparams: { max_steps: 100, checkpoint_every: 50, seed: 7 },
      });
    const digest = await recipeDigest(cp, op, "python/charlm");
    const specs = Object.values(FLEETS).map(spec);
    // Only the fleet differs.
    const { fleet: _f0, ...rest0 } = specs[0]!.resources;
    for (const s of specs) {
      const { fleet: _f, ...rest } = s.resources;
      expect({ ...s, resources: rest }).toEqual({ ...specs[0]!, resources: rest0 });
    }
    for (const s of specs) {
      const r = await call(cp, op, "POST", "/v1/jobs", s);
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      ids.push((r.body.job as { id: string }).id);
    }

    const results = [];
    for (const id of ids) {
      const done = await waitForStatus(cp, op, id, ["SUCCEEDED", "FAILED", "STOPPED"], 240_000);
      expect(done.job.status, JSON.stringify(done.runs)).toBe("SUCCEEDED");
      const run = done.runs[0]!.id;
      const loss = await ck.points(cp, op, id, run);
      results.push({ path: done.events.map((e) => `${e.from ?? "·"}→${e.to} (${e.edge})`), run, loss });
    }
    // One ledger path for all four.
    for (const r of results.slice(1)) expect(r.path).toEqual(results[0]!.path);
    expect(results[0]!.path.map((p) => p.split(" ")[0])).toEqual([
      "·→QUEUED",
      "QUEUED→SUBMITTED",
      "SUBMITTED→PENDING",
      "PENDING→RUNNING",
      "RUNNING→SUCCEEDED",
    ]);
    // The same training: the same steps, and the same (falling) loss at each, whichever runtime ran it.
    const [onProcess, ...others] = results.map((r) => r.loss);
    expect(onProcess!.length).toBeGreaterThan(5);
    expect(onProcess!.at(-1)!.value).toBeLessThan(onProcess![0]!.value * 0.9);
    for (const other of others) {
      expect(other.map((p) => p.step)).toEqual(onProcess!.map((p) => p.step));
      for (const [i, p] of other.entries()) expect(p.value).toBeCloseTo(onProcess![i]!.value, 6);
    }
    // Each really ran where its fleet says: on the host, in the docker node's default image, in Slurm, in
    // a RayJob naming the kuberay agent's default image.
    const images = [];
    for (const id of ids) {
      const env = (await call(cp, op, "GET", `/v1/jobs/${id}/environment`)).body as {
        probes: Array<{ probe: { image: { ref: string | null } } }>;
      };
      images.push(env.probes.map((p) => p.probe.image.ref));
    }
    expect(images).toEqual([[null], [IMAGE], [null], [IMAGE]]);
    expect((await endedJobsOfRun(results[2]!.run)).map((j) => j.state)).toEqual(["COMPLETED"]);
    expect(k8s.requests.filter((r) => r.method === "POST" && r.path.endsWith("/rayjobs"))).toHaveLength(1);
  });
});
