/**
 * A submit's dry run (POST /v1/jobs?dry_run=1, `sf submit --dry-run`): the Fleet DO decides the submit as
 * any, reads what it decided, and rolls the transaction back (fleet.do.ts `dryRun`). This reads the
 * decision: each job starts now (where), preempts (whom), or waits (why).
 */
import type { Result } from "../../contract/errors.js";
import type { DryRunJob, JobDetail } from "../../contract/fleet.schema.js";
import type { FleetState } from "./state.js";

/** Thrown to roll a dry run's transaction back. */
export const DRY_RUN = Symbol("dry run");

export function dryRunAnswer(s: FleetState, r: Result<{ jobs: JobDetail[] }>): Result<{ jobs: DryRunJob[] }> {
  if (!r.ok) return r;
  return {
    ok: true,
    value: {
      jobs: r.value.jobs.map((j) => {
        const preempting = j.pending_reasons.find((p) => p.code === "PREEMPTING");
        const victims = preempting
          ? String(preempting.details.victims ?? "")
              .split(",")
              .filter(Boolean)
          : [];
        return {
          would: j.status !== "QUEUED" ? "start" : victims.length > 0 ? "preempt" : "wait",
          placement: j.runs.at(-1)?.placement ?? [],
          pending_reasons: j.pending_reasons,
          preempts: victims.flatMap((id) => {
            const v = s.job(id);
            return v
              ? [
                  {
                    job_id: v.id,
                    name: v.name,
                    user_id: v.user_id,
                    priority_class: v.priority_class,
                    gpus: v.gpus,
                  },
                ]
              : [];
          }),
        };
      }),
    },
  };
}
