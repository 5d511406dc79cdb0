/** What a webhook endpoint receives for a job event: the delivery's exact JSON body. Pure. */
import type { JobEventPayload } from "../../contract/webhook-payloads.schema.js";
import { jobEventId, transitionEventType } from "../../contract/webhooks.schema.js";
import type { EventJob, JobEventRecord } from "../fleet/outbox-entry.js";

/** The JSON body every endpoint receives for a job event (docs/operations.md "Webhooks"). */
export function jobEventPayload(e: JobEventRecord, job: EventJob): string {
  const detail = JSON.parse(e.detail) as Record<string, unknown>;
  const payload: JobEventPayload = {
    id: jobEventId(e.job_id, e.seq),
    type: transitionEventType(e),
    created_at: e.ts,
    data: {
      job: {
        id: e.job_id,
        name: job.name,
        status: e.to_status,
        user_id: job.user_id,
        fleet_id: job.fleet_id,
      },
      run_id: typeof detail.run_id === "string" ? detail.run_id : job.run_id,
      transition: { seq: e.seq, from: e.from_status, to: e.to_status, edge: e.edge, actor: e.actor },
      reason: typeof detail.reason === "string" ? detail.reason : null,
      detail,
    },
  };
  return JSON.stringify(payload);
}
