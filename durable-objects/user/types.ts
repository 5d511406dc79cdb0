/** What the User DO is asked and answers (plain JSON across RPC). */
import type { Quota } from "../../contract/api.schema.js";
import type { QuotaAsk, QuotaRefusal } from "../../contract/quota.js";

export interface ReserveInput {
  userId: string;
  tokenId: string;
  fleetId: string;
  now: number;
  key: string | null;
  /** sha256 of the request's canonical body; set with `key`. */
  requestHash: string | null;
  /** One per job: a job array reserves all of its jobs or none. */
  jobs: Array<QuotaAsk & { jobId: string }>;
}

/** An Idempotency-Key already held: by which request (its hash) and which jobs. */
export interface KeyView {
  request_hash: string;
  fleet_id: string;
  job_ids: string[];
  /** Its admission is still in flight (reserved, no fleet report yet). */
  reserved: boolean;
  created_at: number;
}

export type ReserveResult =
  | { kind: "reserved"; quota: Quota }
  /** The key is held: by this same request (its hash) or another; `quota` lets a retry finish it. */
  | { kind: "key_taken"; existing: KeyView; quota: Quota }
  /** The token was revoked, or the account disabled or demoted, since this isolate resolved it. */
  | { kind: "fenced" }
  | ({ kind: "refused" } & (
      | QuotaRefusal
      /** A job id its fleet gave up before this reservation arrived (FleetDO.settleUnconfirmed). */
      | { code: "CONFLICT"; message: string; details?: Record<string, unknown> }
    ));

export type ResumeResult =
  | { kind: "reserved" }
  /** The job still holds its slot here (its pause was not reported yet): nothing to take. */
  | { kind: "held" }
  | { kind: "over_quota"; max: number; active: number };

/** What a Fleet DO reports to a user's object after writing it to D1. */
export interface FleetNotes {
  fleetId: string;
  jobs: Array<{ id: string; status: string; version: number }>;
  usage: Array<{ run_id: string; day: string; gpu_seconds: number }>;
  runs: Array<{ id: string; gpus: number; allocated_at: number; ended: boolean }>;
}

/** Job ids by fleet id. */
export interface Unprojected {
  /** Job ids by fleet id. */
  fleets: Record<string, string[]>;
  /** The user's quota, with which a fleet confirms those it still holds unconfirmed. */
  quota: Quota;
}

/** Each job's status and version as a fleet holds it (null: the fleet holds no such job). */
export type JobVersions = Record<string, { status: string; version: number } | null>;

/**
 * What a user's object asks of a fleet's. FleetDO implements it; it is named here so that neither object's
 * module imports the other's (a fleet reports to users, a user asks fleets).
 */
export interface FleetAdmissions {
  /**
   * Each job as the fleet holds it, a job it does not hold marked abandoned (never queued from then on);
   * with the user's quota, a job the fleet holds unconfirmed is confirmed (its reservation is the asker's).
   */
  settleAdmissions(jobIds: string[], quota?: Quota): Promise<JobVersions>;
  /**
   * Of the jobs named with the version the asker knows, those the fleet holds at a newer one, as it holds
   * them (the answer stays small when a user holds thousands of jobs and few moved).
   */
  jobsMoved(known: Array<[jobId: string, version: number]>): Promise<JobVersions>;
}

/** Jobs queued unconfirmed whose reservation was taken, with the quota it answered (FleetDO.confirm…). */
export interface ConfirmInput {
  jobIds: string[];
  quota: Quota;
}

/** What the user's object answers a fleet settling its unconfirmed jobs: which it reserved, and the quota. */
export interface Confirmations {
  quota: Quota;
  reserved: string[];
}
