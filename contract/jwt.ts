/**
 * The one HS256 JWT scheme of the control plane (jose): agent credentials and per-run ingest tokens
 * differ only in audience, claims and lifetime, so a token of one kind is never accepted as the other.
 */
import { jwtVerify, SignJWT } from "jose";
import type { z } from "zod";

const ISSUER = "starforge";

function key(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

export function signHs256(
  secret: string,
  o: { audience: string; subject: string; claims: Record<string, unknown>; ttlSeconds?: number },
): Promise<string> {
  const jwt = new SignJWT(o.claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(o.subject)
    .setIssuer(ISSUER)
    .setAudience(o.audience)
    .setIssuedAt();
  if (o.ttlSeconds !== undefined) jwt.setExpirationTime(`${o.ttlSeconds}s`);
  return jwt.sign(key(secret));
}

/** The token's claims parsed by `schema`, or null (no secret, bad signature, expired, other audience, malformed). */
export async function verifyHs256<S extends z.ZodType>(
  secret: string | undefined,
  token: string,
  audience: string,
  schema: S,
): Promise<z.infer<S> | null> {
  if (!secret) return null;
  try {
    const { payload } = await jwtVerify(token, key(secret), {
      issuer: ISSUER,
      audience,
      algorithms: ["HS256"],
    });
    const parsed = schema.safeParse(payload);
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
