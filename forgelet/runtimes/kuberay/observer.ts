/**
 * How the KubeRay runtime sees a run: one list+watch of the agent's RayJobs for its whole life (client-
 * node's ListWatch: re-listed after 410 Gone; restarted here with backoff after any error), and, for the
 * run being looked at, its pods and the events about them (states.ts turns them into an observation).
 * "Cannot see right now" (the API server unreachable, the watch re-syncing) is null, never "gone".
 */
import type { CoreV1Event, KubernetesObject, ListWatch, V1Pod } from "@kubernetes/client-node";
import { backoffDelay } from "../../../contract/backoff.js";
import type { KubeApi } from "./k8s.js";
import { LABEL_EPOCH, LABEL_MANAGED_BY, LABEL_RUN, MANAGED_BY } from "./render.js";
import { type Observation, observeRayJob, type RayJobObject } from "./states.js";

type RayJob = RayJobObject & KubernetesObject;

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class RayJobObserver {
  private informer: ListWatch<RayJob> | null = null;
  /** The informer has listed since it last failed: its cache is the cluster's state. */
  private synced = false;
  private informerFailures = 0;

  /** `onRun`: a RayJob's run and epoch, as its labels say (the runtime finds its pods by them). */
  constructor(
    private readonly api: KubeApi,
    private readonly log: (msg: string) => void,
    private readonly onRun: (name: string, run: { runId: string; epoch: number }) => void,
  ) {}

  /** One list+watch of our RayJobs for the agent's life; after an error, started again with backoff. */
  start(): void {
    if (this.informer) return;
    const inf = this.api.rayJobInformer(`${LABEL_MANAGED_BY}=${MANAGED_BY}`);
    this.informer = inf;
    inf.on("change", () => {
      this.synced = true;
      this.informerFailures = 0;
    });
    inf.on("error", (err: unknown) => {
      this.synced = false;
      if (this.informerFailures === 0)
        this.log(`cannot watch RayJobs right now (${describe(err)}); retrying`);
      const delay = backoffDelay(this.informerFailures++, { baseMs: 500, capMs: 10_000, jitter: "none" });
      setTimeout(() => {
        if (this.informer === inf) void inf.start().catch(() => {});
      }, delay).unref();
    });
    const failures = this.informerFailures;
    void inf.start().then(
      () => {
        // start() resolves after a failed list too (it reports the error instead): synced only if none.
        if (this.informerFailures === failures && this.informer === inf) this.synced = true;
      },
      () => {},
    );
  }

  /**
   * The run as the cluster shows it now, or null when it cannot be seen right now (the API server is
   * unreachable, the watch is re-syncing): the caller keeps the last state.
   */
  async look(name: string): Promise<Observation | "gone" | null> {
    this.start();
    if (!this.synced) {
      // Not watching right now: ask directly (a restarted agent, an outage that just ended).
      try {
        const job = await this.api.rayJob(name);
        if (!job) return "gone";
        return await this.judge(job);
      } catch {
        return null;
      }
    }
    const job = this.informer!.get(name, this.api.namespace);
    if (!job) {
      // The cache may lag a create by a moment: ask before calling it gone.
      try {
        const again = await this.api.rayJob(name);
        return again ? await this.judge(again) : "gone";
      } catch {
        return null;
      }
    }
    try {
      return await this.judge(job);
    } catch {
      return null;
    }
  }

  private async judge(job: RayJobObject): Promise<Observation> {
    const run = job.metadata?.labels?.[LABEL_RUN] ?? "";
    const epoch = job.metadata?.labels?.[LABEL_EPOCH] ?? "";
    if (job.metadata?.name && run) this.onRun(job.metadata.name, { runId: run, epoch: Number(epoch) });
    const pods: V1Pod[] = await this.api.pods(`${LABEL_RUN}=${run},${LABEL_EPOCH}=${epoch}`);
    const seen = observeRayJob(job, pods, []);
    if (seen.phase === "running" && pods.every((p) => p.status?.phase === "Running")) return seen;
    // Something is off or still starting: the events say why (and a pod already gone left its events).
    const cluster = job.status?.rayClusterName;
    const names = new Set(pods.map((p) => p.metadata?.name));
    const events: CoreV1Event[] = (await this.api.podEvents()).filter(
      (e) =>
        names.has(e.involvedObject?.name) || (cluster && e.involvedObject?.name?.startsWith(`${cluster}-`)),
    );
    return observeRayJob(job, pods, events);
  }

  /** Stops watching (the agent is shutting down). */
  close(): void {
    void this.informer?.stop();
    this.informer = null;
  }
}
