/** Content digests and canonical JSON: the same bytes hash the same on every layer (CLI, Worker, agent). */
import { createHash } from "node:crypto";
import { z } from "zod";

export const DIGEST_RE = /^sha256:[0-9a-f]{64}$/;
export const Digest = z.string().regex(DIGEST_RE, "expected sha256:<64 lowercase hex>");
export type Digest = z.infer<typeof Digest>;

/**
 * JSON with object keys sorted at every depth, no whitespace: a stable input for hashing. Written in one
 * pass (no sorted copy of the value is built); the output is exactly `JSON.stringify` of that copy (keys
 * whose value is undefined left out, undefined in an array written as null: test/unit/digest.test.ts).
 */
export function canonicalJson(value: unknown): string {
  return write(value) ?? "null";
}

function write(value: unknown): string | undefined {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += `${i ? "," : ""}${write(value[i]) ?? "null"}`;
    return `${out}]`;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === "function")
    return write(JSON.parse(JSON.stringify(value)));
  let out = "{";
  for (const key of Object.keys(value).sort()) {
    const v = write((value as Record<string, unknown>)[key]);
    if (v === undefined) continue;
    out += `${out.length > 1 ? "," : ""}${JSON.stringify(key)}:${v}`;
  }
  return `${out}}`;
}

/**
 * SHA-256 in lowercase hex. Synchronous under the hood (node:crypto, which workerd provides with
 * nodejs_compat): WebCrypto's digest is a promise and a trip through the runtime for every small input.
 */
export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  return createHash("sha256").update(data).digest("hex");
}

export async function digestOf(data: string | Uint8Array): Promise<Digest> {
  return `sha256:${await sha256Hex(data)}`;
}

export async function digestOfJson(value: unknown): Promise<Digest> {
  return digestOf(canonicalJson(value));
}
