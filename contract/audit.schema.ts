/** The audit log's query (docs/api.md "GET /v1/audit"); the answer's shape is in responses.schema.ts. */
import { z } from "zod";

/**
 * Every action the audit log records, `<noun>.<verb>`; a route can record no other (audit.service.ts types
 * it), and docs/api.md "Audit log" lists each (test/unit/docs-audit.test.ts).
 */
export const AUDIT_ACTIONS = [
  "user.create",
  "user.update",
  "quota.set",
  "token.create",
  "token.revoke",
  "fleet.create",
  "fleet.update",
  "fleet.drain",
  "fleet.undrain",
  "node.register",
  "node.cordon",
  "node.uncordon",
  "node.drain",
  "node.revoke",
  "node.remove",
  "enrollment_token.create",
  "agent.enroll",
  "secret.set",
  "secret.delete",
  "secret.rewrap",
  "webhook.create",
  "webhook.delete",
  "webhook.rotate_secret",
  "capsule.publish",
  "recipe.publish",
  "profile.set",
  "profile.delete",
  "priority_class.set",
  "priority_class.delete",
  "team.set",
  "team.delete",
  "team.member.set",
  "team.member.delete",
  "team.quota.set",
  "team.quota.delete",
  "team.budget.set",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

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
