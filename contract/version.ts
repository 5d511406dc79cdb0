/**
 * The version handshake between sf and the control plane. The server states, on every answer, the API
 * version it speaks and the oldest sf it still supports; sf sends its own version on every request. A
 * client older than the server's minimum is told to upgrade (the server refuses it with 426 CLI_TOO_OLD,
 * and sf checks the header itself too, so even an answer without a body teaches the same); a server older
 * than the API this sf needs is named as such instead of failing later on an unknown route or field.
 */

/** This release of StarForge (sf, forgelet and the Worker ship together); equals package.json's version. */
export const PRODUCT_VERSION = "0.1.0";

/** The HTTP API generation (/v1): bumped only by an incompatible change. */
export const API_VERSION = 1;

/** The oldest sf this server accepts. */
export const MIN_CLI_VERSION = "0.1.0";

/** The oldest API generation this sf can talk to. */
export const MIN_SERVER_API_VERSION = 1;

export const VERSION_HEADERS = {
  /** On every answer: the server's API generation, e.g. "1". */
  api: "starforge-api-version",
  /** On every answer: the oldest sf the server accepts, e.g. "0.1.0". */
  minCli: "starforge-min-cli-version",
  /** On every answer: the server's release, e.g. "0.1.0". */
  server: "starforge-server-version",
  /** On every request from sf: its release, e.g. "0.1.0". */
  cli: "starforge-cli-version",
} as const;

/** Compares two dotted numeric versions ("1.2.10" > "1.2.9"); a missing part counts as 0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.+-]/, 3).map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split(/[.+-]/, 3).map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

export const VERSION_RE = /^[0-9]+\.[0-9]+\.[0-9]+$/;
