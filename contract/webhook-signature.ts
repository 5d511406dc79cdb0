/**
 * How a webhook delivery is signed: the Standard Webhooks scheme (standardwebhooks.com, the one the
 * `standardwebhooks` and `svix` libraries verify), and until 0.2.0 also the StarForge scheme it replaces.
 * Web Crypto and atob/btoa only, so workerd (the sender) and Node (tests, sf) run the same code.
 *
 * Secrets: `whsec_<base64 of 32 random bytes>`, and the HMAC key is the decoded bytes, as the libraries
 * expect. Endpoints created before this scheme hold `whsec_<43 base64url characters>`: that is not base64
 * a library can decode, so for such a legacy secret the key of both schemes is the secret string itself
 * (its UTF-8 bytes), which is what the old signature always used; rotating the secret replaces it with
 * a standard one. The old StarForge signature keeps the string as its key for every secret, so a receiver
 * still on it verifies exactly as before, whichever kind of secret its endpoint has.
 */

/** The Standard Webhooks headers of every delivery. */
export const WEBHOOK_HEADERS = {
  id: "webhook-id",
  timestamp: "webhook-timestamp",
  signature: "webhook-signature",
} as const;

/** The headers StarForge sent before Standard Webhooks; still sent, until LEGACY_HEADERS_REMOVED_IN. */
export const LEGACY_WEBHOOK_HEADERS = {
  id: "StarForge-Webhook-Id",
  timestamp: "StarForge-Webhook-Timestamp",
  signature: "StarForge-Webhook-Signature",
} as const;

/** The release that stops sending LEGACY_WEBHOOK_HEADERS (docs/api.md "Webhooks" says so). */
export const LEGACY_HEADERS_REMOVED_IN = "0.2.0";

export const WEBHOOK_SECRET_PREFIX = "whsec_";
/** Random bytes in a new secret (the specification asks for 24 to 64). */
export const WEBHOOK_SECRET_BYTES = 32;
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;

/** Padded standard base64: what a library decodes. A legacy secret (43 characters) never matches it. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const enc = new TextEncoder();

function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

/** A new endpoint secret: `whsec_` + base64 of WEBHOOK_SECRET_BYTES random bytes. */
export function mintWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(WEBHOOK_SECRET_BYTES)));
}

/** The key bytes of a Standard Webhooks secret (`whsec_<base64 of 24–64 bytes>`), or null for any other. */
export function standardSecretKey(secret: string): Uint8Array | null {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) return null;
  const b64 = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  if (!BASE64.test(b64)) return null;
  const key = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  return key.length >= MIN_KEY_BYTES && key.length <= MAX_KEY_BYTES ? key : null;
}

/** The HMAC key of the Standard Webhooks signature: the decoded secret, or a legacy secret's own bytes. */
export function signingKey(secret: string): Uint8Array {
  return standardSecretKey(secret) ?? enc.encode(secret);
}

async function hmacSha256(key: Uint8Array, message: string): Promise<Uint8Array> {
  // A copy: Web Crypto's types take only ArrayBuffer-backed views.
  const raw = new Uint8Array(key);
  const k = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", k, enc.encode(message)));
}

/** What Standard Webhooks signs: `<id>.<unix seconds>.<raw body>`. */
export function signedContent(id: string, timestamp: number, body: string): string {
  return `${id}.${timestamp}.${body}`;
}

/** `v1,<base64 HMAC-SHA256>` per secret, space-separated (a rotation signs with the new and the old). */
export async function signatureHeader(
  secrets: string[],
  id: string,
  timestamp: number,
  body: string,
): Promise<string> {
  const parts: string[] = [];
  for (const secret of secrets) {
    const mac = await hmacSha256(signingKey(secret), signedContent(id, timestamp, body));
    parts.push(`v1,${toBase64(mac)}`);
  }
  return parts.join(" ");
}

/** The old StarForge signature, unchanged: `v1=<hex HMAC(secret string, "<timestamp>.<body>")>`, comma-separated. */
export async function legacySignatureHeader(
  secrets: string[],
  timestamp: number,
  body: string,
): Promise<string> {
  const parts: string[] = [];
  for (const secret of secrets) {
    const mac = await hmacSha256(enc.encode(secret), `${timestamp}.${body}`);
    parts.push(`v1=${[...mac].map((b) => b.toString(16).padStart(2, "0")).join("")}`);
  }
  return parts.join(",");
}

/**
 * Every signing header of one attempt: the Standard Webhooks three and the legacy three. `id` is the
 * event id, the same on every retry and redelivery; `secrets` the current secret first.
 */
export async function deliveryHeaders(
  secrets: string[],
  id: string,
  timestamp: number,
  body: string,
): Promise<Record<string, string>> {
  return {
    [WEBHOOK_HEADERS.id]: id,
    [WEBHOOK_HEADERS.timestamp]: String(timestamp),
    [WEBHOOK_HEADERS.signature]: await signatureHeader(secrets, id, timestamp, body),
    [LEGACY_WEBHOOK_HEADERS.id]: id,
    [LEGACY_WEBHOOK_HEADERS.timestamp]: String(timestamp),
    [LEGACY_WEBHOOK_HEADERS.signature]: await legacySignatureHeader(secrets, timestamp, body),
  };
}
