import type { JobRow, RunRow } from "./rows.js";

/**
 * What the Fleet DO records in its outbox, in the same transaction as the change, for the D1 ledger
 * (outbox.ts turns each entry into idempotent D1 statements). Pure types: the rules build them.
 */

/** What an event entry carries about its job, so the fan-out needs no read of the (maybe unflushed) job row. */
export interface EventJob {
  user_id: string;
  fleet_id: string;
  name: string;
  run_id: string | null;
}

/** A job as the ledger projects it: the DO's row with ISO times, without its DO-only columns. */
export type JobSnapshot = Omit<
  JobRow,
  | "queue_seq"
  | "attempt"
  | "event_seq"
  | "capsule"
  | "launch"
  | "created_at"
  | "updated_at"
  | "spec"
  | "unconfirmed"
> & {
  fleet_id: string;
  created_at: string;
  updated_at: string;
  /**
   * The JobSpec (JSON). Null in the outbox: a job's spec never changes after admission, so the flush
   * takes it from the job's row (fleet/outbox.ts) instead of every snapshot carrying a copy.
   */
  spec: string | null;
};

/** A run as the ledger projects it: the DO's row with ISO times and where it continued from. */
export type RunSnapshot = Omit<RunRow, "allocated_at" | "ended_at"> & {
  allocated_at: string;
  ended_at: string | null;
  /** JSON { run_id, step } of the checkpoint the run continued from, or null. */
  resumed_from: string | null;
  /** JSON StoredDiagnosis of a failed run (contract/diagnosis-policy.ts), or null. */
  diagnosis?: string | null;
};

export interface NodeSnapshot {
  id: string;
  fleet_id: string;
  name: string;
  series: string;
  gpus: number;
  gpus_allocated: number;
  status: string;
  labels: string;
  version: number;
  updated_at: string;
}

export interface JobEventRecord {
  job_id: string;
  seq: number;
  ts: string;
  from_status: string | null;
  to_status: string;
  edge: string;
  actor: string;
  detail: string;
}

export type OutboxEntry =
  | { kind: "job"; job: JobSnapshot }
  | { kind: "event"; event: JobEventRecord; job?: EventJob }
  | { kind: "run"; run: RunSnapshot }
  | { kind: "node"; node: NodeSnapshot }
  | { kind: "blob_refs"; job_id: string; digests: string[] }
  | {
      kind: "usage";
      run_id: string;
      day: string;
      user_id: string;
      fleet_id: string;
      gpu_seconds: number;
      /** Absent in entries written before teams. */
      team?: string | null;
      borrowed?: number;
      /** GPU-seconds of it a preempted run trained past its last checkpoint (absent before: 0). */
      lost_gpu_seconds?: number;
    }
  /**
   * A preempted run released its GPUs: its PAUSED event goes out as the `job.preempted` webhook, with what
   * it lost. `steps_lost` is filled by the flush from the run's Run DO (outbox.ts).
   */
  | {
      kind: "preempted";
      event: JobEventRecord;
      job: EventJob;
      released_at: string;
      lost_gpu_seconds: number;
      resume_step: number | null;
      steps_lost?: number | null;
    }
  /**
   * A failed run's diagnosis (rules/diagnosis.ts): its job's FAILED event, whose detail now carries it,
   * rewrites the event D1 holds and goes out as the `job.failed` webhook (held back until now).
   */
  | { kind: "diagnosed"; event: JobEventRecord; job: EventJob }
  /** A job admitted here: its admission row in D1 (key and request hash; its state follows the job). */
  | {
      kind: "admission";
      job_id: string;
      user_id: string;
      fleet_id: string;
      idem_key: string | null;
      request_hash: string | null;
      created_at: string;
    };

/** The job an entry is about (a job's or its run's snapshot, event, admission, blob references), else null. */
export function outboxJobId(e: OutboxEntry): string | null {
  switch (e.kind) {
    case "job":
      return e.job.id;
    case "event":
    case "preempted":
    case "diagnosed":
      return e.event.job_id;
    case "admission":
    case "blob_refs":
      return e.job_id;
    case "run":
      return e.run.job_id;
    default:
      return null;
  }
}
