/**
 * Jobs and their runs: submit, user actions, retries, and `runEvent` — the one place where what agents
 * and runners report changes a run and its job. A run holds its GPUs until every rank is known to be
 * gone (exited, or never launched), so a stop never frees GPUs under a workload that is still running.
 */

import type { Quota } from "../../../contract/api.schema.js";
import { fail, ok, type Result } from "../../../contract/errors.js";
import type {
  Actor,
  JobAction,
  JobDetail,
  RunEventInput,
  RunEventOutcome,
  SubmitInput,
} from "../../../contract/fleet.schema.js";
import { nowIso } from "../../../contract/ids.js";
import type { StopNotice } from "../../../contract/ingest.schema.js";
import { ACTION_TARGETS, ALLOCATED_STATES, type JobState } from "../../../contract/job-states.js";
import type { JobSpec } from "../../../contract/jobspec.schema.js";
import { DEFAULT_PRIORITY_CLASS } from "../../../contract/priority-classes.js";
import { jobPriority } from "../../../contract/quota.js";
import { movedKey, noticeKey, placementKey, retriesKey } from "../keys.js";
import { GONE_RANK_STATES, type JobRow, type RankRow, type RunRow } from "../rows.js";
import { REROUTE_CHECK_MS, REROUTE_TIMER, runtimeTimer } from "../timers.js";
import type { Tx } from "../tx.js";
import { jobDetail } from "../views.js";
import { abandon, leftFleet, queueRefusal, teamOfJob } from "./admission.js";
import { classOf, preemptionFloor } from "./classes.js";
import { awaitDiagnosis, DIAGNOSIS_PENDING, noteAgentExit } from "./diagnosis.js";
import { armPlacementTimeout, armPreemptWait, handoffOf } from "./handoff-state.js";
import {
  closeRun,
  config,
  emit,
  emitJob,
  fleetId,
  putJob,
  recordEvent,
  releaseRun,
  setStatus,
} from "./ledger.js";

/** Fleets whose cluster enforces a job's time limit itself (Slurm's time limit, KubeRay's deadline). */
const CLUSTER_KINDS = new Set(["slurm", "kuberay"]);
/** How long after a job's time limit the control plane stops a run its cluster has not ended. */
export const CLUSTER_LIMIT_SLACK_MS = 120_000;

/** Seconds a workload gets between SIGTERM and SIGKILL when it is stopped. */
export const STOP_GRACE_SECONDS = 30;

/**
 * Queues admitted jobs, all or none (one, or a job array's). Per-user limits that span fleets (active
 * jobs, the Idempotency-Key) were reserved in the user's object before this call; what is checked here
 * is this fleet's own state. A job id queued once is never queued again (ALREADY_EXISTS: a retry of the
 * same admission reads the job instead), nor after its admission was abandoned.
 */
export function submit(t: Tx, inputs: readonly SubmitInput[]): Result<{ jobs: JobDetail[] }> {
  const cfg = config(t.s);
  if (!cfg) return fail("FLEET_NOT_FOUND", "this fleet is not configured");
  const known = inputs.find((i) => t.s.jobExists(i.jobId) || leftFleet(t, i.jobId));
  if (known) return fail("ALREADY_EXISTS", `job ${known.jobId} already exists`);
  for (const input of inputs) {
    const refused = queueRefusal(t, cfg, input);
    if (refused) return refused;
  }
  let quotaChanged = false;
  const rows = inputs.map((input) => {
    const q = queueJob(t, input);
    quotaChanged ||= q.quotaChanged;
    return q.row;
  });
  if (quotaChanged || rows.length > 1) t.schedule();
  else t.scheduleSubmitted(rows[0]!);
  // Each job's snapshot once, as scheduling left it: a job that waits was just given its pending reasons
  // (and written to the outbox with them), and its JobSpec need not be encoded into the outbox twice.
  for (const r of rows) if (!t.emittedJobs.has(r.id)) emitJob(t, t.s.job(r.id)!);
  return ok({ jobs: rows.map((r) => jobDetail(t.s, r.id)!) });
}

/** One admitted job into the queue, with its admitted event and its ledger entries. */
function queueJob(t: Tx, input: SubmitInput): { row: JobRow; quotaChanged: boolean } {
  // A quota that differs from what the fleet holds changes how the user's other queued jobs are seen.
  const quotaBody = JSON.stringify(input.quota);
  const quotaChanged = t.s.quotaBody(input.userId) !== quotaBody;
  if (quotaChanged) t.put({ kind: "quota", user_id: input.userId, body: quotaBody });
  const spec = input.spec;
  const row: JobRow = {
    id: input.jobId,
    user_id: input.userId,
    name: spec.metadata.name,
    status: "QUEUED",
    priority: input.priority,
    priority_class: spec.lifecycle.priority_class ?? DEFAULT_PRIORITY_CLASS,
    team: teamOfJob(t, input),
    queue_seq: t.counter("queue_seq"),
    gpus: spec.resources.pools.reduce((n, p) => n + p.nodes * p.gpus_per_node, 0),
    recipe: `${spec.recipe.name}@${spec.recipe.version}`,
    spec: JSON.stringify(spec),
    pending_reasons: "[]",
    current_run_id: null,
    attempt: 0,
    version: 1,
    event_seq: 0,
    created_at: t.now,
    updated_at: t.now,
    capsule: input.capsule ? JSON.stringify(input.capsule) : null,
    launch: JSON.stringify(input.launch),
    unconfirmed: input.unconfirmed ? 1 : 0,
  };
  putJob(t, row);
  t.queuedSpecs.set(row.id, spec);
  armPlacementTimeout(t, row, spec);
  // Placed over several fleets: while it waits it may move to another of them (rules/reroute.ts).
  const fleets = input.placement?.filter((c) => c.eligible).map((c) => c.fleet);
  if (fleets && fleets.length > 1) {
    t.setMeta(placementKey(row.id), JSON.stringify(fleets));
    armPreemptWait(t, row, spec);
    t.setTimer(REROUTE_TIMER, t.now + REROUTE_CHECK_MS);
  }
  const digests = [...input.blobDigests, ...Object.values(input.capsule ?? {})];
  if (digests.length > 0) emit(t, { kind: "blob_refs", job_id: input.jobId, digests });
  emit(t, {
    kind: "admission",
    job_id: input.jobId,
    user_id: input.userId,
    fleet_id: fleetId(t.s),
    idem_key: input.idemKey ?? null,
    request_hash: input.requestHash ?? null,
    created_at: nowIso(t.now),
  });
  recordEvent(
    t,
    row,
    null,
    "QUEUED",
    "admitted",
    `user:${input.userName}`,
    input.placement ? { placement: input.placement } : {},
  );
  // Its snapshot goes to the outbox once scheduling decided about it (submit).
  return { row, quotaChanged };
}

/**
 * The submitter's reservation of jobs queued unconfirmed was taken (the Worker, a read that waits for
 * them, a retry with the same key, or the user's object settling it says so): what the fleet decided for
 * them stands, and what it held back (their outbox entries, their agents' commands) goes out. Under a
 * quota other than the one they were queued with (the Worker's last sight of it), the user's jobs are
 * decided again. Jobs already confirmed, withdrawn or unknown are left as they are. Answers the ids it
 * confirmed.
 */
export function confirmAdmissions(t: Tx, jobIds: readonly string[], quota: Quota): string[] {
  const body = JSON.stringify(quota);
  const confirmed: string[] = [];
  let quotaChanged = false;
  for (const id of jobIds) {
    const u = t.s.unconfirmedJob(id);
    if (!u) continue;
    confirmed.push(id);
    // The quota it was queued under, as is the rule: nothing to decide again.
    if (t.s.quotaBody(u.user) === body) continue;
    const job = t.s.job(id)!;
    t.put({ kind: "quota", user_id: job.user_id, body });
    quotaChanged = true;
    const spec = t.queuedSpecs.get(id) ?? (JSON.parse(job.spec) as JobSpec);
    const priority = jobPriority(spec.lifecycle.priority, quota);
    if (priority !== job.priority) {
      job.priority = priority;
      job.version += 1;
      job.updated_at = t.now;
      putJob(t, job);
      emitJob(t, job);
    }
  }
  if (confirmed.length > 0) t.put({ kind: "confirmed", ids: confirmed });
  if (quotaChanged) t.schedule();
  else {
    // A job that waits for capacity only could not preempt before its confirmation: it may now.
    const floor = preemptionFloor(t.s);
    for (const id of confirmed) {
      const job = t.s.job(id);
      if (job?.status !== "QUEUED" || classOf(t.s, job.priority_class).value <= floor) continue;
      const reasons = JSON.parse(job.pending_reasons) as Array<{ code: string }>;
      if (reasons.length > 0 && reasons.every((r) => r.code === "CAPACITY")) t.scheduleSubmitted(job);
    }
  }
  return confirmed;
}

/**
 * The submitter's reservation of jobs queued unconfirmed was refused, or never made: each is undone as if
 * never queued (its run, GPUs, unsent commands and held-back outbox entries with it; no agent and no
 * reader was told of it), its id abandoned (never queued again), and the GPUs it held are offered to the
 * queue. Jobs already confirmed are left as they are. Answers the ids removed.
 */
export function withdrawAdmissions(t: Tx, jobIds: readonly string[]): string[] {
  const out: string[] = [];
  for (const id of jobIds) {
    const job = t.s.job(id);
    if (!job || job.unconfirmed === 0) continue;
    t.put({ kind: "job_gone", id });
    // A drain may have held it meanwhile: its report forgets it with the job.
    t.deleteMeta(movedKey(id));
    abandon(t, id);
    out.push(id);
  }
  if (out.length > 0) t.schedule();
  return out;
}

/**
 * The user's object asks about reservations no report settled: each job queued here answers with its
 * status and version; a job id never queued is marked abandoned (never queued from now on) and answers null.
 */
export function settleAdmissions(
  t: Tx,
  jobIds: readonly string[],
): Record<string, { status: string; version: number } | null> {
  const out: Record<string, { status: string; version: number } | null> = {};
  for (const id of jobIds) {
    const job = t.s.job(id);
    if (job) out[id] = { status: job.status, version: job.version };
    else {
      abandon(t, id);
      out[id] = null;
    }
  }
  return out;
}

/** stop / pause / resume by a person; acting on a job takes it over from a drain or window. */
export function action(
  t: Tx,
  jobId: string,
  act: JobAction,
  actor: Actor,
  reason: string | undefined,
): Result<JobDetail> {
  const job = t.s.job(jobId);
  if (!job) return fail("JOB_NOT_FOUND", `no job ${jobId} in this fleet`);
  if (!actor.admin && job.user_id !== actor.userId)
    return fail("FORBIDDEN", "you may only act on your own jobs");
  if (job.unconfirmed)
    return fail(
      "CONFLICT",
      `job ${jobId} is still being admitted (a moment after its submit); retry shortly`,
    );
  const leaving = handoffOf(t.s, jobId);
  if (leaving)
    return fail(
      "CONFLICT",
      `job ${jobId} is moving to fleet ${leaving.to.name}, which can start it sooner; retry in a moment`,
      { fleet: leaving.to.name },
    );
  const from = job.status as JobState;
  const to = ACTION_TARGETS[act][from];
  if (!to) {
    const allowed = Object.keys(ACTION_TARGETS[act]).join(", ");
    return fail("INVALID_TRANSITION", `cannot ${act} a job that is ${from}; ${act} applies to ${allowed}`, {
      status: from,
    });
  }
  const run = job.current_run_id ? t.s.run(job.current_run_id) : null;
  if (act === "resume") t.deleteMeta(retriesKey(job.id));
  t.deleteMeta(movedKey(job.id));
  // The status first, so the scheduling pass a stop may cause never sees this job as still queued.
  setStatus(t, job, to, `user:${actor.name}`, reason ? { reason } : {});
  // Stop and pause end the current run. A resume never touches the previous run: if its agent has not
  // confirmed the stop yet, that run keeps its status and GPUs until it does.
  if (run && run.ended_at === null && act !== "resume") stopRun(t, run, to, `${act} by ${actor.name}`);
  t.schedule();
  return ok(jobDetail(t.s, jobId)!);
}

/**
 * Ends a run on the control plane's side: ranks never handed to an agent are cancelled, ranks an agent
 * may be running get a stop command. GPUs are released once no rank can still be running.
 */
export function stopRun(
  t: Tx,
  run: RunRow,
  status: string,
  reason: string,
  graceSeconds = STOP_GRACE_SECONDS,
  preemptedBy: string | null = null,
): void {
  closeRun(t, run, status, reason, null);
  let told = false;
  for (const r of t.s.ranks(run.id)) told = stopRank(t, run, r, reason, graceSeconds) || told;
  // What its runner reads when the SIGTERM comes (GET /v1/ingest/notice); the first stop's deadline holds.
  if (told && t.s.meta(noticeKey(run.id)) === null) {
    const notice: StopNotice = {
      reason,
      deadline: nowIso(t.now + graceSeconds * 1000),
      grace_seconds: graceSeconds,
      cause: preemptedBy ? "preempted" : "stopped",
      preempted_by: preemptedBy,
    };
    t.setMeta(noticeKey(run.id), JSON.stringify(notice));
  }
  releaseIfGone(t, run);
}

function setRank(t: Tx, r: RankRow, state: string, exitCode: number | null, reason: string | null): void {
  t.put({ kind: "rank", row: { ...r, state, exit_code: exitCode, reason, updated_at: t.now } });
}

/** Ends one rank; true when an agent is told to stop it (a stop command), false when nothing runs. */
function stopRank(
  t: Tx,
  run: RunRow,
  r: RankRow,
  reason: string,
  graceSeconds = STOP_GRACE_SECONDS,
): boolean {
  if (GONE_RANK_STATES.has(r.state)) return false;
  const open = t.s.openCommands(r.node_id).filter((c) => c.run_id === run.id && c.rank === r.rank);
  const launch = open.find((c) => c.kind === "launch");
  if (r.state === "pending" && (!launch || launch.sent_at === null)) {
    // Never reached an agent: nothing can be running.
    setRank(t, r, "cancelled", null, reason);
    t.put({ kind: "settle", run_id: run.id, rank: r.rank, command: "launch", at: t.now });
    return false;
  }
  if (!open.some((c) => c.kind === "stop")) {
    t.put({
      kind: "command",
      row: {
        id: t.newId("cmd"),
        node_id: r.node_id,
        run_id: run.id,
        rank: r.rank,
        kind: "stop",
        payload: JSON.stringify({ epoch: run.epoch, grace_seconds: graceSeconds, reason }),
        created_at: t.now,
      },
    });
  }
  return true;
}

function releaseIfGone(t: Tx, run: RunRow): void {
  if (run.ended_at !== null) return;
  if (t.s.ranks(run.id).every((r) => GONE_RANK_STATES.has(r.state))) {
    releaseRun(t, run);
    t.schedule();
  }
}

/** Applies one report about one rank of a run (rules/events.ts adds what a drain makes of it). */
export function applyRunEvent(t: Tx, e: RunEventInput): Omit<RunEventOutcome, "runOver"> {
  const run = t.s.run(e.runId);
  if (!run) return { kind: "unknown_run", stopWorkload: true };
  if (e.epoch !== run.epoch) return { kind: "stale_epoch", stopWorkload: true };
  const rank = t.s.ranks(run.id).find((r) => r.rank === e.rank);
  if (!rank) return { kind: "unknown_run", stopWorkload: true };
  const running =
    e.event === "accepted" || e.event === "waiting" || e.event === "launched" || e.event === "started";
  // The agent's word on a rank its runner already reported, for the diagnosis waiting on it (an OOM kill
  // only the container runtime saw).
  if (!running && e.source === "agent") noteAgentExit(t, run.id, rank.rank, e.infra, e.reason);
  // A released run, or a rank already gone, is over: whatever still runs for it must stop (fencing). A
  // rank that already reported its own exit (its runner's `succeeded`/`failed`, with a code) is only
  // finishing, and an agent that polls a cluster can hear of its start after that: it gets a moment to
  // exit by itself, so Slurm records it COMPLETED or FAILED, not CANCELLED.
  if (run.ended_at !== null || GONE_RANK_STATES.has(rank.state)) {
    const finishing =
      running &&
      rank.state === "exited" &&
      rank.exit_code !== null &&
      !["STOPPED", "PAUSED"].includes(run.status);
    return { kind: "ignored", stopWorkload: running, ...(finishing ? { finishing } : {}) };
  }
  const job = t.s.job(run.job_id)!;
  const current =
    job.current_run_id === run.id &&
    ALLOCATED_STATES.has(job.status as JobState) &&
    !["STOPPED", "PAUSED"].includes(run.status);
  const actor = `${e.source}:${rank.node_id}`;

  if (e.event === "accepted") {
    if (rank.state === "pending") setRank(t, rank, "accepted", null, null);
    t.put({ kind: "settle", run_id: run.id, rank: rank.rank, command: "launch", at: t.now });
    if (current && job.status === "SUBMITTED") setStatus(t, job, "PENDING", actor, { rank: rank.rank });
    return { kind: "applied", stopWorkload: !current };
  }
  if (e.event === "waiting") {
    // Handed to a cluster's own scheduler (Slurm), which holds it: the job is PENDING, and says why.
    if (rank.state === "pending") setRank(t, rank, "accepted", null, null);
    t.put({ kind: "settle", run_id: run.id, rank: rank.rank, command: "launch", at: t.now });
    if (current && job.status === "SUBMITTED") setStatus(t, job, "PENDING", actor, { rank: rank.rank });
    if (current && job.status === "PENDING") setWaiting(t, job, rank.rank, e.reason ?? "waiting");
    return { kind: "applied", stopWorkload: !current };
  }
  if (running) {
    if (rank.state !== "launched") setRank(t, rank, "launched", null, null);
    t.put({ kind: "settle", run_id: run.id, rank: rank.rank, command: "launch", at: t.now });
    if (current) markStarted(t, job, run, actor, rank.rank);
    return { kind: "applied", stopWorkload: !current };
  }

  // The rank is gone: exited, stopped, failed to launch, or its runner reported the end.
  const code = e.exitCode ?? (e.event === "succeeded" ? 0 : null);
  const reason = e.reason ?? describeExit(e.event, code);
  setRank(t, rank, "exited", code, reason);
  t.put({ kind: "settle", run_id: run.id, rank: rank.rank, command: "launch", at: t.now });
  t.put({ kind: "settle", run_id: run.id, rank: rank.rank, command: "stop", at: t.now });
  if (current) {
    // Reports may be applied out of order (frames are independent). Any end other than launch_failed
    // means the workload ran, so the job passes through RUNNING first, whatever arrived before.
    if (e.event !== "launch_failed") markStarted(t, job, run, actor, rank.rank);
    const failed = e.event === "failed" || e.event === "launch_failed" || e.event === "stopped" || code !== 0;
    if (failed) failRun(t, job, run, rank.rank, code, reason, e.infra, actor, e.source === "agent");
    else if (t.s.ranks(run.id).every((r) => r.state === "exited" && r.exit_code === 0)) {
      closeRun(t, run, "SUCCEEDED", "all ranks exited 0", 0);
      setStatus(t, job, "SUCCEEDED", actor, { exit_code: 0 });
    }
  }
  releaseIfGone(t, run);
  return { kind: "applied", stopWorkload: false };
}

/** The cluster's reason for holding a rank, as the job's pending reason (cleared when it starts). */
function setWaiting(t: Tx, job: JobRow, rank: number, reason: string): void {
  const json = JSON.stringify([
    {
      code: "RUNTIME_WAITING",
      message: `the cluster holds rank ${rank} in its queue: ${reason}`,
      details: { rank, reason },
    },
  ]);
  if (json === job.pending_reasons) return;
  job.pending_reasons = json;
  job.version += 1;
  job.updated_at = t.now;
  putJob(t, job);
  emitJob(t, job);
}

/** SUBMITTED/PENDING → RUNNING along the table's edges (ack, started); a no-op once RUNNING. */
function markStarted(t: Tx, job: JobRow, run: RunRow, actor: string, rank: number): void {
  if (job.status === "SUBMITTED") setStatus(t, job, "PENDING", actor, { rank });
  if (job.status === "PENDING") {
    setStatus(t, job, "RUNNING", actor, { rank });
    run.started_at = t.now;
    closeRun(t, run, "RUNNING", null, null);
    // Its time limit counts from here. A cluster (Slurm, KubeRay) enforces its own, from its own start: the
    // control plane's is then a backstop, a little later, so the cluster's verdict (TIMEOUT) comes first.
    const max = (JSON.parse(job.spec) as JobSpec).lifecycle.max_runtime_seconds;
    const slack = CLUSTER_KINDS.has(config(t.s)?.kind ?? "") ? CLUSTER_LIMIT_SLACK_MS : 0;
    if (max !== undefined) t.setTimer(runtimeTimer(run.id), t.now + max * 1000 + slack);
  }
}

/**
 * A run reached its job's `max_runtime_seconds` (on a cluster fleet, and the cluster did not end it within
 * CLUSTER_LIMIT_SLACK_MS): it is stopped and the job FAILED (`reason` says so, code TIMEOUT), not retried
 * (a new attempt would meet the same limit). Placement estimates a fleet's next free GPUs from these
 * limits (contract/placement.ts).
 */
export function maxRuntimeOver(t: Tx, runId: string): void {
  const run = t.s.run(runId);
  const job = run ? t.s.job(run.job_id) : null;
  if (!run || !job || run.ended_at !== null || job.status !== "RUNNING" || job.current_run_id !== runId)
    return;
  const max = (JSON.parse(job.spec) as JobSpec).lifecycle.max_runtime_seconds;
  const reason = `it reached its max_runtime_seconds (${max} s)`;
  const event = setStatus(t, job, "FAILED", "system:runtime", {
    reason,
    code: "TIMEOUT",
    infra: false,
    diagnosis: DIAGNOSIS_PENDING,
  });
  stopRun(t, run, "FAILED", reason);
  awaitDiagnosis(t, run, event, false, [{ kind: "max_runtime", at: t.now }]);
  t.schedule();
}

/** One rank failed: the job fails, and every other rank of the gang is stopped. */
function failRun(
  t: Tx,
  job: JobRow,
  run: RunRow,
  rank: number,
  code: number | null,
  reason: string,
  infra: boolean,
  actor: string,
  byAgent: boolean,
): void {
  // In a gang the reason says which rank, and where: the first thing a user needs to find the culprit.
  const ranks = t.s.ranks(run.id);
  const where = ranks.find((r) => r.rank === rank)?.node_id;
  const named =
    ranks.length > 1 ? `rank ${rank} on ${(where && t.s.node(where)?.name) ?? where}: ${reason}` : reason;
  closeRun(t, run, "FAILED", named, code);
  const event = setStatus(t, job, "FAILED", actor, {
    rank,
    exit_code: code,
    reason: named,
    infra,
    diagnosis: DIAGNOSIS_PENDING,
  });
  for (const r of t.s.ranks(run.id)) if (r.rank !== rank) stopRank(t, run, r, `rank ${rank} failed`);
  // Whether it is retried is the diagnosis's to say (rules/diagnosis.ts), a moment from now; a failure its
  // runner reported first waits for its agent's word too (a node with no agent has none to give).
  const agentless = where !== undefined && t.s.node(where)?.agent !== 1;
  awaitDiagnosis(t, run, event, infra, [], { rank, agentSeen: byAgent || agentless });
}

function describeExit(event: RunEventInput["event"], code: number | null): string {
  if (event === "launch_failed") return "the runtime could not start the workload";
  if (event === "stopped") return "stopped by the agent";
  if (code === null) return `${event} without an exit code`;
  if (code > 128) return `killed by signal ${code - 128}`;
  return `exited with code ${code}`;
}
