/**
 * The base of the Fleet DO's engine: the single place where job statuses change (through the contract's
 * transition table), where every change is recorded in the outbox, where a run releases its GPUs, and
 * the read views. Every method is synchronous and meant to run inside one `transactionSync`.
 */
import type { TimeWindow } from "../contract/api.schema.js";
import { nowIso } from "../contract/ids.js";
import { type JobState, transition } from "../contract/job-states.js";
import type { Placement, ResumeFrom } from "../contract/launch-request.schema.js";
import type { PendingReason } from "../contract/pending-reasons.schema.js";
import type { FleetStore, JobRow, NodeRow, RunRow } from "./fleet-store.js";
import type { FleetConfig, FleetInspect, JobDetail, NodeView, RunView } from "./fleet-types.js";
import type { JobEventRecord, JobSnapshot, NodeSnapshot, OutboxEntry, RunSnapshot } from "./outbox.js";
import { splitByUtcDay } from "./scheduler/usage.js";

export class FleetLedger {
  constructor(protected readonly store: FleetStore) {}

  config(): FleetConfig | null {
    const raw = this.store.getMeta("config");
    return raw ? (JSON.parse(raw) as FleetConfig) : null;
  }

  protected fleetId(): string {
    const id = this.store.getMeta("fleet_id");
    if (!id) throw new Error("fleet DO used before configure()");
    return id;
  }

  // status and events -------------------------------------------------------------

  /** The only place a job's status changes: the transition table decides, the event log records. */
  protected setStatus(
    job: JobRow,
    to: JobState,
    actor: string,
    detail: Record<string, unknown>,
    now: number,
  ): void {
    const from = job.status as JobState;
    const edge = transition(from, to);
    job.status = to;
    job.version += 1;
    job.updated_at = now;
    if (to !== "QUEUED") job.pending_reasons = "[]";
    this.store.sql.exec(
      "UPDATE jobs SET status = ?, version = ?, updated_at = ?, pending_reasons = ? WHERE id = ?",
      to,
      job.version,
      now,
      job.pending_reasons,
      job.id,
    );
    this.recordEvent(job, from, to, edge.name, actor, detail, now);
    this.emitJob(job, now);
  }

  protected recordEvent(
    job: JobRow,
    from: JobState | null,
    to: JobState,
    edge: string,
    actor: string,
    detail: Record<string, unknown>,
    now: number,
  ): void {
    job.event_seq += 1;
    this.store.sql.exec("UPDATE jobs SET event_seq = ? WHERE id = ?", job.event_seq, job.id);
    const event: JobEventRecord = {
      job_id: job.id,
      seq: job.event_seq,
      ts: nowIso(now),
      from_status: from,
      to_status: to,
      edge,
      actor,
      detail: JSON.stringify(detail),
    };
    // The job's owner and fleet ride along for webhook deliveries (webhook-fanout.ts).
    const owner = {
      user_id: job.user_id,
      fleet_id: this.fleetId(),
      name: job.name,
      run_id: job.current_run_id,
    };
    this.emit({ kind: "event", event, job: owner }, now);
  }

  // runs ---------------------------------------------------------------------------

  /** Records how a run ended (its status, reason, exit). GPUs stay held until `releaseRun`. */
  protected closeRun(
    run: RunRow,
    status: string,
    reason: string | null,
    exitCode: number | null,
    now: number,
  ): void {
    run.status = status;
    run.reason = reason;
    run.exit_code = exitCode;
    run.version += 1;
    this.store.sql.exec(
      "UPDATE runs SET status = ?, reason = ?, exit_code = ?, version = ? WHERE id = ?",
      status,
      reason,
      exitCode,
      run.version,
      run.id,
    );
    this.emitRun(run, now);
  }

  /** Frees a run's GPUs, settles its open commands and records its usage per UTC day. */
  protected releaseRun(run: RunRow, now: number): void {
    if (run.ended_at !== null) return;
    const nodeIds = new Set((JSON.parse(run.placement) as Placement[]).map((p) => p.node_id));
    this.store.sql.exec("DELETE FROM gpu_alloc WHERE run_id = ?", run.id);
    this.store.sql.exec(
      "UPDATE commands SET acked_at = ? WHERE run_id = ? AND acked_at IS NULL AND kind = 'launch'",
      now,
      run.id,
    );
    run.ended_at = now;
    run.version += 1;
    this.store.sql.exec("UPDATE runs SET ended_at = ?, version = ? WHERE id = ?", now, run.version, run.id);
    this.emitRun(run, now);
    const fleetId = this.fleetId();
    for (const u of splitByUtcDay(run.allocated_at, now, run.gpus)) {
      this.emit(
        {
          kind: "usage",
          run_id: run.id,
          day: u.day,
          user_id: run.user_id,
          fleet_id: fleetId,
          gpu_seconds: u.gpuSeconds,
        },
        now,
      );
    }
    for (const id of nodeIds) {
      const node = this.store.node(id);
      if (node) this.emitNode(node, now);
    }
  }

  // outbox -------------------------------------------------------------------------

  protected emit(entry: OutboxEntry, now: number): void {
    this.store.enqueue(entry, now);
  }

  protected emitJob(job: JobRow, now: number): void {
    const snapshot: JobSnapshot = {
      id: job.id,
      user_id: job.user_id,
      fleet_id: this.fleetId(),
      name: job.name,
      status: job.status,
      priority: job.priority,
      gpus: job.gpus,
      recipe: job.recipe,
      spec: job.spec,
      pending_reasons: job.pending_reasons,
      current_run_id: job.current_run_id,
      version: job.version,
      created_at: nowIso(job.created_at),
      updated_at: nowIso(job.updated_at),
    };
    this.emit({ kind: "job", job: snapshot }, now);
  }

  /** The run's resume checkpoint was resolved (fleet-launch.ts): the ledger learns it with a new version. */
  resumeResolved(runId: string, now: number): void {
    const run = this.store.run(runId);
    if (!run || this.store.runResume(runId) === undefined) return;
    run.version += 1;
    this.store.sql.exec("UPDATE runs SET version = ? WHERE id = ?", run.version, run.id);
    this.emitRun(run, now);
  }

  protected emitRun(run: RunRow, now: number): void {
    const resume = JSON.parse(this.store.runResume(run.id) ?? "null") as ResumeFrom | null;
    const snapshot: RunSnapshot = {
      ...run,
      allocated_at: nowIso(run.allocated_at),
      ended_at: run.ended_at === null ? null : nowIso(run.ended_at),
      resumed_from: resume ? JSON.stringify({ run_id: resume.run_id, step: resume.step }) : null,
    };
    this.emit({ kind: "run", run: snapshot }, now);
  }

  protected emitNode(node: NodeRow, now: number): void {
    const snapshot: NodeSnapshot = {
      id: node.id,
      fleet_id: this.fleetId(),
      name: node.name,
      series: node.series,
      gpus: node.gpus,
      gpus_allocated: this.store.allocatedOn(node.id).length,
      status: node.status,
      labels: node.labels,
      // Allocation changes do not touch the node row, so the projection is versioned by its own counter.
      version: this.store.nextCounter("node_projection_version"),
      updated_at: nowIso(now),
    };
    this.emit({ kind: "node", node: snapshot }, now);
  }

  // views --------------------------------------------------------------------------

  jobDetail(jobId: string): JobDetail | null {
    const job = this.store.job(jobId);
    if (!job) return null;
    return {
      id: job.id,
      name: job.name,
      user_id: job.user_id,
      fleet_id: this.fleetId(),
      status: job.status as JobState,
      priority: job.priority,
      gpus: job.gpus,
      recipe: job.recipe,
      pending_reasons: JSON.parse(job.pending_reasons) as PendingReason[],
      current_run_id: job.current_run_id,
      created_at: nowIso(job.created_at),
      updated_at: nowIso(job.updated_at),
      runs: this.store.runsOfJob(jobId).map((r) => runView(r, this.store.runResume(r.id))),
    };
  }

  protected nodeView(n: NodeRow): NodeView {
    const allocs = this.store.allocations().filter((a) => a.node_id === n.id);
    const gpus = [];
    for (let i = 0; i < n.gpus; i++) {
      const a = allocs.find((x) => x.idx === i);
      gpus.push({
        index: i,
        run_id: a?.run_id ?? null,
        job_id: a ? (this.store.run(a.run_id)?.job_id ?? null) : null,
      });
    }
    return {
      id: n.id,
      name: n.name,
      series: n.series,
      status: n.status,
      agent: n.agent === 1,
      lost_since: n.lost_since === null ? null : nowIso(n.lost_since),
      runtime: n.runtime,
      labels: JSON.parse(n.labels) as Record<string, string>,
      gpus,
    };
  }

  inspect(): FleetInspect {
    const cfg = this.config();
    const nodes = this.store.nodes().map((n) => this.nodeView(n));
    const total = nodes.reduce((s, n) => s + n.gpus.length, 0);
    const allocated = this.store.allocations().length;
    const queued = this.store.jobsByStatus("QUEUED");
    const running = this.store.sql
      .exec<{ n: number }>("SELECT COUNT(*) AS n FROM jobs WHERE status IN ('SUBMITTED','PENDING','RUNNING')")
      .one().n;
    return {
      fleet_id: this.fleetId(),
      draining: cfg?.draining ?? false,
      drain_note: cfg?.drainNote ?? null,
      windows: (cfg?.windows ?? []) as TimeWindow[],
      nodes,
      totals: { gpus: total, allocated, free: total - allocated, queued: queued.length, running },
      queue: queued.map((j) => ({
        job_id: j.id,
        user_id: j.user_id,
        priority: j.priority,
        gpus: j.gpus,
        pending_reasons: JSON.parse(j.pending_reasons) as PendingReason[],
      })),
    };
  }

  /** Every job id this fleet holds with its status (tests and reconciliation). */
  jobStatuses(): Array<{ id: string; status: string }> {
    return this.store.sql
      .exec<{ id: string; status: string }>("SELECT id, status FROM jobs ORDER BY queue_seq")
      .toArray();
  }
}

export function runView(r: RunRow, resume: string | undefined): RunView {
  const from = JSON.parse(resume ?? "null") as ResumeFrom | null;
  return {
    id: r.id,
    attempt: r.attempt,
    epoch: r.epoch,
    status: r.status,
    placement: JSON.parse(r.placement) as Placement[],
    gpus: r.gpus,
    allocated_at: nowIso(r.allocated_at),
    ended_at: r.ended_at === null ? null : nowIso(r.ended_at),
    exit_code: r.exit_code,
    reason: r.reason,
    resumed_from: from ? { run_id: from.run_id, step: from.step } : null,
  };
}
