/**
 * Credentials inside workspace files, found by content (issue 14): a file named `train.py` can still
 * hold a pasted token. Pure functions over bytes; pack.ts does the reading and the refusing.
 *
 * Tight on purpose, because a refusal here blocks a submit: each pattern is a credential's own shape
 * (prefix, alphabet, length) with a word boundary in front, so `hf_repo`, `hf_token = os.environ[…]` or
 * the word "password" in prose never match. Skipped for content (names are still checked): files over
 * SCAN_MAX_BYTES and binary files, i.e. a NUL byte in the first BINARY_SNIFF_BYTES, as git decides.
 */

/** Files larger than this are packed without a content scan: code and configs are far smaller. */
export const SCAN_MAX_BYTES = 5 * 1024 * 1024;
/** A NUL byte this early means binary (git's own heuristic looks at the first 8000 bytes). */
export const BINARY_SNIFF_BYTES = 8 * 1024;

export type CredentialKind = "huggingface" | "aws" | "github" | "private-key" | "netrc";

export interface Finding {
  /** 1-based. */
  line: number;
  kind: CredentialKind;
  /** What to print: the kind and its public prefix, never the secret (e.g. `HuggingFace token (hf_…)`). */
  label: string;
}

const TOKENS = new RegExp(
  [
    // hf_ + 34 alphanumerics today; 30+ leaves room without matching identifiers (they have underscores).
    "(?<hf>(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,})",
    "(?<aws>(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9]))",
    "(?<gh>(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{36,})",
    "(?<ghpat>(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,})",
    "(?<pem>-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----)",
  ].join("|"),
  "g",
);

/** AWS's documented placeholder key ids (AKIAIOSFODNN7EXAMPLE) appear in examples and are not keys. */
const AWS_EXAMPLE = /EXAMPLE$/;

function tokenFinding(m: RegExpMatchArray): Omit<Finding, "line"> | null {
  const g = m.groups ?? {};
  if (g.hf) return { kind: "huggingface", label: "HuggingFace token (hf_…)" };
  if (g.aws) {
    if (AWS_EXAMPLE.test(g.aws)) return null;
    return { kind: "aws", label: `AWS access key id (${g.aws.slice(0, 4)}…)` };
  }
  if (g.gh) return { kind: "github", label: `GitHub token (${g.gh.slice(0, 4)}…)` };
  if (g.ghpat) return { kind: "github", label: "GitHub token (github_pat_…)" };
  if (g.pem) return { kind: "private-key", label: `private key (${g.pem.replace(/^-+|-+$/g, "")})` };
  return null;
}

// .netrc: `machine HOST login USER password PASS` on one line (anywhere, e.g. inside an `echo`), or a
// block: a line made only of netrc tokens that starts with `machine HOST` or `default`, then lines made
// only of `login|account|password VALUE` pairs (blank lines allowed): a shape prose and code do not take.
const NETRC_ONE_LINE = /(?<![\w-])machine\s+\S+\s+login\s+\S+\s+password\s+(\S+)/;
const NETRC_ENTRY = /^\s*(?:machine\s+\S+|default)(?:\s+(?:login|account|password)\s+\S+)*\s*$/;
const NETRC_PAIRS = /^\s*(?:(?:login|account|password)\s+\S+\s*)+$/;
const NETRC_PASSWORD = /(?:^|\s)password\s+(\S+)/;
/** `password $TOKEN`, `${TOKEN}`, `{{ token }}`, `<your token>`, `%s`: filled in elsewhere, not a secret. */
const PLACEHOLDER = /^["']?(?:\$|\{\{|<|%)/;

const NETRC_LABEL = ".netrc password (machine … password …)";

function netrcFindings(text: string): Finding[] {
  const out: Finding[] = [];
  let inBlock = false;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    let value: string | undefined;
    if (NETRC_ENTRY.test(line)) {
      inBlock = true;
      value = NETRC_PASSWORD.exec(line)?.[1];
    } else if (inBlock && NETRC_PAIRS.test(line)) {
      value = NETRC_PASSWORD.exec(line)?.[1];
    } else {
      if (line.trim() !== "") inBlock = false;
      value = NETRC_ONE_LINE.exec(line)?.[1];
    }
    if (value !== undefined && !PLACEHOLDER.test(value))
      out.push({ line: i + 1, kind: "netrc", label: NETRC_LABEL });
  }
  return out;
}

/** Every credential in `text`, one finding per line and kind, in line order. */
export function scanText(text: string): Finding[] {
  const out: Finding[] = [];
  const seen = new Set<string>();
  let line = 1;
  let pos = 0;
  for (const m of text.matchAll(TOKENS)) {
    for (let nl = text.indexOf("\n", pos); nl !== -1 && nl < m.index; nl = text.indexOf("\n", nl + 1)) line++;
    pos = m.index;
    const f = tokenFinding(m);
    if (!f || seen.has(`${line}:${f.kind}`)) continue;
    seen.add(`${line}:${f.kind}`);
    out.push({ line, ...f });
  }
  if (text.includes("password")) out.push(...netrcFindings(text));
  return out.sort((a, b) => a.line - b.line);
}

export const isBinary = (bytes: Uint8Array): boolean => bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);

/** The credentials in a file's bytes, or null when it is not scanned (binary, or over SCAN_MAX_BYTES). */
export function scanBytes(bytes: Buffer): Finding[] | null {
  if (bytes.length > SCAN_MAX_BYTES || isBinary(bytes)) return null;
  // latin1 maps every byte to one char: never throws on bad UTF-8, and the patterns are ASCII.
  return scanText(bytes.toString("latin1"));
}
