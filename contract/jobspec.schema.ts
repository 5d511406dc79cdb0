/** The JobSpec: what a user asks to run. Built by `sf submit`, admitted by the Worker, carried to the agent. */
import { z } from "zod";
import { RecipeName, Version } from "./catalog.schema.js";
import { Digest } from "./digest.js";
import { FleetSelector } from "./placement.js";
import { Pool } from "./profile-grammar.js";

export const JOB_API_VERSION = "starforge.dev/v1";

const Name = z
  .string()
  .regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, "lowercase letters, digits and -, ≤63 chars");
/**
 * A job secret's name: an environment variable name the workload gets it as. Names the platform sets for
 * every rank (STARFORGE_*, FORGE_*, SF_* and the torchrun convention) cannot be secrets, so a secret can
 * never shadow the run's identity or its ingest token.
 */
export const RESERVED_ENV = [
  "RANK",
  "LOCAL_RANK",
  "GROUP_RANK",
  "WORLD_SIZE",
  "LOCAL_WORLD_SIZE",
  "NODE_RANK",
  "NNODES",
  "MASTER_ADDR",
  "MASTER_PORT",
] as const;
export const SecretName = z
  .string()
  .regex(
    /^[A-Z_][A-Z0-9_]{0,127}$/,
    "an environment variable name: A-Z, 0-9 and _, not starting with a digit",
  )
  .refine(
    (n) => !/^(STARFORGE_|FORGE_|SF_)/.test(n) && !(RESERVED_ENV as readonly string[]).includes(n),
    "names starting with STARFORGE_, FORGE_ or SF_ and the distributed-training variables are set by StarForge",
  );
const HfRepo = z.string().regex(/^[A-Za-z0-9][\w.-]{0,95}(\/[A-Za-z0-9][\w.-]{0,95})?$/, "expected org/name");

export const JobSpec = z
  .object({
    api_version: z.literal(JOB_API_VERSION),
    metadata: z.object({
      name: Name,
      experiment: z.string().max(200).optional(),
      project: z.string().max(200).optional(),
      labels: z.record(z.string().max(63), z.string().max(200)).default({}),
      sweep: z
        .object({
          id: z.string().max(64),
          index: z.number().int().min(0),
          params: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
        })
        .optional(),
    }),
    recipe: z.object({ name: RecipeName, version: Version, digest: Digest }),
    framework: z.object({
      kind: z.string().min(1).max(32),
      version: z.string().min(1).max(32),
      runtime_id: z.string().min(1).max(64),
      image: z.string().min(1).max(512).nullable().default(null),
    }),
    source: z.object({
      /** Digest of the workspace manifest blob (see workspace-manifest.schema.ts); null for no files. */
      workspace: Digest.nullable(),
      /** Path of the experiment inside the workspace, e.g. experiments/exp1. */
      experiment_dir: z.string().max(512).default("."),
    }),
    model: z.object({ hf_repo: HfRepo.optional(), revision: z.string().max(200).optional() }).default({}),
    data: z.object({ hf_dataset: HfRepo.optional(), revision: z.string().max(200).optional() }).default({}),
    resources: z.object({
      fleet: z.string().max(64).optional(),
      /**
       * Instead of one fleet: the fleets it may run on (the control plane places it on the one that starts
       * it soonest), or a selector of them by labels and kind (`{}`: every fleet whose hardware fits). At
       * most one of fleet, fleets and fleet_selector.
       */
      fleets: z.array(z.string().min(1).max(64)).min(1).max(16).optional(),
      fleet_selector: FleetSelector.optional(),
      /** The team it runs for (contract/teams.ts); omitted: its submitter's primary team. */
      team: z.string().min(1).max(32).optional(),
      pools: z.array(Pool).min(1).max(8),
      roles: z.record(z.string(), z.string()).default({}),
    }),
    hyperparams: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
    /** Names of the submitter's (or the fleet's) secrets the workload gets as environment variables. */
    secrets: z.array(SecretName).max(64).default([]),
    lifecycle: z
      .object({
        /** Requested priority; admission caps it at the user's quota priority. */
        priority: z.number().int().min(0).max(100).optional(),
        /**
         * Priority class (contract/priority-classes.ts); omitted = `normal`. It orders the queue before
         * `priority` and decides preemption; admission refuses a class above the submitter's quota.
         */
        priority_class: z.string().min(1).max(32).optional(),
        max_retries: z.number().int().min(0).max(20).default(2),
        retry_on_user_failure: z.boolean().default(false),
        /**
         * Whether the job can stop (SIGTERM → checkpoint) and continue from SF_RESUME_FROM. Unset: catalog
         * methods can, custom scripts cannot. Drain pauses only resumable jobs.
         */
        resumable: z.boolean().optional(),
        max_runtime_seconds: z.number().int().min(1).optional(),
        /**
         * A verdict, not a hang: a job still waiting this long after its submit, never started, ends
         * FAILED with NO_ELIGIBLE_FLEET and every candidate fleet's reason (docs/scheduling.md).
         */
        placement_timeout_seconds: z
          .number()
          .int()
          .min(1)
          .max(30 * 86_400)
          .optional(),
        /**
         * A job placed over several fleets preempts (on the one fleet that holds it) only after waiting
         * this long for one of them to start it without preemption; 0: at once. Default 60.
         */
        preemption_wait_seconds: z.number().int().min(0).max(86_400).optional(),
        /**
         * What a live anomaly does while the run goes on (docs/operations.md "Failure diagnosis"): a NaN or
         * infinite loss in its reported metrics, or a hang (no new step for `hang_factor` × its median step
         * interval, and at least `hang_floor_seconds`). `warn` (default): a `job.anomaly` event and webhook;
         * `stop`: that, then the run is stopped with a checkpoint attempt and the job FAILED with the class.
         */
        on_anomaly: z.enum(["warn", "stop"]).optional(),
        hang_factor: z.number().min(2).max(1000).optional(),
        hang_floor_seconds: z.number().int().min(5).max(86_400).optional(),
      })
      .default({ max_retries: 2, retry_on_user_failure: false }),
    provenance: z.object({
      git_commit: z
        .string()
        .regex(/^[0-9a-f]{7,64}$/)
        .nullable(),
      git_dirty: z.boolean(),
      config_sha: Digest,
    }),
  })
  .superRefine((spec, ctx) => {
    const names = new Set<string>();
    for (const p of spec.resources.pools) {
      if (names.has(p.name))
        ctx.addIssue({ code: "custom", path: ["resources", "pools"], message: `pool "${p.name}" twice` });
      names.add(p.name);
    }
    const { fleet, fleets, fleet_selector } = spec.resources;
    if ([fleet, fleets, fleet_selector].filter((x) => x !== undefined).length > 1)
      ctx.addIssue({
        code: "custom",
        path: ["resources"],
        message: "give one of fleet, fleets and fleet_selector",
      });
    if (fleets && new Set(fleets).size !== fleets.length)
      ctx.addIssue({ code: "custom", path: ["resources", "fleets"], message: "a fleet is named twice" });
    if (new Set(spec.secrets).size !== spec.secrets.length)
      ctx.addIssue({ code: "custom", path: ["secrets"], message: "a secret is named twice" });
    for (const [role, pool] of Object.entries(spec.resources.roles)) {
      if (!names.has(pool)) {
        ctx.addIssue({
          code: "custom",
          path: ["resources", "roles", role],
          message: `role maps to unknown pool "${pool}"`,
        });
      }
    }
  });
export type JobSpec = z.infer<typeof JobSpec>;
export type JobSpecInput = z.input<typeof JobSpec>;

export function totalGpus(spec: Pick<JobSpec, "resources">): number {
  return spec.resources.pools.reduce((n, p) => n + p.nodes * p.gpus_per_node, 0);
}

/** Digests of blobs a spec references directly (the workspace manifest). */
export function referencedBlobs(spec: JobSpec): string[] {
  return spec.source.workspace ? [spec.source.workspace] : [];
}
