/**
 * Configuration, quotas, admin-registered nodes and the scheduling pass: the pure policy
 * (scheduler/policy.ts) chooses, these rules turn its choice into runs, ranks, GPU bookings and launch
 * commands. Every entry point ends in `schedule`, which also runs the time-window pass around it.
 */
import type { WorkloadKind } from "../../../contract/agent-frames.schema.js";
import { DEFAULT_QUOTA, type Quota, QuotaBody, type RegisterNodeBody } from "../../../contract/api.schema.js";
import { fail, ok, type Result } from "../../../contract/errors.js";
import type { FleetConfig, NodeView } from "../../../contract/fleet.schema.js";
import type { JobSpec } from "../../../contract/jobspec.schema.js";
import type { Placement } from "../../../contract/launch-request.schema.js";
import type { PendingReason } from "../../../contract/pending-reasons.schema.js";
import { quotaFromJson } from "../../../contract/quota.js";
import { cordonedNodes } from "../node-admin.js";
import type { JobRow, NodeRow, RunRow } from "../rows.js";
import {
  type Decision,
  decide,
  type PolicyInput,
  type QueuedJobInput,
  type UserInput,
} from "../scheduler/policy.js";
import { overlapGpuSeconds } from "../scheduler/usage.js";
import { SCHEDULE_TIMER } from "../timers.js";
import type { Tx } from "../tx.js";
import { nodeView } from "../views.js";
import { budgetOf, budgetReason } from "./budgets.js";
import { classOf, mayBorrow, preemptionFloor, priorityClasses } from "./classes.js";
import { handoffJobs, noPreemptUntil } from "./handoff-state.js";
import { config, emitJob, emitNode, emitRun, putJob, putNode, putRun, setStatus } from "./ledger.js";
import { armWindowTimer, budgetPass, windowPass } from "./lifecycle.js";
import {
  applyPreemptions,
  holdsForPass,
  preemptionBudget,
  preemptionWake,
  previousRunStopping,
  stillRunning,
  victimCandidates,
  withStalled,
} from "./preempt.js";
import { teamsInput } from "./teams.js";

const DAY_MS = 86_400_000;

export function configure(t: Tx, cfg: FleetConfig): void {
  const current = t.s.meta("fleet_id");
  if (current && current !== cfg.id)
    throw new Error(`fleet DO for ${current} cannot be reconfigured as ${cfg.id}`);
  t.setMeta("fleet_id", cfg.id);
  t.setMeta("config", JSON.stringify(cfg));
  schedule(t);
}

export function setQuota(t: Tx, userId: string, quota: Quota): void {
  t.put({ kind: "quota", user_id: userId, body: JSON.stringify(QuotaBody.parse(quota)) });
  schedule(t);
}

/** An admin-registered node (no agent): capacity for the scheduler, always ready. */
export function registerNode(t: Tx, input: RegisterNodeBody): Result<NodeView> {
  const existing = t.s.nodeByName(input.name);
  if (existing?.agent === 1)
    return fail("CONFLICT", `node ${input.name} belongs to an agent; it registers itself`);
  if (existing) {
    const held = t.s.allocatedOn(existing.id);
    const tooHigh = held.filter((g) => g >= input.gpus);
    if (tooHigh.length > 0) {
      return fail(
        "CONFLICT",
        `node ${input.name} has GPUs ${tooHigh.join(", ")} allocated; it cannot shrink to ${input.gpus}`,
      );
    }
    if (existing.series !== input.series && held.length > 0) {
      return fail("CONFLICT", `node ${input.name} has allocations; it cannot change series while busy`);
    }
  }
  const row: NodeRow = {
    id: existing?.id ?? t.newId("nod"),
    name: input.name,
    series: input.series,
    gpus: input.gpus,
    status: "ready",
    runtime: input.runtime ?? null,
    labels: JSON.stringify(input.labels ?? {}),
    cpus: input.cpus ?? null,
    memory_mb: input.memory_mb ?? null,
    version: (existing?.version ?? 0) + 1,
    created_at: existing?.created_at ?? t.now,
    updated_at: t.now,
    agent: 0,
    hostname: null,
    lost_since: null,
    advertise_addr: null,
    agent_id: null,
    status_reason: null,
    workloads: null,
  };
  putNode(t, row);
  schedule(t);
  return ok(nodeView(t.s, t.s.node(row.id)!));
}

/**
 * One scheduling pass: stop what runs in a closed window and resume what reopened, dispatch what fits,
 * refresh pending reasons, and arm the wake-up timers. Passes caused by the window pass itself (a stop
 * that frees GPUs) only dispatch.
 */
export function schedule(t: Tx): void {
  if (t.inWindowPass) {
    dispatchPass(t);
    return;
  }
  t.inWindowPass = true;
  try {
    windowPass(t);
    budgetPass(t);
    dispatchPass(t);
    // After dispatch: what was just placed must be stopped when its window closes.
    armWindowTimer(t);
  } finally {
    t.inWindowPass = false;
  }
}

/**
 * The queued jobs a full pass decides, and those it does not: a resumed job waits until its previous run
 * has released its GPUs (that run may still be writing the checkpoint the next run starts from); a job
 * being handed to another fleet (rules/reroute.ts) is not this fleet's to place until that fleet answers.
 */
function passQueue(t: Tx): { queued: JobRow[]; decided: JobRow[]; settling: Map<string, PendingReason[]> } {
  const leaving = handoffJobs(t.s);
  const queued = t.s.jobsByStatus("QUEUED").filter((j) => !leaving.has(j.id));
  const settling = new Map<string, PendingReason[]>();
  for (const j of queued) {
    const prev = j.current_run_id ? t.s.run(j.current_run_id) : null;
    if (prev && prev.ended_at === null) settling.set(j.id, [previousRunStopping(prev.id)]);
  }
  return { queued, decided: queued.filter((j) => !settling.has(j.id)), settling };
}

function dispatchPass(t: Tx): void {
  const cfg = config(t.s);
  if (!cfg) return;
  t.passed = true;
  const { queued, decided, settling } = passQueue(t);
  const decision = decide(policyInput(t, cfg, decided));
  applyDecision(t, decision, queued, (id) => settling.get(id) ?? decision.pending[id]);
}

/**
 * Whether a full pass would start `job` now were it queued here (it is not yet: a job another fleet
 * offers, rules/reroute.ts): null if so, else why it would wait. Decides nothing.
 */
export function wouldWait(t: Tx, job: JobRow): PendingReason[] | null {
  const cfg = config(t.s);
  if (!cfg) return [];
  const decision = decide(policyInput(t, cfg, [...passQueue(t).decided, job]));
  return decision.dispatch.some((d) => d.jobId === job.id) ? null : (decision.pending[job.id] ?? []);
}

/** Dispatches what the policy placed, starts its preemptions, records every pending reason. */
function applyDecision(
  t: Tx,
  decision: Decision,
  queued: readonly JobRow[],
  reasonsOf: (jobId: string) => PendingReason[] | undefined,
): void {
  for (const d of decision.dispatch) dispatch(t, t.s.job(d.jobId)!, d.placement, d.borrowed ?? false);
  applyPreemptions(t, decision);
  const classValue = (id: string) => {
    const job = queued.find((j) => j.id === id);
    return job ? classOf(t.s, job.priority_class).value : 0;
  };
  const wake = preemptionWake(t, decision, classValue);
  if (wake !== null) t.setTimer(SCHEDULE_TIMER, wake);
  recordPending(t, queued, (id) => {
    const reasons = reasonsOf(id);
    return reasons ? withStalled(t.s, id, reasons) : reasons;
  });
}

/**
 * Schedules a job just queued. When the fleet is steady (Ledger.steady: nothing changed since the last
 * full pass, which left no queued job placeable), a full pass would give every other queued job the
 * decision it already has, so the new job is decided alone: O(1) in the queue length. Only when it can
 * start now (or preempt) and other jobs wait does the full pass run (that changes what those jobs see).
 */
export function scheduleSubmitted(t: Tx, job: JobRow): void {
  const cfg = config(t.s);
  if (!t.steady || !cfg) {
    schedule(t);
    return;
  }
  const decision = decide(policyInput(t, cfg, [job]));
  const placed = decision.dispatch[0];
  if (decision.released.length > 0) {
    // A hold broke (a node went away): the full pass places its job again with every waiting job.
    schedule(t);
    return;
  }
  if (decision.preempt.length > 0) {
    // It displaces running jobs. What a full pass would do is exactly this: every job waiting before it
    // already tried (the last full pass, or its own submit) and would fail again, with the same or fewer
    // candidates and free GPUs; the victims it stops were running, so no waiting job sees more room.
    applyDecision(t, decision, [job], (id) => decision.pending[id]);
    return;
  }
  if (placed && t.s.queuedCount() === 1) {
    // Nothing else waits: what a full pass would do is exactly this dispatch.
    dispatch(t, job, placed.placement, placed.borrowed ?? false);
    armWindowTimer(t);
    return;
  }
  if (placed) {
    // It starts now, which changes what the jobs behind it see: the full pass decides them all.
    schedule(t);
    return;
  }
  applyDecision(t, decision, [job], (id) => decision.pending[id]);
}

/** What the policy sees: the fleet's nodes and their free GPUs, the given queued jobs and their users. */
function policyInput(t: Tx, cfg: FleetConfig, queue: readonly JobRow[]): PolicyInput {
  const classes = priorityClasses(t.s);
  const teams = teamsInput(t);
  return {
    now: t.now,
    draining: cfg.draining ? { note: cfg.drainNote ?? "" } : null,
    windows: cfg.windows,
    nodes: t.s.memo.get("policy_nodes", () => policyNodes(t)),
    queue: queue.map((j) => ({
      id: j.id,
      userId: j.user_id,
      priority: j.priority,
      queueSeq: j.queue_seq,
      ...specInput(t, j),
      needsImage: (JSON.parse(j.launch ?? "null") as { image?: string | null } | null)?.image != null,
      classValue: (classes.get(j.priority_class) ?? classOf(t.s, j.priority_class)).value,
      ...(j.unconfirmed ? { unconfirmed: true } : {}),
      ...(teams ? { team: j.team, mayBorrow: mayBorrow(classOf(t.s, j.priority_class)) } : {}),
      ...budgetInput(t, j, teams !== null),
    })),
    ...(teams ? { teams } : {}),
    users: userInputs(t, new Set(queue.map((j) => j.user_id))),
    reservations: holdsForPass(t),
    preemption: {
      victims: () => victimCandidates(t),
      sorted: true,
      alive: (v) => stillRunning(t.s, v),
      budget: preemptionBudget(t),
      floor: preemptionFloor(t.s),
    },
  };
}

/** What the policy reads of a job's spec: its pools, and until when it may not preempt. */
function specInput(t: Tx, j: JobRow): Pick<QueuedJobInput, "pools" | "noPreemptUntil"> {
  const spec = t.queuedSpecs.get(j.id) ?? (JSON.parse(j.spec) as JobSpec);
  const until = noPreemptUntil(t.s, j, spec);
  return until === null
    ? { pools: spec.resources.pools }
    : { pools: spec.resources.pools, noPreemptUntil: until };
}

/**
 * A job of a team whose budget is spent: under `refuse` and `pause` it waits for the next period; under
 * `borrow_free` it may not borrow (where teams govern its GPUs; elsewhere nothing is borrowed).
 */
function budgetInput(t: Tx, j: JobRow, governed: boolean): Partial<QueuedJobInput> {
  const b = budgetOf(t.s, j, t.now);
  if (!b || !j.team) return {};
  const reason = budgetReason(j.team, b);
  if (b.policy !== "borrow_free") return { hold: reason };
  return governed ? { mayBorrow: false, noBorrow: reason } : {};
}

/** The nodes as placement sees them (the policy only reads them: the store keeps them between decisions). */
function policyNodes(t: Tx): PolicyInput["nodes"] {
  const used = t.s.usedGpus();
  const cordoned = cordonedNodes(t.s);
  return t.s.nodes().map((n) => ({
    id: n.id,
    name: n.name,
    series: n.series,
    gpus: n.gpus,
    schedulable: n.status === "ready" && !cordoned.has(n.id),
    used: used.get(n.id) ?? [],
    runtime: n.runtime,
    workloads: n.workloads === null ? null : (JSON.parse(n.workloads) as WorkloadKind[]),
    domain: n.agent_id,
  }));
}

/** Stores each still-queued job's pending reasons where they changed, and arms the earliest wake-up. */
function recordPending(
  t: Tx,
  queued: readonly JobRow[],
  reasonsOf: (jobId: string) => PendingReason[] | undefined,
): void {
  let wake: number | null = null;
  for (const queuedJob of queued) {
    const reasons = reasonsOf(queuedJob.id);
    if (!reasons) continue;
    const json = JSON.stringify(reasons);
    const job = t.s.job(queuedJob.id)!;
    if (json !== job.pending_reasons) {
      job.pending_reasons = json;
      job.version += 1;
      job.updated_at = t.now;
      putJob(t, job);
      emitJob(t, job);
    }
    for (const r of reasons) {
      const at = wakeTime(r, t.now);
      if (at !== null && (wake === null || at < wake)) wake = at;
    }
  }
  if (wake !== null) t.setTimer(SCHEDULE_TIMER, wake);
}

/** QUEUED → SUBMITTED: a new run holds the GPUs; each rank's node gets a launch command. */
function dispatch(t: Tx, job: JobRow, placement: Placement[], borrowed: boolean): void {
  const run: RunRow = {
    id: t.newId("run"),
    job_id: job.id,
    attempt: job.attempt + 1,
    epoch: t.counter("epoch"),
    status: "SUBMITTED",
    placement: JSON.stringify(placement),
    gpus: placement.reduce((n, p) => n + p.gpu_indices.length, 0),
    user_id: job.user_id,
    allocated_at: t.now,
    started_at: null,
    borrowed: borrowed ? 1 : 0,
    ended_at: null,
    exit_code: null,
    reason: null,
    version: 1,
  };
  putRun(t, run);
  for (const p of placement) {
    // The store refuses a second booking of one (node, index); that would abort the whole transaction.
    for (const g of p.gpu_indices)
      t.put({ kind: "alloc", alloc: { node_id: p.node_id, idx: g, run_id: run.id } });
    t.put({
      kind: "rank",
      row: {
        run_id: run.id,
        rank: p.rank,
        node_id: p.node_id,
        pool: p.pool,
        gpu_indices: JSON.stringify(p.gpu_indices),
        state: "pending",
        exit_code: null,
        reason: null,
        updated_at: t.now,
      },
    });
    // Admin-registered nodes have no agent to receive it; the run waits there until stopped.
    if (t.s.node(p.node_id)?.agent === 1) {
      t.put({
        kind: "command",
        row: {
          id: t.newId("cmd"),
          node_id: p.node_id,
          run_id: run.id,
          rank: p.rank,
          kind: "launch",
          payload: "{}",
          created_at: t.now,
        },
      });
    }
  }
  job.current_run_id = run.id;
  job.attempt = run.attempt;
  job.pending_reasons = "[]";
  putJob(t, job);
  emitRun(t, run);
  setStatus(t, job, "SUBMITTED", "system:scheduler", { run_id: run.id, epoch: run.epoch, placement });
  for (const nodeId of new Set(placement.map((p) => p.node_id))) emitNode(t, t.s.node(nodeId)!);
}

function userInputs(t: Tx, userIds: Set<string>): Record<string, UserInput> {
  const out: Record<string, UserInput> = {};
  for (const id of userIds) {
    const raw = t.s.quotaBody(id);
    out[id] = {
      quota: raw ? quotaFromJson(raw) : DEFAULT_QUOTA,
      runningGpus: 0,
      recentGpuSeconds: 0,
      gpuSecondsToday: 0,
    };
  }
  const now = t.now;
  const since = now - DAY_MS;
  const dayStart = Math.floor(now / DAY_MS) * DAY_MS;
  // The runs of a horizon that began no later than this one hold every run of this one.
  let recent = t.s.memo.get("recent_runs", () => ({ since, runs: t.s.runsSince(since) }));
  if (recent.since > since) recent = { since, runs: t.s.runsSince(since) };
  for (const r of recent.runs) {
    const u = out[r.user_id];
    if (!u || (r.ended_at !== null && r.ended_at <= since)) continue;
    const end = r.ended_at ?? now;
    if (r.ended_at === null) u.runningGpus += r.gpus;
    u.recentGpuSeconds += overlapGpuSeconds(r.allocated_at, end, r.gpus, since, now);
    u.gpuSecondsToday += overlapGpuSeconds(r.allocated_at, end, r.gpus, dayStart, now);
  }
  return out;
}

/** When a pending reason can change by itself (a window opens, a new UTC day starts). */
function wakeTime(r: PendingReason, now: number): number | null {
  if (r.code === "WINDOW_CLOSED" && typeof r.details.opens_at === "string")
    return Date.parse(r.details.opens_at);
  if (r.code === "QUOTA_GPU_HOURS") return (Math.floor(now / DAY_MS) + 1) * DAY_MS;
  if (r.code === "BUDGET_EXHAUSTED" && typeof r.details.resets_at === "string")
    return Date.parse(r.details.resets_at);
  return null;
}
