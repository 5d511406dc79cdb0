/** `sf webhook add|ls|rm|rotate-secret`: a user's webhook endpoints. */
import type { Command } from "commander";
import { DeletedWebhook, WebhookList, WithSecret } from "../../../contract/responses.schema.js";
import { route } from "../../api.js";
import { authedApi } from "../../context.js";
import { c, emit, info, print, table } from "../../output.js";
import { age } from "../job/format.js";

export interface AddOptions {
  events?: string;
  fleet?: string;
  description?: string;
}

/** The secret goes to stdout alone (so `$(sf webhook add …)` captures it); the rest to stderr. */
function printSecret(r: { webhook: { id: string }; secret: string }, verb: string): void {
  emit(r, () => {
    info(`${c.green("✓")} ${verb} ${c.bold(r.webhook.id)}. Its signing secret, shown only once:`);
    print(r.secret);
    info(
      c.dim(
        `verify deliveries with it using any Standard Webhooks library (docs/api.md); try it: sf webhook test ${r.webhook.id}`,
      ),
    );
  });
}

export async function add(cmd: Command, url: string, o: AddOptions): Promise<void> {
  const events = o.events
    ?.split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  const body = {
    url,
    ...(events ? { events } : {}),
    ...(o.fleet ? { fleet: o.fleet } : {}),
    ...(o.description ? { description: o.description } : {}),
  };
  const r = await authedApi(cmd).post(route("/v1/webhooks"), WithSecret, body);
  printSecret(r, "created webhook");
}

export async function ls(cmd: Command): Promise<void> {
  const { webhooks } = await authedApi(cmd).get(route("/v1/webhooks"), WebhookList);
  emit({ webhooks }, () => {
    if (webhooks.length === 0) {
      info("no webhooks yet — add one with `sf webhook add URL`");
      return;
    }
    table(
      webhooks.map((w) => ({
        id: w.id,
        url: w.url,
        events: w.events.join(","),
        fleet: w.fleet_id ?? "all",
        secret: `${w.secret_prefix}…`,
        age: age(w.created_at),
      })),
      ["id", "url", "events", "fleet", "secret", "age"],
    );
  });
}

export async function rm(cmd: Command, id: string): Promise<void> {
  const r = await authedApi(cmd).delete(route("/v1/webhooks/{id}", { id }), DeletedWebhook);
  emit(r, () => info(`${c.green("✓")} deleted ${r.id}`));
}

export async function rotate(cmd: Command, id: string): Promise<void> {
  const r = await authedApi(cmd).post(route("/v1/webhooks/{id}/rotate-secret", { id }), WithSecret);
  printSecret(r, "rotated the secret of");
  info(c.dim("for 24 hours deliveries also carry a signature made with the old secret"));
}
