/**
 * Node credentials: HS256 JWTs naming a node and its fleet (scope "agent"), minted at enrollment by the
 * Worker and renewed over the agent's open socket by the Fleet DO (docs/security.md "Credentials"). They
 * are short-lived: an agent that stays connected is renewed before expiry; one that was away longer
 * than its credential lives must be enrolled again.
 */
import { decodeJwt, errors, jwtVerify } from "jose";
import { z } from "zod";
import { signHs256 } from "./jwt.js";

const AUDIENCE = "starforge-agent";
const ISSUER = "starforge";

/** Default lifetime (SF_AGENT_CREDENTIAL_HOURS). */
export const AGENT_CREDENTIAL_HOURS = 24;

/** Renewed once less than this share of its lifetime is left. */
export const RENEW_WHEN_LEFT = 1 / 3;

const Claims = z.object({
  sub: z.string().startsWith("nod_"),
  fleet: z.string().startsWith("flt_"),
  scope: z.literal("agent"),
  exp: z.number().optional(),
});

export async function mintAgentCredential(
  secret: string,
  nodeId: string,
  fleetId: string,
  ttlSeconds: number,
): Promise<{ credential: string; expiresAt: number }> {
  const credential = await signHs256(secret, {
    audience: AUDIENCE,
    subject: nodeId,
    claims: { fleet: fleetId, scope: "agent" },
    ttlSeconds,
  });
  return { credential, expiresAt: (decodeJwt(credential).exp ?? 0) * 1000 };
}

export type AgentCredentialCheck =
  | {
      ok: true;
      nodeId: string;
      fleetId: string /** epoch ms; null for a credential minted without one */;
      expiresAt: number | null;
    }
  | { ok: false; why: "expired"; expiredAt: number }
  | { ok: false; why: "invalid" };

/** Verifies a credential: its node and fleet, or why not (expired apart from every other failure). */
export async function checkAgentCredential(
  secret: string | undefined,
  token: string,
): Promise<AgentCredentialCheck> {
  if (!secret) return { ok: false, why: "invalid" };
  try {
    const { payload } = await jwtVerify(token, new TextEncoder().encode(secret), {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ["HS256"],
    });
    const c = Claims.safeParse(payload);
    if (!c.success) return { ok: false, why: "invalid" };
    return {
      ok: true,
      nodeId: c.data.sub,
      fleetId: c.data.fleet,
      expiresAt: c.data.exp === undefined ? null : c.data.exp * 1000,
    };
  } catch (err) {
    if (err instanceof errors.JWTExpired)
      return { ok: false, why: "expired", expiredAt: (Number(err.payload.exp) || 0) * 1000 };
    return { ok: false, why: "invalid" };
  }
}

/** When a credential is due for renewal: once less than RENEW_WHEN_LEFT of `ttlMs` is left (legacy: now). */
export function renewDueAt(expiresAt: number | null, ttlMs: number): number {
  return expiresAt === null ? 0 : expiresAt - ttlMs * RENEW_WHEN_LEFT;
}
