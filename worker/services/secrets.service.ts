/**
 * Job secrets from the Worker's side: the keyring from its settings, views that never carry a value, and
 * the admission check that every secret a job names exists for it.
 */
import type { JobSpec } from "../../contract/jobspec.schema.js";
import type { SecretView } from "../../contract/secrets.schema.js";
import type { Db } from "../../d1/client.js";
import { SecretKeyError, type SecretKeyring, secretKeyring } from "../../d1/secret-box.js";
import { openSecrets, type SecretRow, secretsOfJob } from "../../d1/secrets.js";
import { type DoEnv, doSettings } from "../../durable-objects/env.js";
import { AppError } from "../errors.js";

/** The settings that hold the keys. */
type KeyEnv = Pick<DoEnv, "SF_SECRETS_KEY" | "SF_SECRETS_OLD_KEYS">;

/** The keyring, or SECRETS_UNAVAILABLE when the operator has not set SF_SECRETS_KEY. */
export async function keyring(env: KeyEnv): Promise<SecretKeyring> {
  const s = doSettings(env);
  const ring = secretKeyring(s.secretsKey, s.secretsOldKeys);
  if (!ring) {
    throw new AppError(
      "SECRETS_UNAVAILABLE",
      "this control plane has no SF_SECRETS_KEY, so it cannot keep secrets; an operator sets it (docs/security.md)",
    );
  }
  return ring;
}

export function secretView(r: SecretRow, fleetName: string | null = null): SecretView {
  return {
    name: r.name,
    scope: r.scope,
    fleet: r.scope === "fleet" ? fleetName : null,
    set_by: r.setBy,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}

/** Refuses a job that names a secret neither its submitter nor its fleet has (SECRET_MISSING). */
export async function requireSecrets(
  d: Db,
  who: { userId: string; fleetId: string; fleetName: string },
  names: readonly string[],
): Promise<void> {
  if (names.length === 0) return;
  const found = await secretsOfJob(d, who, names);
  const missing = names.filter((n) => !found.has(n));
  if (missing.length > 0) {
    throw new AppError(
      "SECRET_MISSING",
      `this job names secret${missing.length > 1 ? "s" : ""} ${missing.join(", ")}, which neither you nor fleet ${who.fleetName} has; set it with \`sf secret set ${missing[0]}\``,
      { missing: missing.join(",") },
    );
  }
}

/** The secret a job naming a HuggingFace repo gets for it, and the preflight checks access with. */
export const HUB_TOKEN = "HF_TOKEN";

/**
 * For a job that names a HuggingFace model or dataset: the HF_TOKEN it would get (its submitter's, else
 * its fleet's), opened for the preflight, and the spec with HF_TOKEN among its secrets, so the job can
 * download what the preflight approved. Other jobs, or no such secret: the spec unchanged, no token.
 */
export async function withHubToken(
  env: KeyEnv,
  d: Db,
  who: { userId: string; fleetId: string },
  spec: JobSpec,
): Promise<{ spec: JobSpec; token: string | undefined }> {
  if (!spec.model.hf_repo && !spec.data.hf_dataset) return { spec, token: undefined };
  const row = (await secretsOfJob(d, who, [HUB_TOKEN])).get(HUB_TOKEN);
  if (!row) return { spec, token: undefined };
  let token: string | undefined;
  try {
    token = (await openSecrets(await keyring(env), [row]))[HUB_TOKEN];
  } catch (err) {
    if (err instanceof SecretKeyError) throw new AppError("SECRETS_UNAVAILABLE", err.message);
    throw err;
  }
  const secrets = spec.secrets.includes(HUB_TOKEN) ? spec.secrets : [...spec.secrets, HUB_TOKEN];
  return { spec: { ...spec, secrets }, token };
}
