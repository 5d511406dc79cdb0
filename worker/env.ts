/**
 * Bindings come from wrangler.toml (types generated into env.generated.d.ts by `npm run types`);
 * secrets are declared here because wrangler.toml never holds them. Config is parsed with zod once.
 */
import { z } from "zod";
import type { FleetDO } from "../durable-objects/fleet.do.js";

export interface AppEnv extends Omit<Cloudflare.Env, "FLEET"> {
  FLEET: DurableObjectNamespace<FleetDO>;
  /** Token of the admin created on first start (CI, `npm start`); optional afterwards. */
  SF_BOOTSTRAP_ADMIN_TOKEN?: string;
  /** HMAC key for agent credentials and run-scoped ingest tokens. */
  SF_JWT_SECRET?: string;
  /** Server-side HuggingFace token for preflight of gated or private repos. */
  HF_TOKEN?: string;
}

const Config = z.object({
  hfEndpoint: z.string().url(),
  hfToken: z.string().optional(),
  defaultFleet: z.string().min(1),
  maxBlobBytes: z.coerce.number().int().positive(),
  publicUrl: z.string().url(),
  outboxRetrySeconds: z.coerce.number().positive(),
  bootstrapAdminToken: z
    .string()
    .min(16, "SF_BOOTSTRAP_ADMIN_TOKEN must be at least 16 characters")
    .optional(),
  jwtSecret: z.string().min(32, "SF_JWT_SECRET must be at least 32 characters").optional(),
});
export type Config = z.infer<typeof Config>;

const cache = new WeakMap<object, Config>();

export function config(env: AppEnv): Config {
  let c = cache.get(env);
  if (!c) {
    c = Config.parse({
      hfEndpoint: env.SF_HF_ENDPOINT,
      hfToken: env.HF_TOKEN || undefined,
      defaultFleet: env.SF_DEFAULT_FLEET,
      maxBlobBytes: env.SF_MAX_BLOB_BYTES,
      publicUrl: env.SF_PUBLIC_URL,
      outboxRetrySeconds: env.SF_OUTBOX_RETRY_SECONDS,
      bootstrapAdminToken: env.SF_BOOTSTRAP_ADMIN_TOKEN || undefined,
      jwtSecret: env.SF_JWT_SECRET || undefined,
    });
    cache.set(env, c);
  }
  return c;
}
