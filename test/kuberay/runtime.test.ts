/**
 * forgelet's KubeRay runtime against the Kubernetes API SIMULATOR (test/support/k8s-sim.ts: a loopback
 * API server speaking the real wire format, deploy/kuberay/rbac.yaml enforced, RayJobs validated against
 * KubeRay v1.7.0's CRD) and a SIMULATED KubeRay operator (test/support/kuberay-sim.ts, script mode: the
 * test says when the Ray job runs and how it ends, and injects the pods' faults). The runtime is the real
 * one, talking through @kubernetes/client-node. No control plane here: test/kuberay/closed-loop.test.ts
 * runs the whole loop.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunSpec, RuntimeRef } from "../../forgelet/runtime.js";
import { KubeApi } from "../../forgelet/runtimes/kuberay/k8s.js";
import { rayJobName } from "../../forgelet/runtimes/kuberay/render.js";
import { KubeRayRuntime } from "../../forgelet/runtimes/kuberay/runtime.js";
import { type K8sSim, RBAC_FILE, startK8sSim } from "../support/k8s-sim.js";
import { type KubeRaySim, startKubeRaySim } from "../support/kuberay-sim.js";
import { waitFor } from "../support/lifecycle.js";

const AGENT = "agt_k";
let sim: K8sSim;
let op: KubeRaySim;
let dir: string;
let kubeconfig: string;
const runtimes: KubeRayRuntime[] = [];
let seq = 0;

beforeAll(async () => {
  sim = await startK8sSim();
  op = startKubeRaySim(sim, { mode: "script", graceScale: 0.02 });
  dir = mkdtempSync(join(tmpdir(), "sf-kuberay-rt-"));
  kubeconfig = sim.writeKubeconfig(dir);
  sim.addNode({ name: "gpu-a", gpus: 4, product: "NVIDIA-H100-80GB-HBM3", cpu: 32, memory: "256Gi" });
  sim.addNode({ name: "gpu-b", gpus: 4, product: "NVIDIA-H100-80GB-HBM3", cpu: 32, memory: "256Gi" });
  sim.addNode({ name: "gpu-cordoned", gpus: 8, product: "NVIDIA-H100-80GB-HBM3", unschedulable: true });
  sim.addNode({ name: "gpu-notready", gpus: 8, product: "NVIDIA-H100-80GB-HBM3", ready: false });
  sim.addNode({ name: "cpu-only", gpus: 0 });
});

afterEach(async () => {
  for (const r of runtimes.splice(0)) r.close();
  // Nothing of ours is left in the cluster after any test (the runtime's cleanup ran in each).
  for (const res of ["rayjobs", "rayclusters", "pods", "secrets"] as const) {
    expect(
      sim.list(res, "app.kubernetes.io/managed-by=forgelet").map((o) => o.metadata.name),
      res,
    ).toEqual([]);
  }
  expect(op.liveProcessGroups()).toEqual([]);
  expect(op.errors).toEqual([]);
});

afterAll(async () => {
  await op?.stop();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

function runtime(over: Partial<ConstructorParameters<typeof KubeRayRuntime>[0]> = {}): KubeRayRuntime {
  const r = new KubeRayRuntime({
    api: new KubeApi({ kubeconfig, namespace: sim.namespace }),
    defaultImage: "rayproject/ray:2.9.0",
    pollMs: 100,
    gatherMs: 5000,
    stopGraceSeconds: 1,
    ...over,
  });
  runtimes.push(r);
  return r;
}

/** The RunSpecs of a run placed on `nodes` (one rank per node), with the run directory pull mode reads. */
function specsOf(nodes: string[], o: { gpus?: number; maxRuntimeSeconds?: number } = {}): RunSpec[] {
  const runId = `run_${String(++seq).padStart(26, "0")}`;
  return nodes.map((_node, rank) => {
    const runDir = join(dir, `${runId}-r${rank}`);
    mkdirSync(join(runDir, ".starforge", "capsule"), { recursive: true });
    writeFileSync(join(runDir, ".starforge", "capsule", "capsule.json"), JSON.stringify({ rank }));
    return {
      runId,
      jobId: "job_00000000000000000000000001",
      epoch: 1,
      rank,
      runDir,
      env: {
        STARFORGE_TOKEN: `token-${rank}`,
        STARFORGE_ENDPOINT: "http://127.0.0.1:1/v1/ingest",
        FORGE_RANK: String(rank),
      },
      image: null,
      gpuIndices: [],
      resources: {},
      labels: {},
      placement: nodes.map((n, r) => ({ rank: r, nodeId: `${AGENT}:${n}`, gpus: o.gpus ?? 2 })),
      maxRuntimeSeconds: o.maxRuntimeSeconds ?? null,
      inputs: [],
    };
  });
}

async function launchAll(rt: KubeRayRuntime, specs: RunSpec[]) {
  const refs = await Promise.all(specs.map((s) => rt.launch(s)));
  expect(new Set(refs.map((r) => r.id)).size).toBe(1);
  return refs[0]!;
}

async function cleanupAll(rt: KubeRayRuntime, specs: RunSpec[], ref: RuntimeRef) {
  for (const s of specs) await rt.cleanup(ref, s);
}

/** Once KubeRay submitted the RayJob's Ray job (its cluster is up), the Ray job starts running. */
async function runRayJob(name: string): Promise<void> {
  await waitFor(
    "the Ray job submitted",
    () => sim.get("rayjobs", name)?.status?.jobDeploymentStatus === "Running",
    10_000,
    50,
  );
  op.run(name);
}

const posts = () => sim.requests.filter((r) => r.method === "POST" && r.path.endsWith("/rayjobs")).length;

describe("inventory", () => {
  it("GPU nodes become fleet nodes: allocatable GPUs, series from the product label, cordoned = drain, NotReady = down", async () => {
    const nodes = await runtime().nodes();
    expect(nodes.map((n) => [n.name, n.gpus, n.gpu_series, n.state])).toEqual([
      ["gpu-a", 4, "nvidia-h100-80gb-hbm3", "ready"],
      ["gpu-b", 4, "nvidia-h100-80gb-hbm3", "ready"],
      ["gpu-cordoned", 8, "nvidia-h100-80gb-hbm3", "drain"],
      ["gpu-notready", 8, "nvidia-h100-80gb-hbm3", "down"],
    ]);
    expect(nodes.find((n) => n.name === "gpu-a")).toMatchObject({ cpus: 32, memory_mb: 262144 });
    expect(nodes.find((n) => n.name === "gpu-cordoned")!.reason).toMatch(/cordoned/);
    expect(nodes.find((n) => n.name === "gpu-notready")!.reason).toMatch(/^NotReady/);
  });

  it("preflight refuses a cluster without GPUs for the configured resource, saying which", async () => {
    await expect(runtime({ gpuResource: "example.com/tpu" }).preflight()).rejects.toThrow(
      /no node of http:\/\/127\.0\.0\.1:\d+ has allocatable example\.com\/tpu/,
    );
  });
});

describe("a run is one RayJob", () => {
  it("two ranks gather into ONE RayJob with its Secret; waiting → running → SUCCEEDED; cleanup leaves nothing", async () => {
    const rt = runtime();
    await rt.preflight();
    const specs = specsOf(["gpu-a", "gpu-b"]);
    const before = posts();
    const ref = await launchAll(rt, specs);
    expect(ref.id).toBe(rayJobName(specs[0]!.runId, 1));
    expect(posts() - before).toBe(1);
    const secret = sim.get("secrets", ref.id)!;
    expect(secret.metadata.ownerReferences?.[0]).toMatchObject({ kind: "RayJob", name: ref.id });
    // The tokens are in the Secret's plan, not in the RayJob.
    const plan = Buffer.from(
      (secret as unknown as { data: Record<string, string> }).data["plan.json"]!,
      "base64",
    ).toString();
    expect(JSON.parse(plan).ranks["1"].token).toBe("token-1");
    expect(JSON.stringify(sim.get("rayjobs", ref.id))).not.toContain("token-1");

    const reasons: string[] = [];
    const started = rt.waitStarted(ref, specs[0]!, (r) => reasons.push(r));
    await runRayJob(ref.id);
    await started;
    expect(
      reasons.some((r) => /the Ray cluster .* is starting|the Ray job is/.test(r)),
      reasons.join("\n"),
    ).toBe(true);
    expect(await rt.alive(ref)).toBe(true);
    const end = rt.wait(ref, specs[0]!);
    op.finish(ref.id, "SUCCEEDED");
    expect(await end).toEqual({ exitCode: 0, reason: "the Ray job SUCCEEDED", infra: false });
    await cleanupAll(rt, specs, ref);
  });

  it("a failed Ray job ends with the entrypoint's exit code, not retried by KubeRay", async () => {
    const rt = runtime();
    const specs = specsOf(["gpu-a"]);
    const ref = await launchAll(rt, specs);
    await runRayJob(ref.id);
    op.finish(ref.id, "FAILED", "Job entrypoint command failed with exit code 3");
    expect(await rt.wait(ref, specs[0]!)).toMatchObject({ exitCode: 3, infra: false });
    expect(sim.get("rayjobs", ref.id)!.status!.jobDeploymentStatus).toBe("Failed");
    await cleanupAll(rt, specs, ref);
  });

  it("an image that cannot be pulled: waiting with the reason, then failed after the pull timeout and deleted", async () => {
    const rt = runtime({ imagePullTimeoutMs: 1500 });
    const specs = specsOf(["gpu-a"]);
    const ref = await launchAll(rt, specs);
    op.imagePullFails(ref.id);
    const reasons: string[] = [];
    await rt.waitStarted(ref, specs[0]!, (r) => reasons.push(r));
    expect(
      reasons.some((r) =>
        /image rayproject\/ray:2\.9\.0 cannot be pulled: head pod .*(ErrImagePull|ImagePullBackOff)/.test(r),
      ),
      reasons.join("\n"),
    ).toBe(true);
    const end = await rt.wait(ref, specs[0]!);
    expect(end).toMatchObject({
      exitCode: null,
      infra: false,
      reason: expect.stringMatching(/cannot be pulled.*gave up after 2 s/),
    });
    await waitFor("the RayJob deleted", () => !sim.get("rayjobs", ref.id), 10_000, 50);
    await cleanupAll(rt, specs, ref);
  });

  it("an unschedulable pod: waiting with the scheduler's message", async () => {
    const rt = runtime();
    const specs = specsOf(["gpu-a", "gpu-b"]);
    const ref = await launchAll(rt, specs);
    op.unschedulable(ref.id, "0/4 nodes are available: 1 Insufficient nvidia.com/gpu.");
    const reasons: string[] = [];
    const started = rt.waitStarted(ref, specs[0]!, (r) => reasons.push(r));
    await waitFor(
      "the reason",
      () => reasons.some((r) => /cannot be scheduled \(Unschedulable\): 0\/4 nodes are available/.test(r)),
      10_000,
      50,
    );
    await rt.stop(ref, 1000);
    await started;
    await cleanupAll(rt, specs, ref);
  });

  it.each([
    [
      "OOM-killed",
      (name: string) => op.oomKill(name),
      { exitCode: 137, infra: false, reason: expect.stringMatching(/OOMKilled/) },
    ],
    [
      "evicted",
      (name: string) => op.evict(name, "head"),
      { infra: true, reason: expect.stringMatching(/evicted/) },
    ],
    [
      "preempted",
      (name: string) => op.preempt(name, "head"),
      { infra: true, reason: expect.stringMatching(/preempted/) },
    ],
    [
      "head restarted",
      (name: string) => op.restartHead(name),
      { infra: true, reason: expect.stringMatching(/Ray head .* restarted/) },
    ],
    [
      "suspended by someone",
      (name: string) => op.suspend(name),
      { infra: true, reason: expect.stringMatching(/suspended outside StarForge/) },
    ],
  ])("a running job whose pod is %s ends with that reason", async (_what, fault, expected) => {
    const rt = runtime();
    const specs = specsOf(["gpu-a"]);
    const ref = await launchAll(rt, specs);
    await runRayJob(ref.id);
    await rt.waitStarted(ref, specs[0]!, () => {});
    const end = rt.wait(ref, specs[0]!);
    fault(ref.id);
    expect(await end).toMatchObject(expected);
    await cleanupAll(rt, specs, ref);
  });

  it("a RayJob deleted by someone else is an infrastructure end", async () => {
    const rt = runtime();
    const specs = specsOf(["gpu-a"]);
    const ref = await launchAll(rt, specs);
    const end = rt.wait(ref, specs[0]!);
    sim.store.delete("rayjobs", sim.namespace, ref.id, { propagationPolicy: "Background" });
    expect(await end).toMatchObject({
      exitCode: null,
      infra: true,
      reason: `RayJob ${ref.id} was deleted outside StarForge`,
    });
    await cleanupAll(rt, specs, ref);
  });
});

describe("stop, outages, restarts", () => {
  it("stop deletes the RayJob (foreground) and returns once it, its RayCluster and its pods are gone", async () => {
    const rt = runtime();
    const specs = specsOf(["gpu-a", "gpu-b"]);
    const ref = await launchAll(rt, specs);
    await waitFor(
      "the pods",
      () => sim.list("pods", `starforge.dev/run-id=${specs[0]!.runId}`).length === 2,
      10_000,
      50,
    );
    op.run(ref.id);
    const end = rt.wait(ref, specs[0]!);
    await rt.stop(ref, 1000);
    expect(sim.get("rayjobs", ref.id)).toBeUndefined();
    expect(sim.list("rayclusters", `ray.io/originated-from-cr-name=${ref.id}`)).toEqual([]);
    expect(sim.list("pods", `starforge.dev/run-id=${specs[0]!.runId}`)).toEqual([]);
    expect(await end).toMatchObject({
      exitCode: null,
      reason: "stopped: the RayJob was deleted",
      infra: false,
    });
    await cleanupAll(rt, specs, ref);
  });

  it("an API server outage during a running job fails nothing; after it (history compacted: 410 → re-list) the end is seen", async () => {
    const rt = runtime();
    await rt.preflight();
    const specs = specsOf(["gpu-a"]);
    const ref = await launchAll(rt, specs);
    await runRayJob(ref.id);
    await rt.waitStarted(ref, specs[0]!, () => {});
    let ended = false;
    const end = rt.wait(ref, specs[0]!).finally(() => {
      ended = true;
    });
    await sim.outage(true);
    try {
      await new Promise((r) => setTimeout(r, 3000));
      expect(ended).toBe(false);
      // Cannot see it: "unknown", never "not alive".
      await expect(rt.alive(ref)).rejects.toThrow(/cannot be observed right now/);
      sim.compactHistory();
      op.finish(ref.id, "SUCCEEDED");
    } finally {
      await sim.outage(false);
    }
    expect(await end).toMatchObject({ exitCode: 0 });
    await cleanupAll(rt, specs, ref);
  });

  it("a restarted agent adopts the RayJob it created (never a second one) and follows it to its end", async () => {
    const first = runtime();
    const specs = specsOf(["gpu-a", "gpu-b"]);
    const ref = await launchAll(first, specs);
    first.close();
    const before = posts();
    const again = runtime();
    const ref2 = await launchAll(again, specs);
    expect(ref2).toEqual(ref);
    expect(posts()).toBe(before);
    await runRayJob(ref.id);
    const end = again.wait(ref, specs[0]!);
    op.finish(ref.id, "SUCCEEDED");
    expect(await end).toMatchObject({ exitCode: 0 });
    expect((await again.list()).map((w) => w.ref.id)).toEqual([ref.id]);
    await cleanupAll(again, specs, ref);
    expect(await again.list()).toEqual([]);
  });

  it("a stop while ranks still gather submits nothing", async () => {
    const rt = runtime();
    const specs = specsOf(["gpu-a", "gpu-b"]);
    const before = posts();
    const launching = rt.launch(specs[0]!);
    await new Promise((r) => setTimeout(r, 100));
    expect(rt.abort(specs[0]!.runId, 0)).toBe(true);
    await expect(launching).rejects.toThrow(/nothing was submitted/);
    expect(posts()).toBe(before);
  });

  it("a job without an image on an agent without --default-image is refused at launch, nothing created", async () => {
    const rt = runtime({ defaultImage: null });
    const specs = specsOf(["gpu-a"]);
    const before = posts();
    await expect(rt.launch(specs[0]!)).rejects.toThrow(/names no image.*--default-image/);
    expect(posts()).toBe(before);
  });

  it("a RayJob whose Secret cannot be created (403: RBAC without secrets) is deleted again: nothing holds the GPUs", async () => {
    // A second cluster whose forgelet role lacks Secrets, as a cluster with an outdated rbac.yaml would be.
    const rbac = join(dir, "rbac-no-secrets.yaml");
    writeFileSync(
      rbac,
      readFileSync(RBAC_FILE, "utf8").replace(
        / {2}- apiGroups: \[""\]\n {4}resources: \["secrets"\]\n {4}verbs: \[[^\]]*\]\n/,
        "",
      ),
    );
    const strict = await startK8sSim({ rbacFile: rbac });
    const strictOp = startKubeRaySim(strict, { mode: "script", graceScale: 0.02 });
    try {
      strict.addNode({ name: "gpu-a", gpus: 4, cpu: 32, memory: "256Gi" });
      const rt = runtime({
        api: new KubeApi({ kubeconfig: strict.writeKubeconfig(dir), namespace: strict.namespace }),
      });
      const specs = specsOf(["gpu-a"]);
      await expect(rt.launch(specs[0]!)).rejects.toThrow(
        /Secret: 403 Forbidden.*deploy\/kuberay\/rbac\.yaml/,
      );
      await waitFor("the RayJob gone again", () => strict.list("rayjobs").length === 0, 10_000, 50);
      expect(strict.list("pods")).toEqual([]);
    } finally {
      await strictOp.stop();
      await strict.close();
    }
  });
});
