/**
 * Exit codes scripts can rely on, and the one error type commands throw. Server errors keep the
 * server's stable `code`; the CLI adds a hint a person can act on. Failures that happen before any server
 * answers (no such host, refused, TLS, timeout) get codes of their own here, named from Node's error code,
 * never from its message text.
 */
export const EXIT = {
  OK: 0,
  /** Something failed that is not one of the cases below. */
  FAILURE: 1,
  /** Bad flags or arguments (commander's own usage errors too). */
  USAGE: 2,
  /** Not logged in, token refused or revoked, or not allowed. */
  AUTH: 3,
  /** What was asked for does not exist (job, fleet, recipe, experiment, context). */
  NOT_FOUND: 4,
  /** The server or a local check refused it (admission, validation, lock, dirty tree, secret file). */
  REJECTED: 5,
  /** The control plane could not be reached, did not answer in time, or is unavailable. */
  UNAVAILABLE: 6,
  /** A followed job ended FAILED or STOPPED. */
  JOB_FAILED: 7,
  /** sf and the server do not fit: this sf is older than the server supports, or the server older than sf needs. */
  INCOMPATIBLE: 8,
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
    TEAM_UNKNOWN: "see `sf admin team ls` for the teams; without --team a job runs for your primary team",
    TEAM_NOT_MEMBER:
      "submit for one of your teams, or leave out --team (your primary team); an admin adds you with `sf admin team member add TEAM USER`",
    BUDGET_EXHAUSTED:
      "your team's GPU-hour budget for the period is spent; `sf usage --by team` shows it, an admin may raise it",
    PAYLOAD_TOO_LARGE: 'the request is larger than the server takes; see docs/api.md "Limits"',
  };
  const exit =
    status === 401 || status === 403
      ? code === "QUOTA_EXCEEDED" ||
        code === "PROFILE_NOT_ALLOWED" ||
        code === "IMAGE_NOT_ALLOWED" ||
        code === "TEAM_NOT_MEMBER" ||
        code === "PRIORITY_CLASS_NOT_ALLOWED" ||
        code === "BUDGET_EXHAUSTED"
        ? EXIT.REJECTED
        : EXIT.AUTH
      : status === 404
        ? EXIT.NOT_FOUND
        : status === 426
          ? EXIT.INCOMPATIBLE
          : status >= 500
            ? EXIT.UNAVAILABLE
            : EXIT.REJECTED;
  return new CliError(message, { code, hint: hints[code], exit, details });
}

// Version handshake ---------------------------------------------------------------------------------

export function cliTooOld(server: string, mine: string, min: string, serverVersion: string | null): CliError {
  return new CliError(
    `this sf (${mine}) is older than the oldest the server at ${server} supports (${min}): upgrade sf`,
    {
      code: "CLI_TOO_OLD",
      exit: EXIT.INCOMPATIBLE,
      details: { cli_version: mine, min_cli_version: min, server_version: serverVersion },
      hint:
        `use the sf of the server's release${serverVersion ? ` (${serverVersion})` : ""}: in a StarForge checkout of that ` +
        "release, `npm run build` writes it to dist/sf.mjs",
    },
  );
}

export function serverTooOld(server: string, api: number, needed: number): CliError {
  return new CliError(
    `the server at ${server} speaks API v${api}; this sf needs v${needed}: upgrade the server or use an older sf`,
    {
      code: "SERVER_TOO_OLD",
      exit: EXIT.INCOMPATIBLE,
      details: { api_version: api, min_server_api_version: needed },
      hint: "`sf version` shows both sides; ask the control plane's operator to deploy a newer release",
    },
  );
}

// Connection failures -------------------------------------------------------------------------------

/** Every `code` in an error's cause chain (undici wraps the socket's error; happy eyeballs aggregates). */
export function errorCodes(err: unknown): string[] {
  const out: string[] = [];
  const seen = new Set<unknown>();
  const walk = (e: unknown) => {
    if (!e || typeof e !== "object" || seen.has(e)) return;
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") out.push(code);
    walk((e as { cause?: unknown }).cause);
    const inner = (e as { errors?: unknown }).errors;
    if (Array.isArray(inner)) for (const x of inner) walk(x);
  };
  walk(err);
  return out;
}

/** The innermost message of an error's cause chain: what the socket said, not "fetch failed". */
function innermost(err: unknown): string {
  let e: unknown = err;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}

const DNS = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_NONAME", "EAI_FAIL", "EAI_NODATA"]);

/** OpenSSL's verify codes (as Node names them) → what a person should read. */
const TLS_CAUSES: Record<string, { cause: string; trust: boolean }> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: { cause: "its certificate is self-signed", trust: true },
  SELF_SIGNED_CERT_IN_CHAIN: {
    cause: "its certificate chain ends in a self-signed CA this machine does not trust",
    trust: true,
  },
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: {
    cause: "its certificate is signed by an authority this machine does not trust",
    trust: true,
  },
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: {
    cause: "its certificate is signed by an authority this machine does not trust",
    trust: true,
  },
  UNABLE_TO_GET_ISSUER_CERT: { cause: "its certificate's issuer is unknown here", trust: true },
  CERT_HAS_EXPIRED: { cause: "its certificate has expired", trust: false },
  CERT_NOT_YET_VALID: {
    cause: "its certificate is not valid yet (is this machine's clock right?)",
    trust: false,
  },
  ERR_TLS_CERT_ALTNAME_INVALID: {
    cause: "its certificate is for another host name (hostname mismatch)",
    trust: false,
  },
  CERT_REVOKED: { cause: "its certificate was revoked", trust: false },
  ERR_SSL_WRONG_VERSION_NUMBER: {
    cause: "it does not speak TLS on this port (is the URL http://, not https://?)",
    trust: false,
  },
};

function tlsHint(code: string): string {
  const cause = TLS_CAUSES[code];
  if (cause?.trust)
    return (
      "if the server uses your organisation's own CA (or a self-signed certificate you trust), point " +
      "NODE_EXTRA_CA_CERTS at that certificate (PEM): NODE_EXTRA_CA_CERTS=/path/to/ca.pem sf …"
    );
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID")
    return "use the host name the certificate was issued for; NODE_EXTRA_CA_CERTS only adds trusted CAs, it cannot fix a name";
  if (code === "ERR_SSL_WRONG_VERSION_NUMBER") return "try the same URL with http://";
  return "the server's operator has to fix its certificate; NODE_EXTRA_CA_CERTS only adds trusted CAs";
}

/**
 * A request that got no HTTP answer at all, as a coded error with a hint. Each is exit 6 (UNAVAILABLE);
 * only UNREACHABLE (and TIMEOUT, made by the client) may be retried: a wrong host or a certificate does
 * not fix itself.
 */
export function networkError(server: string, err: unknown): CliError {
  const codes = errorCodes(err);
  const why = innermost(err);
  let host = server;
  let hostname = server;
  let http = false;
  try {
    const u = new URL(server);
    host = u.host;
    hostname = u.hostname;
    http = u.protocol === "http:";
  } catch {
    // keep the text as given
  }
  const dns = codes.find((c) => DNS.has(c));
  if (dns)
    return new CliError(`no such host: ${hostname} (${server}: ${dns})`, {
      code: "HOST_NOT_FOUND",
      exit: EXIT.UNAVAILABLE,
      hint: "check the server URL's spelling (`sf context ls` lists the saved ones), or this machine's DNS",
    });
  if (codes.includes("ECONNREFUSED"))
    return new CliError(`cannot reach ${server}: connection refused (nothing listens on ${host})`, {
      code: "UNREACHABLE",
      exit: EXIT.UNAVAILABLE,
      hint: "is the control plane running, on this port? (`npm start` runs one locally)",
    });
  const tls = codes.find((c) => c in TLS_CAUSES || /^(ERR_SSL_|ERR_TLS_|CERT_)/.test(c));
  if (tls)
    return new CliError(
      `TLS problem talking to ${server}: ${TLS_CAUSES[tls]?.cause ?? "the TLS handshake failed"} (${tls}: ${why})`,
      { code: "TLS_ERROR", exit: EXIT.UNAVAILABLE, hint: tlsHint(tls), details: { tls_code: tls } },
    );
  const closed = codes.includes("UND_ERR_SOCKET") || codes.includes("ECONNRESET");
  return new CliError(`cannot reach ${server}: ${closed ? `the connection was closed (${why})` : why}`, {
    code: "UNREACHABLE",
    exit: EXIT.UNAVAILABLE,
    hint:
      closed && http
        ? "if the server speaks https, use an https:// URL; else it may be restarting, try again"
        : "is the control plane running? (`npm start` runs one locally)",
  });
}

/** A request cut by sf's own clock (SF_HTTP_TIMEOUT_SECONDS, or SF_HTTP_IDLE_TIMEOUT_SECONDS for streams). */
export function timeoutError(what: string, server: string, seconds: number, idle: boolean): CliError {
  return new CliError(
    idle
      ? `${server} sent nothing for ${seconds} s (${what})`
      : `${server} did not answer ${what} within ${seconds} s`,
    {
      code: "TIMEOUT",
      exit: EXIT.UNAVAILABLE,
      hint: `the server may be overloaded or the network lossy; set ${idle ? "SF_HTTP_IDLE_TIMEOUT_SECONDS" : "SF_HTTP_TIMEOUT_SECONDS"} to wait longer`,
    },
  );
}

export function notStarforge(url: string, status: number, contentType: string | null): CliError {
  const what = contentType?.includes("html")
    ? "an HTML page"
    : contentType
      ? `${contentType.split(";")[0]}`
      : "a body";
  return new CliError(`${url} answered HTTP ${status} with ${what}, not the StarForge API`, {
    code: "NOT_STARFORGE",
    exit: EXIT.UNAVAILABLE,
    hint: "is this the control plane's URL? It is the Worker's origin (e.g. http://127.0.0.1:8787), which answers GET /v1/health",
  });
}
