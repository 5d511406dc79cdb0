/** Agent node credentials as the Worker checks them (minting and the claims: contract/agent-credential.ts). */
import { checkAgentCredential } from "../../contract/agent-credential.js";
import { AppError } from "../errors.js";

/**
 * The node and fleet of a valid credential; null when the token is not an agent credential we issued.
 * An expired one is refused here with a message that says what to do.
 */
export async function verifyAgentCredential(
  secret: string | undefined,
  token: string,
): Promise<{ nodeId: string; fleetId: string } | null> {
  const r = await checkAgentCredential(secret, token);
  if (r.ok) return { nodeId: r.nodeId, fleetId: r.fleetId };
  if (r.why === "expired") {
    throw new AppError(
      "UNAUTHENTICATED",
      `this node's credential expired at ${new Date(r.expiredAt).toISOString()} (an agent is renewed while connected); enroll the node again with a new token from \`sf admin fleet enroll-token\``,
      { reason: "credential_expired" },
    );
  }
  return null;
}
