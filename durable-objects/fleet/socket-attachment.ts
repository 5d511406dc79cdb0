/** What each agent socket carries across hibernation (its attachment): ids and times only. */
import { z } from "zod";

/** Socket state is small (ids only) and parsed on read; everything else lives in SQL. */
export const SocketAttachment = z.object({
  nodeId: z.string(),
  lastSeen: z.number(),
  /** When the credential this socket was opened (or last renewed) with expires; null: it has no expiry. */
  credentialExpiresAt: z.number().nullable().default(null),
});
export type SocketAttachment = z.infer<typeof SocketAttachment>;

/** A socket's attachment, or null when it is not one of ours (or was written by an older version). */
export function attachment(ws: WebSocket): SocketAttachment | null {
  const r = SocketAttachment.safeParse(ws.deserializeAttachment());
  return r.success ? r.data : null;
}
