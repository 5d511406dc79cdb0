/**
 * The LaunchRequest of one rank of a run, built by the Fleet DO when its launch command is (re)sent:
 * the job's admitted spec and entrypoint, the run's placement and epoch, a fresh ingest token, and the
 * checkpoint the run continues from. Everything but the token is stable across re-sends: the resume
 * checkpoint is resolved once per run (the `resume_resolved` decision keeps the first answer).
 */
import type { FleetNetwork } from "../../contract/api.schema.js";
import type { SubmitInput } from "../../contract/fleet.schema.js";
import { mintIngestToken } from "../../contract/ingest-token.js";
import type { JobSpec } from "../../contract/jobspec.schema.js";
import {
  LAUNCH_API_VERSION,
  type LaunchRequest,
  networkEnv,
  type Placement,
  type ResumeFrom,
} from "../../contract/launch-request.schema.js";
import { db } from "../../d1/client.js";
import { SecretKeyError, secretKeyring } from "../../d1/secret-box.js";
import { openSecrets, type SecretRow, secretsOfJob } from "../../d1/secrets.js";
import type { DoEnv, DoSettings } from "../env.js";
import { runStub } from "../run/stub.js";
import type { JobRow, RunRow } from "./rows.js";

export type LaunchBuild = { ok: true; request: LaunchRequest } | { ok: false; reason: string };

/**
 * The secrets a job names, opened for its launch, after the run's Run DO was given the same (sealed)
 * values to mask in the run's logs: so no line the workload prints can be stored before masking is in
 * place. A secret removed since admission, or a key that no longer opens it, fails the launch with why.
 */
export async function openLaunchSecrets(
  env: Pick<DoEnv, "DB" | "RUN">,
  settings: DoSettings,
  ctx: { run: RunRow; job: JobRow; fleetId: string },
): Promise<{ ok: true; secrets: Record<string, string> } | { ok: false; reason: string }> {
  const names = (JSON.parse(ctx.job.spec) as JobSpec).secrets ?? [];
  if (names.length === 0) return { ok: true, secrets: {} };
  const ring = secretKeyring(settings.secretsKey, settings.secretsOldKeys);
  if (!ring)
    return { ok: false, reason: "the control plane has no SF_SECRETS_KEY to open this job's secrets" };
  const rows = await secretsOfJob(db(env.DB), { userId: ctx.job.user_id, fleetId: ctx.fleetId }, names);
  const missing = names.filter((n) => !rows.has(n));
  if (missing.length > 0) {
    return {
      ok: false,
      reason: `secret ${missing.join(", ")} was removed after this job was admitted; set it again (sf secret set) and resubmit`,
    };
  }
  const sealed: SecretRow[] = [...rows.values()];
  try {
    const secrets = await openSecrets(await ring, sealed);
    await runStub(env, ctx.run.id).maskSecrets(ctx.run.id, sealed);
    return { ok: true, secrets };
  } catch (err) {
    if (err instanceof SecretKeyError) return { ok: false, reason: err.message };
    throw err;
  }
}

export async function buildLaunchRequest(
  settings: DoSettings,
  ctx: { run: RunRow; job: JobRow; fleetId: string; network: FleetNetwork | null },
  resume: ResumeFrom | null,
  secrets: Record<string, string> = {},
): Promise<LaunchBuild> {
  const { run, job, fleetId } = ctx;
  const capsule = job.capsule ? (JSON.parse(job.capsule) as Record<string, string>) : null;
  if (!capsule) {
    return {
      ok: false,
      reason:
        "no job capsule was published when this job was admitted; an admin publishes one (PUT /v1/capsule)",
    };
  }
  const secret = settings.jwtSecret;
  if (!secret)
    return { ok: false, reason: "the control plane has no SF_JWT_SECRET to sign the run's ingest token" };
  if (!settings.publicUrl)
    return { ok: false, reason: "the control plane has no SF_PUBLIC_URL to tell the run where ingest is" };
  const launch = JSON.parse(job.launch ?? "null") as SubmitInput["launch"] | null;
  if (!launch)
    return { ok: false, reason: "this job was admitted without a resolved entrypoint; resubmit it" };
  const spec = JSON.parse(job.spec) as JobSpec;
  const placement = JSON.parse(run.placement) as Placement[];
  return {
    ok: true,
    request: {
      api_version: LAUNCH_API_VERSION,
      job_id: job.id,
      run_id: run.id,
      attempt: run.attempt,
      epoch: run.epoch,
      fleet_id: fleetId,
      user_id: job.user_id,
      spec,
      entrypoint: launch.entrypoint,
      image: launch.image,
      placement,
      world_size: placement.length,
      workspace: { manifest: spec.source.workspace },
      capsule: { files: capsule },
      ingest: {
        endpoint: `${settings.publicUrl.replace(/\/+$/, "")}/v1/ingest`,
        token: await mintIngestToken(secret, { sub: run.id, job: job.id, fleet: fleetId, epoch: run.epoch }),
      },
      env: networkEnv(ctx.network),
      secrets,
      resume_from: resume,
    },
  };
}

/**
 * The newest stored checkpoint among a job's earlier runs (newest run first: a run that ended before its
 * first checkpoint falls back to the one before it), asked of each run's Run DO.
 */
export async function findResume(
  env: Pick<DoEnv, "RUN">,
  earlier: ReadonlyArray<{ id: string; attempt: number }>,
): Promise<ResumeFrom | null> {
  for (const prev of [...earlier].sort((a, b) => b.attempt - a.attempt)) {
    const ckpt = await runStub(env, prev.id).latestCheckpoint();
    if (ckpt) return { run_id: prev.id, ...ckpt };
  }
  return null;
}
