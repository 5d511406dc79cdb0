/**
 * What a webhook endpoint receives: the JSON body of each kind of delivery (docs/operations.md "Webhooks",
 * the OpenAPI document's `webhooks`). The code that builds each body is typed by these schemas, so a field
 * added to a payload and not here fails the typecheck.
 */
import { z } from "zod";
import { BUDGET_POLICIES } from "./teams.js";
import {
  BUDGET_EXHAUSTED_EVENT,
  BUDGET_WARNING_EVENT,
  JOB_EVENT_TYPES,
  TEST_EVENT_TYPE,
} from "./webhooks.schema.js";

const Envelope = {
  /** Stable for the event: every retry and every endpoint gets the same id (the `webhook-id` header). */
  id: z.string(),
  created_at: z.string(),
};

/** A job event: a transition of the job (or a live anomaly, which changes no status). */
export const JobEventPayload = z.object({
  ...Envelope,
  type: z.enum(JOB_EVENT_TYPES as [string, ...string[]]),
  data: z.object({
    job: z.object({
      id: z.string(),
      name: z.string(),
      status: z.string(),
      user_id: z.string(),
      fleet_id: z.string(),
    }),
    run_id: z.string().nullable(),
    transition: z.object({
      seq: z.number().int(),
      from: z.string().nullable(),
      to: z.string(),
      edge: z.string(),
      actor: z.string(),
    }),
    reason: z.string().nullable(),
    /** The event's detail as recorded (a failure's `diagnosis`, a preemption's `by`, …). */
    detail: z.record(z.string(), z.unknown()),
  }),
});
export type JobEventPayload = z.infer<typeof JobEventPayload>;

/** `webhook.test`: sent by POST /v1/webhooks/:id/test to that webhook only. */
export const TestEventPayload = z.object({
  ...Envelope,
  type: z.literal(TEST_EVENT_TYPE),
  data: z.object({ webhook_id: z.string(), message: z.string() }),
});
export type TestEventPayload = z.infer<typeof TestEventPayload>;

/** A team's GPU-hour budget reached 80 % (`team.budget_warning`) or 100 % (`team.budget_exhausted`). */
export const BudgetEventPayload = z.object({
  ...Envelope,
  type: z.enum([BUDGET_WARNING_EVENT, BUDGET_EXHAUSTED_EVENT]),
  data: z.object({
    team: z.string(),
    period: z.string(),
    threshold_percent: z.number(),
    used_gpu_hours: z.number(),
    limit_gpu_hours: z.number(),
    policy: z.enum(BUDGET_POLICIES),
    resets_at: z.string(),
  }),
});
export type BudgetEventPayload = z.infer<typeof BudgetEventPayload>;
