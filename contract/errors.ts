/**
 * Stable machine-readable error codes. Clients (sf, forgelet, the console) switch on `code`, never on
 * message text, so a code is never renamed or reused once shipped. The HTTP status lives here too so
 * that every layer maps an error the same way.
 */
export const ERROR_CODES = {
  // request shape
  BAD_REQUEST: 400,
  INVALID_SPEC: 400,
  INVALID_PROFILE: 400,
  INVALID_HYPERPARAMS: 400,
  INVALID_DIGEST: 400,
  INVALID_WEBHOOK_URL: 400,
  INVALID_WEBHOOK_EVENT: 400,
  // identity
  UNAUTHENTICATED: 401,
  TOKEN_REVOKED: 401,
  /** The node was revoked (or removed) by an admin: its credential opens nothing any more. */
  NODE_REVOKED: 401,
  FORBIDDEN: 403,
  /** Too many failed logins from this address or token: refused, a valid token too, until `Retry-After`. */
  TOO_MANY_FAILED_LOGINS: 429,
  // lookup
  NOT_FOUND: 404,
  JOB_NOT_FOUND: 404,
  FLEET_NOT_FOUND: 404,
  USER_NOT_FOUND: 404,
  TOKEN_NOT_FOUND: 404,
  BLOB_NOT_FOUND: 404,
  PROFILE_NOT_FOUND: 404,
  WEBHOOK_NOT_FOUND: 404,
  DELIVERY_NOT_FOUND: 404,
  SECRET_NOT_FOUND: 404,
  NODE_NOT_FOUND: 404,
  // admission (catalog handshake, policy)
  RECIPE_NOT_FOUND: 422,
  RECIPE_VERSION_NOT_FOUND: 422,
  RECIPE_LOCK_STALE: 409,
  FRAMEWORK_VERSION_UNSUPPORTED: 422,
  QUOTA_EXCEEDED: 403,
  PROFILE_NOT_ALLOWED: 403,
  IMAGE_NOT_ALLOWED: 403,
  IMAGE_REQUIRED: 422,
  BLOB_MISSING: 422,
  HF_NOT_FOUND: 422,
  HF_REVISION_NOT_FOUND: 422,
  /**
   * The repo is gated and the submit carries no HuggingFace token, or one the Hub rejects. 422, not 401: a
   * 401 says the caller's StarForge credentials are bad, and sf would exit as a failed login.
   */
  HF_TOKEN_REQUIRED: 422,
  HF_ACCESS_DENIED: 422,
  HF_UNAVAILABLE: 503,
  FLEET_DRAINING: 409,
  /**
   * A job that names several fleets (or a selector) that none of them could take: `details.candidates`
   * says why for each (docs/scheduling.md "Placement").
   */
  NO_ELIGIBLE_FLEET: 422,
  /** The JobSpec names a priority class no admin defined (`details.classes` lists them). */
  PRIORITY_CLASS_UNKNOWN: 422,
  /** The priority class is above what the submitter's quota allows (`max_priority_class`). */
  PRIORITY_CLASS_NOT_ALLOWED: 403,
  /** The JobSpec names a team no admin created (`resources.team`; `details.teams` lists them). */
  TEAM_UNKNOWN: 422,
  /** The JobSpec names a team its submitter is not a member of (`details.your_teams`). */
  TEAM_NOT_MEMBER: 403,
  /** The job's team spent its GPU-hour budget for the period and its policy refuses new jobs. */
  BUDGET_EXHAUSTED: 403,
  /** The job names a secret that neither its submitter nor its fleet has set. */
  SECRET_MISSING: 422,
  // state
  CONFLICT: 409,
  ALREADY_EXISTS: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  INVALID_TRANSITION: 409,
  BLOB_DIGEST_MISMATCH: 400,
  BLOB_TOO_LARGE: 413,
  /** A request body is larger than its route accepts (`details.limit`, bytes); it was never read whole. */
  PAYLOAD_TOO_LARGE: 413,
  LENGTH_REQUIRED: 411,
  /** A multipart upload id this server does not know (never created, completed, aborted or expired). */
  UPLOAD_NOT_FOUND: 404,
  /** A multipart upload was completed with parts missing or not as announced (`details.part`). */
  UPLOAD_INCOMPLETE: 409,
  /** This sf is older than the oldest the server supports (`details.min_cli_version`): upgrade sf. */
  CLI_TOO_OLD: 426,
  ENROLLMENT_TOKEN_INVALID: 401,
  // device login (RFC 8628 §3.5 shapes: every poll answer that is not the token is a 400)
  AUTHORIZATION_PENDING: 400,
  SLOW_DOWN: 400,
  ACCESS_DENIED: 400,
  EXPIRED_TOKEN: 400,
  INVALID_GRANT: 400,
  // server
  INTERNAL: 500,
  UNAVAILABLE: 503,
  /** The control plane has no SF_SECRETS_KEY: secrets cannot be stored or opened. */
  SECRETS_UNAVAILABLE: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function statusOf(code: ErrorCode): number {
  return ERROR_CODES[code];
}

/** The one error body shape every HTTP error has. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: unknown };
}

/** Flat, serialisable facts attached to an error (what limit, which id). */
export type ErrorDetails = Record<string, string | number | boolean | null | string[]>;

/** A result shape for RPC boundaries (Durable Object methods), where thrown errors lose their fields. */
export type Result<T> =
  | { ok: true; value: T }
  | { ok: false; code: ErrorCode; message: string; details?: ErrorDetails };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function fail<T = never>(code: ErrorCode, message: string, details?: ErrorDetails): Result<T> {
  return details === undefined ? { ok: false, code, message } : { ok: false, code, message, details };
}
