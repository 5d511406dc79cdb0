/**
 * Job event → webhook deliveries, as D1 statements of the outbox flush that writes the event itself. One
 * INSERT … SELECT creates a pending delivery for every endpoint of the job's owner that subscribes to
 * the event; (webhook, event) is unique and the insert ignores conflicts, so a flush that is retried or
 * replayed never creates a delivery twice. Sending is the WebhookDispatcher's job, never the flush's.
 */
import { nowIso } from "../../contract/ids.js";
import { jobEventId, jobEventType } from "../../contract/webhooks.schema.js";
import type { EventJob, JobEventRecord } from "../fleet/outbox-entry.js";

/** The JSON body every endpoint receives for a job event (docs/operations.md "Webhooks"). */
export function jobEventPayload(e: JobEventRecord, job: EventJob): string {
  const detail = JSON.parse(e.detail) as Record<string, unknown>;
  return JSON.stringify({
    id: jobEventId(e.job_id, e.seq),
    type: jobEventType(e.to_status),
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
  });
}

export function webhookFanout(
  d1: D1Database,
  e: JobEventRecord,
  job: EventJob | undefined,
): D1PreparedStatement[] {
  // Event entries written before webhooks existed carry no job; they create no deliveries.
  if (!job) return [];
  const type = jobEventType(e.to_status);
  return [
    d1
      .prepare(
        `INSERT OR IGNORE INTO webhook_deliveries
           (webhook_id, event_id, user_id, job_id, type, payload, state, next_attempt_at, created_at)
         SELECT w.id, ?1, w.user_id, ?2, ?3, ?4, 'pending', ?5, ?6
         FROM webhooks w
         WHERE w.user_id = ?7
           AND (w.fleet_id IS NULL OR w.fleet_id = ?8)
           AND w.created_at <= ?9
           AND EXISTS (SELECT 1 FROM json_each(w.events) WHERE json_each.value IN ('*', ?3))`,
      )
      .bind(
        jobEventId(e.job_id, e.seq),
        e.job_id,
        type,
        jobEventPayload(e, job),
        Date.now(),
        nowIso(),
        job.user_id,
        job.fleet_id,
        e.ts,
      ),
  ];
}
