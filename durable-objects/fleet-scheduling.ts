/**
 * Fleet configuration, node registration and the scheduling pass: the pure policy decides, this applies
 * the decision (runs, per-rank rows, GPU rows, launch commands for the agents) in the same transaction.
 */
import { DEFAULT_QUOTA, type Quota, QuotaBody, type RegisterNodeBody } from "../contract/api.schema.js";
import { fail, ok, type Result } from "../contract/errors.js";
import { newId } from "../contract/ids.js";
import type { JobSpec } from "../contract/jobspec.schema.js";
import type { Placement } from "../contract/launch-request.schema.js";
import type { PendingReason } from "../contract/pending-reasons.schema.js";
import { FleetLedger } from "./fleet-ledger.js";
import type { JobRow, NodeRow, RunRow } from "./fleet-store.js";
import type { FleetConfig, NodeView } from "./fleet-types.js";
import { decide, type UserInput } from "./scheduler/policy.js";
import { overlapGpuSeconds } from "./scheduler/usage.js";

const DAY_MS = 86_400_000;

export class FleetScheduling extends FleetLedger {
  // configuration ------------------------------------------------------------------

  configure(cfg: FleetConfig, now: number): void {
    const current = this.store.getMeta("fleet_id");
    if (current && current !== cfg.id)
      throw new Error(`fleet DO for ${current} cannot be reconfigured as ${cfg.id}`);
    this.store.setMeta("fleet_id", cfg.id);
    this.store.setMeta("config", JSON.stringify(cfg));
    this.schedule(now);
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

  // nodes ----------------------------------------------------------------------------

  /** An admin-registered node (no agent): capacity for the scheduler, always ready. */
  registerNode(input: RegisterNodeBody, now: number): Result<NodeView> {
    const existing = this.store.nodeByName(input.name);
    if (existing?.agent === 1)
      return fail("CONFLICT", `node ${input.name} belongs to an agent; it registers itself`);
    if (existing) {
      const held = this.store.allocatedOn(existing.id);
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
    const id = existing?.id ?? newId("nod");
    this.upsertNode(
      {
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
        agent: 0,
        hostname: null,
        lost_since: null,
      },
      now,
    );
    this.schedule(now);
    return ok(this.nodeView(this.store.node(id)!));
  }

  protected upsertNode(row: NodeRow, now: number): void {
    this.store.sql.exec(
      `INSERT INTO nodes (id, name, series, gpus, status, runtime, labels, cpus, memory_mb, version, created_at, updated_at, agent, hostname, lost_since)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET name = excluded.name, series = excluded.series, gpus = excluded.gpus,
         status = excluded.status, runtime = excluded.runtime, labels = excluded.labels, cpus = excluded.cpus,
         memory_mb = excluded.memory_mb, version = excluded.version, updated_at = excluded.updated_at,
         agent = excluded.agent, hostname = excluded.hostname, lost_since = excluded.lost_since`,
      row.id,
      row.name,
      row.series,
      row.gpus,
      row.status,
      row.runtime,
      row.labels,
      row.cpus,
      row.memory_mb,
      row.version,
      row.created_at,
      row.updated_at,
      row.agent,
      row.hostname,
      row.lost_since,
    );
    this.emitNode(this.store.node(row.id)!, now);
  }

  // scheduling ---------------------------------------------------------------------------

  /** One scheduling pass: dispatch what fits, refresh pending reasons, arm the wake-up timer. */
  schedule(now: number): void {
    const cfg = this.config();
    if (!cfg) return;
    const queued = this.store.jobsByStatus("QUEUED");
    // A resumed job waits until its previous run has released its GPUs: that run may still be writing
    // the checkpoint the next run starts from.
    const settling = new Map<string, PendingReason[]>();
    for (const j of queued) {
      const prev = j.current_run_id ? this.store.run(j.current_run_id) : null;
      if (prev && prev.ended_at === null) {
        settling.set(j.id, [
          {
            code: "PREVIOUS_RUN_STOPPING",
            message: `waiting for run ${prev.id} to stop and checkpoint on its node; the next run continues from it`,
            details: { run_id: prev.id },
          },
        ]);
      }
    }
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
        runtime: n.runtime,
      })),
      queue: queued
        .filter((j) => !settling.has(j.id))
        .map((j) => ({
          id: j.id,
          userId: j.user_id,
          priority: j.priority,
          queueSeq: j.queue_seq,
          pools: (JSON.parse(j.spec) as JobSpec).resources.pools,
          needsImage:
            (JSON.parse((j.launch as string | null) ?? "null") as { image?: string | null } | null)?.image !=
            null,
        })),
      users: this.userInputs(new Set(queued.map((j) => j.user_id)), now),
    });

    for (const d of decision.dispatch) this.dispatch(this.store.job(d.jobId)!, d.placement, now);
    let wake: number | null = null;
    for (const job of queued) {
      const reasons = settling.get(job.id) ?? decision.pending[job.id];
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

  /** QUEUED → SUBMITTED: a new run holds the GPUs; each rank's node gets a launch command. */
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
      this.store.sql.exec(
        "INSERT INTO run_ranks (run_id, rank, node_id, pool, gpu_indices, state, updated_at) VALUES (?, ?, ?, ?, ?, 'pending', ?)",
        run.id,
        p.rank,
        p.node_id,
        p.pool,
        JSON.stringify(p.gpu_indices),
        now,
      );
      // Admin-registered nodes have no agent to receive it; the run waits there until stopped.
      if (this.store.node(p.node_id)?.agent === 1) {
        this.store.addCommand({
          id: newId("cmd"),
          node_id: p.node_id,
          run_id: run.id,
          rank: p.rank,
          kind: "launch",
          payload: "{}",
          created_at: now,
        });
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
}

/** When a pending reason can change by itself (a window opens, a new UTC day starts). */
function wakeTime(r: PendingReason, now: number): number | null {
  if (r.code === "WINDOW_CLOSED" && typeof r.details.opens_at === "string")
    return Date.parse(r.details.opens_at);
  if (r.code === "QUOTA_GPU_HOURS") return (Math.floor(now / DAY_MS) + 1) * DAY_MS;
  return null;
}
