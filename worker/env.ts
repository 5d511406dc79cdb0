/**
 * Bindings come from wrangler.toml (types generated into env.generated.d.ts by `npm run types`);
 * secrets are declared here because wrangler.toml never holds them. Config is parsed with zod once.
 */
import { z } from "zod";
import type { DoEnv } from "../durable-objects/env.js";
import type { FleetDO } from "../durable-objects/fleet/fleet.do.js";
import type { RunDO } from "../durable-objects/run/run.do.js";
import type { WebhookDispatcher } from "../durable-objects/webhooks/webhook.do.js";

/** The Worker's env: the objects' (DoEnv) with typed namespaces, and the secrets only the Worker reads. */
export interface AppEnv extends Omit<DoEnv, "FLEET" | "RUN" | "WEBHOOKS" | "SF_PUBLIC_URL"> {
  FLEET: DurableObjectNamespace<FleetDO>;
  RUN: DurableObjectNamespace<RunDO>;
  WEBHOOKS: DurableObjectNamespace<WebhookDispatcher>;
  SF_PUBLIC_URL: string;
  /** Token of the admin created on first start (CI, `npm start`); optional afterwards. */
  SF_BOOTSTRAP_ADMIN_TOKEN?: string;
  /** HMAC key for agent credentials and run-scoped ingest tokens. */
  SF_JWT_SECRET?: string;
  /**
   * R2's S3 API, for presigned artifact uploads straight from training jobs (docs/ingest.md). All four
   * or none: without them artifact bytes go through the Worker. R2_BUCKET must name the bucket bound as
   * BLOBS, because downloads read artifacts through that binding.
   */
  R2_ACCOUNT_ID?: string;
  R2_ACCESS_KEY_ID?: string;
  R2_SECRET_ACCESS_KEY?: string;
  R2_BUCKET?: string;
  /**
   * Where R2's S3 API answers; default https://<R2_ACCOUNT_ID>.r2.cloudflarestorage.com. Set only to point
   * at a stand-in (tests and `npm start` use a local S3-compatible server on loopback).
   */
  R2_S3_ENDPOINT?: string;
  /** The largest request body the Worker is sent (Cloudflare: 100 MB on Free and Pro); default 100000000. */
  SF_MAX_WORKER_BODY_BYTES?: string;
  /** What this deployment was built from (e.g. a git sha), set at deploy; GET /v1/health says "dev" without it. */
  SF_BUILD?: string;
  /** The least level of the per-request log lines: info (default, every request), warn or error. */
  SF_LOG_LEVEL?: string;
  /**
   * "on" (default): submits waiting for the same object share its next call (group commit, decision 113);
   * "off": each submit calls the objects itself.
   */
  SF_GROUP_COMMIT?: string;
}

const R2S3Config = z.object({
  accountId: z.string().regex(/^[0-9a-f]{32}$/, "R2_ACCOUNT_ID must be a 32-character hex account id"),
  accessKeyId: z.string().min(1),
  secretAccessKey: z.string().min(1),
  bucket: z.string().min(3).max(63),
  endpoint: z.string().url("R2_S3_ENDPOINT must be a URL").optional(),
});
export type R2S3Config = z.infer<typeof R2S3Config>;

/** All four R2 S3 secrets, none (null), or a configuration error naming what is missing. */
function r2Config(env: AppEnv): unknown {
  const given = {
    accountId: env.R2_ACCOUNT_ID || undefined,
    accessKeyId: env.R2_ACCESS_KEY_ID || undefined,
    secretAccessKey: env.R2_SECRET_ACCESS_KEY || undefined,
    bucket: env.R2_BUCKET || undefined,
  };
  if (Object.values(given).every((v) => v === undefined)) return null;
  return { ...given, endpoint: env.R2_S3_ENDPOINT || undefined };
}

const Config = z.object({
  hfEndpoint: z.string().url(),
  defaultFleet: z.string().min(1),
  maxBlobBytes: z.coerce.number().int().positive(),
  publicUrl: z.string().url(),
  outboxRetrySeconds: z.coerce.number().positive(),
  bootstrapAdminToken: z
    .string()
    .min(16, "SF_BOOTSTRAP_ADMIN_TOKEN must be at least 16 characters")
    .optional(),
  jwtSecret: z.string().min(32, "SF_JWT_SECRET must be at least 32 characters").optional(),
  r2: R2S3Config.nullable(),
  maxWorkerBodyBytes: z.coerce.number().int().positive().default(100_000_000),
  build: z
    .string()
    .regex(/^[\x21-\x7e]{1,100}$/, "SF_BUILD must be 1-100 printable ASCII characters without spaces")
    .default("dev"),
  logLevel: z.enum(["info", "warn", "error"], "SF_LOG_LEVEL must be info, warn or error").default("info"),
  groupCommit: z.enum(["on", "off"], "SF_GROUP_COMMIT must be on or off").default("on"),
});
export type Config = z.infer<typeof Config>;

const cache = new WeakMap<object, Config>();

export function config(env: AppEnv): Config {
  let c = cache.get(env);
  if (!c) {
    c = Config.parse({
      hfEndpoint: env.SF_HF_ENDPOINT,
      defaultFleet: env.SF_DEFAULT_FLEET,
      maxBlobBytes: env.SF_MAX_BLOB_BYTES,
      publicUrl: env.SF_PUBLIC_URL,
      outboxRetrySeconds: env.SF_OUTBOX_RETRY_SECONDS,
      bootstrapAdminToken: env.SF_BOOTSTRAP_ADMIN_TOKEN || undefined,
      jwtSecret: env.SF_JWT_SECRET || undefined,
      r2: r2Config(env),
      maxWorkerBodyBytes: env.SF_MAX_WORKER_BODY_BYTES || undefined,
      build: env.SF_BUILD || undefined,
      logLevel: env.SF_LOG_LEVEL || undefined,
      groupCommit: env.SF_GROUP_COMMIT || undefined,
    });
    cache.set(env, c);
  }
  return c;
}
