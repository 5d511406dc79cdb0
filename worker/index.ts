/** Worker entry: the HTTP app plus the Durable Object classes wrangler.toml binds. */
import { createApp } from "./app.js";
import type { AppEnv } from "./env.js";

export { FleetDO } from "../durable-objects/fleet/fleet.do.js";
export { RunDO } from "../durable-objects/run/run.do.js";
export { UserDO } from "../durable-objects/user/user.do.js";
export { WebhookDispatcher } from "../durable-objects/webhooks/webhook.do.js";

const app = createApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
} satisfies ExportedHandler<AppEnv>;
