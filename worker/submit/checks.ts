/**
 * Admission's checks of the spec itself, cheapest first (worker/submit/submit.ts runs the whole sequence).
 * Nothing here writes, so a refused submit leaves nothing behind. Admin-owned rows come through the
 * isolate's ConfigCache; what depends on the submitter (token, account, quota, usage) is the user's
 * object's to check, atomically with the slot it reserves.
 */
import { inArray } from "drizzle-orm";
import type { RecipeVersion } from "../../contract/catalog.schema.js";
import type { SubmitInput } from "../../contract/fleet.schema.js";
import { validateHyperparams } from "../../contract/hyperparams.js";
import { imageAllowed } from "../../contract/image-allowlist.js";
import { JobSpec } from "../../contract/jobspec.schema.js";
import { ProfileError, poolGpus, shapeFor } from "../../contract/profile-grammar.js";
import { WorkspaceManifest } from "../../contract/workspace-manifest.schema.js";
import { type Db, schema } from "../../d1/client.js";
import { findRecipeVersion, recipeExists } from "../catalog/catalog.service.js";
import { type AppEnv, config } from "../env.js";
import { AppError } from "../errors.js";
import { parseValue } from "../http.js";
import { currentCapsule } from "../services/capsule.service.js";
import { configCache } from "../services/config-cache.js";
import { type FleetRow, fleetByRef } from "../services/fleets.service.js";
import type { HubClient, HubVerdict } from "../services/hf-hub.js";
import { readProfiles } from "../services/profiles.service.js";
import { type CandidateView, placeJob, placesItself } from "./placement.js";

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
  /** The image is the catalog framework's own default: no allowlist applies to it. */
  imageFromCatalog: boolean;
  /** A job placed over several fleets: every candidate, why it was or was not chosen. */
  candidates?: CandidateView[];
  /** Set when the HuggingFace preflight could not check the repos and the fleet admitted them unchecked. */
  hfUnchecked?: string;
}

/**
 * Every check of the spec itself, cheapest first: it parses, names a fleet that takes work, matches the
 * catalog (recipe, framework, hyperparameters), the hardware profiles, the fleet's image allowlist and
 * runtime, and its workspace is uploaded. Admin-owned rows come through the isolate's ConfigCache, which
 * the caller validates in the batch that reserves the job's slot.
 */
export async function checkSpec(env: AppEnv, d: Db, raw: unknown, prefer?: string): Promise<Checked> {
  const spec = everyFleetByDefault(env, parseValue(JobSpec, raw, "INVALID_SPEC"));
  const named = placesItself(spec) ? null : await targetFleet(env, d, spec);
  const recipe = await catalogHandshake(d, spec);
  const hp = validateHyperparams(recipe.params, spec.hyperparams);
  if (!hp.ok) {
    throw new AppError("INVALID_HYPERPARAMS", hp.issues.map((i) => i.message).join("; "), {
      issues: hp.issues,
    });
  }
  await checkProfiles(d, spec);
  const fits = (f: FleetRow) => checkImage(spec, recipe, f);
  const placed = named ? null : await placeJob(d, spec, fits, prefer);
  const fleet = named ?? placed!.fleet;
  if (named) fits(named);
  const blobDigests = await checkBlobs(env, d, spec);
  return {
    fleet,
    ...(placed ? { candidates: placed.candidates } : {}),
    spec: { ...spec, hyperparams: hp.values },
    blobDigests,
    capsule: await configCache.get("capsule", () => currentCapsule(env.DB)),
    launch: { entrypoint: recipe.entrypoint, image: effectiveImage(spec, recipe) },
    imageFromCatalog: isCatalogImage(spec, recipe),
  };
}

/**
 * A deployment whose default fleet is `*` places a job that names no fleet over every fleet (as the
 * selector `{}`: those whose hardware fits it), recorded so in its spec.
 */
function everyFleetByDefault(env: AppEnv, spec: JobSpec): JobSpec {
  if (spec.resources.fleet || placesItself(spec) || config(env).defaultFleet !== EVERY_FLEET) return spec;
  return { ...spec, resources: { ...spec.resources, fleet_selector: { labels: {} } } };
}

/** `SF_DEFAULT_FLEET` meaning "every fleet": a job that names none is placed over all of them. */
export const EVERY_FLEET = "*";

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

/** The job runs the catalog framework's own default image (an admin published it). */
function isCatalogImage(spec: JobSpec, recipe: RecipeVersion): boolean {
  const image = effectiveImage(spec, recipe);
  return image !== null && image === recipe.frameworks.find((f) => f.kind === spec.framework.kind)?.image;
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
