/** Agent node credentials: HS256 JWTs naming the node and its fleet, minted at enrollment. */
import { z } from "zod";
import { signHs256, verifyHs256 } from "../../contract/jwt.js";
import { AppError } from "../errors.js";

const AUDIENCE = "starforge-agent";

const Claims = z.object({
  sub: z.string().startsWith("nod_"),
  fleet: z.string().startsWith("flt_"),
  scope: z.literal("agent"),
});

export function signAgentCredential(
  secret: string | undefined,
  nodeId: string,
  fleetId: string,
): Promise<string> {
  if (!secret) throw new AppError("INTERNAL", "SF_JWT_SECRET is not configured on the server");
  return signHs256(secret, {
    audience: AUDIENCE,
    subject: nodeId,
    claims: { fleet: fleetId, scope: "agent" },
  });
}

/** Returns the node and fleet, or null when the token is not an agent credential we issued. */
export async function verifyAgentCredential(
  secret: string | undefined,
  token: string,
): Promise<{ nodeId: string; fleetId: string } | null> {
  const claims = await verifyHs256(secret, token, AUDIENCE, Claims);
  return claims ? { nodeId: claims.sub, fleetId: claims.fleet } : null;
}
