/** The document's tags (docs/api.md's sections) and its `webhooks`: what an endpoint receives. */
import type { ZodType } from "zod";
import {
  BudgetEventPayload,
  JobEventPayload,
  TestEventPayload,
} from "../../contract/webhook-payloads.schema.js";

export const TAGS = [
  { name: "Health", description: "Liveness, version and the schema the server runs." },
  { name: "Identity", description: "Me, users, tokens and quotas; the device login." },
  { name: "Catalog", description: "Recipes and their versions." },
  { name: "Profiles", description: "GPU profiles jobs ask for." },
  { name: "Priority classes", description: "How urgent a job is, and what it may preempt." },
  { name: "Teams", description: "Teams, members, budgets and per-fleet quotas." },
  { name: "Secrets", description: "Secrets jobs name, per user and per fleet." },
  { name: "Fleets", description: "Fleets, their nodes, enrollment and maintenance." },
  { name: "Agents", description: "What forgelet calls: enrollment and its WebSocket." },
  { name: "Jobs", description: "Submit, list, follow, stop, pause and resume jobs." },
  { name: "Run data", description: "A job's metrics, logs, events, environment and artifacts." },
  { name: "Blobs", description: "Content-addressed uploads (workspaces, configs)." },
  { name: "Capsule", description: "The job capsule forgelet installs in each run." },
  { name: "Usage", description: "GPU-hours used, per user and per team." },
  { name: "Webhooks", description: "Endpoints that receive signed job events, and their deliveries." },
  { name: "Audit", description: "Who changed what." },
  { name: "Metrics", description: "Prometheus metrics of the control plane." },
  { name: "Ingest", description: "What a running job sends (the capsule's ingest token)." },
];

export const WEBHOOKS: Record<string, { summary: string; description: string; payload: ZodType }> = {
  "job-event": {
    summary: "A job event",
    description:
      "Sent for each subscribed job event (`job.succeeded`, `job.failed`, …, `job.preempted`, `job.anomaly`), " +
      'signed per Standard Webhooks (docs/api.md "Verifying a delivery"). A `job.failed` is sent once its ' +
      "diagnosis is known, and carries it in `data.detail.diagnosis`.",
    payload: JobEventPayload,
  },
  "webhook-test": {
    summary: "A test delivery",
    description: "Sent by POST /v1/webhooks/{id}/test to that endpoint only.",
    payload: TestEventPayload,
  },
  "team-budget": {
    summary: "A team's budget threshold",
    description:
      "`team.budget_warning` at 80 % and `team.budget_exhausted` at 100 % of a period's GPU-hour budget, to " +
      "the team's members whose endpoints subscribe to it by name.",
    payload: BudgetEventPayload,
  },
};
