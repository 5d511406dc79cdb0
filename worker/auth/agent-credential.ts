/** Agent node credentials: HS256 JWTs (jose) naming the node and its fleet, minted at enrollment. */
import { jwtVerify, SignJWT } from "jose";
import { z } from "zod";
import { AppError } from "../errors.js";

const ISSUER = "starforge";
const AUDIENCE = "starforge-agent";

const Claims = z.object({
  sub: z.string().startsWith("nod_"),
  fleet: z.string().startsWith("flt_"),
  scope: z.literal("agent"),
});

function key(secret: string | undefined): Uint8Array {
  if (!secret) throw new AppError("INTERNAL", "SF_JWT_SECRET is not configured on the server");
  return new TextEncoder().encode(secret);
}

export function signAgentCredential(
  secret: string | undefined,
  nodeId: string,
  fleetId: string,
): Promise<string> {
  return new SignJWT({ fleet: fleetId, scope: "agent" })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(nodeId)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .sign(key(secret));
}

/** Returns the node and fleet, or null when the token is not an agent credential we issued. */
export async function verifyAgentCredential(
  secret: string | undefined,
  token: string,
): Promise<{ nodeId: string; fleetId: string } | null> {
  // Without a key no agent credential can be valid; that is the caller's 401, not a server error.
  if (!secret) return null;
  try {
    const { payload } = await jwtVerify(token, key(secret), {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ["HS256"],
    });
    const claims = Claims.parse(payload);
    return { nodeId: claims.sub, fleetId: claims.fleet };
  } catch (err) {
    if (err instanceof AppError) throw err;
    return null;
  }
}
