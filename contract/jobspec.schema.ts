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
/** A HuggingFace model's or dataset's revision; the preflight reads `main` when it is omitted. */
const HfRevision = z.string().max(200).optional().describe("Its revision (branch, tag or commit); `main`");
const HfRepo = z.string().regex(/^[A-Za-z0-9][\w.-]{0,95}(\/[A-Za-z0-9][\w.-]{0,95})?$/, "expected org/name");

export const JobSpec = z
  .object({
    api_version: z.literal(JOB_API_VERSION).describe("The JobSpec's version: `starforge.dev/v1`"),
    metadata: z
      .object({
        name: Name.describe("The job's name: lowercase letters, digits and `-`, at most 63 characters"),
        experiment: z.string().max(200).optional().describe("The experiment it belongs to, free text"),
        project: z.string().max(200).optional().describe("The project it belongs to, free text"),
        labels: z
          .record(z.string().max(63), z.string().max(200))
          .default({})
          .describe("Labels to find it by (`sf job ls --label k=v`)"),
        sweep: z
          .object({
            id: z.string().max(64).describe("The sweep's id, shared by all its jobs"),
            index: z.number().int().min(0).describe("This job's place in the sweep, from 0"),
            params: z
              .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
              .describe("The hyperparameters this point of the sweep sets"),
          })
          .optional()
          .describe("Set by `sf sweep`: which sweep the job is a point of"),
      })
      .describe("Who and what the job is: its name, labels and where it belongs"),
    recipe: z
      .object({
        name: RecipeName.describe("The catalog recipe, `framework/method` (GET /v1/catalog)"),
        version: Version.describe("The recipe's version (semver)"),
        digest: Digest.describe("The recipe's digest, from `recipe.lock.json`: admission refuses another"),
      })
      .describe("The catalog recipe it runs, pinned by version and digest"),
    framework: z
      .object({
        kind: z.string().min(1).max(32).describe("The framework, e.g. `python` or `torch`"),
        version: z.string().min(1).max(32).describe("The framework's version"),
        runtime_id: z.string().min(1).max(64).describe("The catalog runtime it runs on"),
        image: z
          .string()
          .min(1)
          .max(512)
          .nullable()
          .default(null)
          .describe("The container image (checked against the fleet's allowlist); null: the runtime's own"),
      })
      .describe("The framework and runtime the recipe runs on"),
    source: z
      .object({
        /** Digest of the workspace manifest blob (see workspace-manifest.schema.ts); null for no files. */
        workspace: Digest.nullable().describe(
          "The digest of the workspace manifest blob (its files, uploaded first); null: no files",
        ),
        /** Path of the experiment inside the workspace, e.g. experiments/exp1. */
        experiment_dir: z
          .string()
          .max(512)
          .default(".")
          .describe("The experiment's folder inside the workspace, e.g. `experiments/exp1`"),
      })
      .describe("The experiment's files"),
    model: z
      .object({
        hf_repo: HfRepo.optional().describe("A HuggingFace model, `org/name`, checked before admission"),
        revision: HfRevision,
      })
      .default({})
      .describe("A HuggingFace model the job uses, checked to exist and be readable before admission"),
    data: z
      .object({
        hf_dataset: HfRepo.optional().describe("A HuggingFace dataset, `org/name`, checked before admission"),
        revision: HfRevision,
      })
      .default({})
      .describe("A HuggingFace dataset the job uses, checked to exist and be readable before admission"),
    resources: z
      .object({
        fleet: z
          .string()
          .max(64)
          .optional()
          .describe("The fleet (name or id) it runs on; `*`: placed over every fleet. Default: the server's"),
        /**
         * Instead of one fleet: the fleets it may run on (the control plane places it on the one that starts
         * it soonest), or a selector of them by labels and kind (`{}`: every fleet whose hardware fits). At
         * most one of fleet, fleets and fleet_selector.
         */
        fleets: z
          .array(z.string().min(1).max(64))
          .min(1)
          .max(16)
          .optional()
          .describe(
            "Instead of `fleet`: the fleets it may run on; it is placed on the one that starts it soonest",
          ),
        fleet_selector: FleetSelector.optional().describe(
          "Instead of `fleet`: the fleets whose labels and kind match; `{}`: every fleet whose hardware fits",
        ),
        /** The team it runs for (contract/teams.ts); omitted: its submitter's primary team. */
        team: z
          .string()
          .min(1)
          .max(32)
          .optional()
          .describe("The team it runs for and is counted against; default: the submitter's primary team"),
        pools: z.array(Pool).min(1).max(8).describe("The GPUs it needs, as groups of like nodes"),
        roles: z
          .record(z.string(), z.string())
          .default({})
          .describe("Role name → the pool that plays it (the recipe's roles)"),
      })
      .describe("Where it runs and on which GPUs"),
    hyperparams: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
      .default({})
      .describe("The recipe's parameters, checked against its `params`"),
    /** Names of the submitter's (or the fleet's) secrets the workload gets as environment variables. */
    secrets: z
      .array(SecretName)
      .max(64)
      .default([])
      .describe("Names of your (or the fleet's) secrets the workload gets as environment variables"),
    lifecycle: z
      .object({
        /** Requested priority; admission caps it at the user's quota priority. */
        priority: z
          .number()
          .int()
          .min(0)
          .max(100)
          .optional()
          .describe("Its priority within its class, 0–100; capped at your quota's. Default: your quota's"),
        /**
         * Priority class (contract/priority-classes.ts); omitted = `normal`. It orders the queue before
         * `priority` and decides preemption; admission refuses a class above the submitter's quota.
         */
        priority_class: z
          .string()
          .min(1)
          .max(32)
          .optional()
          .describe(
            "Its priority class (GET /v1/priority-classes): orders the queue and decides preemption. Default: `normal`",
          ),
        max_retries: z
          .number()
          .int()
          .min(0)
          .max(20)
          .default(2)
          .describe("How many times a failed run is retried"),
        retry_on_user_failure: z
          .boolean()
          .default(false)
          .describe("Retry also failures its diagnosis blames on the job's own code"),
        /**
         * Whether the job can stop (SIGTERM → checkpoint) and continue from SF_RESUME_FROM. Unset: catalog
         * methods can, custom scripts cannot. Drain pauses only resumable jobs.
         */
        resumable: z
          .boolean()
          .optional()
          .describe(
            "It can stop with a checkpoint and continue from it. Default: catalog methods yes, custom no",
          ),
        max_runtime_seconds: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe(
            "A run is stopped this long after it started RUNNING: the job FAILED (`TIMEOUT`), not retried",
          ),
        /**
         * A verdict, not a hang: a job still waiting this long after its submit, never started, ends
         * FAILED with NO_ELIGIBLE_FLEET and every candidate fleet's reason (docs/scheduling.md).
         */
        placement_timeout_seconds: z
          .number()
          .int()
          .min(1)
          .max(30 * 86_400)
          .optional()
          .describe(
            "A job still waiting this long after its submit, never started, ends FAILED (`NO_ELIGIBLE_FLEET`)",
          ),
        /**
         * A job placed over several fleets preempts (on the one fleet that holds it) only after waiting
         * this long for one of them to start it without preemption; 0: at once. Default 60.
         */
        preemption_wait_seconds: z
          .number()
          .int()
          .min(0)
          .max(86_400)
          .optional()
          .describe(
            "Placed over several fleets: preempt only after waiting this long for a start without. Default 60",
          ),
        /**
         * What a live anomaly does while the run goes on (docs/operations.md "Failure diagnosis"): a NaN or
         * infinite loss in its reported metrics, or a hang (no new step for `hang_factor` × its median step
         * interval, and at least `hang_floor_seconds`). `warn` (default): a `job.anomaly` event and webhook;
         * `stop`: that, then the run is stopped with a checkpoint attempt and the job FAILED with the class.
         */
        on_anomaly: z
          .enum(["warn", "stop"])
          .optional()
          .describe(
            "What a NaN loss or a hang does: `warn` (default) an event and webhook; `stop` also fails the job",
          ),
        hang_factor: z
          .number()
          .min(2)
          .max(1000)
          .optional()
          .describe("A hang is no new step for this many times the median step interval. Default 10"),
        hang_floor_seconds: z
          .number()
          .int()
          .min(5)
          .max(86_400)
          .optional()
          .describe("… and at least this long. Default 300"),
      })
      .default({ max_retries: 2, retry_on_user_failure: false })
      .describe("Priority, retries, time limits and what anomalies do"),
    provenance: z
      .object({
        git_commit: z
          .string()
          .regex(/^[0-9a-f]{7,64}$/)
          .nullable()
          .describe("The experiment's git commit, or null outside a repository"),
        git_dirty: z.boolean().describe("Whether the working tree had uncommitted changes"),
        config_sha: Digest.describe("The digest of the experiment's config.yaml"),
      })
      .describe("Where the experiment came from, recorded with the job"),
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
