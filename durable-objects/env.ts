/**
 * What the Durable Objects get from the runtime: the bindings of wrangler.toml and the variables of
 * their settings (parsed once, in settings.ts). The Worker's AppEnv extends DoEnv; nothing here imports the Worker.
 * Object namespaces are untyped here (typing them would import the classes, which import this file);
 * the few places that call another object type their stub where they call it.
 */
import type { SettingsEnv } from "./settings.js";

export { type DoSettings, doSettings } from "./settings.js";

export interface DoEnv
  extends Omit<
      Cloudflare.Env,
      | "FLEET"
      | "RUN"
      | "WEBHOOKS"
      | "USERS"
      | "SF_AGENT_HEARTBEAT_SECONDS"
      | "SF_AGENT_LOST_GRACE_SECONDS"
      | "SF_AGENT_CREDENTIAL_HOURS"
      | "SF_RUN_TOKEN_GRACE_SECONDS"
      | "SF_RETRY_BACKOFF_SECONDS"
      | "SF_COMMAND_RESEND_SECONDS"
      | "SF_OUTBOX_RETRY_SECONDS"
      | "SF_WEBHOOK_RETRY_SECONDS"
      | "SF_WEBHOOK_MAX_ATTEMPTS"
      | "SF_RESERVATION_SETTLE_SECONDS"
      | "SF_PUBLIC_URL"
    >,
    SettingsEnv {
  FLEET: DurableObjectNamespace;
  RUN: DurableObjectNamespace;
  WEBHOOKS: DurableObjectNamespace;
  USERS: DurableObjectNamespace;
}
