/** Worker entry: the HTTP app plus the Durable Object classes wrangler.toml binds. */
import { createApp } from "./app.js";
import type { AppEnv } from "./env.js";
import { evaluateBudgets } from "./services/budgets.service.js";

export { FleetDO } from "../durable-objects/fleet/fleet.do.js";
export { RunDO } from "../durable-objects/run/run.do.js";
export { UserDO } from "../durable-objects/user/user.do.js";
export { WebhookDispatcher } from "../durable-objects/webhooks/webhook.do.js";

const app = createApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
  // Every minute (wrangler.toml [triggers]): the team budgets, metered from the ledger.
  scheduled: (controller, env, ctx) => {
    ctx.waitUntil(evaluateBudgets(env, controller.scheduledTime));
  },
} satisfies ExportedHandler<AppEnv>;
