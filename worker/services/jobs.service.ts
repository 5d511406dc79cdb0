import { asc, eq } from "drizzle-orm";
import type { JobView } from "../../contract/api.schema.js";
import type { StoredDiagnosis } from "../../contract/diagnosis-policy.js";
import type { JobState } from "../../contract/job-states.js";
import type { PendingReason } from "../../contract/pending-reasons.schema.js";
import { type Db, schema } from "../../d1/client.js";
import type { Namespace } from "../../durable-objects/rpc.js";
import { runStub } from "../../durable-objects/run/stub.js";
import type { Principal } from "../auth/principal.js";
import { AppError } from "../errors.js";

export type JobRow = typeof schema.jobs.$inferSelect;

/** What GET /v1/jobs adds to each job (read with the job in the same query). */
export interface JobListExtras {
  user: string | null;
  profile: string | null;
  started_at: string | null;
  ended_at: string | null;
}

/** The D1 job view; `extra` (GET /v1/jobs) adds the owner's name, profile and run timings. */
export function jobView(j: Omit<JobRow, "spec">, extra?: JobListExtras): JobView {
  return {
    id: j.id,
    name: j.name,
    user_id: j.userId,
    fleet_id: j.fleetId,
    status: j.status as JobState,
    priority: j.priority,
    priority_class: j.priorityClass,
    team: j.team,
    gpus: j.gpus,
    recipe: j.recipe,
    pending_reasons: JSON.parse(j.pendingReasons) as PendingReason[],
    current_run_id: j.currentRunId,
    created_at: j.createdAt,
    updated_at: j.updatedAt,
    ...(extra
      ? {
          user: extra.user ?? "",
          profile: extra.profile,
          started_at: extra.started_at,
          ended_at: extra.ended_at,
        }
      : {}),
  };
}

export function canRead(p: Principal, job: Pick<JobRow, "userId" | "fleetId">): boolean {
  if (p.kind === "agent") return p.fleetId === job.fleetId;
  return p.role === "admin" || p.userId === job.userId;
}

/** Loads a job the caller may read, or fails without revealing its data. */
export async function readableJob(d: Db, p: Principal, id: string): Promise<JobRow> {
  const job = await d.select().from(schema.jobs).where(eq(schema.jobs.id, id)).get();
  if (!job) throw new AppError("JOB_NOT_FOUND", `no job ${id}`);
  if (!canRead(p, job)) throw new AppError("FORBIDDEN", `job ${id} belongs to another user`);
  return job;
}

export async function jobHistory(d: Db, jobId: string) {
  const [runs, events] = await Promise.all([
    d.select().from(schema.runs).where(eq(schema.runs.jobId, jobId)).orderBy(asc(schema.runs.attempt)).all(),
    d
      .select()
      .from(schema.jobEvents)
      .where(eq(schema.jobEvents.jobId, jobId))
      .orderBy(asc(schema.jobEvents.seq))
      .all(),
  ]);
  return {
    runs: runs.map((r) => ({
      id: r.id,
      attempt: r.attempt,
      epoch: r.epoch,
      status: r.status,
      placement: JSON.parse(r.placement) as unknown,
      gpus: r.gpus,
      allocated_at: r.allocatedAt,
      ended_at: r.endedAt,
      exit_code: r.exitCode,
      reason: r.reason,
      resumed_from: JSON.parse(r.resumedFrom ?? "null") as { run_id: string; step: number | null } | null,
      borrowed: r.borrowed,
      diagnosis: JSON.parse(r.diagnosis ?? "null") as StoredDiagnosis | null,
    })),
    events: events.map((e) => ({
      seq: e.seq,
      ts: e.ts,
      from: e.fromStatus,
      to: e.toStatus,
      edge: e.edge,
      actor: e.actor,
      detail: JSON.parse(e.detail) as unknown,
    })),
  };
}

/**
 * A preempted run's lost work, in steps: the last step its training reported minus the step of its newest
 * stored checkpoint (the one the next run resumes from). 0 for a victim that checkpointed where it
 * stopped; more for one killed at its deadline before it could. Null while the run still holds its GPUs,
 * or when its training reports no steps. Asked of each preempted run's Run DO when the job is read.
 */
export async function stepsLost(
  env: { RUN: Namespace },
  history: Awaited<ReturnType<typeof jobHistory>>,
): Promise<Map<string, number | null>> {
  const preempted = new Set(
    history.events.flatMap((e) => {
      const d = e.detail as { preempted?: unknown; run_id?: unknown };
      return e.to === "PAUSED" && d.preempted === true && typeof d.run_id === "string" ? [d.run_id] : [];
    }),
  );
  const out = new Map<string, number | null>();
  await Promise.all(
    history.runs
      .filter((r) => preempted.has(r.id) && r.ended_at !== null)
      .map(async (r) => {
        out.set(r.id, await runStub(env, r.id).stepsLost(r.resumed_from?.step ?? null));
      }),
  );
  return out;
}
