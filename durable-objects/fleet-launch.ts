/**
 * The LaunchRequest of one rank of a run, built when its launch command is (re)sent: the job's admitted
 * spec and entrypoint, the run's placement and epoch, a fresh ingest token, and the checkpoint the run
 * continues from. Everything but the token is stable across re-sends: the resume checkpoint is resolved
 * once per run and remembered (fleet-store `run_resume`), so every rank and every re-send agree.
 */
import { mintIngestToken } from "../contract/ingest-token.js";
import type { JobSpec } from "../contract/jobspec.schema.js";
import {
  LAUNCH_API_VERSION,
  type LaunchRequest,
  type Placement,
  type ResumeFrom,
} from "../contract/launch-request.schema.js";
import type { AppEnv } from "../worker/env.js";
import type { SubmitInput } from "./fleet-engine.js";
import type { FleetStore, JobRow, RunRow } from "./fleet-store.js";

export type LaunchBuild = { ok: true; request: LaunchRequest } | { ok: false; reason: string };

export async function buildLaunchRequest(
  env: AppEnv,
  store: FleetStore,
  ctx: { run: RunRow; job: JobRow; fleetId: string },
): Promise<LaunchBuild> {
  const { run, job, fleetId } = ctx;
  const capsule = job.capsule ? (JSON.parse(job.capsule as string) as Record<string, string>) : null;
  if (!capsule) {
    return {
      ok: false,
      reason:
        "no job capsule was published when this job was admitted; an admin publishes one (PUT /v1/capsule)",
    };
  }
  const secret = env.SF_JWT_SECRET;
  if (!secret)
    return { ok: false, reason: "the control plane has no SF_JWT_SECRET to sign the run's ingest token" };
  const launch = JSON.parse((job.launch as string | null) ?? "null") as SubmitInput["launch"] | null;
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
        endpoint: `${env.SF_PUBLIC_URL.replace(/\/+$/, "")}/v1/ingest`,
        token: await mintIngestToken(secret, { sub: run.id, job: job.id, fleet: fleetId, epoch: run.epoch }),
      },
      env: {},
      resume_from: await resolveResume(env, store, run),
    },
  };
}

/**
 * The newest stored checkpoint among the job's earlier runs, newest run first (a run that ended before
 * its first checkpoint falls back to the one before it). Resolved once per run: the first answer is kept.
 */
export async function resolveResume(env: AppEnv, store: FleetStore, run: RunRow): Promise<ResumeFrom | null> {
  const known = store.runResume(run.id);
  if (known !== undefined) return JSON.parse(known) as ResumeFrom | null;
  let found: ResumeFrom | null = null;
  const earlier = store
    .runsOfJob(run.job_id)
    .filter((r) => r.attempt < run.attempt)
    .reverse();
  for (const prev of earlier) {
    const ckpt = await env.RUN.get(env.RUN.idFromName(prev.id)).latestCheckpoint();
    if (ckpt) {
      found = { run_id: prev.id, ...ckpt };
      break;
    }
  }
  // Two ranks may resolve concurrently (the awaits above let other events in): the first write wins.
  store.setRunResume(run.id, JSON.stringify(found));
  return JSON.parse(store.runResume(run.id) ?? "null") as ResumeFrom | null;
}
