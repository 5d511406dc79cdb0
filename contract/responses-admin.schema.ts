/**
 * What the HTTP API answers about usage, webhooks and their deliveries, secrets and the audit log
 * (docs/api.md), as the CLI (and any client) parses it. Objects are loose: `--json` prints what the server
 * sent, including fields added after a client was written. responses.schema.ts re-exports every name here,
 * so importers read all answers from one place.
 */

import { z } from "zod";
import { QuotaBody } from "./api.schema.js";
import { SecretView } from "./secrets.schema.js";
import { DeliveryAttempt } from "./webhooks.schema.js";

const NEXT_CURSOR = "The `cursor` of the next page; null on the last page";

// usage ----------------------------------------------------------------------------------------

export const Usage = z.looseObject({
  user: z.string().describe("The user's name"),
  active_gpus: z.number().describe("GPUs the user's open runs hold now"),
  active_jobs: z
    .number()
    .describe(
      "The user's jobs in `QUEUED`, `SUBMITTED`, `PENDING` or `RUNNING`, as the D1 ledger counts them",
    ),
  gpu_hours_today: z.number().describe("GPU-hours the user's runs used this UTC day, open runs up to now"),
  gpu_hours_total: z.number().describe("GPU-hours the user's runs used in all, open runs up to now"),
  quota: QuotaBody.loose().describe(
    "The user's effective quota: the one an admin set, else the default quota",
  ),
  /** Only with `?days=N`: GPU-hours per UTC day, oldest first, every day of the window present. */
  daily: z
    .array(
      z.looseObject({
        date: z.string().describe("The UTC day, `YYYY-MM-DD`"),
        gpu_hours: z
          .number()
          .describe("GPU-hours used that day: a run counts on each day it held GPUs, split at UTC midnight"),
      }),
    )
    .optional()
    .describe("Only with `?days=N`: GPU-hours per UTC day, oldest first, every day of the window present"),
});
export type Usage = z.infer<typeof Usage>;

/** One team's and fleet's GPU use in a budget period (GET /v1/usage/teams). */
export const TeamUsageRow = z.looseObject({
  /** null: jobs of no team. */
  team: z.string().nullable().describe("The team; null: jobs of no team"),
  fleet: z.string().describe("The fleet's name"),
  fleet_id: z.string().describe("The fleet's id (`flt_…`)"),
  in_guarantee_gpu_seconds: z
    .number()
    .describe("GPU-seconds of its runs that ran within the team's guarantee (not borrowed)"),
  borrowed_gpu_seconds: z
    .number()
    .describe("GPU-seconds of its runs that ran on borrowed GPUs, beyond the team's guarantee"),
  gpu_seconds: z.number().describe("All its GPU-seconds in the period: within guarantee plus borrowed"),
  /** Of gpu_seconds, what preempted runs trained past their last checkpoint (lost to preemption). */
  lost_gpu_seconds: z
    .number()
    .describe(
      "Of `gpu_seconds`, what preempted runs trained past their last checkpoint (lost to preemption)",
    ),
});
export type TeamUsageRow = z.infer<typeof TeamUsageRow>;

/** GET /v1/usage/teams: per team (null: no team) its GPU-hours in the period and its budget's use. */
export const TeamUsage = z.looseObject({
  /** `2026-12` or `2026-W49`. */
  period: z.string().describe("The period: a calendar month (`2026-12`) or an ISO week (`2026-W49`), UTC"),
  start: z.string().describe("When the period starts, ISO 8601 UTC"),
  end: z.string().describe("When the period ends (the next one's start, excluded), ISO 8601 UTC"),
  teams: z
    .array(
      z.looseObject({
        team: z.string().nullable().describe("The team; null: jobs of no team"),
        gpu_hours: z.number().describe("GPU-hours its runs used in the period, over the fleets of `rows`"),
        borrowed_gpu_hours: z
          .number()
          .describe("Of `gpu_hours`, those on borrowed GPUs beyond its guarantee"),
        /** Of gpu_hours, lost to preemption: what its preempted runs trained past their last checkpoint. */
        lost_gpu_hours: z
          .number()
          .describe(
            "Of `gpu_hours`, lost to preemption: what its preempted runs trained past their last checkpoint",
          ),
        /** The team's budget for this kind of period (month or week) while it is the current one, else null. */
        budget_gpu_hours: z
          .number()
          .nullable()
          .describe(
            "Its budget for this kind of period (month or week) while the period is the current one; else null",
          ),
        budget_percent: z
          .number()
          .nullable()
          .describe(
            "How much of `budget_gpu_hours` the team has used, in percent; null without such a budget (or a 0 one)",
          ),
        budget_policy: z
          .string()
          .nullable()
          .describe(
            "What a spent budget does: `refuse`, `pause` or `borrow_free`; null: the team has no budget",
          ),
      }),
    )
    .describe("Per team of `rows` (null: no team), its GPU-hours in the period and its budget's use"),
  rows: z
    .array(TeamUsageRow)
    .describe("Per team and fleet, its GPU use in the period (finished runs, and open ones up to now)"),
  total_gpu_seconds: z.number().describe("The sum of `gpu_seconds` over `rows`"),
});
export type TeamUsage = z.infer<typeof TeamUsage>;

// webhooks -------------------------------------------------------------------------------------

export const WebhookView = z.looseObject({
  id: z.string().describe("The webhook's id, `wh_` plus a lowercase ULID"),
  user_id: z.string().describe("The id (`usr_…`) of the user it belongs to, whose events it receives"),
  url: z.string().describe("Where deliveries are POSTed"),
  events: z
    .array(z.string())
    .describe(
      "The event types it receives, e.g. `job.failed`; `*`: every job event (not the team budget ones)",
    ),
  fleet_id: z
    .string()
    .nullable()
    .describe("Only the job events of this fleet (`flt_…`); null: every fleet's"),
  description: z.string().describe("What the webhook is for, free text"),
  secret_prefix: z
    .string()
    .describe("The first 12 characters of its signing secret (`whsec_…`), to tell secrets apart"),
  /** While a rotated-out secret still signs deliveries (24 h), when it stops; else null. */
  previous_secret_expires_at: z
    .string()
    .nullable()
    .describe("After a rotation, when the old secret stops signing beside the new one (24 h on); else null"),
  created_at: z.string().describe("When it was created, ISO 8601 UTC"),
});
export type WebhookView = z.infer<typeof WebhookView>;

export const WithSecret = z.looseObject({
  webhook: WebhookView,
  secret: z
    .string()
    .describe("Its signing secret, `whsec_` plus the base64 of 32 random bytes; shown only in this answer"),
});
export const DeletedWebhook = z.looseObject({
  id: z.string().describe("The deleted webhook's id (`wh_…`)"),
  deleted: z.boolean().describe("Always `true`: the webhook and its deliveries are gone"),
});
export const WebhookList = z.looseObject({
  webhooks: z.array(WebhookView).describe("The user's webhooks, newest first"),
});

export const DeliveryView = z.looseObject({
  id: z
    .string()
    .describe(
      "The event's id, also its `webhook-id` header: `evt_<job id>_<event seq>`, `evt_budget_…` or `evt_<ulid>` (tests)",
    ),
  webhook_id: z.string().describe("The id (`wh_…`) of the webhook it is sent to"),
  type: z.string().describe("The event type, e.g. `job.succeeded`, `team.budget_warning` or `webhook.test`"),
  job_id: z
    .string()
    .nullable()
    .describe("The job (`job_…`) the event is about; null for test and budget events"),
  state: z
    .string()
    .describe(
      "`pending` (its next attempt is due, or in flight), `delivered` (an attempt got a 2xx) or `failed` (retries ran out)",
    ),
  attempts: z.number().describe("How many attempts were made, redeliveries included"),
  last_status_code: z
    .number()
    .nullable()
    .describe("The HTTP status its latest attempt got; null before any, or when none came"),
  last_error: z
    .string()
    .nullable()
    .describe(
      "What went wrong in its latest attempt (no answer, or a redirect, not followed); null otherwise",
    ),
  next_attempt_at: z
    .string()
    .nullable()
    .describe("While `pending`, when its next attempt is due, ISO 8601 UTC; null otherwise"),
  created_at: z.string().describe("When the delivery was queued, ISO 8601 UTC"),
  delivered_at: z
    .string()
    .nullable()
    .describe("When an attempt last got a 2xx answer, ISO 8601 UTC; null until one has"),
  attempt_log: z
    .array(DeliveryAttempt)
    .describe("Every attempt, in order: when, the status or error, and how long it took"),
});
export type DeliveryView = z.infer<typeof DeliveryView>;

export const DeliveryPage = z.looseObject({
  deliveries: z
    .array(DeliveryView)
    .describe(
      "The webhook's deliveries, newest first; a finished one created over 30 days ago is deleted at the next daily sweep",
    ),
  next_cursor: z.string().nullable().describe(NEXT_CURSOR),
});
export const OneDelivery = z.looseObject({
  delivery: DeliveryView.extend({
    payload: z
      .unknown()
      .optional()
      .describe("The body every attempt sends, parsed: in `GET …/deliveries/:delivery` only, absent here"),
  }).describe("The delivery, queued to be sent now (`pending`)"),
});

/** Job secrets (docs/api.md "Secrets"): names and who set them, never a value. */
export const SecretOne = z.looseObject({ secret: SecretView });
export const SecretList = z.looseObject({
  secrets: z.array(SecretView).describe("The secrets, by name; never their values"),
});
export const DeletedSecret = z.looseObject({
  name: z.string().describe("The deleted secret's name"),
  deleted: z.boolean().describe("Always `true`"),
});

// audit ----------------------------------------------------------------------------------------

/** One audit log entry (docs/api.md "GET /v1/audit"); `details` never holds a secret or token value. */
export const AuditEntry = z.looseObject({
  seq: z.number().describe("The entry's number, increasing with each entry"),
  at: z.string().describe("When the action was recorded, ISO 8601 UTC"),
  actor: z.string().describe("Who acted: a user's name, `agent:<node id>` for an agent, or `system`"),
  actor_id: z
    .string()
    .nullable()
    .describe("The actor's id: the user's (`usr_…`) or the agent's node id; null for `system`"),
  action: z.string().describe("What was done, `<noun>.<verb>`, e.g. `user.create`, `secret.set`"),
  target: z
    .string()
    .describe(
      "What it was done to, `<kind>:<name or id>`, e.g. `user:alice`, `token:tok_…`, `secret:fleet:gpu-east/HF_TOKEN`; just `capsule` for the capsule",
    ),
  ip: z
    .string()
    .nullable()
    .describe("The client's address: `CF-Connecting-IP`, else the first `X-Forwarded-For` entry; else null"),
  user_agent: z.string().nullable().describe("The client's `User-Agent`, cut to 200 characters; null: none"),
  details: z
    .record(z.string(), z.unknown())
    .describe(
      "Small facts about the action (a role, changed fields, …); never a secret, token or webhook URL",
    ),
});
export type AuditEntry = z.infer<typeof AuditEntry>;

export const AuditPage = z.looseObject({
  entries: z.array(AuditEntry).describe("The matching entries, newest first"),
  next_cursor: z.string().nullable().describe(NEXT_CURSOR),
});
