/** The Fleet DO's read views: what its RPC returns about jobs, runs and nodes. Pure reads of the state. */

import { defaultWorkloads, WORKLOAD_KINDS } from "../../contract/agent-frames.schema.js";
import type { TimeWindow } from "../../contract/api.schema.js";
import type { StoredDiagnosis } from "../../contract/diagnosis-policy.js";
import type { FleetInspect, JobDetail, NodeView, RunView } from "../../contract/fleet.schema.js";
import { nowIso } from "../../contract/ids.js";
import { ALLOCATED_STATES, type JobState } from "../../contract/job-states.js";
import type { Placement, ResumeFrom } from "../../contract/launch-request.schema.js";
import type { PendingReason } from "../../contract/pending-reasons.schema.js";
import { nodeAdmin, nodeOrphans } from "./node-admin.js";
import type { AllocRow, NodeRow, RunRow } from "./rows.js";
import { runDiagnosis } from "./rules/diagnosis.js";
import { allocationsByNode, config, fleetId } from "./rules/ledger.js";
import type { FleetState } from "./state.js";

export function runView(
  r: RunRow,
  resume: string | undefined,
  diagnosis: StoredDiagnosis | null = null,
): RunView {
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
    borrowed: r.borrowed === 1,
    // The stored shape is the view's (DiagnosisView is loose: it only adds an index signature).
    diagnosis: diagnosis as RunView["diagnosis"],
  };
}

export function jobDetail(s: FleetState, jobId: string): JobDetail | null {
  const job = s.job(jobId);
  if (!job) return null;
  return {
    id: job.id,
    name: job.name,
    user_id: job.user_id,
    fleet_id: fleetId(s),
    status: job.status as JobState,
    priority: job.priority,
    priority_class: job.priority_class,
    team: job.team,
    gpus: job.gpus,
    recipe: job.recipe,
    pending_reasons: JSON.parse(job.pending_reasons) as PendingReason[],
    current_run_id: job.current_run_id,
    created_at: nowIso(job.created_at),
    updated_at: nowIso(job.updated_at),
    // A job never dispatched (attempt 0) has no run: every admission's answer skips the read.
    runs:
      job.attempt === 0
        ? []
        : s.runsOfJob(jobId).map((r) => runView(r, s.runResume(r.id), runDiagnosis(s, r.id))),
  };
}

export function nodeView(
  s: FleetState,
  n: NodeRow,
  allocs: readonly AllocRow[] = s.allocations().filter((a) => a.node_id === n.id),
): NodeView {
  const admin = nodeAdmin(s, n.id);
  const orphans = nodeOrphans(s, n.id);
  const gpus = [];
  for (let i = 0; i < n.gpus; i++) {
    const a = allocs.find((x) => x.idx === i);
    gpus.push({ index: i, run_id: a?.run_id ?? null, job_id: a ? (s.run(a.run_id)?.job_id ?? null) : null });
  }
  return {
    id: n.id,
    name: n.name,
    series: n.series,
    status: n.status,
    agent: n.agent === 1,
    lost_since: n.lost_since === null ? null : nowIso(n.lost_since),
    runtime: n.runtime,
    advertise_addr: n.advertise_addr,
    agent_id: n.agent_id,
    status_reason: n.status_reason,
    workloads: n.workloads
      ? (JSON.parse(n.workloads) as string[])
      : n.runtime
        ? defaultWorkloads(n.runtime)
        : [...WORKLOAD_KINDS],
    labels: JSON.parse(n.labels) as Record<string, string>,
    gpus,
    cordoned: admin?.cordoned ?? false,
    cordon_note: admin?.cordoned ? admin.note : null,
    revoked: admin?.revoked_at != null,
    orphans: orphans?.orphans ?? [],
  };
}

export function inspect(s: FleetState): FleetInspect {
  const cfg = config(s);
  const byNode = allocationsByNode(s);
  const nodes = s.nodes().map((n) => nodeView(s, n, byNode.get(n.id) ?? []));
  const total = nodes.reduce((sum, n) => sum + n.gpus.length, 0);
  const allocated = [...byNode.values()].reduce((sum, list) => sum + list.length, 0);
  const queued = s.jobsByStatus("QUEUED");
  const running = [...ALLOCATED_STATES].reduce((n, st) => n + s.jobsByStatus(st).length, 0);
  return {
    fleet_id: fleetId(s),
    draining: cfg?.draining ?? false,
    drain_note: cfg?.drainNote ?? null,
    windows: (cfg?.windows ?? []) as TimeWindow[],
    nodes,
    totals: { gpus: total, allocated, free: total - allocated, queued: queued.length, running },
    queue: queued.map((j) => ({
      job_id: j.id,
      user_id: j.user_id,
      priority: j.priority,
      priority_class: j.priority_class,
      team: j.team,
      gpus: j.gpus,
      pending_reasons: JSON.parse(j.pending_reasons) as PendingReason[],
    })),
  };
}
