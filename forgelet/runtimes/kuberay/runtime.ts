/**
 * The KubeRay runtime: forgelet (anywhere that reaches the Kubernetes API: a pod in the cluster, a
 * bastion) runs each run as ONE RayJob in its namespace.
 *
 * - Inventory: the cluster's GPU nodes (allocatable `nvidia.com/gpu` or the configured resource), their
 *   series from a node label; a cordoned node is `drain`, a NotReady one `down`, and gets no new runs.
 * - Launch: the ranks of a run are gathered (gather.ts) and submitted together: a RayJob pinned to the
 *   nodes the Fleet DO chose (render.ts), then its Secret (the pull plan with the ranks' tokens), owned
 *   by the RayJob. An agent restarted between creating and recording it finds it again by its labels.
 * - Observe: one list+watch of our RayJobs (re-listed after 410 Gone; restarted with backoff after any
 *   error), plus the run's pods and their events while it waits or runs (states.ts). An API server that
 *   cannot be reached means "cannot see right now": the last state stands and nothing is failed.
 * - Stop: delete the RayJob with foreground propagation and wait until it, its RayCluster and its pods
 *   are gone. KubeRay stops the Ray job first (SIGTERM, RAY_JOB_STOP_WAIT_TIME_S, SIGKILL), so the
 *   capsule checkpoints. Cleanup after any end deletes the same way: nothing with our labels remains.
 */
import { rmSync } from "node:fs";
import PULL_SCRIPT from "../../../capsule/pull.py";
import LAUNCHER from "../../../capsule/rayjob.py";
import type { ClusterNode } from "../../../contract/agent-frames.schema.js";
import { backoffDelay } from "../../../contract/backoff.js";
import { LaunchError, type RunExit, type RunSpec, type Runtime, type RuntimeRef } from "../../runtime.js";
import { clusterNodeOf, gpuShare, type NodeSize, RankGathering } from "../gather.js";
import { DEFAULT_NODE_DIR, pullPlan } from "../pull.js";
import { type KubeApi, KubeRefused, KubeUnavailable } from "./k8s.js";
import { toClusterNode } from "./nodes.js";
import { RayJobObserver } from "./observer.js";
import {
  LABEL_EPOCH,
  LABEL_MANAGED_BY,
  LABEL_RUN,
  MANAGED_BY,
  rayJobName,
  renderRayJob,
  renderSecret,
} from "./render.js";
import type { Observation } from "./states.js";

export interface KubeRayRuntimeOptions {
  api: KubeApi;
  /** The image of jobs that name none (`--default-image`); without it such jobs are refused. */
  defaultImage?: string | null;
  /** The GPU resource the device plugin advertises (default nvidia.com/gpu). */
  gpuResource?: string;
  /** false (FORGE_K8S_GPU_PASSTHROUGH=0): pods request no GPUs, Ray still counts them. */
  gpuPassthrough?: boolean;
  /** The node label naming the GPU model (default nvidia.com/gpu.product). */
  gpuSeriesLabel?: string;
  /** The series of GPU nodes without that label. */
  gpuSeries?: string;
  /** Only nodes matching this label selector are the fleet's. */
  nodeSelector?: string | null;
  /** Where each rank builds its run directory on its pod's disk. */
  nodeDir?: string;
  serviceAccountName?: string | null;
  keepRuns?: boolean;
  gatherMs?: number;
  /** How long an image that cannot be pulled is waited for before the run fails (default 5 min). */
  imagePullTimeoutMs?: number;
  /** SIGTERM to SIGKILL when a run is stopped (default 30 s). */
  stopGraceSeconds?: number;
  ttlSecondsAfterFinished?: number;
  /** How often a waiting or running run's pods are looked at (default 2 s). */
  pollMs?: number;
  log?: (msg: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class KubeRayRuntime implements Runtime {
  readonly kind = "kuberay" as const;
  readonly cluster = { nodes: () => this.nodes() };
  private readonly gathering: RankGathering<RuntimeRef>;
  private readonly log: (msg: string) => void;
  private readonly observer: RayJobObserver;
  /** RayJobs this agent deleted (a stop or a cleanup): their disappearance is expected. */
  private readonly deleting = new Map<string, Promise<void>>();
  /** Runs ended by the agent's own decision (an image never pulled): the reason wait() reports. */
  private readonly verdicts = new Map<string, RunExit>();
  private readonly ends = new Map<string, Promise<RunExit>>();
  private readonly sizes = new Map<string, NodeSize>();
  /** Each RayJob's run and epoch (its pods are found by them, also once the RayJob is gone). */
  private readonly runs = new Map<string, { runId: string; epoch: number }>();

  constructor(private readonly o: KubeRayRuntimeOptions) {
    this.log = o.log ?? (() => {});
    this.gathering = new RankGathering("Kubernetes", o.gatherMs ?? 120_000);
    this.observer = new RayJobObserver(o.api, this.log, (name, run) => this.runs.set(name, run));
  }

  private get gpuResource(): string {
    return this.o.gpuResource ?? "nvidia.com/gpu";
  }

  async preflight(): Promise<void> {
    let nodes: ClusterNode[];
    try {
      nodes = await this.nodes();
      await this.o.api.rayJobs(`${LABEL_MANAGED_BY}=${MANAGED_BY}`);
    } catch (err) {
      throw new Error(`the KubeRay runtime cannot work with ${this.o.api.server()}: ${describe(err)}`);
    }
    if (nodes.length === 0) {
      throw new Error(
        `no node of ${this.o.api.server()} has allocatable ${this.gpuResource}${this.o.nodeSelector ? ` (node selector ${this.o.nodeSelector})` : ""}; check the device plugin or --gpu-resource`,
      );
    }
    this.observer.start();
  }

  runRootOf(runId: string, rank: number): string {
    return `${this.o.nodeDir ?? DEFAULT_NODE_DIR}/${runId}-r${rank}`;
  }

  // inventory ---------------------------------------------------------------------

  async nodes(): Promise<ClusterNode[]> {
    const all = await this.o.api.nodes(this.o.nodeSelector ?? undefined);
    const out: ClusterNode[] = [];
    for (const n of all) {
      const c = toClusterNode(
        n,
        this.gpuResource,
        this.o.gpuSeriesLabel ?? "nvidia.com/gpu.product",
        this.o.gpuSeries,
      );
      if (!c || c.gpus === 0) continue;
      this.sizes.set(c.name, { cpus: c.cpus, memoryMb: c.memory_mb, gpus: c.gpus });
      out.push(c);
    }
    return out;
  }

  // launch ------------------------------------------------------------------------

  async launch(spec: RunSpec): Promise<RuntimeRef> {
    if (!spec.placement?.length) throw new LaunchError("the launch names no placement", true);
    if (!spec.image && !this.o.defaultImage) {
      throw new LaunchError(
        "this job names no image, and this Kubernetes agent has no --default-image for image-less jobs",
        false,
      );
    }
    return this.gathering.join(spec, (specs) => this.submit(specs));
  }

  abort(runId: string, rank: number): boolean {
    return this.gathering.abort(runId, rank);
  }

  /** Runs `call`, waiting out an API server that cannot answer right now (bounded); refusals pass. */
  private async retrying<T>(what: string, call: () => Promise<T>, attempts = 8): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (err) {
        if (err instanceof KubeRefused)
          throw new LaunchError(`${what}: ${err.message}`, err.code === 401 || err.code === 403);
        if (attempt >= attempts) throw new LaunchError(`${what} failed: ${describe(err)}`, true);
        if (attempt === 0) this.log(`${what} failed (${describe(err)}); retrying`);
        await sleep(backoffDelay(attempt, { baseMs: 1000, capMs: 15_000, jitter: "none" }));
      }
    }
  }

  private async submit(specs: RunSpec[]): Promise<RuntimeRef> {
    const first = specs[0]!;
    const image = (first.image ?? this.o.defaultImage)!;
    const placement = [...first.placement!].sort((a, b) => a.rank - b.rank);
    const plan = {
      runId: first.runId,
      jobId: first.jobId,
      attempt: first.attempt ?? 1,
      epoch: first.epoch,
      namespace: this.o.api.namespace,
      ranks: placement.map((p) => ({ rank: p.rank, nodeId: p.nodeId, gpus: p.gpus })),
      image,
      gpuResource: this.gpuResource,
      gpuPassthrough: this.o.gpuPassthrough !== false,
      ...this.shareOf(
        placement.map((p) => clusterNodeOf(p.nodeId)),
        Math.max(...placement.map((p) => p.gpus)),
      ),
      maxRuntimeSeconds: first.maxRuntimeSeconds ?? null,
      launcher: LAUNCHER,
      pullScript: PULL_SCRIPT,
      nodeDir: this.o.nodeDir ?? DEFAULT_NODE_DIR,
      keepRuns: this.o.keepRuns === true,
      ttlSecondsAfterFinished: this.o.ttlSecondsAfterFinished ?? 300,
      stopGraceSeconds: this.o.stopGraceSeconds ?? 30,
      serviceAccountName: this.o.serviceAccountName ?? null,
      secretNames: Object.keys(first.secrets ?? {}),
    };
    let body: Record<string, unknown>;
    try {
      body = renderRayJob(plan);
    } catch (err) {
      throw new LaunchError(describe(err), false);
    }
    const name = rayJobName(first.runId, first.epoch);
    this.runs.set(name, { runId: first.runId, epoch: first.epoch });
    // Created before (this agent restarted between creating it and recording it, or an answer was
    // lost): that RayJob is adopted, even ended; a run is never created twice.
    let job = await this.retrying(`looking for run ${first.runId}'s RayJob`, () => this.o.api.rayJob(name));
    const adopted = job !== null;
    if (!job) {
      job = await this.retrying(`creating RayJob ${name}`, async () => {
        try {
          return await this.o.api.createRayJob(body);
        } catch (err) {
          if (err instanceof KubeRefused && err.code === 409) return (await this.o.api.rayJob(name))!;
          throw err;
        }
      });
    }
    // Its Secret, also when adopting (the agent may have died in between): the head waits for it.
    const uid = job.metadata?.uid ?? "";
    try {
      await this.retrying(`creating RayJob ${name}'s Secret`, async () => {
        try {
          // Every rank runs in the image (the default one for a job that names none), and says so.
          const inImage = specs.map((s) => ({ ...s, env: { ...s.env, FORGE_IMAGE: image } }));
          await this.o.api.createSecret(renderSecret(plan, pullPlan(inImage), { name, uid }, first.secrets));
        } catch (err) {
          if (!(err instanceof KubeRefused && err.code === 409)) throw err;
        }
      });
    } catch (err) {
      // Without its Secret the RayJob can never start: it goes, so it holds no GPUs.
      await this.remove(name).catch(() => {});
      throw err;
    }
    this.log(
      `run ${first.runId}: RayJob ${name} ${adopted ? "adopted" : "created"} on ${placement.map((p) => clusterNodeOf(p.nodeId)).join(",")}`,
    );
    return { kind: "kuberay", id: name };
  }

  /** The run's share of its nodes (gather.ts). */
  private shareOf(
    nodes: string[],
    gpus: number,
  ): { cpusPerPod: number | null; memoryPerPodMb: number | null } {
    const share = gpuShare(
      nodes.map((n) => this.sizes.get(n)),
      gpus,
    );
    return {
      cpusPerPod: share && share.cpus > 0 ? share.cpus : null,
      memoryPerPodMb: share && share.memoryMb > 0 ? share.memoryMb : null,
    };
  }

  // observe -----------------------------------------------------------------------

  /** The run as the cluster shows it now ("gone", or null: cannot be seen right now). */
  private look(name: string): Promise<Observation | "gone" | null> {
    return this.observer.look(name);
  }

  async waitStarted(ref: RuntimeRef, _spec: RunSpec, onWaiting: (reason: string) => void): Promise<void> {
    const name = ref.id;
    let said = "";
    let pullingSince: number | null = null;
    const limit = this.o.imagePullTimeoutMs ?? 300_000;
    for (;;) {
      if (this.verdicts.has(name) || this.deleting.has(name)) return;
      const seen = await this.look(name);
      if (seen === "gone") return;
      if (seen !== null) {
        if (seen.phase !== "waiting") return;
        if (seen.reason !== said) {
          said = seen.reason;
          onWaiting(seen.reason);
        }
        pullingSince = seen.imagePull ? (pullingSince ?? Date.now()) : null;
        if (pullingSince !== null && Date.now() - pullingSince > limit) {
          this.verdicts.set(name, {
            exitCode: null,
            reason: `${seen.reason}; gave up after ${Math.round(limit / 1000)} s`,
            infra: false,
          });
          this.log(`RayJob ${name}: ${seen.reason}; giving up`);
          await this.remove(name);
          return;
        }
      }
      await sleep(this.o.pollMs ?? 2000);
    }
  }

  /** The run's end (one answer for all its ranks). */
  wait(ref: RuntimeRef, _spec: RunSpec): Promise<RunExit> {
    const name = ref.id;
    let end = this.ends.get(name);
    if (!end) {
      end = this.follow(name);
      this.ends.set(name, end);
    }
    return end;
  }

  private async follow(name: string): Promise<RunExit> {
    let blind = 0;
    let ran = false;
    for (;;) {
      const verdict = this.verdicts.get(name);
      if (verdict) return verdict;
      const seen = await this.look(name);
      if (seen === "gone") {
        return this.deleting.has(name)
          ? { exitCode: null, reason: "stopped: the RayJob was deleted", infra: false }
          : { exitCode: null, reason: `RayJob ${name} was deleted outside StarForge`, infra: true };
      }
      if (seen === null) {
        if (blind++ === 0) this.log(`RayJob ${name}: cannot observe it right now; the run goes on`);
      } else {
        if (blind > 0) this.log(`RayJob ${name}: observed again`);
        blind = 0;
        if (seen.phase === "ended") {
          // A pod's end (OOM, eviction) may come before KubeRay notices: the RayJob goes with it.
          return { exitCode: seen.exitCode, reason: seen.reason, infra: seen.infra };
        }
        if (seen.phase === "running") ran = true;
        else if (ran && seen.phase === "waiting" && seen.rayPending) {
          // Running, then waiting again: Ray lost the job (its head went) and it would start over.
          return {
            exitCode: null,
            reason: `the Ray job of ${name} stopped running (${seen.reason}): its head was lost; ended so the control plane decides about a retry`,
            infra: true,
          };
        }
      }
      await sleep(this.o.pollMs ?? 2000);
    }
  }

  /** Throws when the cluster cannot be seen right now: "unknown" is never "gone". */
  async alive(ref: RuntimeRef): Promise<boolean> {
    const seen = await this.look(ref.id);
    if (seen === null) throw new KubeUnavailable(`RayJob ${ref.id} cannot be observed right now`);
    return seen !== "gone" && seen.phase !== "ended";
  }

  /** Deletes the RayJob (foreground) and waits until nothing of it remains; idempotent, shared by ranks. */
  async stop(ref: RuntimeRef, _graceMs: number): Promise<void> {
    await this.remove(ref.id);
  }

  private remove(name: string): Promise<void> {
    let p = this.deleting.get(name);
    if (!p) {
      p = this.deleteAndWait(name);
      this.deleting.set(name, p);
      // Kept until the run's cleanup: its disappearance stays "ours", however long an outage lasts. A
      // failed deletion is forgotten, so the next stop or cleanup tries again.
      p.catch(() => this.deleting.delete(name));
    }
    return p;
  }

  private async deleteAndWait(name: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.o.api.deleteRayJob(name);
        break;
      } catch (err) {
        if (err instanceof KubeRefused) throw new Error(`deleting RayJob ${name} failed: ${err.message}`);
        if (attempt === 0) this.log(`deleting RayJob ${name} failed (${describe(err)}); retrying`);
        await sleep(backoffDelay(attempt, { baseMs: 500, capMs: 10_000, jitter: "none" }));
      }
    }
    const grace = (this.o.stopGraceSeconds ?? 30) * 1000;
    const until = Date.now() + grace + 120_000;
    let said = false;
    for (;;) {
      try {
        const left = await this.leftovers(name);
        if (left.length === 0) return;
        if (Date.now() > until) throw new Error(`RayJob ${name} was deleted, but ${left.join(", ")} remain`);
        if (!said && left.length > 0) this.log(`RayJob ${name}: waiting for ${left.join(", ")} to go`);
        said = true;
      } catch (err) {
        if (!(err instanceof KubeUnavailable)) throw err;
        if (Date.now() > until) throw err;
      }
      await sleep(500);
    }
  }

  /** What still exists of a RayJob: itself, its RayClusters, its pods. */
  private async leftovers(name: string): Promise<string[]> {
    const left: string[] = [];
    if (await this.o.api.rayJob(name)) left.push(`RayJob ${name}`);
    for (const c of await this.o.api.rayClusters(`ray.io/originated-from-cr-name=${name}`)) {
      left.push(`RayCluster ${c.metadata?.name}`);
    }
    // Our labels are on every pod we rendered (the run's; else read back from the name: ids are lowercase).
    const known = this.runs.get(name);
    const parsed = /^sf-run-(.+)-e(\d+)$/.exec(name);
    const run = known ?? (parsed ? { runId: `run_${parsed[1]}`, epoch: Number(parsed[2]) } : null);
    if (run) {
      for (const p of await this.o.api.pods(`${LABEL_RUN}=${run.runId},${LABEL_EPOCH}=${run.epoch}`)) {
        left.push(`pod ${p.metadata?.name}`);
      }
    }
    return left;
  }

  async cleanup(ref: RuntimeRef | null, spec: RunSpec): Promise<void> {
    if (ref) {
      await this.remove(ref.id);
      // Owned by the RayJob (garbage-collected with it); deleted here too, so none outlives an agent's cleanup.
      await this.o.api.deleteSecret(ref.id).catch(() => {});
      this.ends.delete(ref.id);
      this.verdicts.delete(ref.id);
      this.deleting.delete(ref.id);
      this.runs.delete(ref.id);
    }
    if (!this.o.keepRuns) rmSync(spec.runDir, { recursive: true, force: true });
  }

  /** Every RayJob of ours in the namespace. */
  async list(): Promise<Array<{ ref: RuntimeRef; labels: Record<string, string> }>> {
    const jobs = await this.o.api.rayJobs(`${LABEL_MANAGED_BY}=${MANAGED_BY}`);
    return jobs.map((j) => ({
      ref: { kind: "kuberay" as const, id: j.metadata?.name ?? "" },
      labels: { "starforge.run_id": j.metadata?.labels?.[LABEL_RUN] ?? "" },
    }));
  }

  /** Stops watching (the agent is shutting down). */
  close(): void {
    this.observer.close();
  }
}
