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
  id: z
    .string()
    .describe(
      "The event's id, the same on every retry, redelivery and endpoint (the `webhook-id` header): deduplicate by it",
    ),
  created_at: z.string().describe("When the event happened, ISO 8601 UTC"),
};

/** A job event: a transition of the job (or a live anomaly, which changes no status). */
export const JobEventPayload = z.object({
  ...Envelope,
  type: z
    .enum(JOB_EVENT_TYPES as [string, ...string[]])
    .describe(
      "`job.` plus the status reached, e.g. `job.failed`; `job.preempted` for a preemption's pause, `job.anomaly` for a live anomaly",
    ),
  data: z
    .object({
      job: z
        .object({
          id: z.string().describe("The job's id, `job_` plus a lowercase ULID"),
          name: z.string().describe("The job's name, the spec's `metadata.name`"),
          status: z
            .string()
            .describe("The status this event brought it to, e.g. `SUCCEEDED` (its `transition.to`)"),
          user_id: z.string().describe("The id (`usr_…`) of the job's owner, the webhook's owner"),
          fleet_id: z.string().describe("The id (`flt_…`) of the fleet it runs in"),
        })
        .describe("The job, as of this event"),
      run_id: z
        .string()
        .nullable()
        .describe(
          "The run (`run_…`) the event concerns, else the job's current run; null before its first dispatch",
        ),
      transition: z
        .object({
          seq: z
            .number()
            .int()
            .describe("The event's number in its job's event log, increasing: orders one job's events"),
          from: z
            .string()
            .nullable()
            .describe(
              "The job's status before, e.g. `RUNNING`; null for the `admitted` event that created it",
            ),
          to: z.string().describe("The job's status after (the same as `from` for an `anomaly` event)"),
          edge: z
            .string()
            .describe(
              "The transition's name, e.g. `admitted`, `dispatch`, `succeeded`, `failed`, `retry`, `anomaly`",
            ),
          actor: z
            .string()
            .describe(
              "Who caused it: `user:<name>`, `agent:<node id>` or `runner:<node id>`, or `system:<part>`",
            ),
        })
        .describe("The state change, as the job's event log records it"),
      reason: z
        .string()
        .nullable()
        .describe("Why, in words, when the event says (`detail.reason`); else null"),
      /** The event's detail as recorded (a failure's `diagnosis`, a preemption's `preempted_by`, …). */
      detail: z
        .record(z.string(), z.unknown())
        .describe(
          "The event's facts as recorded, e.g. `exit_code`, a failure's `diagnosis`, a preemption's `preempted_by`",
        ),
    })
    .describe("What happened to which job"),
});
export type JobEventPayload = z.infer<typeof JobEventPayload>;

/** `webhook.test`: sent by POST /v1/webhooks/:id/test to that webhook only. */
export const TestEventPayload = z.object({
  ...Envelope,
  type: z.literal(TEST_EVENT_TYPE).describe("`webhook.test`"),
  data: z
    .object({
      webhook_id: z.string().describe("The id (`wh_…`) of the webhook tested"),
      message: z.string().describe("A fixed text saying it is a test delivery"),
    })
    .describe("Which webhook the test is for"),
});
export type TestEventPayload = z.infer<typeof TestEventPayload>;

/** A team's GPU-hour budget reached 80 % (`team.budget_warning`) or 100 % (`team.budget_exhausted`). */
export const BudgetEventPayload = z.object({
  ...Envelope,
  type: z
    .enum([BUDGET_WARNING_EVENT, BUDGET_EXHAUSTED_EVENT])
    .describe("`team.budget_warning` (80 % used) or `team.budget_exhausted` (100 %)"),
  data: z
    .object({
      team: z.string().describe("The team's name"),
      period: z.string().describe("The budget period: a month (`2026-12`) or an ISO week (`2026-W49`), UTC"),
      threshold_percent: z.number().describe("The share of the budget reached: 80 or 100"),
      used_gpu_hours: z
        .number()
        .describe("GPU-hours the team used in the period when the threshold was found crossed"),
      limit_gpu_hours: z.number().describe("The period's budget, in GPU-hours"),
      policy: z
        .enum(BUDGET_POLICIES)
        .describe(
          "What happens once it is spent: `refuse` new jobs, also `pause` running ones, or `borrow_free`",
        ),
      resets_at: z.string().describe("When the period ends and the budget renews, ISO 8601 UTC"),
    })
    .describe("Which team's budget, and how much of it is used"),
});
export type BudgetEventPayload = z.infer<typeof BudgetEventPayload>;
