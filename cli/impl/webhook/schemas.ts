/**
 * The shapes of /v1/webhooks as the CLI relies on them (docs/api.md "Webhooks"). Objects are loose:
 * `--json` prints what the server sent, including fields added after this client was written.
 */
import { z } from "zod";
import { DeliveryAttempt } from "../../../contract/webhooks.schema.js";

export const WebhookView = z.looseObject({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  fleet_id: z.string().nullable(),
  description: z.string(),
  secret_prefix: z.string(),
  created_at: z.string(),
});
export type WebhookView = z.infer<typeof WebhookView>;

export const WithSecret = z.looseObject({ webhook: WebhookView, secret: z.string() });
export const WebhookList = z.looseObject({ webhooks: z.array(WebhookView) });

export const DeliveryView = z.looseObject({
  id: z.string(),
  type: z.string(),
  job_id: z.string().nullable(),
  state: z.string(),
  attempts: z.number(),
  last_status_code: z.number().nullable(),
  last_error: z.string().nullable(),
  next_attempt_at: z.string().nullable(),
  created_at: z.string(),
  attempt_log: z.array(DeliveryAttempt),
});
export type DeliveryView = z.infer<typeof DeliveryView>;

export const DeliveryPage = z.looseObject({
  deliveries: z.array(DeliveryView),
  next_cursor: z.string().nullable(),
});
export const OneDelivery = z.looseObject({
  delivery: DeliveryView.extend({ payload: z.unknown().optional() }),
});
