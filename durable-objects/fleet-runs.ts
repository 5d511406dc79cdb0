/**
 * Jobs and their runs: submit, user actions, and `runEvent` — the one place where what agents and
 * runners report changes a run and its job. A run holds its GPUs until every rank is known to be gone
 * (exited, or never launched), so a stop never frees GPUs under a workload that is still running.
 */
import { backoffDelay } from "../contract/backoff.js";
import { fail, ok, type Result } from "../contract/errors.js";
import { newId } from "../contract/ids.js";
import { ACTION_TARGETS, type JobState } from "../contract/job-states.js";
import type { JobSpec } from "../contract/jobspec.schema.js";
import { FleetScheduling } from "./fleet-scheduling.js";
import type { JobRow, RankRow, RunRow } from "./fleet-store.js";
import type { Actor, JobAction, JobDetail, RunEventInput, SubmitInput } from "./fleet-types.js";

/** Seconds a workload gets between SIGTERM and SIGKILL when it is stopped. */
export const STOP_GRACE_SECONDS = 30;

export type RunEventOutcome =
  | { kind: "applied" | "ignored"; stopWorkload: boolean }
  | { kind: "stale_epoch" | "unknown_run"; stopWorkload: true };

const ACTIVE_JOB: ReadonlySet<string> = new Set(["SUBMITTED", "PENDING", "RUNNING"]);
const GONE: ReadonlySet<string> = new Set(["exited", "cancelled"]);

export class FleetRuns extends FleetScheduling {
  /**
   * Queues an admitted job. Per-user limits that span fleets (active jobs, Idempotency-Key) were reserved
   * atomically in D1 before this call; what is checked here is this fleet's own state.
   */
  submit(input: SubmitInput, now: number): Result<{ job: JobDetail }> {
    const cfg = this.config();
    if (!cfg) return fail("FLEET_NOT_FOUND", "this fleet is not configured");
    if (cfg.draining)
      return fail("FLEET_DRAINING", `fleet ${cfg.name} is draining: ${cfg.drainNote ?? "maintenance"}`);
    if (this.store.job(input.jobId)) return fail("ALREADY_EXISTS", `job ${input.jobId} already exists`);
    this.store.setQuota(input.userId, JSON.stringify(input.quota));
    const spec = input.spec;
    const row: JobRow = {
      id: input.jobId,
      user_id: input.userId,
      name: spec.metadata.name,
      status: "QUEUED",
      priority: input.priority,
      queue_seq: this.store.nextCounter("queue_seq"),
      gpus: spec.resources.pools.reduce((n, p) => n + p.nodes * p.gpus_per_node, 0),
      recipe: `${spec.recipe.name}@${spec.recipe.version}`,
      spec: JSON.stringify(spec),
      pending_reasons: "[]",
      current_run_id: null,
      attempt: 0,
      version: 1,
      event_seq: 0,
      created_at: now,
      updated_at: now,
      capsule: input.capsule ? JSON.stringify(input.capsule) : null,
      launch: JSON.stringify(input.launch),
    };
    this.store.sql.exec(
      `INSERT INTO jobs (id, user_id, name, status, priority, queue_seq, gpus, recipe, spec, pending_reasons,
         current_run_id, attempt, version, event_seq, created_at, updated_at, capsule, launch)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ...Object.values(row),
    );
    const digests = [...input.blobDigests, ...Object.values(input.capsule ?? {})];
    if (digests.length > 0) this.emit({ kind: "blob_refs", job_id: input.jobId, digests }, now);
    this.recordEvent(row, null, "QUEUED", "admitted", `user:${input.userName}`, {}, now);
    this.emitJob(row, now);
    this.schedule(now);
    return ok({ job: this.jobDetail(input.jobId)! });
  }

  action(
    jobId: string,
    action: JobAction,
    actor: Actor,
    reason: string | undefined,
    now: number,
  ): Result<JobDetail> {
    const job = this.store.job(jobId);
    if (!job) return fail("JOB_NOT_FOUND", `no job ${jobId} in this fleet`);
    if (!actor.admin && job.user_id !== actor.userId)
      return fail("FORBIDDEN", "you may only act on your own jobs");
    const from = job.status as JobState;
    const to = ACTION_TARGETS[action][from];
    if (!to) {
      const allowed = Object.keys(ACTION_TARGETS[action]).join(", ");
      return fail(
        "INVALID_TRANSITION",
        `cannot ${action} a job that is ${from}; ${action} applies to ${allowed}`,
        { status: from },
      );
    }
    const run = job.current_run_id ? this.store.run(job.current_run_id) : null;
    // Stop and pause end the current run. A resume never touches the previous run: if its agent has not
    // confirmed the stop yet, that run keeps its status and GPUs until it does.
    if (run && run.ended_at === null && action !== "resume")
      this.stopRun(run, to, `${action} by ${actor.name}`, now);
    if (action === "resume") this.store.deleteMeta(retriesKey(job.id));
    this.setStatus(job, to, `user:${actor.name}`, reason ? { reason } : {}, now);
    this.schedule(now);
    return ok(this.jobDetail(jobId)!);
  }

  /**
   * Ends a run on the control plane's side: ranks never handed to an agent are cancelled, ranks an agent
   * may be running get a stop command. GPUs are released once no rank can still be running.
   */
  protected stopRun(run: RunRow, status: string, reason: string, now: number): void {
    this.closeRun(run, status, reason, null, now);
    for (const r of this.store.ranks(run.id)) this.stopRank(run, r, reason, now);
    this.releaseIfGone(run, now);
  }

  private stopRank(run: RunRow, r: RankRow, reason: string, now: number): void {
    if (GONE.has(r.state)) return;
    const launch = this.store
      .openCommands(r.node_id)
      .find((c) => c.run_id === run.id && c.rank === r.rank && c.kind === "launch");
    if (r.state === "pending" && (!launch || launch.sent_at === null)) {
      // Never reached an agent: nothing can be running.
      this.store.setRank(run.id, r.rank, "cancelled", null, reason, now);
      this.store.settleCommands(run.id, r.rank, "launch", now);
      return;
    }
    const already = this.store
      .openCommands(r.node_id)
      .some((c) => c.run_id === run.id && c.rank === r.rank && c.kind === "stop");
    if (!already) {
      this.store.addCommand({
        id: newId("cmd"),
        node_id: r.node_id,
        run_id: run.id,
        rank: r.rank,
        kind: "stop",
        payload: JSON.stringify({ epoch: run.epoch, grace_seconds: STOP_GRACE_SECONDS, reason }),
        created_at: now,
      });
    }
  }

  private releaseIfGone(run: RunRow, now: number): void {
    if (run.ended_at !== null) return;
    if (this.store.ranks(run.id).every((r) => GONE.has(r.state))) {
      this.releaseRun(run, now);
      this.schedule(now);
    }
  }

  /** Applies one report about one rank of a run. Idempotent: a repeated report changes nothing. */
  runEvent(e: RunEventInput, now: number): RunEventOutcome {
    const run = this.store.run(e.runId);
    if (!run) return { kind: "unknown_run", stopWorkload: true };
    if (e.epoch !== run.epoch) return { kind: "stale_epoch", stopWorkload: true };
    const rank = this.store.ranks(run.id).find((r) => r.rank === e.rank);
    if (!rank) return { kind: "unknown_run", stopWorkload: true };
    const running = e.event === "accepted" || e.event === "launched" || e.event === "started";
    // A released run is over: whatever still runs for it must stop (fencing).
    if (run.ended_at !== null) return { kind: "ignored", stopWorkload: running };
    if (GONE.has(rank.state)) return { kind: "ignored", stopWorkload: running };
    const job = this.store.job(run.job_id)!;
    const current =
      job.current_run_id === run.id &&
      ACTIVE_JOB.has(job.status) &&
      !["STOPPED", "PAUSED"].includes(run.status);
    const actor = `${e.source}:${rank.node_id}`;

    if (e.event === "accepted") {
      if (rank.state === "pending") this.store.setRank(run.id, rank.rank, "accepted", null, null, now);
      this.store.settleCommands(run.id, rank.rank, "launch", now);
      if (current && job.status === "SUBMITTED")
        this.setStatus(job, "PENDING", actor, { rank: rank.rank }, now);
      return { kind: "applied", stopWorkload: !current };
    }
    if (running) {
      if (rank.state !== "launched") this.store.setRank(run.id, rank.rank, "launched", null, null, now);
      this.store.settleCommands(run.id, rank.rank, "launch", now);
      if (current) this.markStarted(job, run, actor, rank.rank, now);
      return { kind: "applied", stopWorkload: !current };
    }

    // The rank is gone: exited, stopped, failed to launch, or its runner reported the end.
    const code = e.exitCode ?? (e.event === "succeeded" ? 0 : null);
    const reason = e.reason ?? describeExit(e.event, code);
    this.store.setRank(run.id, rank.rank, "exited", code, reason, now);
    this.store.settleCommands(run.id, rank.rank, "launch", now);
    this.store.settleCommands(run.id, rank.rank, "stop", now);
    if (current) {
      // Reports may be applied out of order (frames are independent). Any end other than launch_failed
      // means the workload ran, so the job passes through RUNNING first, whatever arrived before.
      if (e.event !== "launch_failed") this.markStarted(job, run, actor, rank.rank, now);
      const failed =
        e.event === "failed" || e.event === "launch_failed" || e.event === "stopped" || code !== 0;
      if (failed) this.failRun(job, run, rank.rank, code, reason, e.infra, actor, now);
      else if (this.store.ranks(run.id).every((r) => r.state === "exited" && r.exit_code === 0)) {
        this.closeRun(run, "SUCCEEDED", "all ranks exited 0", 0, now);
        this.setStatus(job, "SUCCEEDED", actor, { exit_code: 0 }, now);
      }
    }
    this.releaseIfGone(run, now);
    return { kind: "applied", stopWorkload: false };
  }

  /** SUBMITTED/PENDING → RUNNING along the table's edges (ack, started); a no-op once RUNNING. */
  private markStarted(job: JobRow, run: RunRow, actor: string, rank: number, now: number): void {
    if (job.status === "SUBMITTED") this.setStatus(job, "PENDING", actor, { rank }, now);
    if (job.status === "PENDING") {
      this.setStatus(job, "RUNNING", actor, { rank }, now);
      this.closeRun(run, "RUNNING", null, null, now);
    }
  }

  /** One rank failed: the job fails, and every other rank of the gang is stopped. */
  private failRun(
    job: JobRow,
    run: RunRow,
    rank: number,
    code: number | null,
    reason: string,
    infra: boolean,
    actor: string,
    now: number,
  ): void {
    this.closeRun(run, "FAILED", reason, code, now);
    this.setStatus(job, "FAILED", actor, { rank, exit_code: code, reason, infra }, now);
    for (const r of this.store.ranks(run.id))
      if (r.rank !== rank) this.stopRank(run, r, `rank ${rank} failed`, now);
    this.planRetry(job, infra, now);
  }

  /**
   * Auto-retry: an infrastructure failure (or any failure, if the spec asks) re-queues the job after a
   * backoff, while its budget (`lifecycle.max_retries`) lasts. A timer row does it, so the retry survives
   * a restart; each attempt is a new run with its own id, epoch and token.
   */
  private planRetry(job: JobRow, infra: boolean, now: number): void {
    const lifecycle = (JSON.parse(job.spec) as JobSpec).lifecycle;
    // Only automatic retries count: runs started by resume, drain or windows do not use up the budget.
    const retriesUsed = Number(this.store.getMeta(retriesKey(job.id)) ?? "0");
    if (!(infra || lifecycle.retry_on_user_failure) || retriesUsed >= lifecycle.max_retries) return;
    const delay = backoffDelay(retriesUsed, {
      baseMs: this.retryBaseMs(),
      capMs: MAX_RETRY_BACKOFF_MS,
      jitter: "none",
    });
    this.store.setMeta(retryTimer(job.id), String(job.attempt));
    this.store.setTimer(retryTimer(job.id), now + delay);
  }

  /** The retry timer fired: re-queue (FAILED → QUEUED, edge `retry`) unless something else moved the job. */
  retryDue(jobId: string, now: number): void {
    const job = this.store.job(jobId);
    const planned = this.store.getMeta(retryTimer(jobId));
    if (job?.status !== "FAILED" || planned !== String(job.attempt)) return;
    const used = Number(this.store.getMeta(retriesKey(jobId)) ?? "0") + 1;
    this.store.setMeta(retriesKey(jobId), String(used));
    this.setStatus(job, "QUEUED", "system:retry", { attempt: job.attempt + 1, retry: used }, now);
    this.schedule(now);
  }

  /** Base of the retry backoff; the DO adapter sets it from SF_RETRY_BACKOFF_SECONDS. */
  retryBaseMs(): number {
    return Number(this.store.getMeta("retry_base_ms") ?? "30000");
  }
}

const MAX_RETRY_BACKOFF_MS = 15 * 60_000;

/** Meta row: automatic retries a job has used (a person resuming it gives it a fresh budget). */
export function retriesKey(jobId: string): string {
  return `retries:${jobId}`;
}

/** The timer (and its meta row) that re-queues a failed job for another attempt. */
export function retryTimer(jobId: string): string {
  return `retry:${jobId}`;
}

function describeExit(event: RunEventInput["event"], code: number | null): string {
  if (event === "launch_failed") return "the runtime could not start the workload";
  if (event === "stopped") return "stopped by the agent";
  if (code === null) return `${event} without an exit code`;
  if (code > 128) return `killed by signal ${code - 128}`;
  return `exited with code ${code}`;
}
