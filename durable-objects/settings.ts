/**
 * Every setting the Durable Objects read from their environment, parsed here once (wrangler.toml [vars]
 * and secrets). Pure: no binding types, so the policies that use it are unit-tested in Node.
 */
import { z } from "zod";

/** The variables behind the settings (strings, as the runtime hands them over; all optional). */
export interface SettingsEnv {
  SF_PUBLIC_URL?: string;
  SF_AGENT_HEARTBEAT_SECONDS?: string;
  SF_AGENT_LOST_GRACE_SECONDS?: string;
  SF_AGENT_CREDENTIAL_HOURS?: string;
  SF_RUN_TOKEN_GRACE_SECONDS?: string;
  SF_RETRY_BACKOFF_SECONDS?: string;
  SF_COMMAND_RESEND_SECONDS?: string;
  SF_OUTBOX_RETRY_SECONDS?: string;
  SF_WEBHOOK_RETRY_SECONDS?: string;
  SF_WEBHOOK_MAX_ATTEMPTS?: string;
  SF_RESERVATION_SETTLE_SECONDS?: string;
  SF_SITE_LOST_SECONDS?: string;
  SF_DIAGNOSIS_SETTLE_SECONDS?: string;
  /** HMAC key for run-scoped ingest tokens (a secret: never in wrangler.toml). */
  SF_JWT_SECRET?: string;
  /** base64url of the 32-byte key job secrets are sealed with (a secret; docs/security.md). */
  SF_SECRETS_KEY?: string;
  /** Comma-separated older keys that still open values sealed before a rotation. */
  SF_SECRETS_OLD_KEYS?: string;
}

/** A positive number of seconds, or the default when the variable is absent, empty, zero or not a number. */
const seconds = (fallback: number) =>
  z.unknown().transform((v) => {
    const n = Number(v);
    return (Number.isFinite(n) && n > 0 ? n : fallback) * 1000;
  });

const DoSettings = z.object({
  heartbeatMs: seconds(10),
  lostGraceMs: seconds(300),
  /** How long after its run ended a run's ingest token is still accepted (the final flush). */
  runTokenGraceMs: seconds(600),
  /** A node credential's lifetime (SF_AGENT_CREDENTIAL_HOURS, default 24). */
  credentialMs: z.unknown().transform((v) => {
    const n = Number(v);
    return (Number.isFinite(n) && n > 0 ? n : 24) * 3600 * 1000;
  }),
  retryBackoffMs: seconds(30),
  commandResendMs: seconds(5),
  outboxRetryMs: seconds(2),
  webhookRetryMs: seconds(30),
  webhookMaxAttempts: z.unknown().transform((v) => {
    const n = Number(v);
    return Number.isInteger(n) && n > 0 ? n : 8;
  }),
  /**
   * After this long, a user's object asks the fleet about an admission it reserved but never heard of
   * again (the submitting request died between the two): the job is there, or its slot and key are freed.
   */
  reservationSettleMs: seconds(15),
  /**
   * After every agent of a fleet has been gone this long, its waiting multi-fleet jobs move to another of
   * their fleets even if they must wait there (re-routing, fleet/rerouter.ts).
   */
  siteLostMs: seconds(120),
  /** How long a failed run's diagnosis waits for its other ranks' exits and last log lines. */
  diagnosisSettleMs: seconds(2),
  publicUrl: z.string().optional(),
  jwtSecret: z.string().optional(),
  secretsKey: z.string().optional(),
  secretsOldKeys: z.string().optional(),
});
export type DoSettings = z.infer<typeof DoSettings>;

const cache = new WeakMap<object, DoSettings>();

/** The settings the objects read, from their env (parsed once per env object). */
export function doSettings(env: SettingsEnv): DoSettings {
  let s = cache.get(env);
  if (!s) {
    s = DoSettings.parse({
      heartbeatMs: env.SF_AGENT_HEARTBEAT_SECONDS,
      lostGraceMs: env.SF_AGENT_LOST_GRACE_SECONDS,
      credentialMs: env.SF_AGENT_CREDENTIAL_HOURS,
      runTokenGraceMs: env.SF_RUN_TOKEN_GRACE_SECONDS,
      retryBackoffMs: env.SF_RETRY_BACKOFF_SECONDS,
      commandResendMs: env.SF_COMMAND_RESEND_SECONDS,
      outboxRetryMs: env.SF_OUTBOX_RETRY_SECONDS,
      webhookRetryMs: env.SF_WEBHOOK_RETRY_SECONDS,
      webhookMaxAttempts: env.SF_WEBHOOK_MAX_ATTEMPTS,
      reservationSettleMs: env.SF_RESERVATION_SETTLE_SECONDS,
      siteLostMs: env.SF_SITE_LOST_SECONDS,
      diagnosisSettleMs: env.SF_DIAGNOSIS_SETTLE_SECONDS,
      publicUrl: env.SF_PUBLIC_URL || undefined,
      jwtSecret: env.SF_JWT_SECRET || undefined,
      secretsKey: env.SF_SECRETS_KEY || undefined,
      secretsOldKeys: env.SF_SECRETS_OLD_KEYS || undefined,
    });
    cache.set(env, s);
  }
  return s;
}
