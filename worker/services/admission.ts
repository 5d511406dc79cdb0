/**
 * Admission: every check a submit must pass before the Fleet DO queues it, cheapest first. Nothing here
 * writes, so a rejected submit leaves nothing behind; the DO re-checks what must be atomic (idempotency,
 * concurrent-job quota).
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Quota } from "../../contract/api.schema.js";
import type { RecipeVersion } from "../../contract/catalog.schema.js";
import type { SubmitInput } from "../../contract/fleet.schema.js";
import { validateHyperparams } from "../../contract/hyperparams.js";
import { JobSpec, totalGpus } from "../../contract/jobspec.schema.js";
import { ProfileError, poolGpus, shapeFor } from "../../contract/profile-grammar.js";
import { utcDay } from "../../contract/time.js";
import { WorkspaceManifest } from "../../contract/workspace-manifest.schema.js";
import { type Db, schema } from "../../durable-objects/ledger/client.js";
import type { Principal } from "../auth/principal.js";
import { findRecipeVersion, recipeExists } from "../catalog/catalog.service.js";
import { type AppEnv, config } from "../env.js";
import { AppError } from "../errors.js";
import { parseValue } from "../http.js";
import { currentCapsule } from "./capsule.service.js";
import { type FleetRow, fleetByRef } from "./fleets.service.js";
import type { HubClient } from "./hf-hub.js";
import { imageAllowed } from "./image-allowlist.js";
import { readProfiles } from "./profiles.service.js";
import { quotaOf } from "./users.service.js";

const CONTAINER_FLEETS = new Set(["docker", "kuberay"]);
const MAX_MANIFEST_BYTES = 8 * 1024 * 1024;

export interface Admitted {
  fleet: FleetRow;
  submit: Omit<SubmitInput, "jobId" | "idempotency">;
}

type User = Extract<Principal, { kind: "user" }>;

/** First admission step: the spec parses and names a fleet that takes work. */
export async function resolveTarget(
  env: AppEnv,
  d: Db,
  raw: unknown,
): Promise<{ spec: JobSpec; fleet: FleetRow }> {
  const spec = parseValue(JobSpec, raw, "INVALID_SPEC");
  const ref = spec.resources.fleet ?? config(env).defaultFleet;
  let fleet: FleetRow;
  try {
    fleet = await fleetByRef(d, ref);
  } catch (err) {
    if (err instanceof AppError && !spec.resources.fleet) {
      throw new AppError(
        "FLEET_NOT_FOUND",
        `the spec names no fleet and the default fleet "${ref}" does not exist; set resources.fleet`,
      );
    }
    throw err;
  }
  if (fleet.draining) {
    throw new AppError(
      "FLEET_DRAINING",
      `fleet ${fleet.name} is draining: ${fleet.drainNote ?? "maintenance"}`,
    );
  }
  return { spec, fleet };
}

/** The remaining checks, in order; returns what the Fleet DO needs to queue the job. */
export async function admit(
  env: AppEnv,
  d: Db,
  hub: HubClient,
  user: User,
  { spec, fleet }: { spec: JobSpec; fleet: FleetRow },
): Promise<Admitted> {
  const recipe = await catalogHandshake(d, spec);
  const hp = validateHyperparams(recipe.params, spec.hyperparams);
  if (!hp.ok) {
    throw new AppError("INVALID_HYPERPARAMS", hp.issues.map((i) => i.message).join("; "), {
      issues: hp.issues,
    });
  }
  await checkProfiles(d, spec);
  const quota = await quotaOf(d, user.userId);
  await checkQuota(d, user, spec, quota);
  checkImage(spec, recipe, fleet);
  checkRuntimeShape(spec, fleet);
  const blobDigests = await checkBlobs(env, d, spec);
  if (spec.model.hf_repo) await hub.check("model", spec.model.hf_repo, spec.model.revision);
  if (spec.data.hf_dataset) await hub.check("dataset", spec.data.hf_dataset, spec.data.revision);

  const normalized: JobSpec = { ...spec, hyperparams: hp.values };
  return {
    fleet,
    submit: {
      userId: user.userId,
      userName: user.name,
      spec: normalized,
      quota,
      priority: Math.min(spec.lifecycle.priority ?? quota.priority, quota.priority),
      blobDigests,
      capsule: await currentCapsule(env.DB),
      launch: { entrypoint: recipe.entrypoint, image: effectiveImage(spec, recipe) },
    },
  };
}

async function catalogHandshake(d: Db, spec: JobSpec): Promise<RecipeVersion> {
  const { name, version, digest } = spec.recipe;
  const upgrade = "run `sf recipe upgrade` to move the experiment to what the server publishes";
  const published = await findRecipeVersion(d, name, version);
  if (!published) {
    if (!(await recipeExists(d, name))) {
      throw new AppError(
        "RECIPE_NOT_FOUND",
        `method ${name} is not published on this server; see \`sf methods\``,
      );
    }
    throw new AppError("RECIPE_VERSION_NOT_FOUND", `${name}@${version} is not published; ${upgrade}`, {
      recipe: name,
      version,
    });
  }
  if (published.digest !== digest) {
    throw new AppError(
      "RECIPE_LOCK_STALE",
      `recipe.lock.json pins ${name}@${version} at ${digest}, but the catalog publishes ${published.digest}; ${upgrade}`,
      { recipe: name, version, lock_digest: digest, catalog_digest: published.digest },
    );
  }
  const fw = published.frameworks.find((f) => f.kind === spec.framework.kind);
  if (!fw?.versions.includes(spec.framework.version) || fw.runtime_id !== spec.framework.runtime_id) {
    const supported = published.frameworks
      .map((f) => `${f.kind} ${f.versions.join("|")} (${f.runtime_id})`)
      .join(", ");
    throw new AppError(
      "FRAMEWORK_VERSION_UNSUPPORTED",
      `${name}@${version} is not published for ${spec.framework.kind} ${spec.framework.version} (${spec.framework.runtime_id}); supported: ${supported}; ${upgrade}`,
    );
  }
  return published;
}

async function checkProfiles(d: Db, spec: JobSpec): Promise<void> {
  const registry = new Map((await readProfiles(d)).map((p) => [p.name, p]));
  for (const pool of spec.resources.pools) {
    const profile = registry.get(pool.profile);
    if (!profile) {
      throw new AppError(
        "PROFILE_NOT_FOUND",
        `pool ${pool.name}: no profile ${pool.profile}; known: ${[...registry.keys()].join(", ")}`,
      );
    }
    if (profile.series !== pool.series) {
      throw new AppError(
        "INVALID_PROFILE",
        `pool ${pool.name}: profile ${profile.name} is series ${profile.series}, not ${pool.series}`,
      );
    }
    try {
      const shape = shapeFor(profile, poolGpus(pool));
      if (shape.nodes !== pool.nodes || shape.gpus_per_node !== pool.gpus_per_node) {
        throw new ProfileError(
          "INVALID_PROFILE",
          `pool ${pool.name}: ${pool.nodes}×${pool.gpus_per_node} GPUs is not the shape ${profile.name} uses for ${poolGpus(pool)} GPUs (${shape.nodes}×${shape.gpus_per_node})`,
        );
      }
    } catch (err) {
      if (err instanceof ProfileError) throw new AppError(err.code, err.message);
      throw err;
    }
  }
}

async function checkQuota(d: Db, user: User, spec: JobSpec, quota: Quota): Promise<void> {
  const denied = spec.resources.pools.filter(
    (p) => quota.allowed_profiles.length > 0 && !quota.allowed_profiles.includes(p.profile),
  );
  if (denied.length > 0) {
    throw new AppError(
      "PROFILE_NOT_ALLOWED",
      `your quota does not allow profile ${denied.map((p) => p.profile).join(", ")}; allowed: ${quota.allowed_profiles.join(", ")}`,
    );
  }
  const gpus = totalGpus(spec);
  if (gpus > quota.max_gpus) {
    throw new AppError(
      "QUOTA_EXCEEDED",
      `this job needs ${gpus} GPUs; your quota allows ${quota.max_gpus} at once`,
      {
        limit: "max_gpus",
        value: quota.max_gpus,
        requested: gpus,
      },
    );
  }
  const usedToday = await gpuHoursToday(d, user.userId);
  if (usedToday >= quota.daily_gpu_hours) {
    throw new AppError(
      "QUOTA_EXCEEDED",
      `you used ${usedToday.toFixed(1)} of your ${quota.daily_gpu_hours} GPU-hours today (UTC); try again tomorrow`,
      { limit: "daily_gpu_hours", value: quota.daily_gpu_hours, used: usedToday },
    );
  }
}

/** GPU-hours today (UTC): finished allocations from run_usage plus the open ones up to now. */
export async function gpuHoursToday(d: Db, userId: string, now: number = Date.now()): Promise<number> {
  const day = utcDay(now);
  const done = await d
    .select({ s: sql<number>`coalesce(sum(${schema.runUsage.gpuSeconds}), 0)` })
    .from(schema.runUsage)
    .where(and(eq(schema.runUsage.userId, userId), eq(schema.runUsage.day, day)))
    .get();
  const open = await d
    .select({ gpus: schema.runs.gpus, at: schema.runs.allocatedAt })
    .from(schema.runs)
    .where(and(eq(schema.runs.userId, userId), sql`${schema.runs.endedAt} IS NULL`))
    .all();
  const dayStart = Date.parse(`${day}T00:00:00.000Z`);
  const live = open.reduce(
    (s, r) => s + (Math.max(0, now - Math.max(Date.parse(r.at), dayStart)) / 1000) * r.gpus,
    0,
  );
  return ((done?.s ?? 0) + live) / 3600;
}

/** The image a job runs: its own, else the catalog framework's default. */
function effectiveImage(spec: JobSpec, recipe: RecipeVersion): string | null {
  return spec.framework.image ?? recipe.frameworks.find((f) => f.kind === spec.framework.kind)?.image ?? null;
}

function checkImage(spec: JobSpec, recipe: RecipeVersion, fleet: FleetRow): void {
  const fw = recipe.frameworks.find((f) => f.kind === spec.framework.kind);
  const image = effectiveImage(spec, recipe);
  if (!image) {
    if (recipe.requires_image && CONTAINER_FLEETS.has(fleet.kind)) {
      throw new AppError(
        "IMAGE_REQUIRED",
        `${recipe.name} runs your own image on ${fleet.kind} fleets; set framework.image (sf submit --image)`,
      );
    }
    return;
  }
  // The catalog's own default image is trusted: an admin published it.
  if (image === fw?.image) return;
  const allowlist = JSON.parse(fleet.imageAllowlist) as string[];
  if (!imageAllowed(image, allowlist)) {
    throw new AppError(
      "IMAGE_NOT_ALLOWED",
      `image ${image} is not on fleet ${fleet.name}'s allowlist${allowlist.length ? ` (${allowlist.join(", ")})` : " (empty)"}`,
      { image, allowlist },
    );
  }
}

/**
 * A job must run on its fleet's runtime as it is, never silently changed. Slurm starts a run as one
 * allocation; several pools (roles with their own node shapes) would need a heterogeneous job, which
 * slurmrestd v0.0.38 (the version forgelet speaks) cannot submit.
 */
function checkRuntimeShape(spec: JobSpec, fleet: FleetRow): void {
  const pools = spec.resources.pools;
  if (fleet.kind === "slurm" && pools.length > 1) {
    throw new AppError(
      "RUNTIME_UNSUPPORTED",
      `fleet ${fleet.name} runs Slurm, which starts a run as one allocation of identical nodes; this job has ${pools.length} pools (${pools.map((p) => p.name).join(", ")}), which would need a heterogeneous Slurm job that slurmrestd v0.0.38 cannot submit. Use one pool, or a docker or kuberay fleet`,
      { runtime: "slurm", pools: pools.length },
    );
  }
}

/** The workspace manifest and every file it names must already be uploaded. Returns all referenced digests. */
async function checkBlobs(env: AppEnv, d: Db, spec: JobSpec): Promise<string[]> {
  const manifestDigest = spec.source.workspace;
  if (!manifestDigest) return [];
  const obj = await env.BLOBS.get(blobKey(manifestDigest));
  if (!obj)
    throw new AppError("BLOB_MISSING", `workspace manifest ${manifestDigest} is not uploaded`, {
      missing: [manifestDigest],
    });
  if (obj.size > MAX_MANIFEST_BYTES) {
    await obj.body.cancel();
    throw new AppError(
      "INVALID_SPEC",
      `workspace manifest is ${obj.size} bytes; the limit is ${MAX_MANIFEST_BYTES}`,
    );
  }
  let manifest: WorkspaceManifest;
  try {
    manifest = WorkspaceManifest.parse(await obj.json());
  } catch {
    throw new AppError("INVALID_SPEC", `blob ${manifestDigest} is not a workspace manifest`);
  }
  const wanted = [...new Set(manifest.files.map((f) => f.digest))];
  const have = new Set<string>();
  // D1 allows at most 100 bound parameters per statement.
  for (let i = 0; i < wanted.length; i += 90) {
    const chunk = wanted.slice(i, i + 90);
    const rows = await d
      .select({ digest: schema.blobs.digest })
      .from(schema.blobs)
      .where(inArray(schema.blobs.digest, chunk))
      .all();
    for (const r of rows) have.add(r.digest);
  }
  const missing = wanted.filter((w) => !have.has(w));
  if (missing.length > 0) {
    throw new AppError("BLOB_MISSING", `${missing.length} workspace file(s) are not uploaded`, {
      missing: missing.slice(0, 50),
    });
  }
  return [manifestDigest, ...wanted];
}

export function blobKey(digest: string): string {
  return `blobs/sha256/${digest.slice("sha256:".length)}`;
}
