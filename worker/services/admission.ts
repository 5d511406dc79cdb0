/**
 * Admission: every check a submit must pass before the Fleet DO queues it, cheapest first. Nothing here
 * writes, so a rejected submit leaves nothing behind. What depends on the submitter (token, quota, usage)
 * is read in the one D1 batch that also reserves the job's slot (jobs.routes.ts); the reads for it are
 * built here.
 */
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import { DEFAULT_QUOTA, type Quota } from "../../contract/api.schema.js";
import type { RecipeVersion } from "../../contract/catalog.schema.js";
import type { SubmitInput } from "../../contract/fleet.schema.js";
import { validateHyperparams } from "../../contract/hyperparams.js";
import { nowIso } from "../../contract/ids.js";
import { JobSpec, totalGpus } from "../../contract/jobspec.schema.js";
import { ProfileError, poolGpus, shapeFor } from "../../contract/profile-grammar.js";
import { utcDay } from "../../contract/time.js";
import { WorkspaceManifest } from "../../contract/workspace-manifest.schema.js";
import { type Db, prepared, schema } from "../../durable-objects/ledger/client.js";
import type { Principal } from "../auth/principal.js";
import { findRecipeVersion, recipeExists } from "../catalog/catalog.service.js";
import { type AppEnv, config } from "../env.js";
import { AppError } from "../errors.js";
import { parseValue } from "../http.js";
import { currentCapsule } from "./capsule.service.js";
import { configCache } from "./config-cache.js";
import { type FleetRow, fleetByRef } from "./fleets.service.js";
import type { HubClient, HubVerdict } from "./hf-hub.js";
import { imageAllowed } from "./image-allowlist.js";
import { readProfiles } from "./profiles.service.js";
import { quotaFromRow } from "./users.service.js";

const CONTAINER_FLEETS = new Set(["docker", "kuberay"]);
const MAX_MANIFEST_BYTES = 8 * 1024 * 1024;

/** What the Fleet DO needs to queue the job, from checks that do not depend on who submits it. */
export interface Checked {
  fleet: FleetRow;
  /** The spec with its hyperparameters normalized. */
  spec: JobSpec;
  blobDigests: string[];
  capsule: SubmitInput["capsule"];
  launch: SubmitInput["launch"];
}

type User = Extract<Principal, { kind: "user" }>;

/**
 * Every check of the spec itself, cheapest first: it parses, names a fleet that takes work, matches the
 * catalog (recipe, framework, hyperparameters), the hardware profiles, the fleet's image allowlist and
 * runtime, and its workspace is uploaded. Admin-owned rows come through the isolate's ConfigCache, which
 * the caller validates in the batch that reserves the job's slot.
 */
export async function checkSpec(env: AppEnv, d: Db, raw: unknown): Promise<Checked> {
  const spec = parseValue(JobSpec, raw, "INVALID_SPEC");
  const fleet = await targetFleet(env, d, spec);
  const recipe = await catalogHandshake(d, spec);
  const hp = validateHyperparams(recipe.params, spec.hyperparams);
  if (!hp.ok) {
    throw new AppError("INVALID_HYPERPARAMS", hp.issues.map((i) => i.message).join("; "), {
      issues: hp.issues,
    });
  }
  await checkProfiles(d, spec);
  checkImage(spec, recipe, fleet);
  checkRuntimeShape(spec, fleet);
  const blobDigests = await checkBlobs(env, d, spec);
  return {
    fleet,
    spec: { ...spec, hyperparams: hp.values },
    blobDigests,
    capsule: await configCache.get("capsule", () => currentCapsule(env.DB)),
    launch: { entrypoint: recipe.entrypoint, image: effectiveImage(spec, recipe) },
  };
}

/** The spec names a fleet that exists and takes work. */
async function targetFleet(env: AppEnv, d: Db, spec: JobSpec): Promise<FleetRow> {
  const ref = spec.resources.fleet ?? config(env).defaultFleet;
  let fleet: FleetRow;
  try {
    fleet = await configCache.get(`fleet:${ref}`, () => fleetByRef(d, ref));
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
  return fleet;
}

/**
 * The HuggingFace preflight: the model and dataset the spec names exist at their revisions, and `token` may
 * read their files. One verdict per repo checked, model first; `checked: false` only when the hub could not
 * answer and `onUnavailable` is "open".
 */
export async function checkHub(
  hub: HubClient,
  spec: JobSpec,
  token: string | undefined,
  onUnavailable: "closed" | "open",
): Promise<HubVerdict[]> {
  const opts = { token, onUnavailable };
  const verdicts: HubVerdict[] = [];
  if (spec.model.hf_repo) {
    verdicts.push(await hub.check("model", spec.model.hf_repo, spec.model.revision, opts));
  }
  if (spec.data.hf_dataset) {
    verdicts.push(await hub.check("dataset", spec.data.hf_dataset, spec.data.revision, opts));
  }
  return verdicts;
}

/** What the submitter's quota allows, given GPU-hours used today (UTC). */
export function checkQuota(spec: JobSpec, quota: Quota, usedToday: number): void {
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
  if (usedToday >= quota.daily_gpu_hours) {
    throw new AppError(
      "QUOTA_EXCEEDED",
      `you used ${usedToday.toFixed(1)} of your ${quota.daily_gpu_hours} GPU-hours today (UTC); try again tomorrow`,
      { limit: "daily_gpu_hours", value: quota.daily_gpu_hours, used: usedToday },
    );
  }
}

/** The user's max_jobs as the reservation reads it, in its own transaction. */
export function maxJobsSql(userId: string): SQL {
  const q = schema.quotas;
  return sql`COALESCE((SELECT ${q.maxJobs} FROM ${q} WHERE ${q.userId} = ${userId}), ${DEFAULT_QUOTA.max_jobs})`;
}

/** What a submit needs to know about its submitter, read in the batch that reserves its slot. */
export interface SubmitterFacts {
  /** The token is still valid, its user enabled and allowed to submit. */
  valid: boolean;
  /** The configuration generation (ConfigCache). */
  configGen: string;
  quota: Quota;
  /** GPU-hours used today (UTC). */
  gpuHoursToday: number;
}

/** One statement, one row: everything in SubmitterFacts (GPU-seconds as finished + open-run terms). */
export function submitterRead(d1: D1Database, user: User, now: number): D1PreparedStatement {
  const q = schema.quotas;
  const u = schema.runUsage;
  const r = schema.runs;
  const quotaCol = (c: SQL) => sql`(SELECT ${c} FROM ${q} WHERE ${q.userId} = ${user.userId})`;
  return prepared(
    d1,
    sql`SELECT ${submitterValid(user, now)} AS valid,
      (SELECT ${schema.meta.value} FROM ${schema.meta} WHERE ${schema.meta.key} = 'config_gen') AS configGen,
      ${quotaCol(sql`${q.userId}`)} AS quotaUser,
      ${quotaCol(sql`${q.maxGpus}`)} AS maxGpus, ${quotaCol(sql`${q.maxJobs}`)} AS maxJobs,
      ${quotaCol(sql`${q.dailyGpuHours}`)} AS dailyGpuHours,
      ${quotaCol(sql`${q.allowedProfiles}`)} AS allowedProfiles, ${quotaCol(sql`${q.priority}`)} AS priority,
      (SELECT coalesce(sum(${u.gpuSeconds}), 0) FROM ${u}
        WHERE ${u.userId} = ${user.userId} AND ${u.day} = ${utcDay(now)}) AS doneSeconds,
      (SELECT json_group_array(json_array(${r.gpus}, ${r.allocatedAt})) FROM ${r}
        WHERE ${r.userId} = ${user.userId} AND ${r.endedAt} IS NULL) AS open`,
  );
}

export function submitterFacts(r: D1Result, now: number): SubmitterFacts {
  const row = r.results[0] as {
    valid: number;
    configGen: string | null;
    quotaUser: string | null;
    maxGpus: number;
    maxJobs: number;
    dailyGpuHours: number;
    allowedProfiles: string;
    priority: number;
    doneSeconds: number;
    open: string;
  };
  const quota = quotaFromRow(
    row.quotaUser === null
      ? undefined
      : {
          userId: row.quotaUser,
          maxGpus: row.maxGpus,
          maxJobs: row.maxJobs,
          dailyGpuHours: row.dailyGpuHours,
          allowedProfiles: row.allowedProfiles,
          priority: row.priority,
          updatedAt: "",
        },
  );
  const open = (JSON.parse(row.open) as Array<[number, string]>).map(([gpus, at]) => ({ gpus, at }));
  return {
    valid: row.valid === 1,
    configGen: row.configGen ?? "0",
    quota,
    gpuHoursToday: gpuHoursFrom(row.doneSeconds, open, now),
  };
}

/** GPU-hours today from finished GPU-seconds and the open runs (counted from today's start up to now). */
function gpuHoursFrom(doneSeconds: number, open: Array<{ gpus: number; at: string }>, now: number): number {
  const dayStart = Date.parse(`${utcDay(now)}T00:00:00.000Z`);
  const live = open.reduce(
    (s, r) => s + (Math.max(0, now - Math.max(Date.parse(r.at), dayStart)) / 1000) * r.gpus,
    0,
  );
  return (doneSeconds + live) / 3600;
}

/** GPU-hours today (UTC): finished allocations from run_usage plus the open ones up to now. */
export async function gpuHoursToday(d: Db, userId: string, now: number = Date.now()): Promise<number> {
  const done = await d
    .select({ s: sql<number>`coalesce(sum(${schema.runUsage.gpuSeconds}), 0)` })
    .from(schema.runUsage)
    .where(and(eq(schema.runUsage.userId, userId), eq(schema.runUsage.day, utcDay(now))))
    .get();
  const open = await d
    .select({ gpus: schema.runs.gpus, at: schema.runs.allocatedAt })
    .from(schema.runs)
    .where(and(eq(schema.runs.userId, userId), sql`${schema.runs.endedAt} IS NULL`))
    .all();
  return gpuHoursFrom(done?.s ?? 0, open, now);
}

/** The user's token is still valid, the user enabled and allowed to submit (the reservation's guard). */
export function submitterValid(user: User, now: number): SQL {
  const t = schema.tokens;
  const u = schema.users;
  return sql`EXISTS (SELECT 1 FROM ${t} JOIN ${u} ON ${u.id} = ${t.userId}
    WHERE ${t.id} = ${user.tokenId} AND ${t.revokedAt} IS NULL
      AND (${t.expiresAt} IS NULL OR ${t.expiresAt} > ${nowIso(now)})
      AND ${u.disabled} = 0 AND ${u.role} IN ('operator', 'admin'))`;
}

async function catalogHandshake(d: Db, spec: JobSpec): Promise<RecipeVersion> {
  const { name, version, digest } = spec.recipe;
  const upgrade = "run `sf recipe upgrade` to move the experiment to what the server publishes";
  const published = await configCache.get(`recipe:${name}@${version}`, () =>
    findRecipeVersion(d, name, version),
  );
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
  const registry = new Map(
    (await configCache.get("profiles", () => readProfiles(d))).map((p) => [p.name, p]),
  );
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
