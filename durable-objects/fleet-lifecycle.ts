/**
 * Fleet-wide lifecycle: maintenance drain and time windows. Both move jobs along the same edges a person
 * would (hold, pause, stop, resume) as a `system:` actor, and remember which jobs they moved (meta
 * `moved:<job>` = "drain" | "window"), so undoing them touches exactly those jobs, in queue order.
 *
 * - Drain: queued jobs are held, running resumable jobs are paused (they checkpoint on SIGTERM and
 *   release their GPUs); running jobs that cannot resume are listed as blockers and keep running. A job
 *   still launching when the drain starts is paused as soon as it runs. Idempotent. Ending the drain
 *   re-queues what it moved; queue order (priority, then submission) is kept because jobs keep their seq.
 * - Windows: when a series' window closes, its running jobs are stopped with a checkpoint (STOPPED); when
 *   it reopens they are resumed (QUEUED) and continue from that checkpoint. One timer (`windows`) wakes the
 *   fleet at the next close or reopen.
 */

import type { Result } from "../contract/errors.js";
import type { JobState } from "../contract/job-states.js";
import type { JobSpec } from "../contract/jobspec.schema.js";
import type { RunEventOutcome } from "./fleet-runs.js";
import { FleetRuns } from "./fleet-runs.js";
import type { JobRow } from "./fleet-store.js";
import type { Actor, FleetConfig, JobAction, JobDetail, RunEventInput } from "./fleet-types.js";
import { closesAt, windowStatus } from "./scheduler/windows.js";

export const WINDOWS_TIMER = "windows";
const ALLOCATED: readonly JobState[] = ["SUBMITTED", "PENDING", "RUNNING"];

export interface DrainBlocker {
  job_id: string;
  name: string;
  status: string;
  reason: string;
}

export interface DrainReport {
  config: FleetConfig;
  /** Jobs the drain holds now: paused while running, or held while queued (all calls so far). */
  paused: string[];
  held: string[];
  /** Jobs still holding GPUs that the drain will not pause. Maintenance must wait for them. */
  blockers: DrainBlocker[];
  /** On resume: the jobs re-queued, in queue order. */
  resumed: string[];
}

const MOVED_PREFIX = "moved:";

function movedKey(jobId: string): string {
  return `${MOVED_PREFIX}${jobId}`;
}

/**
 * Whether a job can stop and continue from a checkpoint: the spec says so (`lifecycle.resumable`), else
 * catalog methods (python entry modules, which follow the SIGTERM-checkpoint / SF_RESUME_FROM convention)
 * are and custom scripts are not.
 */
export function jobResumable(job: Pick<JobRow, "spec" | "launch">): boolean {
  const spec = JSON.parse(job.spec) as JobSpec;
  if (spec.lifecycle.resumable !== undefined) return spec.lifecycle.resumable;
  const launch = JSON.parse((job.launch as string | null) ?? "null") as {
    entrypoint?: { kind: string };
  } | null;
  return launch?.entrypoint?.kind === "python";
}

function seriesOf(job: JobRow): string[] {
  return [...new Set((JSON.parse(job.spec) as JobSpec).resources.pools.map((p) => p.series))];
}

export class FleetLifecycle extends FleetRuns {
  private inWindowPass = false;

  // drain ----------------------------------------------------------------------------

  drain(note: string | null, now: number): DrainReport {
    const config = this.setDrain(true, note, now);
    const reason = `fleet ${config.name} is draining: ${note || "maintenance"}`;
    for (const job of this.store.jobsByStatus("QUEUED")) this.move(job, "PAUSED", "drain", reason, now);
    for (const status of ALLOCATED)
      for (const job of this.store.jobsByStatus(status))
        if (status === "RUNNING" && jobResumable(job)) this.move(job, "PAUSED", "drain", reason, now);
    this.schedule(now);
    return this.drainReport(config, []);
  }

  undrain(now: number): DrainReport {
    // Re-queue first (still draining, so nothing is dispatched yet), then lift the drain: the first
    // scheduling pass sees every job at once and keeps their original order.
    const resumed: string[] = [];
    for (const job of this.movedBy("drain", "PAUSED")) {
      this.store.deleteMeta(movedKey(job.id));
      this.setStatus(job, "QUEUED", "system:drain", { reason: "the drain ended" }, now);
      resumed.push(job.id);
    }
    const config = this.setDrain(false, null, now);
    return this.drainReport(config, resumed);
  }

  drainReport(config: FleetConfig, resumed: string[]): DrainReport {
    const paused: string[] = [];
    const held: string[] = [];
    for (const job of this.movedBy("drain", "PAUSED")) (job.current_run_id ? paused : held).push(job.id);
    const blockers: DrainBlocker[] = [];
    if (config.draining) {
      for (const status of ALLOCATED) {
        for (const job of this.store.jobsByStatus(status)) {
          blockers.push({
            job_id: job.id,
            name: job.name,
            status,
            reason: !jobResumable(job)
              ? "cannot resume from a checkpoint (lifecycle.resumable is false); stop it or wait for it to end"
              : status === "RUNNING"
                ? "stopping: checkpointing before it releases its GPUs"
                : "launching: it is paused as soon as it runs",
          });
        }
      }
      // A paused run whose agent has not confirmed the stop still holds its GPUs.
      for (const id of paused) {
        const job = this.store.job(id)!;
        const run = job.current_run_id ? this.store.run(job.current_run_id) : null;
        if (run && run.ended_at === null)
          blockers.push({
            job_id: id,
            name: job.name,
            status: "PAUSED",
            reason: "checkpointing: waiting for its agent to confirm the stop",
          });
      }
    }
    return { config, paused, held, blockers, resumed };
  }

  /** Jobs a drain or window moved that are still where it put them, in queue order. */
  private movedBy(by: string, status: JobState): JobRow[] {
    // From the few `moved:` rows, not by scanning every job of that status (STOPPED ones pile up).
    return this.store
      .metaByPrefix(MOVED_PREFIX)
      .filter((m) => m.value === by)
      .map((m) => this.store.job(m.key.slice(MOVED_PREFIX.length)))
      .filter((j): j is JobRow => j?.status === status)
      .sort((a, b) => a.queue_seq - b.queue_seq);
  }

  /** Moves a job as the system: ends its current run (the agent checkpoints on SIGTERM) and records why. */
  private move(job: JobRow, to: JobState, by: "drain" | "window", reason: string, now: number): void {
    const run = job.current_run_id ? this.store.run(job.current_run_id) : null;
    if (run && run.ended_at === null && job.status !== "QUEUED") this.stopRun(run, to, reason, now);
    this.setStatus(job, to, `system:${by}`, { reason }, now);
    this.store.setMeta(movedKey(job.id), by);
  }

  // a job that starts while the fleet drains is paused at once ---------------------------

  override runEvent(e: RunEventInput, now: number): RunEventOutcome {
    const out = super.runEvent(e, now);
    const cfg = this.config();
    if (cfg?.draining) {
      const run = this.store.run(e.runId);
      const job = run ? this.store.job(run.job_id) : null;
      if (job && job.status === "RUNNING" && job.current_run_id === run?.id && jobResumable(job)) {
        this.move(
          job,
          "PAUSED",
          "drain",
          `fleet ${cfg.name} is draining: ${cfg.drainNote || "maintenance"}`,
          now,
        );
      }
    }
    return out;
  }

  /** A person acting on a job takes it over: neither the drain nor a window will move it back. */
  override action(
    jobId: string,
    action: JobAction,
    actor: Actor,
    reason: string | undefined,
    now: number,
  ): Result<JobDetail> {
    const r = super.action(jobId, action, actor, reason, now);
    if (r.ok) this.store.deleteMeta(movedKey(jobId));
    return r;
  }

  // windows --------------------------------------------------------------------------

  override schedule(now: number): void {
    if (this.inWindowPass) {
      super.schedule(now);
      return;
    }
    this.inWindowPass = true;
    try {
      this.windowPass(now);
      super.schedule(now);
      // After dispatch: what was just placed must be stopped when its window closes.
      this.armWindowTimer(now);
    } finally {
      this.inWindowPass = false;
    }
  }

  /** Stops what runs in a closed window and resumes what a window stopped once it reopens. */
  private windowPass(now: number): void {
    const cfg = this.config();
    if (!cfg) return;
    // Without windows nothing is ever closed; jobs a window stopped (before the windows were removed)
    // are still resumed below.
    for (const status of cfg.windows.length > 0 ? ALLOCATED : []) {
      for (const job of this.store.jobsByStatus(status)) {
        const closed = seriesOf(job).filter((s) => !windowStatus(cfg.windows, s, now).open);
        if (closed.length === 0) continue;
        const w = windowStatus(cfg.windows, closed[0]!, now);
        const opens = w.open ? "" : `; it resumes when the window opens at ${w.opensAt}`;
        this.move(job, "STOPPED", "window", `the ${closed.join(", ")} window closed${opens}`, now);
      }
    }
    for (const job of this.movedBy("window", "STOPPED")) {
      if (seriesOf(job).every((s) => windowStatus(cfg.windows, s, now).open)) {
        this.store.deleteMeta(movedKey(job.id));
        this.setStatus(job, "QUEUED", "system:window", { reason: "its window reopened" }, now);
      }
    }
  }

  /** The one `windows` timer: the next close for what holds GPUs, or the next reopen for what a window stopped. */
  private armWindowTimer(now: number): void {
    const cfg = this.config();
    if (!cfg) return;
    let wake: number | null = null;
    const soonest = (t: number | null) => {
      if (t !== null && t > now && (wake === null || t < wake)) wake = t;
    };
    for (const status of cfg.windows.length > 0 ? ALLOCATED : [])
      for (const job of this.store.jobsByStatus(status))
        for (const s of seriesOf(job)) soonest(closesAt(cfg.windows, s, now));
    for (const job of this.movedBy("window", "STOPPED")) {
      for (const s of seriesOf(job)) {
        const w = windowStatus(cfg.windows, s, now);
        if (!w.open) soonest(Date.parse(w.opensAt));
      }
    }
    if (wake !== null) this.store.setTimer(WINDOWS_TIMER, wake);
    else this.store.deleteTimer(WINDOWS_TIMER);
  }
}
