/** The audit log's query (docs/api.md "GET /v1/audit"); the answer's shape is in responses.schema.ts. */
import { z } from "zod";

/** An ISO date or date-time, normalised to the stored form (`2025-01-31T12:00:00.000Z`) so it compares as text. */
const IsoTime = z
  .union([z.iso.date(), z.iso.datetime({ offset: true })])
  .transform((s) => new Date(s).toISOString());

export const AuditQuery = z.object({
  /** A user's name or id, or `agent:<node id>`, or `system`. */
  actor: z.string().min(1).max(200).optional(),
  /** A prefix of the action: `secret.` matches `secret.set` and `secret.delete`. */
  action: z.string().min(1).max(100).optional(),
  /** The exact target, e.g. `user:alice` or `fleet:gpu-east`. */
  target: z.string().min(1).max(300).optional(),
  /** Entries at or after this time. */
  since: IsoTime.optional(),
  /** Entries before this time. */
  until: IsoTime.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  /** `next_cursor` of the previous page. */
  cursor: z.coerce.number().int().min(1).optional(),
});
export type AuditQuery = z.infer<typeof AuditQuery>;
