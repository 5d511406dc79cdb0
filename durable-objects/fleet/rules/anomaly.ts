/**
 * A running job's live anomaly (its Run DO saw it: run/monitor.ts): a `job.anomaly` event and webhook, and
 * under `lifecycle.on_anomaly: stop` the run stopped with a checkpoint attempt (its runner gets SIGTERM and
 * the stop notice) and the job FAILED, its diagnosis naming the anomaly's class (rules/diagnosis.ts).
 */

import type { JobSpec } from "../../../contract/jobspec.schema.js";
import { ANOMALY_EDGE } from "../../../contract/webhooks.schema.js";
import {
  type Anomaly,
  DEFAULT_HANG_FACTOR,
  DEFAULT_HANG_FLOOR_SECONDS,
  type Watch,
} from "../../run/monitor.js";
import { anomalyKey } from "../keys.js";
import type { FleetState } from "../state.js";
import type { Tx } from "../tx.js";
import { awaitDiagnosis, DIAGNOSIS_PENDING } from "./diagnosis.js";
import { fleetId, recordEvent, setStatus } from "./ledger.js";
import { stopRun } from "./runs.js";

export interface AnomalyReport extends Anomaly {
  policy: "warn" | "stop";
  /** When the Run DO saw it (epoch ms). */
  at: number;
}

/** What an anomaly did: `ignored` when its run is no longer the running one, or it was raised already. */
export type AnomalyOutcome = "warned" | "stopped" | "ignored";

export function runAnomaly(t: Tx, runId: string, a: AnomalyReport): AnomalyOutcome {
  const run = t.s.run(runId);
  const job = run ? t.s.job(run.job_id) : null;
  if (!run || !job || run.ended_at !== null || job.current_run_id !== run.id || job.status !== "RUNNING")
    return "ignored";
  // One of each class per run, and one per stalled step for a hang (a run may stall, recover, stall again).
  const seen = JSON.parse(t.s.meta(anomalyKey(runId)) ?? "[]") as string[];
  const id = a.class === "HANG" ? `HANG@${a.step}` : a.class;
  if (seen.includes(id)) return "ignored";
  t.setMeta(anomalyKey(runId), JSON.stringify([...seen, id]));
  const anomaly = {
    class: a.class,
    summary: a.summary,
    step: a.step,
    policy: a.policy,
    ...(a.key !== undefined ? { key: a.key, value: a.value } : {}),
    ...(a.silent_seconds !== undefined
      ? { silent_seconds: a.silent_seconds, bound_seconds: a.bound_seconds }
      : {}),
  };
  recordEvent(t, job, "RUNNING", "RUNNING", ANOMALY_EDGE, "system:monitor", { run_id: run.id, anomaly });
  if (a.policy !== "stop") return "warned";
  const reason = `stopped on ${a.class} (lifecycle.on_anomaly: stop): ${a.summary}`;
  const event = setStatus(t, job, "FAILED", "system:monitor", {
    reason,
    code: a.class,
    infra: false,
    diagnosis: DIAGNOSIS_PENDING,
  });
  stopRun(t, run, "FAILED", reason);
  awaitDiagnosis(t, run, event, false, [
    a.class === "HANG"
      ? { kind: "no_progress", at: a.at }
      : { kind: "nan_loss", at: a.at, key: a.key ?? "loss", step: a.step ?? 0, value: a.value ?? "nan" },
  ]);
  t.schedule();
  return "stopped";
}

/** What a run's job asks of its live watch (lifecycle `on_anomaly`, `hang_factor`, `hang_floor_seconds`). */
export function runWatch(s: FleetState, runId: string): Watch | null {
  const run = s.run(runId);
  const job = run ? s.job(run.job_id) : null;
  if (!job) return null;
  const lc = (JSON.parse(job.spec) as JobSpec).lifecycle;
  return {
    fleet_id: fleetId(s),
    job_id: job.id,
    policy: lc.on_anomaly ?? "warn",
    factor: lc.hang_factor ?? DEFAULT_HANG_FACTOR,
    floor_ms: (lc.hang_floor_seconds ?? DEFAULT_HANG_FLOOR_SECONDS) * 1000,
  };
}
