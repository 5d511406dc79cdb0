/**
 * The ledger rules every other rule builds on: the one place a job's status changes (through the
 * contract's transition table), a run is closed or releases its GPUs, and every change is recorded in
 * the outbox that reaches D1. Functions of a `Tx`: they read its state and change it only by effects.
 */

import type { FleetConfig } from "../../../contract/fleet.schema.js";
import { nowIso } from "../../../contract/ids.js";
import { type JobState, transition } from "../../../contract/job-states.js";
import type { Placement, ResumeFrom } from "../../../contract/launch-request.schema.js";
import {
  checkpointKey,
  diagnosisKey,
  noticeKey,
  PREEMPTION_LOST_KEY,
  placementKey,
  preemptEventKey,
} from "../keys.js";
import type {
  EventJob,
  JobEventRecord,
  JobSnapshot,
  NodeSnapshot,
  OutboxEntry,
  RunSnapshot,
} from "../outbox-entry.js";
import type { AllocRow, JobRow, NodeRow, RunRow } from "../rows.js";
import { splitByUtcDay } from "../scheduler/usage.js";
import type { FleetState } from "../state.js";
import { REROUTE_CHECK_MS, REROUTE_TIMER } from "../timers.js";
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
): JobEventRecord {
  const from = job.status as JobState;
  const edge = transition(from, to);
  job.status = to;
  job.version += 1;
  job.updated_at = t.now;
  if (to !== "QUEUED") job.pending_reasons = "[]";
  // Placed over several fleets and waiting again (a retry, a resume): it may move while it waits.
  else if (t.s.meta(placementKey(job.id)) !== null) t.setTimer(REROUTE_TIMER, t.now + REROUTE_CHECK_MS);
  const event = recordEvent(t, job, from, to, edge.name, actor, detail);
  emitJob(t, job);
  return event;
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
): JobEventRecord {
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
  emit(t, { kind: "event", event, job: eventJob(t.s, job) });
  return event;
}

/** A job's owner and fleet as they ride along with its events, for webhook deliveries. */
export function eventJob(s: FleetState, job: JobRow): EventJob {
  return { user_id: job.user_id, fleet_id: fleetId(s), name: job.name, run_id: job.current_run_id };
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
 * since it started) is lost work, counted in GPU-seconds for the fleet's metrics and, per UTC day, in its
 * usage. A victim that checkpointed on its notice loses only the moments between that checkpoint and its
 * exit. Null: the run was not stopped by a preemption it was told of.
 */
function lostWorkSince(t: Tx, run: RunRow): number | null {
  const raw = t.s.meta(noticeKey(run.id));
  if (!raw || (JSON.parse(raw) as { cause?: string }).cause !== "preempted") return null;
  const ckpt = JSON.parse(t.s.meta(checkpointKey(run.job_id)) ?? "null") as {
    run: string;
    at: number;
  } | null;
  const since = Math.min(t.now, ckpt?.run === run.id ? ckpt.at : (run.started_at ?? run.allocated_at));
  const lost = ((t.now - since) / 1000) * run.gpus;
  t.setMeta(PREEMPTION_LOST_KEY, String(Number(t.s.meta(PREEMPTION_LOST_KEY) ?? 0) + lost));
  return since;
}

/**
 * The `job.preempted` webhook of a released victim: its PAUSED event, with the GPU-seconds it lost and
 * the step it resumes from (the flush adds the steps it trained past that, from its Run DO).
 */
function emitPreempted(t: Tx, run: RunRow, lostGpuSeconds: number): void {
  const raw = t.s.meta(preemptEventKey(run.id));
  if (raw === null) return;
  t.deleteMeta(preemptEventKey(run.id));
  const job = t.s.job(run.job_id);
  if (!job) return;
  const ckpt = JSON.parse(t.s.meta(checkpointKey(run.job_id)) ?? "null") as { step: number | null } | null;
  emit(t, {
    kind: "preempted",
    event: JSON.parse(raw) as JobEventRecord,
    job: { ...eventJob(t.s, job), run_id: run.id },
    released_at: nowIso(t.now),
    lost_gpu_seconds: lostGpuSeconds,
    resume_step: ckpt?.step ?? null,
  });
}

/** Frees a run's GPUs, settles its open launches and records its usage per UTC day. */
export function releaseRun(t: Tx, run: RunRow): void {
  if (run.ended_at !== null) return;
  const nodeIds = new Set((JSON.parse(run.placement) as Placement[]).map((p) => p.node_id));
  t.put({ kind: "free", run_id: run.id });
  const lostSince = lostWorkSince(t, run);
  t.deleteMeta(noticeKey(run.id));
  t.put({ kind: "settle", run_id: run.id, rank: null, command: "launch", at: t.now });
  run.ended_at = t.now;
  run.version += 1;
  putRun(t, run);
  emitRun(t, run);
  const fleet = fleetId(t.s);
  const lost = new Map(
    lostSince === null ? [] : splitByUtcDay(lostSince, t.now, run.gpus).map((u) => [u.day, u.gpuSeconds]),
  );
  emitPreempted(
    t,
    run,
    [...lost.values()].reduce((a, b) => a + b, 0),
  );
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
      lost_gpu_seconds: lost.get(u.day) ?? 0,
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
    diagnosis: t.s.meta(diagnosisKey(run.id)),
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
