/**
 * Failure diagnosis (issue 29, docs/operations.md "Failure diagnosis"): a failed run's job goes FAILED at
 * once, and its diagnosis follows a moment later (DIAGNOSIS_SETTLE_MS: the other ranks' exits and last log
 * lines arrive). The adapter (fleet/diagnoser.ts) reads the run's logs from its Run DO and hands the verdict
 * here; without them (the Run DO did not answer) the verdict rests on the exits and events this object saw.
 * The class then decides the retry (contract/diagnosis-policy.ts), a GPU failure cordons its node, and the
 * FAILED event's `job.failed` webhook goes out carrying the diagnosis.
 */

import type { Entrypoint } from "../../../contract/catalog.schema.js";
import {
  CLASS_POLICY,
  classAction,
  type RunFacts,
  type RunVerdict,
  retryDecision,
  runVerdict,
  type StoredDiagnosis,
} from "../../../contract/diagnosis-policy.js";
import { nowIso } from "../../../contract/ids.js";
import type { JobSpec } from "../../../contract/jobspec.schema.js";
import { type Placement, processLayout } from "../../../contract/launch-request.schema.js";
import { diagnosePendingKey, diagnosisKey, FAILURES_KEY, retriesKey } from "../keys.js";
import { setNodeAdmin } from "../node-admin.js";
import type { JobEventRecord } from "../outbox-entry.js";
import type { RunRow } from "../rows.js";
import type { FleetState } from "../state.js";
import { DIAGNOSIS_SETTLE_MS, diagnoseTimer } from "../timers.js";
import type { Tx } from "../tx.js";
import { config, emit, emitRun, eventJob, putRun } from "./ledger.js";
import { planRetry } from "./retry.js";

/** A failed run waiting for its diagnosis (meta `diagnose_pending:<run>`). */
interface PendingDiagnosis {
  /** Its job's FAILED event: its webhook waits for the diagnosis. */
  event: JobEventRecord;
  infra: boolean;
  /** The rank whose failure failed the run, whether its agent reported its end yet, and what it said. */
  rank?: number;
  agent_seen?: boolean;
  agent_reason?: string | null;
  failed_at?: number;
  /** What the control plane saw end it (a time limit), in epoch milliseconds. */
  events: RunFacts["events"];
}

/** Detail of a FAILED event whose diagnosis is on its way (its webhook waits for it: projections.ts). */
export const DIAGNOSIS_PENDING = "pending";

/**
 * A run failed (its job's FAILED event just recorded, with `diagnosis: "pending"` in its detail): the
 * diagnosis is due once its ranks had a moment to report; the retry waits for it.
 */
export function awaitDiagnosis(
  t: Tx,
  run: RunRow,
  event: JobEventRecord,
  infra: boolean,
  events: RunFacts["events"] = [],
  failed: { rank: number; agentSeen: boolean } | null = null,
): void {
  const pending: PendingDiagnosis = {
    event,
    infra,
    events,
    ...(failed ? { rank: failed.rank, agent_seen: failed.agentSeen, failed_at: t.now } : {}),
  };
  t.setMeta(diagnosePendingKey(run.id), JSON.stringify(pending));
  t.setTimer(diagnoseTimer(run.id), t.now + settleMs(t));
}

/**
 * The agents' words for what only they saw: docker's and Kubernetes' OOMKilled, Slurm's OUT_OF_MEMORY
 * (forgelet/runtimes), and a node gone: Slurm's NODE_FAIL, an agent silent past its grace (rules/agents.ts).
 */
const AGENT_OOM = /OOM.?kill|OUT_OF_MEMORY/i;
const AGENT_NODE_LOST = /was silent for more than|NODE_FAIL/;

/**
 * A run's own runner reported its failure first (a training killed by SIGKILL); what the container runtime
 * saw comes with the agent's report of the same rank, a moment later (docker's OOMKilled): the diagnosis
 * waits for it, up to AGENT_WAIT_MS after the failure (so every diagnosis is made within 10 s), and takes
 * its infrastructure bit and its words.
 */
export const AGENT_WAIT_MS = 8_000;

export function noteAgentExit(
  t: Tx,
  runId: string,
  rank: number,
  infra: boolean,
  reason: string | null,
): void {
  const raw = t.s.meta(diagnosePendingKey(runId));
  if (raw === null) return;
  const p = JSON.parse(raw) as PendingDiagnosis;
  if (p.rank !== rank || p.agent_seen !== false) return;
  const next: PendingDiagnosis = { ...p, agent_seen: true, infra: p.infra || infra, agent_reason: reason };
  t.setMeta(diagnosePendingKey(runId), JSON.stringify(next));
  // Its settle time may be over already: diagnose now.
  t.setTimer(diagnoseTimer(runId), Math.max(t.now, (p.failed_at ?? t.now) + settleMs(t)));
}

function settleMs(t: Tx): number {
  return t.ctx.settings.diagnosisSettleMs ?? DIAGNOSIS_SETTLE_MS;
}

/** Whether a failed run's diagnosis may be made at `now`: its failing rank's agent reported, or waited enough. */
export function diagnosisDue(s: FleetState, runId: string, now: number): boolean {
  const raw = s.meta(diagnosePendingKey(runId));
  if (raw === null) return false;
  const p = JSON.parse(raw) as PendingDiagnosis;
  return p.agent_seen !== false || now >= (p.failed_at ?? 0) + AGENT_WAIT_MS;
}

/**
 * What this fleet knows of a failed run for its diagnosis, or null when none is due. Its ranks are the
 * ranks its logs are stored under: the node ranks, or in `per_gpu` mode every process's global rank (the
 * runner ships each process's lines under it), each with its node; a node's exit goes with its first.
 */
export function runFacts(s: FleetState, runId: string): RunFacts | null {
  const raw = s.meta(diagnosePendingKey(runId));
  const run = s.run(runId);
  if (raw === null || !run) return null;
  const pending = JSON.parse(raw) as PendingDiagnosis;
  const events = [...pending.events];
  const job = s.job(run.job_id);
  const launch = JSON.parse(job?.launch ?? "null") as { entrypoint?: Entrypoint } | null;
  const layout = launch?.entrypoint
    ? processLayout({ entrypoint: launch.entrypoint, placement: JSON.parse(run.placement) as Placement[] })
    : null;
  const perGpu = layout?.mode === "per_gpu";
  const ranks = s.ranks(runId).flatMap((r) => {
    const first = perGpu ? (layout.base[r.rank] ?? r.rank) : r.rank;
    const count = perGpu ? (layout.local[r.rank] ?? 1) : 1;
    const reason = [r.reason, r.rank === pending.rank ? pending.agent_reason : null]
      .filter(Boolean)
      .join("; ");
    if (AGENT_OOM.test(reason)) events.push({ kind: "oom_killed", rank: first, at: r.updated_at });
    if (AGENT_NODE_LOST.test(reason)) events.push({ kind: "node_lost", rank: first, at: r.updated_at });
    const node = s.node(r.node_id)?.name ?? r.node_id;
    return Array.from({ length: count }, (_, i) => ({
      rank: first + i,
      node,
      exit_code: i === 0 && r.state === "exited" ? r.exit_code : null,
      reason: i === 0 ? reason || null : null,
      at: r.updated_at,
    }));
  });
  return { ranks, events, rules: config(s)?.diagnosis?.rules ?? [] };
}

/** The diagnosis timer fired without the adapter (tier 1, or the Run DO unreachable): exits and events only. */
export function diagnoseFromFacts(t: Tx, runId: string): void {
  if (!diagnosisDue(t.s, runId, t.now)) {
    // The agent's report arms it at once (noteAgentExit); without one, it is made at the end of the wait.
    const p = JSON.parse(t.s.meta(diagnosePendingKey(runId)) ?? "{}") as PendingDiagnosis;
    t.setTimer(diagnoseTimer(runId), (p.failed_at ?? t.now) + AGENT_WAIT_MS);
    return;
  }
  const facts = runFacts(t.s, runId);
  if (facts) applyDiagnosis(t, runId, runVerdict(facts, null));
}

/**
 * A failed run's verdict: stored with the run (D1 `runs.diagnosis`, GET /v1/jobs/:id), the FAILED event's
 * webhook sent with it, the failure counted by class, a GPU failure's node cordoned, and the retry decided
 * by the class. A verdict for a run no longer waiting for one changes nothing (a repeat).
 */
export function applyDiagnosis(t: Tx, runId: string, verdict: RunVerdict): void {
  const raw = t.s.meta(diagnosePendingKey(runId));
  const run = t.s.run(runId);
  if (raw === null || !run) return;
  const pending = JSON.parse(raw) as PendingDiagnosis;
  t.deleteMeta(diagnosePendingKey(runId));
  t.cancelTimer(diagnoseTimer(runId));
  const job = t.s.job(run.job_id);
  const fleetRules = config(t.s)?.diagnosis;
  const rule = verdict.rule === null ? undefined : fleetRules?.rules[verdict.rule];
  const policy = classAction(verdict.class, fleetRules, rule);
  const lifecycle = job ? (JSON.parse(job.spec) as JobSpec).lifecycle : null;
  const used = job ? Number(t.s.meta(retriesKey(job.id)) ?? "0") : 0;
  // Still this run's failure to answer: a person may have resumed the job in the meantime.
  const current = job?.status === "FAILED" && job.current_run_id === run.id;
  const decision =
    current && lifecycle
      ? retryDecision(verdict.class, policy, {
          infra: pending.infra,
          retryOnUserFailure: lifecycle.retry_on_user_failure,
          used,
          max: lifecycle.max_retries,
        })
      : { retry: false, why: "the job moved on before its diagnosis (a person acted on it)" };
  const cordoned = policy === "retry_elsewhere" ? cordonFor(t, run, verdict) : null;
  const stored: StoredDiagnosis = {
    ...verdict,
    hint: rule?.hint ?? CLASS_POLICY[verdict.class].hint,
    action: { policy, retried: decision.retry, why: decision.why, cordoned },
    diagnosed_at: nowIso(t.now),
  };
  t.setMeta(diagnosisKey(runId), JSON.stringify(stored));
  const counts = JSON.parse(t.s.meta(FAILURES_KEY) ?? "{}") as Record<string, number>;
  t.setMeta(FAILURES_KEY, JSON.stringify({ ...counts, [stored.class]: (counts[stored.class] ?? 0) + 1 }));
  run.version += 1;
  putRun(t, run);
  emitRun(t, run);
  if (job) {
    const detail = { ...(JSON.parse(pending.event.detail) as Record<string, unknown>), diagnosis: stored };
    emit(t, {
      kind: "diagnosed",
      event: { ...pending.event, detail: JSON.stringify(detail) },
      job: { ...eventJob(t.s, job), run_id: run.id },
    });
    if (decision.retry) planRetry(t, job);
  }
}

/** The node of a GPU failure's rank, cordoned with the diagnosis as its note; its name, or null. */
function cordonFor(t: Tx, run: RunRow, verdict: RunVerdict): string | null {
  const node = verdict.node === null ? null : t.s.nodeByName(verdict.node);
  if (!node) return null;
  const note = `${verdict.class} in run ${run.id} (rank ${verdict.rank}): ${verdict.line?.text ?? verdict.summary}`;
  setNodeAdmin(t, node.id, { cordoned: true, note: note.slice(0, 500) }, "system:diagnosis");
  return node.name;
}

/** The stored diagnosis of a run, or null (it did not fail, or its diagnosis is still on its way). */
export function runDiagnosis(s: FleetState, runId: string): StoredDiagnosis | null {
  const raw = s.meta(diagnosisKey(runId));
  return raw === null ? null : (JSON.parse(raw) as StoredDiagnosis);
}
