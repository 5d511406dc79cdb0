/**
 * The Job Capsule: what a run's container gets besides the user's workspace. `capsule.json` names every
 * capsule and workspace file by digest; `bootstrap.sh` checks them with the image's own tools and starts
 * the runner (`runner.pyz`, a Python 3 stdlib-only zipapp), which picks the recipe adapter.
 *
 * Layout inside the run directory (mounted at /sf in containers; FORGE_RUN_ROOT for the process runtime):
 *   .starforge/capsule/{capsule.json, bootstrap.sh, runner.pyz}
 *   workspace/            the user's files (FORGE_WORK_DIR); the experiment at workspace/<experiment_dir>
 *   out/                  FORGE_OUT_DIR: checkpoints and outputs
 */
import { z } from "zod";
import { Digest } from "./digest.js";

export const CAPSULE_VERSION = 1;
export const CAPSULE_FILES = ["bootstrap.sh", "runner.pyz"] as const;

/** bootstrap.sh / runner exit codes, so an agent can say what went wrong without reading logs. */
export const CAPSULE_EXIT = {
  /** A capsule or workspace file is missing or its digest does not match. */
  DIGEST_MISMATCH: 65,
  /** No python3 (or too old) in the image. */
  NO_PYTHON: 66,
  /** The recipe's framework capability is missing (e.g. torch too old). */
  CAPABILITY_MISSING: 67,
  /** capsule.json is unreadable or of another version. */
  BAD_MANIFEST: 68,
  /** The ranks of a distributed run did not all meet at the rendezvous (the reason names the missing). */
  RENDEZVOUS_FAILED: 69,
} as const;

export const CapsuleManifest = z.object({
  capsule_version: z.literal(CAPSULE_VERSION),
  run_id: z.string(),
  job_id: z.string(),
  attempt: z.number().int().min(1),
  rank: z.number().int().min(0),
  world_size: z.number().int().min(1),
  recipe: z.object({
    name: z.string(),
    version: z.string(),
    entrypoint: z.discriminatedUnion("kind", [
      z.object({ kind: z.literal("script"), path: z.string() }),
      z.object({ kind: z.literal("python"), module: z.string() }),
    ]),
  }),
  /** What the runner must find before it runs anything. */
  requires: z.object({
    python: z.string().default("3.8"),
    framework: z.object({ kind: z.string(), version: z.string(), runtime_id: z.string() }),
  }),
  hyperparams: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  experiment_dir: z.string(),
  /** path (relative to the run directory) → digest, for every capsule and workspace file. */
  files: z.record(z.string(), Digest),
  ingest: z.object({ endpoint: z.string().url() }),
});
export type CapsuleManifest = z.infer<typeof CapsuleManifest>;
