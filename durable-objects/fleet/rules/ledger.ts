/**
 * The ledger rules every other rule builds on: the one place a job's status changes (through the
 * contract's transition table), a run is closed or releases its GPUs, and every change is recorded in
 * the outbox that reaches D1. Functions of a `Tx`: they read its state and change it only by effects.
 */

import type { FleetConfig } from "../../../contract/fleet.schema.js";
import { nowIso } from "../../../contract/ids.js";
import { type JobState, transition } from "../../../contract/job-states.js";
import type { Placement, ResumeFrom } from "../../../contract/launch-request.schema.js";
import { checkpointKey, noticeKey, PREEMPTION_LOST_KEY } from "../keys.js";
import type { JobEventRecord, JobSnapshot, NodeSnapshot, OutboxEntry, RunSnapshot } from "../outbox-entry.js";
import type { AllocRow, JobRow, NodeRow, RunRow } from "../rows.js";
import { splitByUtcDay } from "../scheduler/usage.js";
import type { FleetState } from "../state.js";
import type { Tx } from "../tx.js";

/** Every GPU allocation, grouped by node in one read (a fleet of a thousand nodes: one pass, not one each). */
export function allocationsByNode(s: FleetState): Map<string, AllocRow[]> {
  const byNode = new Map<string, AllocRow[]>();
  for (const a of s.allocations()) {
    const list = byNode.get(a.node_id);
    if (list) list.push(a);
    else byNode.set(a.node_id, [a]);
  }
  return byNode;
}

// The configuration as last parsed: every submit reads it several times, and it changes only when an
// admin configures the fleet. Rules treat it as read-only.
let parsed: { raw: string; config: FleetConfig } | null = null;

export function config(s: FleetState): FleetConfig | null {
  const raw = s.meta("config");
  if (!raw) return null;
  if (parsed?.raw !== raw) parsed = { raw, config: JSON.parse(raw) as FleetConfig };
  return parsed.config;
}

export function fleetId(s: FleetState): string {
  const id = s.meta("fleet_id");
  if (!id) throw new Error("fleet DO used before configure()");
  return id;
}

export function putJob(t: Tx, job: JobRow): void {
  t.put({ kind: "job", row: { ...job } });
}

export function putRun(t: Tx, run: RunRow): void {
  t.put({ kind: "run", row: { ...run } });
}

export function emit(t: Tx, entry: OutboxEntry): void {
  t.put({ kind: "outbox", entry, at: t.now });
}

/** The only place a job's status changes: the transition table decides, the event log records. */
export function setStatus(
  t: Tx,
  job: JobRow,
  to: JobState,
  actor: string,
  detail: Record<string, unknown>,
): void {
  const from = job.status as JobState;
  const edge = transition(from, to);
  job.status = to;
  job.version += 1;
  job.updated_at = t.now;
  if (to !== "QUEUED") job.pending_reasons = "[]";
  recordEvent(t, job, from, to, edge.name, actor, detail);
  emitJob(t, job);
}

/** Appends to the job's event log (and writes the job, whose event_seq moved). */
export function recordEvent(
  t: Tx,
  job: JobRow,
  from: JobState | null,
  to: JobState,
  edge: string,
  actor: string,
  detail: Record<string, unknown>,
): void {
  job.event_seq += 1;
  putJob(t, job);
  const event: JobEventRecord = {
    job_id: job.id,
    seq: job.event_seq,
    ts: nowIso(t.now),
    from_status: from,
    to_status: to,
    edge,
    actor,
    detail: JSON.stringify(detail),
  };
  // The job's owner and fleet ride along for webhook deliveries (webhook-fanout.ts).
  const owner = { user_id: job.user_id, fleet_id: fleetId(t.s), name: job.name, run_id: job.current_run_id };
  emit(t, { kind: "event", event, job: owner });
}

/** Records how a run ended (its status, reason, exit). GPUs stay held until `releaseRun`. */
export function closeRun(
  t: Tx,
  run: RunRow,
  status: string,
  reason: string | null,
  exitCode: number | null,
): void {
  run.status = status;
  run.reason = reason;
  run.exit_code = exitCode;
  run.version += 1;
  putRun(t, run);
  emitRun(t, run);
}

/**
 * A preempted run releases its GPUs: what it trained since its last stored checkpoint (of this run, or
 * since it started) is lost work, counted in GPU-seconds for the fleet's metrics. A victim that
 * checkpointed on its notice loses only the moments between that checkpoint and its exit.
 */
function countLostWork(t: Tx, run: RunRow): void {
  const raw = t.s.meta(noticeKey(run.id));
  if (!raw || (JSON.parse(raw) as { cause?: string }).cause !== "preempted") return;
  const ckpt = JSON.parse(t.s.meta(checkpointKey(run.job_id)) ?? "null") as {
    run: string;
    at: number;
  } | null;
  const since = ckpt?.run === run.id ? ckpt.at : (run.started_at ?? run.allocated_at);
  const lost = (Math.max(0, t.now - since) / 1000) * run.gpus;
  t.setMeta(PREEMPTION_LOST_KEY, String(Number(t.s.meta(PREEMPTION_LOST_KEY) ?? 0) + lost));
}

/** Frees a run's GPUs, settles its open launches and records its usage per UTC day. */
export function releaseRun(t: Tx, run: RunRow): void {
  if (run.ended_at !== null) return;
  const nodeIds = new Set((JSON.parse(run.placement) as Placement[]).map((p) => p.node_id));
  t.put({ kind: "free", run_id: run.id });
  countLostWork(t, run);
  t.deleteMeta(noticeKey(run.id));
  t.put({ kind: "settle", run_id: run.id, rank: null, command: "launch", at: t.now });
  run.ended_at = t.now;
  run.version += 1;
  putRun(t, run);
  emitRun(t, run);
  const fleet = fleetId(t.s);
  for (const u of splitByUtcDay(run.allocated_at, t.now, run.gpus)) {
    emit(t, {
      kind: "usage",
      run_id: run.id,
      day: u.day,
      user_id: run.user_id,
      fleet_id: fleet,
      gpu_seconds: u.gpuSeconds,
      team: t.s.job(run.job_id)?.team ?? null,
      borrowed: run.borrowed,
    });
  }
  for (const id of nodeIds) {
    const node = t.s.node(id);
    if (node) emitNode(t, node);
  }
}

export function emitJob(t: Tx, job: JobRow): void {
  const snapshot: JobSnapshot = {
    id: job.id,
    user_id: job.user_id,
    fleet_id: fleetId(t.s),
    name: job.name,
    status: job.status,
    priority: job.priority,
    priority_class: job.priority_class,
    team: job.team,
    gpus: job.gpus,
    recipe: job.recipe,
    spec: null,
    pending_reasons: job.pending_reasons,
    current_run_id: job.current_run_id,
    version: job.version,
    created_at: nowIso(job.created_at),
    updated_at: nowIso(job.updated_at),
  };
  emit(t, { kind: "job", job: snapshot });
  t.emittedJobs.add(job.id);
}

export function emitRun(t: Tx, run: RunRow): void {
  const resume = JSON.parse(t.s.runResume(run.id) ?? "null") as ResumeFrom | null;
  const snapshot: RunSnapshot = {
    ...run,
    allocated_at: nowIso(run.allocated_at),
    ended_at: run.ended_at === null ? null : nowIso(run.ended_at),
    resumed_from: resume ? JSON.stringify({ run_id: resume.run_id, step: resume.step }) : null,
  };
  emit(t, { kind: "run", run: snapshot });
}

export function emitNode(t: Tx, node: NodeRow): void {
  const snapshot: NodeSnapshot = {
    id: node.id,
    fleet_id: fleetId(t.s),
    name: node.name,
    series: node.series,
    gpus: node.gpus,
    gpus_allocated: t.s.allocatedOn(node.id).length,
    status: node.status,
    labels: node.labels,
    // Allocation changes do not touch the node row, so the projection is versioned by its own counter.
    version: t.counter("node_projection_version"),
    updated_at: nowIso(t.now),
  };
  emit(t, { kind: "node", node: snapshot });
}

/** A node row written whole, and its projection. */
export function putNode(t: Tx, row: NodeRow): void {
  t.put({ kind: "node", row: { ...row } });
  emitNode(t, row);
}

/**
 * The run's resume checkpoint was resolved (fleet/launch.ts): kept (the first resolution wins, so every
 * rank and re-sent launch agree) and the ledger learns it with a new version.
 */
export function resumeResolved(t: Tx, runId: string, body: string): void {
  if (t.s.runResume(runId) !== undefined) return;
  t.put({ kind: "resume", run_id: runId, body });
  const run = t.s.run(runId);
  if (!run) return;
  run.version += 1;
  putRun(t, run);
  emitRun(t, run);
}
