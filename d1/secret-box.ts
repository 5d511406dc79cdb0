/**
 * Sealing job secrets at rest: AES-256-GCM (WebCrypto) under SF_SECRETS_KEY, a random 96-bit IV per
 * value, and the row's identity (scope, owner, name) as additional authenticated data, so a sealed value
 * opens only in the row it was written for. Each key is named by a short digest of itself (`key_id`,
 * stored beside the value): older keys listed in SF_SECRETS_OLD_KEYS still open what they sealed, which is
 * how the key rotates (docs/security.md "Rotating keys"). Pure WebCrypto: the same in workerd and Node.
 */
import { base64url } from "jose";

export interface SecretKeyring {
  /** The key new values are sealed with. */
  current: { id: string; key: CryptoKey };
  /** Every key that may open a stored value, by id (the current one included). */
  byId: Map<string, CryptoKey>;
}

/** A misconfigured key is an operator's error, named in the message; never the key itself. */
export class SecretKeyError extends Error {}

const rings = new Map<string, Promise<SecretKeyring>>();

async function importKey(encoded: string, what: string): Promise<{ id: string; key: CryptoKey }> {
  let raw: Uint8Array<ArrayBuffer>;
  try {
    raw = new Uint8Array(base64url.decode(encoded.trim()));
  } catch {
    throw new SecretKeyError(`${what} is not base64url`);
  }
  if (raw.length !== 32) throw new SecretKeyError(`${what} must be 32 bytes (base64url, 43 characters)`);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", raw));
  const id = [...digest.slice(0, 6)].map((b) => b.toString(16).padStart(2, "0")).join("");
  const key = await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
  return { id, key };
}

/**
 * The keyring from the configured keys, or null when SF_SECRETS_KEY is not set (secrets are then
 * unavailable, with a coded error, rather than stored weakly). Imported once per configuration.
 */
export function secretKeyring(
  current: string | undefined,
  old: string | undefined,
): Promise<SecretKeyring> | null {
  if (!current) return null;
  const cacheKey = `${current}\n${old ?? ""}`;
  let ring = rings.get(cacheKey);
  if (!ring) {
    ring = (async () => {
      const cur = await importKey(current, "SF_SECRETS_KEY");
      const byId = new Map([[cur.id, cur.key]]);
      const olds = (old ?? "").split(",").filter((s) => s.trim() !== "");
      for (const [i, o] of olds.entries()) {
        const k = await importKey(o, `SF_SECRETS_OLD_KEYS entry ${i + 1}`);
        if (!byId.has(k.id)) byId.set(k.id, k.key);
      }
      return { current: cur, byId };
    })();
    ring.catch(() => rings.delete(cacheKey));
    rings.set(cacheKey, ring);
  }
  return ring;
}

/** What binds a sealed value to its row. */
export interface SecretAddress {
  scope: "user" | "fleet";
  ownerId: string;
  name: string;
}

const aad = (a: SecretAddress) =>
  new TextEncoder().encode(`starforge-secret\n${a.scope}\n${a.ownerId}\n${a.name}`);

export async function sealSecret(
  ring: SecretKeyring,
  at: SecretAddress,
  value: string,
): Promise<{ keyId: string; sealed: string }> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: aad(at) },
      ring.current.key,
      new TextEncoder().encode(value),
    ),
  );
  const out = new Uint8Array(iv.length + ct.length);
  out.set(iv);
  out.set(ct, iv.length);
  return { keyId: ring.current.id, sealed: base64url.encode(out) };
}

/** Opens a stored value; throws SecretKeyError if its key is not configured or the value was tampered with. */
export async function openSecret(
  ring: SecretKeyring,
  at: SecretAddress,
  row: { keyId: string; sealed: string },
): Promise<string> {
  const key = ring.byId.get(row.keyId);
  if (!key) {
    throw new SecretKeyError(
      `secret ${at.name} was sealed with key ${row.keyId}, which is neither SF_SECRETS_KEY nor in SF_SECRETS_OLD_KEYS`,
    );
  }
  const bytes = new Uint8Array(base64url.decode(row.sealed));
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: bytes.slice(0, 12), additionalData: aad(at) },
      key,
      bytes.slice(12),
    );
    return new TextDecoder().decode(plain);
  } catch {
    throw new SecretKeyError(`secret ${at.name} does not open with key ${row.keyId} (altered or moved)`);
  }
}
