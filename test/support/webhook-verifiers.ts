/**
 * Standard Webhooks verifiers for tier-3 tests, none of them StarForge's own signing code: the JS snippet
 * of docs/api.md "Verifying a delivery" (which calls the `standardwebhooks` npm package), loaded as the
 * module a reader would save, and the Python verifier written from the specification
 * (standard_webhooks_verify.py, run with python3), whose function docs/api.md prints verbatim.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { ReceivedRequest } from "./webhook-receiver.js";

const API_MD = resolve(import.meta.dirname, "../../docs/api.md");
const SPEC_VERIFIER = resolve(import.meta.dirname, "standard_webhooks_verify.py");

/** The one fenced code block of docs/api.md in `lang` that contains `marker`. */
export function apiDocSnippet(lang: "js" | "python", marker: string): string {
  const doc = readFileSync(API_MD, "utf8");
  const blocks = [...doc.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, "gm"))].map(
    (m) => m[1]!,
  );
  const found = blocks.filter((b) => b.includes(marker));
  if (found.length !== 1) throw new Error(`docs/api.md has ${found.length} ${lang} blocks with ${marker}`);
  return found[0]!;
}

/** The part of standard_webhooks_verify.py that docs/api.md prints. */
export function specVerifierFunction(): string {
  const text = readFileSync(SPEC_VERIFIER, "utf8");
  const m = /^# --- docs\/api\.md: begin\n([\s\S]*?)^# --- docs\/api\.md: end$/m.exec(text);
  if (!m) throw new Error("standard_webhooks_verify.py lost its docs/api.md markers");
  return m[1]!;
}

/** Node's request headers as the string map the libraries take (no header here repeats). */
export function headerMap(h: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(
    Object.entries(h).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")]),
  );
}

export type LibraryVerifier = (
  secret: string,
  rawBody: Buffer | string,
  headers: IncomingHttpHeaders,
) => unknown;

/**
 * `verifyStarForgeDelivery` exactly as docs/api.md prints it. Its `import … from "standardwebhooks"` is
 * pointed at this checkout's copy of the package, since the saved module lives outside the repository.
 */
export async function documentedLibraryVerifier(): Promise<LibraryVerifier> {
  const pkg = pathToFileURL(createRequire(import.meta.url).resolve("standardwebhooks")).href;
  const source = apiDocSnippet("js", "export function verifyStarForgeDelivery");
  const dir = mkdtempSync(join(tmpdir(), "sf-verify-std-"));
  const file = join(dir, "verify-starforge-delivery.mjs");
  writeFileSync(file, source.replace(`from "standardwebhooks"`, `from ${JSON.stringify(pkg)}`));
  try {
    const mod = (await import(pathToFileURL(file).href)) as {
      verifyStarForgeDelivery: (secret: string, body: Buffer | string, h: Record<string, string>) => unknown;
    };
    return (secret, body, h) => mod.verifyStarForgeDelivery(secret, body, headerMap(h));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs the specification's Python verifier on a received request: the event id, or the error it raised.
 * `raw`: the secret string's own bytes are the key (a secret from before Standard Webhooks).
 */
export function verifyWithSpecPython(
  secret: string,
  req: Pick<ReceivedRequest, "headers" | "body">,
  opts: { raw?: boolean; now?: number } = {},
): { id?: string; error?: string } {
  const r = spawnSync("python3", [SPEC_VERIFIER], {
    input: JSON.stringify({
      secret,
      raw: opts.raw ?? false,
      headers: headerMap(req.headers),
      body: req.body.toString("base64"),
      now: opts.now ?? null,
    }),
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`python3 failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as { id?: string; error?: string };
}
