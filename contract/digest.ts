/** Content digests and canonical JSON: the same bytes hash the same on every layer (CLI, Worker, agent). */
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

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

/**
 * SHA-256 in lowercase hex, through WebCrypto. (node:crypto's `createHash` builds a stream object for
 * every hash: measured on the admission path, two hashes per submit cost ~30 µs more CPU than this.)
 */
export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  // Our bytes never live in a SharedArrayBuffer; the cast only narrows the buffer type for WebCrypto.
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : (data as Uint8Array<ArrayBuffer>);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  let out = "";
  for (const b of digest) out += HEX[b];
  return out;
}

export async function digestOf(data: string | Uint8Array): Promise<Digest> {
  return `sha256:${await sha256Hex(data)}`;
}

export async function digestOfJson(value: unknown): Promise<Digest> {
  return digestOf(canonicalJson(value));
}
