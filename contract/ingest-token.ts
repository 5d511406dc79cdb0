/**
 * Per-run ingest tokens: HS256 JWTs naming one run (and its job, fleet and lease epoch) with scope
 * "ingest". The Fleet DO mints one into each LaunchRequest; ingest routes accept a token only for the
 * run it names, and every other route refuses it (another audience than agent credentials).
 */
import { type IngestClaims, IngestClaims as IngestClaimsSchema } from "./ingest.schema.js";
import { signHs256, verifyHs256 } from "./jwt.js";

const AUDIENCE = "starforge-ingest";

/**
 * Generous: a run may train for weeks, and late log drains after the end are still accepted. A token
 * is refused earlier, SF_RUN_TOKEN_GRACE_SECONDS after its run ended (worker/auth/ingest-auth.ts).
 */
export const INGEST_TOKEN_TTL_SECONDS = 30 * 24 * 3600;

export function mintIngestToken(
  secret: string,
  claims: Omit<IngestClaims, "scope">,
  ttlSeconds = INGEST_TOKEN_TTL_SECONDS,
) {
  return signHs256(secret, {
    audience: AUDIENCE,
    subject: claims.sub,
    claims: { job: claims.job, fleet: claims.fleet, epoch: claims.epoch, scope: "ingest" },
    ttlSeconds,
  });
}

/** The claims of a valid ingest token, or null (bad signature, expired, another audience, malformed). */
export function verifyIngestToken(secret: string | undefined, token: string): Promise<IngestClaims | null> {
  return verifyHs256(secret, token, AUDIENCE, IngestClaimsSchema);
}
