/**
 * Exit codes scripts can rely on, and the one error type commands throw. Server errors keep the
 * server's stable `code`; the CLI adds a hint a person can act on.
 */
export const EXIT = {
  OK: 0,
  /** Something failed that is not one of the cases below. */
  FAILURE: 1,
  /** Bad flags or arguments (commander's own usage errors too). */
  USAGE: 2,
  /** Not logged in, token refused or revoked, or not allowed. */
  AUTH: 3,
  /** What was asked for does not exist (job, fleet, recipe, experiment). */
  NOT_FOUND: 4,
  /** The server or a local check refused it (admission, validation, lock, dirty tree, secret file). */
  REJECTED: 5,
  /** The control plane could not be reached or is unavailable. */
  UNAVAILABLE: 6,
  /** A followed job ended FAILED or STOPPED. */
  JOB_FAILED: 7,
  INTERRUPTED: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class CliError extends Error {
  readonly code: string;
  readonly hint: string | undefined;
  readonly exit: ExitCode;
  readonly details: unknown;

  constructor(message: string, o: { code?: string; hint?: string; exit?: ExitCode; details?: unknown } = {}) {
    super(message);
    this.name = "CliError";
    this.code = o.code ?? "CLI_ERROR";
    this.hint = o.hint;
    this.exit = o.exit ?? EXIT.FAILURE;
    this.details = o.details;
  }
}

/** Maps a server error (HTTP status + stable code) to an exit code and a hint. */
export function fromServer(status: number, code: string, message: string, details?: unknown): CliError {
  const hints: Record<string, string> = {
    UNAUTHENTICATED: "log in with `sf login --server URL`",
    TOKEN_REVOKED: "your token was revoked or expired; log in again with `sf login`",
    RECIPE_LOCK_STALE: "run `sf recipe upgrade <experiment>` to move it to what the server publishes",
    RECIPE_VERSION_NOT_FOUND: "run `sf recipe upgrade <experiment>`",
    FRAMEWORK_VERSION_UNSUPPORTED: "run `sf recipe upgrade <experiment> --framework-version <version>`",
    RECIPE_NOT_FOUND: "see `sf methods` for what this server publishes",
    QUOTA_EXCEEDED: "see `sf status` for your usage and limits",
    IMAGE_NOT_ALLOWED: "ask an admin to add the image to the fleet's allowlist, or use an allowed image",
    FLEET_DRAINING: "the fleet is in maintenance; try later or submit to another fleet",
    INVALID_PROFILE: "see `sf admin profile ls` (or GET /v1/profiles) for the shapes each profile allows",
    TOO_MANY_FAILED_LOGINS:
      "too many failed logins from this address or with this token; wait a minute, then check the token (`sf login`)",
    SECRET_MISSING: "see `sf secret ls` (and `sf secret ls --fleet F`) for the names you can use",
    HF_TOKEN_REQUIRED: "set your HuggingFace token with `sf secret set HF_TOKEN`",
    PAYLOAD_TOO_LARGE: 'the request is larger than the server takes; see docs/api.md "Limits"',
  };
  const exit =
    status === 401 || status === 403
      ? code === "QUOTA_EXCEEDED" || code === "PROFILE_NOT_ALLOWED" || code === "IMAGE_NOT_ALLOWED"
        ? EXIT.REJECTED
        : EXIT.AUTH
      : status === 404
        ? EXIT.NOT_FOUND
        : status >= 500
          ? EXIT.UNAVAILABLE
          : EXIT.REJECTED;
  return new CliError(message, { code, hint: hints[code], exit, details });
}
