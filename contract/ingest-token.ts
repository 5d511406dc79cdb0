/**
 * Per-run ingest tokens: HS256 JWTs naming one run (and its job, fleet and lease epoch) with scope
 * "ingest". The Fleet DO mints one into each LaunchRequest; ingest routes accept a token only for the
 * run it names, and every other route refuses it (another audience than agent credentials).
 */
import { jwtVerify, SignJWT } from "jose";
import { type IngestClaims, IngestClaims as IngestClaimsSchema } from "./ingest.schema.js";

const ISSUER = "starforge";
const AUDIENCE = "starforge-ingest";

/**
 * Generous: a run may train for weeks, and late log drains after the end are still accepted. A token
 * stays valid until it expires or the secret rotates; ending a run does not revoke it.
 */
export const INGEST_TOKEN_TTL_SECONDS = 30 * 24 * 3600;

function key(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

export function mintIngestToken(
  secret: string,
  claims: Omit<IngestClaims, "scope">,
  ttlSeconds = INGEST_TOKEN_TTL_SECONDS,
) {
  return new SignJWT({ job: claims.job, fleet: claims.fleet, epoch: claims.epoch, scope: "ingest" })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(claims.sub)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${ttlSeconds}s`)
    .sign(key(secret));
}

/** The claims of a valid ingest token, or null (bad signature, expired, another audience, malformed). */
export async function verifyIngestToken(
  secret: string | undefined,
  token: string,
): Promise<IngestClaims | null> {
  if (!secret) return null;
  try {
    const { payload } = await jwtVerify(token, key(secret), {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ["HS256"],
    });
    const parsed = IngestClaimsSchema.safeParse(payload);
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
