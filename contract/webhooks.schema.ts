/**
 * Webhooks for job events: event types and the request bodies of /v1/webhooks. How a delivery is signed
 * is contract/webhook-signature.ts (docs/api.md "Verifying a delivery" is the receiver's side).
 */
import { z } from "zod";
import { JOB_STATES, type JobState } from "./job-states.js";

/**
 * One event type per job status (`job.succeeded`, …), named after the status a transition reached, and
 * `job.preempted`: the RUNNING → PAUSED of a preemption (its detail says by whom), instead of `job.paused`.
 */
export const PREEMPTED_EVENT_TYPE = "job.preempted";
/**
 * A running job's live anomaly (a NaN loss, a hang: docs/operations.md "Failure diagnosis"), recorded as an
 * event of edge `anomaly` that changes no status.
 */
export const ANOMALY_EVENT_TYPE = "job.anomaly";
export const ANOMALY_EDGE = "anomaly";
export const JOB_EVENT_TYPES: string[] = [
  ...JOB_STATES.map((s) => jobEventType(s)),
  PREEMPTED_EVENT_TYPE,
  ANOMALY_EVENT_TYPE,
];
export const TEST_EVENT_TYPE = "webhook.test";
/** A team used 80 % / 100 % of a period's GPU-hour budget (once per team, period and threshold). */
export const BUDGET_WARNING_EVENT = "team.budget_warning";
export const BUDGET_EXHAUSTED_EVENT = "team.budget_exhausted";
/** What a webhook subscribes to when its body names no events: the states a job comes to rest in. */
export const DEFAULT_WEBHOOK_EVENTS = ["job.succeeded", "job.failed", "job.stopped"];
/**
 * `*` subscribes to every job event; a team's budget events are subscribed to by name (they go to the
 * team's members). `webhook.test` is not subscribed to: it goes to the webhook it tests.
 */
export const SUBSCRIBABLE_EVENTS = ["*", ...JOB_EVENT_TYPES, BUDGET_WARNING_EVENT, BUDGET_EXHAUSTED_EVENT];

export function jobEventType(status: JobState | string): string {
  return `job.${status.toLowerCase()}`;
}

/**
 * The type of one recorded event: its status's, `job.preempted` for a preemption's pause, `job.anomaly`
 * for a live anomaly.
 */
export function transitionEventType(e: { to_status: string; actor: string; edge?: string }): string {
  if (e.edge === ANOMALY_EDGE) return ANOMALY_EVENT_TYPE;
  return e.to_status === "PAUSED" && e.actor === "system:preempt"
    ? PREEMPTED_EVENT_TYPE
    : jobEventType(e.to_status);
}

/**
 * The idempotency id of a job event: stable for (job, transition), so every retry and redelivery of it,
 * to every endpoint of its owner, carries the same `webhook-id` (Standard Webhooks requires exactly that).
 */
export function jobEventId(jobId: string, seq: number): string {
  return `evt_${jobId}_${seq}`;
}

export const MAX_WEBHOOKS_PER_USER = 20;

export const WebhookUrl = z.string().min(1).max(2048);

/** Why `raw` cannot be a webhook endpoint, or null when it can. */
export function webhookUrlProblem(raw: string): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return "is not an absolute URL";
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") return `must be http or https, not ${u.protocol}`;
  // Listed back to anyone who can read the webhook: credentials belong in the signature, not the URL.
  if (u.username || u.password) return "must not carry a user name or password";
  return null;
}

/**
 * The subscribed events, normalised: unique, in the given order, and with `*` no other job event (the
 * team's budget events, which `*` does not cover, stay).
 */
export function normaliseEvents(events: string[]): { events: string[]; unknown: string[] } {
  const unknown = events.filter((e) => !SUBSCRIBABLE_EVENTS.includes(e));
  const unique = [...new Set(events)];
  const budget = [BUDGET_WARNING_EVENT, BUDGET_EXHAUSTED_EVENT];
  return {
    events: unique.includes("*") ? ["*", ...unique.filter((e) => budget.includes(e))] : unique,
    unknown,
  };
}

export const CreateWebhookBody = z.object({
  url: WebhookUrl.describe(
    "Where deliveries are POSTed: an absolute `http` or `https` URL without credentials",
  ),
  /** Event types (`job.succeeded`, …) or `*`; checked against SUBSCRIBABLE_EVENTS by the route. */
  events: z
    .array(z.string().min(1).max(64))
    .min(1)
    .max(32)
    .default(DEFAULT_WEBHOOK_EVENTS)
    .describe("Event types it receives (`job.failed`, …); `*`: every job event, not the team budget events"),
  /** Only jobs of this fleet (name or id); omitted = every fleet. */
  fleet: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe("Only jobs of this fleet (name or id); omitted: every fleet"),
  description: z.string().max(500).default("").describe("What the webhook is for, free text"),
});
export type CreateWebhookBody = z.infer<typeof CreateWebhookBody>;

export const DELIVERY_STATES = ["pending", "delivered", "failed"] as const;

export const DeliveriesQuery = z.object({
  state: z.enum(DELIVERY_STATES).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  /** `next_cursor` of the previous page. */
  cursor: z.coerce.number().int().min(1).optional(),
});

/** One HTTP attempt of a delivery, as listed. */
export const DeliveryAttempt = z.object({
  n: z.number().int().describe("The attempt's number, from 1, counting every attempt of the delivery"),
  at: z.string().describe("When the attempt started, ISO 8601 UTC"),
  status_code: z
    .number()
    .int()
    .nullable()
    .describe("The HTTP status the endpoint answered; null when none came (refused connection, timeout)"),
  error: z
    .string()
    .nullable()
    .describe(
      "What went wrong without a status, e.g. `no response within 10 s`, or `redirects are not followed`; null otherwise",
    ),
  duration_ms: z.number().int().describe("How long the attempt took, in milliseconds"),
});
export type DeliveryAttempt = z.infer<typeof DeliveryAttempt>;
