/** Content digests and canonical JSON: the same bytes hash the same on every layer (CLI, Worker, agent). */
import { z } from "zod";

export const DIGEST_RE = /^sha256:[0-9a-f]{64}$/;
export const Digest = z.string().regex(DIGEST_RE, "expected sha256:<64 lowercase hex>");
export type Digest = z.infer<typeof Digest>;

/** JSON with object keys sorted at every depth, no whitespace: a stable input for hashing. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortDeep(value));
}

function sortDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortDeep);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortDeep(v);
    }
    return out;
  }
  return value;
}

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

function toHex(buf: ArrayBuffer): string {
  let out = "";
  for (const b of new Uint8Array(buf)) out += HEX[b];
  return out;
}

export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  // Our bytes never live in a SharedArrayBuffer; the cast only narrows the buffer type for WebCrypto.
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : (data as Uint8Array<ArrayBuffer>);
  return toHex(await crypto.subtle.digest("SHA-256", bytes));
}

export async function digestOf(data: string | Uint8Array): Promise<Digest> {
  return `sha256:${await sha256Hex(data)}`;
}

export async function digestOfJson(value: unknown): Promise<Digest> {
  return digestOf(canonicalJson(value));
}
