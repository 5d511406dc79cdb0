/**
 * Files that must never leave the machine inside a workspace. Fail-closed: a name that looks like a
 * credential is refused even if it happens to be harmless (e.g. `.env.example`, `secrets.py`); the way out
 * is to ignore it in .gitignore or rename it. Secrets reach jobs through the server, never the workspace.
 * Credentials inside files with other names are found by content (secret-scan.ts).
 */

const EXACT = new Set([
  ".env",
  ".envrc",
  ".netrc",
  "_netrc",
  ".git-credentials",
  "credentials.json",
  ".pgpass",
  ".pypirc",
  ".npmrc",
  ".htpasswd",
  "kaggle.json",
  "token.txt",
  "api_key.txt",
]);
const PREFIXES = [".env.", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "hf_token", "secrets."];
const SUFFIXES = [
  ".pem",
  ".key",
  ".p12",
  ".pfx",
  ".jks",
  ".keystore",
  ".ppk",
  ".secret",
  "_credentials.json",
];
/** Directories whose every file is a credential. */
const DIRS = new Set([".ssh", ".aws", ".gnupg"]);

/** True when a workspace path (forward slashes) names a secret file. Case-insensitive. */
export function isSecretPath(path: string): boolean {
  const parts = path.toLowerCase().split("/");
  const base = parts[parts.length - 1] ?? "";
  if (parts.slice(0, -1).some((p) => DIRS.has(p))) return true;
  return (
    EXACT.has(base) || PREFIXES.some((p) => base.startsWith(p)) || SUFFIXES.some((s) => base.endsWith(s))
  );
}

export const SECRET_PATTERNS = [
  ...EXACT,
  ...PREFIXES.map((p) => `${p}*`),
  ...SUFFIXES.map((s) => `*${s}`),
  ...[...DIRS].map((d) => `${d}/`),
];
