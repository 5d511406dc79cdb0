/** Request bodies and response views of the HTTP API (docs/api.md documents each route). */
import { z } from "zod";
import { RECIPE_NAME_RE } from "./catalog.schema.js";
import { FleetDiagnosis } from "./diagnosis-policy.js";
import { Digest } from "./digest.js";
import { JOB_STATES, JobState } from "./job-states.js";
import { PendingReason } from "./pending-reasons.schema.js";
import { FLEET_KINDS, FleetLabels } from "./placement.js";

export const ROLES = ["viewer", "operator", "admin"] as const;
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

/** Rank used by `requireRole`: a role may do everything the roles below it may. */
export const ROLE_RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

export const UserName = z
  .string()
  .regex(/^[a-z][a-z0-9._-]{1,38}$/, "lowercase, 2–39 chars, starts with a letter");

export const CreateUserBody = z.object({
  name: UserName.describe(
    "The user's name: lowercase letters, digits, `.`, `_` and `-`, 2–39 characters, a letter first",
  ),
  role: Role.default("operator").describe(
    "What the user may do: `viewer` reads, `operator` also submits and acts on own jobs, `admin` everything",
  ),
  email: z.string().email().max(254).optional().describe("The user's e-mail address; omitted: none (null)"),
  /** Also mint a first token for the new user (shown once). */
  with_token: z
    .boolean()
    .default(true)
    .describe("Also mint the user's first token, named `initial`, shown only in this answer"),
});
export const UpdateUserBody = z.object({
  role: Role.optional().describe("The user's new role: `viewer`, `operator` or `admin`; omitted: unchanged"),
  disabled: z
    .boolean()
    .optional()
    .describe(
      "`true` disables the user: every request with their tokens is refused (403); omitted: unchanged",
    ),
});

export const CreateTokenBody = z.object({
  name: z.string().min(1).max(64).describe("A name to tell the token apart by, e.g. `laptop`"),
  expires_in_days: z
    .number()
    .int()
    .min(1)
    .max(3650)
    .optional()
    .describe("Days until the token expires; omitted: it never expires"),
});

export const QuotaBody = z.object({
  max_gpus: z.number().int().min(0).max(100_000).describe("GPUs the user's jobs may hold at once"),
  max_jobs: z
    .number()
    .int()
    .min(0)
    .max(100_000)
    .describe("Jobs the user may have active at once: `QUEUED`, `SUBMITTED`, `PENDING` or `RUNNING`"),
  daily_gpu_hours: z
    .number()
    .min(0)
    .max(10_000_000)
    .describe("GPU-hours the user's jobs may use per UTC day"),
  /** Profiles the user may submit to; empty = all. */
  allowed_profiles: z
    .array(z.string())
    .default([])
    .describe("The profiles the user may submit to; empty: every profile"),
  /** Omitted = the default priority, so a quota PUT never lowers priority by accident. */
  priority: z
    .number()
    .int()
    .min(0)
    .max(100)
    .default(10)
    .describe("The highest `lifecycle.priority` the user's jobs get, and theirs when they ask for none"),
  /** The highest priority class (by value) the user's jobs may ask for; omitted = `normal`. */
  max_priority_class: z
    .string()
    .min(1)
    .max(32)
    .default("normal")
    .describe("The highest priority class (by value) the user's jobs may ask for"),
});
export type Quota = z.infer<typeof QuotaBody>;

/** The quota of a user no admin has set one for. */
export const DEFAULT_QUOTA: Quota = QuotaBody.parse({ max_gpus: 16, max_jobs: 20, daily_gpu_hours: 384 });

export { FLEET_KINDS };

export const TimeWindow = z.object({
  /** GPU series the window governs; omitted = every series of the fleet. */
  series: z.string().optional().describe("The GPU series it governs; omitted: every series of the fleet"),
  /** Days of week, 0 = Sunday. */
  days: z
    .array(z.number().int().min(0).max(6))
    .min(1)
    .describe("The days of the week it opens on, 0 = Sunday"),
  start: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/)
    .describe("When it opens, `HH:MM` in `tz`"),
  end: z
    .string()
    .regex(/^([01]\d|2[0-4]):[0-5]\d$/)
    .describe("When it closes, `HH:MM` in `tz`, up to `24:00`; at or before `start`: the next day"),
  tz: z.string().default("UTC").describe("The IANA time zone of `start` and `end`, e.g. `Europe/Berlin`"),
});
export type TimeWindow = z.infer<typeof TimeWindow>;

export const FleetName = z.string().regex(/^[a-z][a-z0-9-]{1,62}$/, "lowercase, digits and -, 2–63 chars");

/** Variables a fleet may set for every rank: the collective libraries' network settings only. */
export const NETWORK_ENV_RE = /^(NCCL|GLOO|UCX|FI|TORCH_NCCL|TORCH_DISTRIBUTED|MLX5|OMPI)_[A-Z0-9_]{1,64}$/;

/**
 * A fleet's network settings for distributed jobs (docs/multi-node.md): variables every rank gets (which
 * interface NCCL/Gloo use, which InfiniBand HCAs…), how long ranks wait for each other at the
 * rendezvous, and the ports rank 0 may listen on (null: any free port).
 */
export const FleetNetwork = z
  .object({
    env: z
      .record(z.string(), z.string().max(512))
      .superRefine((env, ctx) => {
        for (const name of Object.keys(env)) {
          if (NETWORK_ENV_RE.test(name)) continue;
          ctx.addIssue({
            code: "custom",
            path: [name],
            message: `${name} is not a network setting: fleets set NCCL_*, GLOO_*, UCX_*, FI_*, TORCH_NCCL_*, TORCH_DISTRIBUTED_*, MLX5_* or OMPI_* variables`,
          });
        }
      })
      .default({})
      .describe(
        "Variables every rank gets, e.g. `NCCL_SOCKET_IFNAME`: collective libraries' network settings only",
      ),
    rendezvous_timeout_seconds: z
      .number()
      .int()
      .min(5)
      .max(3600)
      .default(300)
      .describe("Seconds the ranks of a distributed job wait for each other at the rendezvous"),
    port_range: z
      .tuple([z.number().int().min(1024).max(65535), z.number().int().min(1024).max(65535)])
      .refine(([lo, hi]) => lo <= hi, "port_range is [lowest, highest]")
      .nullable()
      .default(null)
      .describe("The ports rank 0 may listen on, `[lowest, highest]`; null: any free port"),
  })
  .strict();
export type FleetNetwork = z.infer<typeof FleetNetwork>;

/**
 * What admission does with a job naming a HuggingFace repo while the Hub cannot be reached: `refuse`
 * (503 HF_UNAVAILABLE, retry later) or `admit` it unchecked (the job itself then meets the Hub).
 */
export const HfUnavailable = z.enum(["refuse", "admit"]);

/** What POST and PATCH say of the fields they share. */
const HF_UNAVAILABLE_DESCRIPTION =
  "While the HuggingFace Hub cannot be reached: `refuse` jobs naming a repo (503) or `admit` them unchecked";
const PREEMPTIONS_DESCRIPTION = "At most this many preemptions start in the fleet per minute; 0: none";

export const CreateFleetBody = z.object({
  name: FleetName.describe(
    "The fleet's name: lowercase letters, digits and `-`, 2–63 characters, a letter first",
  ),
  kind: z.enum(FLEET_KINDS).describe("How its agents run jobs: `process`, `docker`, `kuberay` or `slurm`"),
  description: z.string().max(500).default("").describe("What the fleet is, free text"),
  /** Image patterns jobs may run: `registry/org/*`, `name:tag`, or pinned `name@sha256:…`. */
  image_allowlist: z
    .array(z.string().min(1).max(512))
    .default([])
    .describe(
      "Image patterns jobs may run: `registry/org/*`, `name:tag`, `name@sha256:…`; empty: catalog defaults only",
    ),
  windows: z
    .array(TimeWindow)
    .default([])
    .describe(
      "When each GPU series runs jobs: they start only inside a window and stop at its close; none: always",
    ),
  network: FleetNetwork.default(FleetNetwork.parse({})),
  hf_unavailable: HfUnavailable.default("refuse").describe(HF_UNAVAILABLE_DESCRIPTION),
  /** At most this many preemptions start in the fleet per minute (0: none at all). */
  preemptions_per_minute: z.number().int().min(0).max(10_000).default(10).describe(PREEMPTIONS_DESCRIPTION),
  /** What a job's fleet selector matches (`site`, `region`, …): docs/scheduling.md "Placement". */
  labels: FleetLabels.default({}).describe(
    "What a job's `fleet_selector` matches: key → value, e.g. `region`",
  ),
  /** The fleet's failure rules and per-class retry overrides (docs/operations.md "Failure diagnosis"). */
  diagnosis: FleetDiagnosis.default({ rules: [], actions: {} }).describe(
    "The fleet's failure rules and per-class retry actions; omitted: the built-in ones",
  ),
});
export type CreateFleetBody = z.infer<typeof CreateFleetBody>;
/** PATCH: only the fields given change (no defaults here, so an omitted field is left alone). */
export const UpdateFleetBody = z.object({
  description: z.string().max(500).optional().describe("What the fleet is, free text"),
  image_allowlist: z
    .array(z.string().min(1).max(512))
    .optional()
    .describe("Replaces the image patterns jobs may run; `[]`: only the catalog's default images"),
  windows: z
    .array(TimeWindow)
    .optional()
    .describe(
      "Replaces the windows that gate each GPU series (its jobs start only inside one); `[]`: always open",
    ),
  network: FleetNetwork.optional(),
  hf_unavailable: HfUnavailable.optional().describe(HF_UNAVAILABLE_DESCRIPTION),
  preemptions_per_minute: z.number().int().min(0).max(10_000).optional().describe(PREEMPTIONS_DESCRIPTION),
  /** Replaces the fleet's labels (`{}` removes them all). */
  labels: FleetLabels.optional().describe(
    "Replaces what a job's `fleet_selector` matches: key → value; `{}` removes every label",
  ),
  /** Replaces the fleet's failure rules and retry overrides (`{}` goes back to the built-ins). */
  diagnosis: FleetDiagnosis.optional().describe(
    "Replaces the fleet's failure rules and per-class retry actions; `{}`: back to the built-in ones",
  ),
});

export const DrainBody = z.object({
  note: z
    .string()
    .min(1)
    .max(500)
    .describe(
      "Why the fleet drains: refused submits are told it (`FLEET_DRAINING`); a new drain replaces it",
    ),
});

/** POST /v1/fleets/:fleet/nodes/:node/{cordon,uncordon,drain,revoke}: why, for whoever looks later. */
export const NodeActionBody = z.object({
  note: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .describe("Why, for whoever looks later: the node's `cordon_note`, and in the audit log"),
});

export const RegisterNodeBody = z.object({
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/)
    .describe("The node's name in the fleet; registering a name again updates that node"),
  series: z
    .string()
    .min(1)
    .max(63)
    .describe("The series of its GPUs, e.g. `h100`: a job's pools run on nodes of their series"),
  gpus: z.number().int().min(0).max(64).describe("How many GPUs it has, numbered from 0"),
  cpus: z.number().int().min(0).optional().describe("How many CPUs it has; recorded, not used for placement"),
  memory_mb: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("Its memory in MiB; recorded, not used for placement"),
  runtime: z
    .enum(FLEET_KINDS)
    .optional()
    .describe(
      "`docker`, `kuberay`: it runs jobs with an image; `process`, `slurm`: jobs without; omitted: either",
    ),
  labels: z
    .record(z.string().max(63), z.string().max(200))
    .default({})
    .describe("Labels shown with the node, key → value, e.g. `rack`"),
});
export type RegisterNodeBody = z.infer<typeof RegisterNodeBody>;

/** The agent presents its one-shot token; its inventory arrives later, in the agent's hello. */
export const EnrollBody = z.object({
  token: z
    .string()
    .min(10)
    .describe("The one-shot enrollment token (`sfe_…`) an admin minted for the fleet; this call spends it"),
});

export const JobActionBody = z.object({
  reason: z
    .string()
    .max(500)
    .optional()
    .describe("Why, in your words: recorded in the event's `detail.reason`"),
});

export const PendingReasons = z.array(PendingReason);

export const JobView = z.object({
  id: z.string().describe("The job's id, `job_` plus a lowercase ULID"),
  name: z.string().describe("The job's name, the spec's `metadata.name`"),
  user_id: z.string().describe("The id (`usr_…`) of the user who submitted it"),
  fleet_id: z.string().describe("The id (`flt_…`) of the fleet it runs in"),
  status: JobState.describe(
    "Its state, e.g. `QUEUED`, `RUNNING`, `SUCCEEDED`, `FAILED`, `STOPPED`, `PAUSED`",
  ),
  priority: z
    .number()
    .int()
    .describe(
      "Its priority within its class, higher first: its `lifecycle.priority`, capped at its owner's quota",
    ),
  /** Its priority class (docs/scheduling.md); absent from servers older than classes. */
  priority_class: z
    .string()
    .default("normal")
    .describe(
      "Its priority class, `lifecycle.priority_class` (default `normal`): higher classes are scheduled first",
    ),
  /** The team it runs for (docs/scheduling.md "Teams"); null: its submitter is in no team. */
  team: z
    .string()
    .nullable()
    .default(null)
    .describe("The team it runs for; null: its submitter is in no team"),
  gpus: z.number().int().describe("GPUs it uses in all: the sum over its pools of `nodes` × `gpus_per_node`"),
  recipe: z.string().describe("Its recipe as `name@version`, e.g. `python/charlm@1.0.0`"),
  pending_reasons: PendingReasons.describe("Why it is not running yet; empty when nothing holds it back"),
  current_run_id: z
    .string()
    .nullable()
    .describe("Its newest run's id (`run_…`), kept after that run ends; null before its first dispatch"),
  created_at: z.string().describe("When it was submitted, ISO 8601 UTC"),
  updated_at: z.string().describe("When it last changed, ISO 8601 UTC"),
  /** GET /v1/jobs only (absent elsewhere): the owner's user name. */
  user: z.string().optional().describe("`GET /v1/jobs` only: the owner's user name"),
  /** GET /v1/jobs only: the spec's profile name(s), comma-separated when its pools use several. */
  profile: z
    .string()
    .nullable()
    .optional()
    .describe(
      "`GET /v1/jobs` only: its profile name(s), comma-separated if its pools use several; null: none",
    ),
  /** GET /v1/jobs only: when its first run took its GPUs; null before any run. */
  started_at: z
    .string()
    .nullable()
    .optional()
    .describe("`GET /v1/jobs` only: when its first run took its GPUs, ISO 8601 UTC; null before any run"),
  /** GET /v1/jobs only: when its last run ended, if the job is at rest (SUCCEEDED/FAILED/STOPPED/PAUSED). */
  ended_at: z
    .string()
    .nullable()
    .optional()
    .describe("`GET /v1/jobs` only: when its last run ended, ISO 8601 UTC; null unless the job is at rest"),
});
export type JobView = z.infer<typeof JobView>;

/** A method filter: a recipe name (`python/charlm`, any version) or `name@version`. */
const MethodFilter = z
  .string()
  .max(120)
  .refine((s) => {
    const at = s.indexOf("@");
    return RECIPE_NAME_RE.test(at < 0 ? s : s.slice(0, at)) && (at < 0 || at < s.length - 1);
  }, "a recipe name like python/charlm, or name@version");

/** GET /v1/jobs query parameters (docs/api.md). */
export const JobListQuery = z.object({
  all: z.enum(["0", "1", "true", "false"]).optional(),
  user: z.string().optional(),
  status: z
    .string()
    .transform((s) => s.split(",").map((x) => x.trim().toUpperCase()))
    .pipe(z.array(z.enum(JOB_STATES)))
    .optional(),
  fleet: z.string().optional(),
  method: MethodFilter.optional(),
  /** Case-insensitive substring of the job's name. */
  q: z.string().max(100).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z
    .string()
    .regex(/^job_[0-9a-z]{26}$/)
    .optional(),
});
export type JobListQuery = z.infer<typeof JobListQuery>;

export const BlobRef = z.object({ digest: Digest, size: z.number().int() });
