/**
 * The Fleet DO's decisions as synchronous operations over its SQL store. Each public method is meant to
 * run inside one `transactionSync`: it validates, changes state, runs a scheduling pass and records every
 * change in the outbox, so a crash at any point leaves either all of it or none of it.
 */
import {
  DEFAULT_QUOTA,
  type JobView,
  type Quota,
  QuotaBody,
  type RegisterNodeBody,
  type TimeWindow,
} from "../contract/api.schema.js";
import { fail, ok, type Result } from "../contract/errors.js";
import { newId, nowIso } from "../contract/ids.js";
import { ACTION_TARGETS, type JobState, transition } from "../contract/job-states.js";
import type { JobSpec } from "../contract/jobspec.schema.js";
import type { Placement } from "../contract/launch-request.schema.js";
import type { PendingReason } from "../contract/pending-reasons.schema.js";
import type { FleetStore, JobRow, NodeRow, RunRow } from "./fleet-store.js";
import type { JobEventRecord, JobSnapshot, NodeSnapshot, OutboxEntry, RunSnapshot } from "./outbox.js";
import { decide, type UserInput } from "./scheduler/policy.js";
import { overlapGpuSeconds, splitByUtcDay } from "./scheduler/usage.js";

export interface FleetConfig {
  id: string;
  name: string;
  kind: string;
  windows: TimeWindow[];
  draining: boolean;
  drainNote: string | null;
}

export interface SubmitInput {
  jobId: string;
  userId: string;
  userName: string;
  spec: JobSpec;
  priority: number;
  quota: Quota;
  blobDigests: string[];
}

export type JobAction = "stop" | "pause" | "resume";

export interface Actor {
  userId: string;
  name: string;
  admin: boolean;
}

export interface RunView {
  id: string;
  attempt: number;
  epoch: number;
  status: string;
  placement: Placement[];
  gpus: number;
  allocated_at: string;
  ended_at: string | null;
  exit_code: number | null;
  reason: string | null;
}

/** The API's job view plus its runs, as the Fleet DO sees it right now. */
export interface JobDetail extends JobView {
  runs: RunView[];
}

export interface NodeView {
  id: string;
  name: string;
  series: string;
  status: string;
  runtime: string | null;
  labels: Record<string, string>;
  gpus: Array<{ index: number; run_id: string | null; job_id: string | null }>;
}

export interface FleetInspect {
  fleet_id: string;
  draining: boolean;
  drain_note: string | null;
  windows: TimeWindow[];
  nodes: NodeView[];
  totals: { gpus: number; allocated: number; free: number; queued: number; running: number };
  queue: Array<{
    job_id: string;
    user_id: string;
    priority: number;
    gpus: number;
    pending_reasons: PendingReason[];
  }>;
}

const DAY_MS = 86_400_000;

export class FleetEngine {
  constructor(private readonly store: FleetStore) {}

  // configuration -------------------------------------------------------------

  configure(cfg: FleetConfig, now: number): void {
    const current = this.store.getMeta("fleet_id");
    if (current && current !== cfg.id)
      throw new Error(`fleet DO for ${current} cannot be reconfigured as ${cfg.id}`);
    this.store.setMeta("fleet_id", cfg.id);
    this.store.setMeta("config", JSON.stringify(cfg));
    this.schedule(now);
  }

  config(): FleetConfig | null {
    const raw = this.store.getMeta("config");
    return raw ? (JSON.parse(raw) as FleetConfig) : null;
  }

  private fleetId(): string {
    const id = this.store.getMeta("fleet_id");
    if (!id) throw new Error("fleet DO used before configure()");
    return id;
  }

  /** Drain on (with a note) or off. Queued jobs wait with FLEET_DRAINING; new submits are refused. */
  setDrain(draining: boolean, note: string | null, now: number): FleetConfig {
    const cfg = this.config();
    if (!cfg) throw new Error("fleet DO used before configure()");
    const next = { ...cfg, draining, drainNote: draining ? note : null };
    this.store.setMeta("config", JSON.stringify(next));
    this.schedule(now);
    return next;
  }

  setQuota(userId: string, quota: Quota, now: number): void {
    this.store.setQuota(userId, JSON.stringify(QuotaBody.parse(quota)));
    this.schedule(now);
  }

  // submit --------------------------------------------------------------------

  /**
   * Queues an admitted job. Per-user limits that span fleets (active jobs, Idempotency-Key) were reserved
   * atomically in D1 before this call; what is checked here is this fleet's own state.
   */
  submit(input: SubmitInput, now: number): Result<{ job: JobDetail }> {
    const cfg = this.config();
    if (!cfg) return fail("FLEET_NOT_FOUND", "this fleet is not configured");
    if (cfg.draining) {
      return fail("FLEET_DRAINING", `fleet ${cfg.name} is draining: ${cfg.drainNote ?? "maintenance"}`);
    }
    if (this.store.job(input.jobId)) return fail("ALREADY_EXISTS", `job ${input.jobId} already exists`);
    this.store.setQuota(input.userId, JSON.stringify(input.quota));

    const spec = input.spec;
    const gpus = spec.resources.pools.reduce((n, p) => n + p.nodes * p.gpus_per_node, 0);
    const row: JobRow = {
      id: input.jobId,
      user_id: input.userId,
      name: spec.metadata.name,
      status: "QUEUED",
      priority: input.priority,
      queue_seq: this.store.nextCounter("queue_seq"),
      gpus,
      recipe: `${spec.recipe.name}@${spec.recipe.version}`,
      spec: JSON.stringify(spec),
      pending_reasons: "[]",
      current_run_id: null,
      attempt: 0,
      version: 1,
      event_seq: 0,
      created_at: now,
      updated_at: now,
    };
    this.store.sql.exec(
      `INSERT INTO jobs (id, user_id, name, status, priority, queue_seq, gpus, recipe, spec, pending_reasons,
         current_run_id, attempt, version, event_seq, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ...Object.values(row),
    );
    if (input.blobDigests.length > 0)
      this.emit({ kind: "blob_refs", job_id: input.jobId, digests: input.blobDigests }, now);
    this.recordEvent(row, null, "QUEUED", "admitted", `user:${input.userName}`, {}, now);
    this.emitJob(row, now);
    this.schedule(now);
    return ok({ job: this.jobDetail(input.jobId)! });
  }

  // user actions ----------------------------------------------------------------

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
        {
          status: from,
        },
      );
    }
    const run = job.current_run_id ? this.store.run(job.current_run_id) : null;
    if (run && run.ended_at === null) this.endRun(run, to, `${action} by ${actor.name}`, null, now);
    this.setStatus(job, to, `user:${actor.name}`, reason ? { reason } : {}, now);
    this.schedule(now);
    return ok(this.jobDetail(jobId)!);
  }

  // nodes -----------------------------------------------------------------------

  registerNode(input: RegisterNodeBody, now: number): Result<NodeView> {
    const existing = this.store.nodeByName(input.name);
    if (existing) {
      const tooHigh = this.store.allocatedOn(existing.id).filter((g) => g >= input.gpus);
      if (tooHigh.length > 0) {
        return fail(
          "CONFLICT",
          `node ${input.name} has GPUs ${tooHigh.join(", ")} allocated; it cannot shrink to ${input.gpus}`,
        );
      }
      if (existing.series !== input.series && this.store.allocatedOn(existing.id).length > 0) {
        return fail("CONFLICT", `node ${input.name} has allocations; it cannot change series while busy`);
      }
    }
    const id = existing?.id ?? newId("nod");
    const row: NodeRow = {
      id,
      name: input.name,
      series: input.series,
      gpus: input.gpus,
      status: "ready",
      runtime: input.runtime ?? null,
      labels: JSON.stringify(input.labels ?? {}),
      cpus: input.cpus ?? null,
      memory_mb: input.memory_mb ?? null,
      version: (existing?.version ?? 0) + 1,
      created_at: existing?.created_at ?? now,
      updated_at: now,
    };
    this.store.sql.exec(
      `INSERT INTO nodes (id, name, series, gpus, status, runtime, labels, cpus, memory_mb, version, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET series = excluded.series, gpus = excluded.gpus, status = excluded.status,
         runtime = excluded.runtime, labels = excluded.labels, cpus = excluded.cpus, memory_mb = excluded.memory_mb,
         version = excluded.version, updated_at = excluded.updated_at`,
      ...Object.values(row),
    );
    this.emitNode(row, now);
    this.schedule(now);
    return ok(this.nodeView(this.store.node(id)!));
  }

  // scheduling -------------------------------------------------------------------

  /** One scheduling pass: dispatch what fits, refresh pending reasons, arm the wake-up timer. */
  schedule(now: number): void {
    const cfg = this.config();
    if (!cfg) return;
    const queued = this.store.jobsByStatus("QUEUED");
    const nodes = this.store.nodes();
    const allocs = this.store.allocations();
    const decision = decide({
      now,
      draining: cfg.draining ? { note: cfg.drainNote ?? "" } : null,
      windows: cfg.windows,
      nodes: nodes.map((n) => ({
        id: n.id,
        name: n.name,
        series: n.series,
        gpus: n.gpus,
        schedulable: n.status === "ready",
        used: allocs.filter((a) => a.node_id === n.id).map((a) => a.idx),
      })),
      queue: queued.map((j) => ({
        id: j.id,
        userId: j.user_id,
        priority: j.priority,
        queueSeq: j.queue_seq,
        pools: (JSON.parse(j.spec) as JobSpec).resources.pools,
      })),
      users: this.userInputs(new Set(queued.map((j) => j.user_id)), now),
    });

    for (const d of decision.dispatch) this.dispatch(this.store.job(d.jobId)!, d.placement, now);
    let wake: number | null = null;
    for (const job of queued) {
      const reasons = decision.pending[job.id];
      if (!reasons) continue;
      const json = JSON.stringify(reasons);
      if (json !== job.pending_reasons) {
        job.pending_reasons = json;
        job.version += 1;
        job.updated_at = now;
        this.store.sql.exec(
          "UPDATE jobs SET pending_reasons = ?, version = ?, updated_at = ? WHERE id = ?",
          json,
          job.version,
          now,
          job.id,
        );
        this.emitJob(job, now);
      }
      for (const r of reasons) {
        const at = wakeTime(r, now);
        if (at !== null && (wake === null || at < wake)) wake = at;
      }
    }
    if (wake !== null) this.store.setTimer("schedule", wake);
  }

  private dispatch(job: JobRow, placement: Placement[], now: number): void {
    const run: RunRow = {
      id: newId("run"),
      job_id: job.id,
      attempt: job.attempt + 1,
      epoch: this.store.nextCounter("epoch"),
      status: "SUBMITTED",
      placement: JSON.stringify(placement),
      gpus: placement.reduce((n, p) => n + p.gpu_indices.length, 0),
      user_id: job.user_id,
      allocated_at: now,
      ended_at: null,
      exit_code: null,
      reason: null,
      version: 1,
    };
    this.store.sql.exec(
      `INSERT INTO runs (id, job_id, attempt, epoch, status, placement, gpus, user_id, allocated_at, ended_at, exit_code, reason, version)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ...Object.values(run),
    );
    for (const p of placement) {
      for (const g of p.gpu_indices) {
        // The primary key (node_id, idx) rejects a double booking; that would abort the whole transaction.
        this.store.sql.exec(
          "INSERT INTO gpu_alloc (node_id, idx, run_id) VALUES (?, ?, ?)",
          p.node_id,
          g,
          run.id,
        );
      }
    }
    job.current_run_id = run.id;
    job.attempt = run.attempt;
    job.pending_reasons = "[]";
    this.store.sql.exec(
      "UPDATE jobs SET current_run_id = ?, attempt = ?, pending_reasons = '[]' WHERE id = ?",
      run.id,
      run.attempt,
      job.id,
    );
    this.emitRun(run, now);
    this.setStatus(
      job,
      "SUBMITTED",
      "system:scheduler",
      { run_id: run.id, epoch: run.epoch, placement },
      now,
    );
    for (const nodeId of new Set(placement.map((p) => p.node_id)))
      this.emitNode(this.store.node(nodeId)!, now);
  }

  /** Releases a run's GPUs and closes it with the job's resting state; records usage per UTC day. */
  private endRun(run: RunRow, status: string, reason: string, exitCode: number | null, now: number): void {
    const nodeIds = new Set((JSON.parse(run.placement) as Placement[]).map((p) => p.node_id));
    this.store.sql.exec("DELETE FROM gpu_alloc WHERE run_id = ?", run.id);
    run.status = status;
    run.ended_at = now;
    run.reason = reason;
    run.exit_code = exitCode;
    run.version += 1;
    this.store.sql.exec(
      "UPDATE runs SET status = ?, ended_at = ?, reason = ?, exit_code = ?, version = ? WHERE id = ?",
      status,
      now,
      reason,
      exitCode,
      run.version,
      run.id,
    );
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

  private userInputs(userIds: Set<string>, now: number): Record<string, UserInput> {
    const out: Record<string, UserInput> = {};
    for (const id of userIds) {
      const raw = this.store.quotaBody(id);
      out[id] = {
        quota: raw ? QuotaBody.parse(JSON.parse(raw)) : DEFAULT_QUOTA,
        runningGpus: 0,
        recentGpuSeconds: 0,
        gpuSecondsToday: 0,
      };
    }
    const dayStart = Math.floor(now / DAY_MS) * DAY_MS;
    for (const r of this.store.runsSince(now - DAY_MS)) {
      const u = out[r.user_id];
      if (!u) continue;
      const end = r.ended_at ?? now;
      if (r.ended_at === null) u.runningGpus += r.gpus;
      u.recentGpuSeconds += overlapGpuSeconds(r.allocated_at, end, r.gpus, now - DAY_MS, now);
      u.gpuSecondsToday += overlapGpuSeconds(r.allocated_at, end, r.gpus, dayStart, now);
    }
    return out;
  }

  // status, events, outbox -------------------------------------------------------

  /** The only place a job's status changes: the transition table decides, the event log records. */
  private setStatus(
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

  private recordEvent(
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
    this.emit({ kind: "event", event }, now);
  }

  private emit(entry: OutboxEntry, now: number): void {
    this.store.enqueue(entry, now);
  }

  private emitJob(job: JobRow, now: number): void {
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

  private emitRun(run: RunRow, now: number): void {
    const snapshot: RunSnapshot = {
      ...run,
      allocated_at: nowIso(run.allocated_at),
      ended_at: run.ended_at === null ? null : nowIso(run.ended_at),
    };
    this.emit({ kind: "run", run: snapshot }, now);
  }

  private emitNode(node: NodeRow, now: number): void {
    const snapshot: NodeSnapshot = {
      id: node.id,
      fleet_id: this.fleetId(),
      name: node.name,
      series: node.series,
      gpus: node.gpus,
      gpus_allocated: this.store.allocatedOn(node.id).length,
      status: node.status,
      labels: node.labels,
      // Allocation changes do not touch the node row, so the projection is versioned by the outbox clock.
      version: this.store.nextCounter("node_projection_version"),
      updated_at: nowIso(now),
    };
    this.emit({ kind: "node", node: snapshot }, now);
  }

  // views ------------------------------------------------------------------------

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
      runs: this.store.runsOfJob(jobId).map(runView),
    };
  }

  private nodeView(n: NodeRow): NodeView {
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
      windows: cfg?.windows ?? [],
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

function runView(r: RunRow): RunView {
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
  };
}

/** When a pending reason can change by itself (a window opens, a new UTC day starts). */
function wakeTime(r: PendingReason, now: number): number | null {
  if (r.code === "WINDOW_CLOSED" && typeof r.details.opens_at === "string")
    return Date.parse(r.details.opens_at);
  if (r.code === "QUOTA_GPU_HOURS") return (Math.floor(now / DAY_MS) + 1) * DAY_MS;
  return null;
}
