/**
 * Turns a LaunchRequest into a run directory on this host: the capsule files and the user's workspace,
 * each fetched by digest (verified), and capsule.json naming every one of them by digest so
 * bootstrap.sh and the runner can check them again inside the container.
 */
import { chmodSync, copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { CAPSULE_VERSION, type CapsuleManifest } from "../contract/capsule.schema.js";
import { type LaunchRequest, rankEnv } from "../contract/launch-request.schema.js";
import { writeFileAtomic } from "../contract/node-files.js";
import { WorkspaceManifest } from "../contract/workspace-manifest.schema.js";
import type { BlobCache } from "./blob-cache.js";
import { type RunInput, type RunSpec, runLabels } from "./runtime.js";

export const CAPSULE_DIR = ".starforge/capsule";

function place(src: string, runDir: string, rel: string, mode: number): void {
  const dest = resolve(runDir, rel);
  // Manifest paths are relative and free of "..", but never trust a path to stay inside the run.
  if (!dest.startsWith(`${resolve(runDir)}/`)) throw new Error(`path ${rel} escapes the run directory`);
  mkdirSync(dirname(dest), { recursive: true });
  copyFileSync(src, dest);
  chmodSync(dest, mode);
}

/** Builds the run directory; throws DigestMismatchError / BlobFetchError when a blob is bad or missing. */
export async function materialize(
  req: LaunchRequest,
  rank: number,
  runDir: string,
  blobs: BlobCache,
  opts: { runRootInside?: string; advertiseAddr?: string } = {},
): Promise<RunSpec> {
  mkdirSync(join(runDir, "out"), { recursive: true });
  mkdirSync(join(runDir, "workspace"), { recursive: true });
  const files: Record<string, string> = {};
  const inputs: RunInput[] = [];

  for (const [name, digest] of Object.entries(req.capsule.files)) {
    const rel = `${CAPSULE_DIR}/${name}`;
    const mode = name.endsWith(".sh") ? 0o755 : 0o644;
    place(await blobs.path(digest), runDir, rel, mode);
    files[rel] = digest;
    inputs.push({ path: rel, digest, mode, from: "blob" });
  }
  if (req.workspace.manifest) {
    const manifest = WorkspaceManifest.parse(
      JSON.parse(readFileSync(await blobs.path(req.workspace.manifest), "utf8")),
    );
    for (const f of manifest.files) {
      const rel = `workspace/${f.path}`;
      place(await blobs.path(f.digest), runDir, rel, f.mode);
      files[rel] = f.digest;
      inputs.push({ path: rel, digest: f.digest, mode: f.mode, from: "blob" });
    }
  }

  // The checkpoint this run continues from: under resume/, verified by digest here and by bootstrap.sh.
  let resumeFrom: string | null = null;
  if (req.resume_from) {
    const rels: string[] = [];
    for (const f of req.resume_from.files) {
      const inside = f.path.startsWith("checkpoints/") ? f.path.slice("checkpoints/".length) : f.path;
      const rel = `resume/${inside}`;
      const source = `/v1/agents/checkpoint?run=${encodeURIComponent(req.resume_from.run_id)}&path=${encodeURIComponent(f.path)}`;
      place(await blobs.path(f.digest, source), runDir, rel, 0o644);
      files[rel] = f.digest;
      rels.push(rel);
      inputs.push({
        path: rel,
        digest: f.digest,
        mode: 0o644,
        from: "checkpoint",
        run: req.resume_from.run_id,
        artifact: f.path,
      });
    }
    resumeFrom = rels.length === 1 ? rels[0]! : commonDir(rels);
  }

  const capsule: CapsuleManifest = {
    capsule_version: CAPSULE_VERSION,
    run_id: req.run_id,
    job_id: req.job_id,
    attempt: req.attempt,
    rank,
    world_size: req.world_size,
    recipe: { name: req.spec.recipe.name, version: req.spec.recipe.version, entrypoint: req.entrypoint },
    requires: { python: "3.8", framework: req.spec.framework },
    hyperparams: req.spec.hyperparams,
    experiment_dir: req.spec.source.experiment_dir,
    files,
    ingest: { endpoint: req.ingest.endpoint },
  };
  writeFileAtomic(join(runDir, CAPSULE_DIR, "capsule.json"), JSON.stringify(capsule, null, 2));

  const placement = req.placement.find((p) => p.rank === rank);
  const root = opts.runRootInside ?? runDir;
  return {
    runId: req.run_id,
    jobId: req.job_id,
    epoch: req.epoch,
    rank,
    runDir,
    env: {
      ...rankEnv(req, rank),
      FORGE_RUN_ROOT: root,
      // Where this rank's peers reach it: rank 0 announces it at the rendezvous as MASTER_ADDR.
      ...(opts.advertiseAddr ? { FORGE_ADVERTISE_ADDR: opts.advertiseAddr } : {}),
      ...(resumeFrom === null
        ? {}
        : {
            SF_RESUME_FROM: `${root}/${resumeFrom}`,
            ...(req.resume_from?.step == null ? {} : { SF_RESUME_STEP: String(req.resume_from.step) }),
          }),
    },
    secrets: req.secrets,
    image: req.image,
    gpuIndices: placement?.gpu_indices ?? [],
    resources: {},
    labels: runLabels({ runId: req.run_id, jobId: req.job_id, rank, epoch: req.epoch }),
    placement: req.placement.map((p) => ({
      rank: p.rank,
      nodeId: p.node_id,
      gpus: p.gpu_indices.length,
      pool: p.pool,
    })),
    attempt: req.attempt,
    maxRuntimeSeconds: req.spec.lifecycle.max_runtime_seconds ?? null,
    inputs,
  };
}

/** The deepest directory holding every one of the paths ("resume" at least). */
function commonDir(rels: string[]): string {
  const parts = rels.map((r) => r.split("/").slice(0, -1));
  const out: string[] = [];
  for (let i = 0; parts.every((p) => i < p.length && p[i] === parts[0]![i]); i++) out.push(parts[0]![i]!);
  return out.join("/");
}
