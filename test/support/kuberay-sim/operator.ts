/**
 * The simulated KubeRay operator as a test starts it: one loop that, each tick, reconciles every
 * RayJob, RayCluster and pod once (the RayJob and RayCluster controllers, the scheduler, the kubelet),
 * and the handles a test moves it with (script mode, faults, suspension, stop).
 */
import type { K8sSim, KubeObject } from "../k8s-sim.js";
import type { KubeRaySim, KubeRaySimOptions } from "./api.js";
import { RayClusterController } from "./cluster-controller.js";
import { OperatorContext } from "./context.js";
import { Faults } from "./faults.js";
import { RayJobController } from "./job-controller.js";
import { JobSupervisor } from "./job-supervisor.js";
import { Kubelet } from "./kubelet.js";
import { killMarked, processGroupAlive, removeDirs, signalGroup } from "./process-group.js";
import { Scheduler } from "./scheduler.js";

export function startKubeRaySim(sim: K8sSim, options: KubeRaySimOptions): KubeRaySim {
  return new KubeRayOperator(sim, options);
}

class KubeRayOperator implements KubeRaySim {
  readonly errors: string[] = [];
  private readonly ctx: OperatorContext;
  private readonly rayJobs: RayJobController;
  private readonly clusters: RayClusterController;
  private readonly scheduler: Scheduler;
  private readonly kubelet: Kubelet;
  private readonly faults: Faults;
  private readonly timer: NodeJS.Timeout;

  constructor(sim: K8sSim, options: KubeRaySimOptions) {
    this.ctx = new OperatorContext(sim, options);
    this.rayJobs = new RayJobController(this.ctx, new JobSupervisor(this.ctx));
    this.clusters = new RayClusterController(this.ctx);
    this.scheduler = new Scheduler(this.ctx);
    this.kubelet = new Kubelet(this.ctx, this.rayJobs);
    this.faults = new Faults(this.ctx, this.rayJobs);
    this.ctx.store.kubeletAttached = true;
    this.timer = setInterval(() => this.tick(), options.tickMs ?? 100);
  }

  logs(rayJob: string): string {
    return this.ctx.logs(rayJob);
  }

  run(rayJob: string): void {
    this.ctx.state(rayJob).scriptRun = true;
  }

  finish(rayJob: string, status: "SUCCEEDED" | "FAILED", message?: string): void {
    this.ctx.state(rayJob).scriptFinish = { status, ...(message ? { message } : {}) };
  }

  imagePullFails(rayJob: string): void {
    this.ctx.state(rayJob).imagePullFails = true;
  }

  unschedulable(rayJob: string, message: string): void {
    this.ctx.state(rayJob).unschedulable = message;
  }

  oomKill(rayJob: string, pod?: string): void {
    this.faults.oomKill(rayJob, pod);
  }

  evict(rayJob: string, pod: string): void {
    this.faults.evict(rayJob, pod);
  }

  preempt(rayJob: string, pod: string): void {
    this.faults.preempt(rayJob, pod);
  }

  restartHead(rayJob: string): void {
    this.faults.restartHead(rayJob);
  }

  /** What a user's `spec.suspend: true` does. */
  suspend(rayJob: string): void {
    const job = this.ctx.store.get("rayjobs", this.ctx.ns, rayJob);
    if (!job) throw new Error(`no RayJob ${rayJob}`);
    this.ctx.store.replace("rayjobs", { ...job, spec: { ...job.spec, suspend: true } });
  }

  liveProcessGroups(): number[] {
    return [...this.ctx.entrypoints.values()].map((e) => e.pgid).filter(processGroupAlive);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.ctx.store.kubeletAttached = false;
    for (const [uid, e] of this.ctx.entrypoints) {
      clearTimeout(e.killTimer);
      signalGroup(e.pgid, "SIGKILL");
      killMarked(uid);
    }
    const deadline = Date.now() + 5000;
    while (this.liveProcessGroups().length && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    for (const e of this.ctx.entrypoints.values()) removeDirs(e.dirs);
    this.ctx.entrypoints.clear();
  }

  // -------------------------------------------------------------------------------------------------
  // The loop

  private tick(): void {
    const guard = (what: string, fn: () => void) => {
      try {
        fn();
      } catch (err) {
        this.errors.push(`${what}: ${err instanceof Error ? err.stack : String(err)}`);
      }
    };
    for (const job of this.ctx.store.list("rayjobs", this.ctx.ns))
      guard(`RayJob ${job.metadata.name}`, () => this.rayJobs.reconcileJob(job));
    for (const c of this.ctx.store.list("rayclusters", this.ctx.ns))
      guard(`RayCluster ${c.metadata.name}`, () => this.clusters.reconcileCluster(c));
    for (const p of this.ctx.store.list("pods", this.ctx.ns))
      guard(`pod ${p.metadata.name}`, () => this.reconcilePod(p));
    guard("cleanup", () => this.forgetGone());
  }

  /** Drops the state of RayJobs and pods that no longer exist (a RayJob's once it existed). */
  private forgetGone(): void {
    const jobs = new Set(this.ctx.store.list("rayjobs", this.ctx.ns).map((j) => j.metadata.name));
    for (const [name, st] of this.ctx.jobs) {
      if (jobs.has(name)) st.seen = true;
      else if (st.seen) this.ctx.jobs.delete(name);
    }
    const pods = new Set(this.ctx.store.list("pods", this.ctx.ns).map((p) => p.metadata.uid));
    for (const uid of this.ctx.pods.keys()) if (!pods.has(uid)) this.ctx.pods.delete(uid);
  }

  private reconcilePod(pod: KubeObject): void {
    if (pod.metadata.deletionTimestamp) {
      this.kubelet.terminate(pod);
      return;
    }
    const phase = pod.status?.phase;
    if (phase === "Failed" || phase === "Succeeded") return;
    if (!pod.spec?.nodeName) {
      this.scheduler.schedule(pod);
      return;
    }
    const ps = this.ctx.podState(pod);
    if (ps.restartPending) {
      this.kubelet.restartContainer(pod, ps);
      return;
    }
    if (phase === "Pending") this.kubelet.startContainers(pod, ps);
  }
}
