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

import type { DrainBlocker, DrainReport, FleetConfig } from "../../../contract/fleet.schema.js";
import { ALLOCATED_STATES, type JobState } from "../../../contract/job-states.js";
import type { JobSpec } from "../../../contract/jobspec.schema.js";
import { budgetMessage } from "../../../contract/teams.js";
import { MOVED_PREFIX, movedKey } from "../keys.js";
import type { JobRow } from "../rows.js";
import { closesAt, windowStatus } from "../scheduler/windows.js";
import type { FleetState } from "../state.js";
import { WINDOWS_TIMER } from "../timers.js";
import type { Tx } from "../tx.js";
import { budgetOf } from "./budgets.js";
import { handoffJobs } from "./handoff-state.js";
import { config, setStatus } from "./ledger.js";
import { stopRun } from "./runs.js";

/**
 * Whether a job can stop and continue from a checkpoint: the spec says so (`lifecycle.resumable`), else
 * catalog methods (python entry modules, which follow the SIGTERM-checkpoint / SF_RESUME_FROM convention)
 * are and custom scripts are not.
 */
export function jobResumable(job: Pick<JobRow, "spec" | "launch">): boolean {
  const spec = JSON.parse(job.spec) as JobSpec;
  if (spec.lifecycle.resumable !== undefined) return spec.lifecycle.resumable;
  const launch = JSON.parse(job.launch ?? "null") as { entrypoint?: { kind: string } } | null;
  return launch?.entrypoint?.kind === "python";
}

function seriesOf(job: JobRow): string[] {
  return [...new Set((JSON.parse(job.spec) as JobSpec).resources.pools.map((p) => p.series))];
}

/** Jobs that hold GPUs, in state order then queue order. */
function allocatedJobs(s: FleetState): JobRow[] {
  return [...ALLOCATED_STATES].flatMap((st) => s.jobsByStatus(st));
}

// drain --------------------------------------------------------------------------------

/** Drain on (with a note) or off. Queued jobs wait with FLEET_DRAINING; new submits are refused. */
function setDrain(t: Tx, draining: boolean, note: string | null): FleetConfig {
  const cfg = config(t.s);
  if (!cfg) throw new Error("fleet DO used before configure()");
  const next = { ...cfg, draining, drainNote: draining ? note : null };
  t.setMeta("config", JSON.stringify(next));
  t.schedule();
  return next;
}

export function drain(t: Tx, note: string | null): DrainReport {
  const cfg = setDrain(t, true, note);
  const reason = `fleet ${cfg.name} is draining: ${note || "maintenance"}`;
  for (const job of t.s.jobsByStatus("QUEUED")) move(t, job, "PAUSED", "drain", reason);
  for (const job of t.s.jobsByStatus("RUNNING"))
    if (jobResumable(job)) move(t, job, "PAUSED", "drain", reason);
  t.schedule();
  return drainReport(t.s, cfg, []);
}

export function undrain(t: Tx): DrainReport {
  // Re-queue first (still draining, so nothing is dispatched yet), then lift the drain: the first
  // scheduling pass sees every job at once and keeps their original order.
  const resumed: string[] = [];
  for (const job of movedBy(t.s, "drain", "PAUSED")) {
    t.deleteMeta(movedKey(job.id));
    setStatus(t, job, "QUEUED", "system:drain", { reason: "the drain ended" });
    resumed.push(job.id);
  }
  const cfg = setDrain(t, false, null);
  return drainReport(t.s, cfg, resumed);
}

export function drainReport(s: FleetState, cfg: FleetConfig, resumed: string[]): DrainReport {
  const paused: string[] = [];
  const held: string[] = [];
  for (const job of movedBy(s, "drain", "PAUSED")) (movedWhileRunning(s, job) ? paused : held).push(job.id);
  const blockers: DrainBlocker[] = [];
  if (cfg.draining) {
    for (const job of allocatedJobs(s)) {
      blockers.push({
        job_id: job.id,
        name: job.name,
        status: job.status,
        reason: !jobResumable(job)
          ? "cannot resume from a checkpoint (lifecycle.resumable is false); stop it or wait for it to end"
          : job.status === "RUNNING"
            ? "stopping: checkpointing before it releases its GPUs"
            : "launching: it is paused as soon as it runs",
      });
    }
    // A paused run whose agent has not confirmed the stop still holds its GPUs.
    for (const id of paused) {
      const job = s.job(id)!;
      const run = job.current_run_id ? s.run(job.current_run_id) : null;
      if (run && run.ended_at === null)
        blockers.push({
          job_id: id,
          name: job.name,
          status: "PAUSED",
          reason: "checkpointing: waiting for its agent to confirm the stop",
        });
    }
  }
  return { config: cfg, paused, held, blockers, resumed };
}

/**
 * Whether a mover took `job` while it ran (it held GPUs), not while it queued. The `moved:` row says so
 * (`<by>:running` or `<by>:queued`); a row written before it did (just `<by>`) leaves only whether the job
 * ever had a run, which a queued retry has too.
 */
function movedWhileRunning(s: FleetState, job: JobRow): boolean {
  const value = s.meta(movedKey(job.id)) ?? "";
  if (value.endsWith(":running")) return true;
  if (value.endsWith(":queued")) return false;
  return job.current_run_id !== null;
}

/** Jobs a drain or window moved that are still where it put them, in queue order. */
export function movedBy(s: FleetState, by: string, status: JobState): JobRow[] {
  // From the few `moved:` rows, not by scanning every job of that status (STOPPED ones pile up).
  return s
    .metaByPrefix(MOVED_PREFIX)
    .filter((m) => m.value === by || m.value === `${by}:running` || m.value === `${by}:queued`)
    .map((m) => s.job(m.key.slice(MOVED_PREFIX.length)))
    .filter((j): j is JobRow => j?.status === status)
    .sort((a, b) => a.queue_seq - b.queue_seq);
}

/**
 * Moves a job as the system: its status first (so the scheduling pass a stop may cause never sees it
 * as queued), then its current run ends (the agent checkpoints on SIGTERM); records who moved it.
 */
export function move(
  t: Tx,
  listed: JobRow,
  to: JobState,
  by: "drain" | "window" | "node" | "budget",
  reason: string,
): void {
  // Listed before earlier moves ran their scheduling passes: act only if it is still where it was.
  const job = t.s.job(listed.id);
  if (!job || job.status !== listed.status) return;
  // Being handed to another fleet: not this fleet's to move (if it stays, the handoff's end holds it).
  if (handoffJobs(t.s).has(job.id)) return;
  const wasQueued = job.status === "QUEUED";
  const run = job.current_run_id ? t.s.run(job.current_run_id) : null;
  setStatus(t, job, to, `system:${by}`, { reason });
  t.setMeta(movedKey(job.id), `${by}:${wasQueued ? "queued" : "running"}`);
  if (run && run.ended_at === null && !wasQueued) stopRun(t, run, to, reason);
}

/** A job that started running while the fleet drains is paused at once (after its run event). */
export function pauseIfDraining(t: Tx, runId: string): void {
  const cfg = config(t.s);
  if (!cfg?.draining) return;
  const run = t.s.run(runId);
  const job = run ? t.s.job(run.job_id) : null;
  if (job && job.status === "RUNNING" && job.current_run_id === run?.id && jobResumable(job)) {
    move(t, job, "PAUSED", "drain", `fleet ${cfg.name} is draining: ${cfg.drainNote || "maintenance"}`);
  }
}

// windows ------------------------------------------------------------------------------

/** Stops what runs in a closed window and resumes what a window stopped once it reopens. */
export function windowPass(t: Tx): void {
  const cfg = config(t.s);
  if (!cfg) return;
  // Without windows nothing is ever closed; jobs a window stopped (before the windows were removed)
  // are still resumed below.
  for (const job of cfg.windows.length > 0 ? allocatedJobs(t.s) : []) {
    const closed = seriesOf(job).filter((s) => !windowStatus(cfg.windows, s, t.now).open);
    if (closed.length === 0) continue;
    const w = windowStatus(cfg.windows, closed[0]!, t.now);
    const opens = w.open ? "" : `; it resumes when the window opens at ${w.opensAt}`;
    move(t, job, "STOPPED", "window", `the ${closed.join(", ")} window closed${opens}`);
  }
  for (const job of movedBy(t.s, "window", "STOPPED")) {
    if (seriesOf(job).every((s) => windowStatus(cfg.windows, s, t.now).open)) {
      t.deleteMeta(movedKey(job.id));
      setStatus(t, job, "QUEUED", "system:window", { reason: "its window reopened" });
    }
  }
}

/** The one `windows` timer: the next close for what holds GPUs, or the next reopen for what a window stopped. */
export function armWindowTimer(t: Tx): void {
  const cfg = config(t.s);
  if (!cfg) return;
  let wake: number | null = null;
  const soonest = (at: number | null) => {
    if (at !== null && at > t.now && (wake === null || at < wake)) wake = at;
  };
  for (const job of cfg.windows.length > 0 ? allocatedJobs(t.s) : [])
    for (const s of seriesOf(job)) soonest(closesAt(cfg.windows, s, t.now));
  for (const job of movedBy(t.s, "window", "STOPPED")) {
    for (const s of seriesOf(job)) {
      const w = windowStatus(cfg.windows, s, t.now);
      if (!w.open) soonest(Date.parse(w.opensAt));
    }
  }
  if (wake !== null) t.setTimer(WINDOWS_TIMER, wake);
  else t.cancelTimer(WINDOWS_TIMER);
}

// budgets ------------------------------------------------------------------------------

/** Jobs a spent budget paused go back to the queue once their team's budget renewed (or was raised). */
export function budgetPass(t: Tx): void {
  for (const job of movedBy(t.s, "budget", "PAUSED")) {
    if (budgetOf(t.s, job, t.now)) continue;
    t.deleteMeta(movedKey(job.id));
    setStatus(t, job, "QUEUED", "system:budget", { reason: "its team's GPU-hour budget renewed" });
  }
}

/**
 * Under the `pause` policy a running job of a team whose budget is spent pauses right after it stored a
 * checkpoint (never killed, nothing lost), and resumes when the budget renews.
 */
export function pauseAtCheckpoint(t: Tx, runId: string): void {
  const run = t.s.run(runId);
  const job = run ? t.s.job(run.job_id) : null;
  if (job?.status !== "RUNNING" || job.current_run_id !== runId) return;
  const b = budgetOf(t.s, job, t.now);
  if (b?.policy !== "pause" || !jobResumable(job)) return;
  move(t, job, "PAUSED", "budget", `paused at its checkpoint: ${budgetMessage(job.team!, b)}`);
}
