/**
 * What the HTTP API answers, as the CLI (and any client) parses it (docs/api.md). Objects are loose:
 * `--json` prints what the server sent, including fields added after a client was written. Shapes that
 * the Fleet DO or the Run DO produce live beside them (fleet.schema.ts, readback.schema.ts) and are
 * reused here, so each answer has one definition. The usage, webhook, secret and audit answers live in
 * responses-admin.schema.ts and are re-exported from here.
 */

import { z } from "zod";
import { FleetNetwork, JobView, QuotaBody } from "./api.schema.js";
import { DiagnosisView, FleetDiagnosis } from "./diagnosis-policy.js";
import {
  DrainBlocker,
  DryRunJob,
  FleetConfig,
  FleetInspect,
  JobDetail,
  NodeView,
  RunView,
} from "./fleet.schema.js";
import { PriorityClass } from "./priority-classes.js";
import { ProfileEntry } from "./profile-grammar.js";
import { Json, TransitionView } from "./readback.schema.js";
import { BUDGET_POLICIES, TeamQuota } from "./teams.js";

export {
  AuditEntry,
  AuditPage,
  DeletedSecret,
  DeletedWebhook,
  DeliveryPage,
  DeliveryView,
  OneDelivery,
  SecretList,
  SecretOne,
  TeamUsage,
  TeamUsageRow,
  Usage,
  WebhookList,
  WebhookView,
  WithSecret,
} from "./responses-admin.schema.js";
export { FleetInspect, JobView, RunView };

/** Any answer whose body the client does not read (a 2xx is all it needs). */
export const Ignored = z.unknown();

const RUN_READ = "The run read (`run_…`): the one `run` names, else the job's current run, else its latest";
const JOB_IDS = (what: string) => z.array(z.string()).describe(`Jobs (ids) ${what}`);

// identity ---------------------------------------------------------------------------------

export const UserView = z.looseObject({
  id: z.string().describe("The user's id (`usr_…`)"),
  name: z.string().describe("The user's name, unique, e.g. `ada`"),
  email: z.string().nullable().describe("The user's e-mail address; null: none"),
  role: z.string().describe("`viewer`, `operator` or `admin`: each may do all that the ones before it may"),
  disabled: z.boolean().describe("`true`: every request with the user's tokens is refused (403 `FORBIDDEN`)"),
  created_at: z.string().describe("When the user was created, ISO 8601 UTC"),
});
export type UserView = z.infer<typeof UserView>;

/** POST /v1/users: the user and, once, their first token. */
export const CreatedUser = z.looseObject({
  user: UserView,
  token: z.string().describe("The user's first token (`sfp_…`), named `initial`; shown only in this answer"),
});
export const OneUser = z.looseObject({ user: UserView });
export const UserList = z.looseObject({ users: z.array(UserView).describe("Every user, by name") });

/** A personal access token as listed (the secret itself is shown once, at creation). */
export const TokenView = z.looseObject({
  id: z.string().describe("The token's id, `tok_` plus a lowercase ULID"),
  name: z.string().describe("The name it was given to tell it apart, e.g. `laptop`"),
  prefix: z.string().describe("The first 10 characters of its secret (`sfp_…`), to recognise it by"),
  created_at: z.string().describe("When it was created, ISO 8601 UTC"),
  expires_at: z.string().nullable().describe("When it expires, ISO 8601 UTC; null: never"),
  revoked_at: z.string().nullable().describe("When it was revoked, ISO 8601 UTC; null: it was not"),
  last_used_at: z
    .string()
    .nullable()
    .describe("When it last authenticated a request (updated at most hourly), ISO 8601 UTC; null: never"),
});
export type TokenView = z.infer<typeof TokenView>;

export const QuotaView = QuotaBody.loose();
export type QuotaView = z.infer<typeof QuotaView>;

const EFFECTIVE_QUOTA =
  "The effective quota: the one an admin set (defaults filled in), else the default quota";

/** GET|PUT /v1/users/:name/quota */
export const UserQuota = z.looseObject({
  user: z.string().describe("The user's name"),
  quota: QuotaView.describe(EFFECTIVE_QUOTA),
});
export type UserQuota = z.infer<typeof UserQuota>;

/** GET /v1/me */
export const Me = z.looseObject({
  user: UserView,
  quota: QuotaView.describe(EFFECTIVE_QUOTA),
});
export type Me = z.infer<typeof Me>;

/** POST /v1/auth/device */
export const DeviceStarted = z.looseObject({
  device_code: z
    .string()
    .describe("The secret the CLI polls with (`sfd_…`): whoever holds it receives the token"),
  user_code: z.string().describe("The code the person checks and approves on the page, `ABCD-EFGH`"),
  verification_uri: z.string().describe("The page where the person approves the code (`…/device`)"),
  verification_uri_complete: z.string().describe("The same page with the code filled in (`?user_code=…`)"),
  expires_in: z.number().describe("Seconds until the codes expire (600)"),
  interval: z.number().describe("Seconds to wait between polls of `POST /v1/auth/device/token`"),
});
export type DeviceStarted = z.infer<typeof DeviceStarted>;

/** POST /v1/auth/device/token once approved (every other answer is a coded 400). */
export const DeviceToken = z.looseObject({
  token: z
    .string()
    .describe("A new personal access token (`sfp_…`) of the approver, never expiring; shown only here"),
});

// fleets and profiles ------------------------------------------------------------------------

/** A fleet as the ledger holds it. */
export const FleetView = z.looseObject({
  id: z.string().describe("The fleet's id, `flt_` plus a lowercase ULID"),
  name: z.string().describe("The fleet's name, unique"),
  kind: z.string().describe("How its agents run jobs: `process`, `docker`, `kuberay` or `slurm`"),
  description: z.string().describe("What the fleet is, free text"),
  image_allowlist: z
    .array(z.string())
    .describe(
      "Image patterns its jobs may run (`registry/org/*`, `name:tag`, …); empty: catalog defaults only",
    ),
  windows: z
    .array(z.unknown())
    .describe("When each GPU series runs jobs (`series`, `days`, `start`, `end`, `tz`); empty: always"),
  draining: z.boolean().describe("`true` while the fleet drains for maintenance: new submits are refused"),
  drain_note: z.string().nullable().describe("Why it drains, as the drain was told; null when it does not"),
  network: FleetNetwork,
  hf_unavailable: z
    .enum(["refuse", "admit"])
    .default("refuse")
    .describe(
      "While the HuggingFace Hub cannot be reached: `refuse` jobs naming a repo (503) or `admit` them",
    ),
  /** Absent from servers older than teams: their fixed 10. */
  preemptions_per_minute: z
    .number()
    .int()
    .default(10)
    .describe("At most this many preemptions start in the fleet per minute; 0: none"),
  /** Absent from servers older than placement: none. */
  labels: z
    .record(z.string(), z.string())
    .default({})
    .describe("What a job's `fleet_selector` matches: key → value"),
  /** The fleet's own diagnosis rules (docs/operations.md "A fleet's own rules"); absent from older servers. */
  diagnosis: FleetDiagnosis.optional().describe("The fleet's own failure rules and per-class retry actions"),
  created_at: z.string().describe("When the fleet was created, ISO 8601 UTC"),
});
export type FleetView = z.infer<typeof FleetView>;

/** GET /v1/fleets */
export const FleetList = z.looseObject({ fleets: z.array(FleetView).describe("Every fleet, by name") });
/** POST /v1/fleets, PATCH /v1/fleets/:fleet */
export const OneFleet = z.looseObject({ fleet: FleetView });
/** GET /v1/fleets/:fleet: the fleet and what its Fleet DO sees now. */
export const FleetLive = FleetInspect.extend({ fleet: FleetView });
export type FleetLive = z.infer<typeof FleetLive>;

/** POST /v1/fleets/:fleet/enrollment-tokens */
export const EnrollmentTokenView = z.looseObject({
  token: z
    .string()
    .describe("The token (`sfe_…`), shown only here: an agent trades it at `POST /v1/agents/enroll`"),
  fleet: z.string().describe("The fleet's name"),
  expires_at: z.string().describe("When it expires if no agent has spent it, ISO 8601 UTC"),
  one_shot: z.boolean().describe("Always `true`: the first agent to enroll with it spends it"),
});

/** What a drain holds and what still blocks maintenance. */
const DrainState = {
  paused: JOB_IDS(
    "the drain paused while they ran (their runs stopped, checkpointing), still `PAUSED`, in queue order",
  ),
  held: JOB_IDS("the drain held while they queued, still `PAUSED`, in queue order"),
  blockers: z
    .array(DrainBlocker)
    .describe(
      "What still holds GPUs while the fleet drains, and why; maintenance can start once it is empty",
    ),
  resumed: JOB_IDS("that ending the drain queued again, in queue order; empty except in the resume answer"),
};

/** GET /v1/fleets/:fleet/maintenance */
export const Maintenance = z.looseObject({
  fleet: z.string().describe("The fleet's name"),
  draining: z.boolean().describe("`true` while the fleet drains, as its Fleet DO holds it"),
  note: z.string().nullable().describe("Why it drains; null when it does not"),
  queued: z.number().describe("How many of the fleet's jobs are `QUEUED`"),
  running: z.number().describe("How many of the fleet's jobs are `SUBMITTED`, `PENDING` or `RUNNING`"),
  ...DrainState,
});
export type Maintenance = z.infer<typeof Maintenance>;

/** POST /v1/fleets/:fleet/maintenance/drain|resume: the fleet and its drain. */
export const DrainChange = z.looseObject({ fleet: FleetView, ...DrainState });

export const ProfileList = z.looseObject({
  profiles: z.array(ProfileEntry).describe("Every profile, by name"),
});
export const OneProfile = z.looseObject({ profile: ProfileEntry });
export const DeletedProfile = z.looseObject({
  deleted: z.string().describe("The name of what was deleted (the profile, priority class or team)"),
});

/** POST /v1/jobs?dry_run=1 */
export const DryRunAnswer = z.looseObject({
  dry_run: z.literal(true).describe("Always `true`: nothing was reserved, queued or written"),
  jobs: z.array(DryRunJob).describe("What the fleet would do with each job now, in the order sent"),
});

/** GET /v1/priority-classes, PUT /v1/priority-classes/:name */
export const PriorityClassList = z.looseObject({
  priority_classes: z.array(PriorityClass).describe("Every class, highest value first"),
});
export const OnePriorityClass = z.looseObject({ priority_class: PriorityClass });

/** One team as GET /v1/teams shows it (contract/teams.ts TeamView). */
export const TeamEntry = z.looseObject({
  name: z.string().describe("The team's name: lowercase letters, digits and `-`, a letter first"),
  description: z.string().describe("What the team is, free text"),
  members: z
    .array(
      z.looseObject({
        user_id: z.string().describe("The member's user id (`usr_…`)"),
        user: z.string().describe("The member's user name"),
        primary: z
          .boolean()
          .describe("`true`: the member's primary team, the one their jobs that name no team run for"),
      }),
    )
    .describe("Its members, by user name"),
  quotas: z
    .array(
      z.looseObject({
        fleet_id: z.string().describe("The fleet's id (`flt_…`)"),
        fleet: z.string().describe("The fleet's name"),
        series: z.string().describe("The GPU series the quota is for, e.g. `h100`"),
        ...TeamQuota.shape,
      }),
    )
    .describe("Its share of each GPU series of each fleet, ordered by fleet and series"),
  /** Its GPU-hour budget (a server before budgets sends none: then it has none). */
  budget: z
    .looseObject({
      monthly_gpu_hours: z
        .number()
        .nullable()
        .describe("GPU-hours per calendar month (UTC); null: no budget"),
      weekly_gpu_hours: z.number().nullable().describe("GPU-hours per ISO week (UTC); null: no budget"),
      policy: z
        .enum(BUDGET_POLICIES)
        .or(z.string())
        .describe(
          "Once spent: `refuse` new jobs, also `pause` running ones, or `borrow_free` (guarantee only)",
        ),
    })
    .default({ monthly_gpu_hours: null, weekly_gpu_hours: null, policy: "refuse" })
    .describe("Its GPU-hour budget per month and per week, and what a spent one does"),
  created_at: z.string().describe("When the team was created, ISO 8601 UTC"),
});
export type TeamEntry = z.infer<typeof TeamEntry>;

/** GET /v1/teams */
export const TeamList = z.looseObject({ teams: z.array(TeamEntry).describe("Every team, by name") });
/** GET|PUT /v1/teams/:name, PUT|DELETE its members and quotas */
export const OneTeam = z.looseObject({ team: TeamEntry });

/** POST /v1/catalog/recipes */
export const PublishedRecipe = z.looseObject({
  created: z
    .boolean()
    .describe("`true`: published now (201); `false`: the same content was published already (200)"),
  recipe: z
    .looseObject({
      name: z.string().describe("The recipe's name, `framework/method`, e.g. `python/charlm`"),
      version: z.string().describe("The version (semver `X.Y.Z`); a published version never changes"),
      digest: z
        .string()
        .describe("The digest (`sha256:…`) of the fields published; a job's `recipe.digest` must match it"),
    })
    .describe("The version as stored: the fields sent, its `digest`, `published_at` and `published_by`"),
});

export { FleetConfig };

// jobs ---------------------------------------------------------------------------------------

/** One transition of a job (the same shape as a run's timeline transitions). */
export const JobEvent = TransitionView;
export type JobEvent = z.infer<typeof JobEvent>;

/** GET /v1/jobs/:id */
export const JobDetailResponse = z.looseObject({
  job: z
    .looseObject({
      ...JobView.shape,
      spec: z.unknown().describe("The JobSpec as admitted, defaults and hyperparameters filled in"),
    })
    .describe("The job as the D1 ledger holds it, with its spec"),
  /** Why its latest run failed (docs/operations.md "Failure diagnosis"); null otherwise, or not yet. */
  diagnosis: DiagnosisView.nullable()
    .default(null)
    .describe("Why its latest run failed; null if that run did not fail, or is not diagnosed yet"),
  runs: z.array(RunView).describe("Its runs, by attempt"),
  events: z.array(JobEvent).describe("Its transitions, by `seq`"),
});
export type JobDetailResponse = z.infer<typeof JobDetailResponse>;

export const JobList = z.looseObject({
  jobs: z.array(JobView).describe("A page of jobs, newest first"),
  next_cursor: z
    .string()
    .nullable()
    .describe("The next page's `cursor`: this page's last job id; null on the last page"),
});

/** POST /v1/jobs and stop/pause/resume: the Fleet DO's JobDetail (JobView plus runs). */
export const JobAnswer = z.looseObject({ job: JobDetail });
export type JobAnswer = z.infer<typeof JobAnswer>;

/** POST /v1/jobs with a job array (`{"jobs": [...]}`): every job, in the order sent. */
export const JobsAnswer = z.looseObject({
  jobs: z.array(JobDetail).describe("Every job of the array, in the order sent"),
});
export type JobsAnswer = z.infer<typeof JobsAnswer>;

export const LogLine = z.looseObject({
  cursor: z
    .number()
    .int()
    .min(0)
    .describe("The line's run-wide position in readback order (0, 1, 2, … no holes); pass as `offset`"),
  rank: z.number().int().describe("The rank that wrote the line"),
  stream: z
    .string()
    .describe("`stdout` or `stderr` (the capsule runner's), or `console` (unsequenced terminal text)"),
  seq: z.number().int().describe("The line's sequence number within its rank and stream (0, 1, 2, …)"),
  ts: z.string().describe("When the server stored the line (ISO 8601 UTC)"),
  line: z.string().describe("The text of the line"),
});
export type LogLine = z.infer<typeof LogLine>;

/** Per (rank, stream): what is readable, what waits for a missing line, and where the stream ended. */
export const LogStreamState = z.looseObject({
  rank: z.number().int().describe("The rank that writes the stream"),
  stream: z.string().describe("`stdout`, `stderr` or `console`"),
  released_to: z.number().int().describe("Every `seq` below it is readable, or was given up on"),
  held: z.number().int().describe("How many lines wait, held back, for a missing earlier line"),
  eof_seq: z
    .number()
    .int()
    .nullable()
    .describe("One past the stream's last `seq`, once its writer sent `eof`; null before"),
});

export const LogsPage = z.looseObject({
  run_id: z.string().describe(RUN_READ),
  lines: z.array(LogLine).describe("Released lines from `offset` on, in cursor order"),
  next_offset: z
    .number()
    .int()
    .describe("The next page's `offset`: the last cursor returned plus one (`offset` if none was)"),
  ended: z.boolean().describe("`true` once the run is over: no line is held back any more"),
  streams: z
    .array(LogStreamState)
    .describe("Per rank and stream: what is readable, what is held back, where it ended"),
});
export type LogsPage = z.infer<typeof LogsPage>;

export const MetricPoint = z.looseObject({
  step: z.number().describe("The training step"),
  value: z.number().describe("The metric's value at that step"),
  ts: z.string().describe("When it was measured as the client said, else when it arrived (ISO 8601 UTC)"),
});
export type MetricPoint = z.infer<typeof MetricPoint>;

export const MetricKeys = z.looseObject({
  run_id: z.string().describe(RUN_READ),
  keys: z
    .array(
      z.looseObject({
        key: z.string().describe("The metric's name, e.g. `loss`"),
        count: z.number().describe("How many points it has (one per step)"),
        last: MetricPoint,
      }),
    )
    .describe("Every metric the run reported, by key, with its point at the highest step"),
});

export const MetricSeries = z.looseObject({
  run_id: z.string().describe(RUN_READ),
  key: z.string().describe("The metric's name"),
  points: z.array(MetricPoint).describe("Its points after `after`, by step"),
  next_after: z.number().nullable().describe("The next page's `after`; null on the last page"),
});

export const Artifact = z.looseObject({
  path: z.string().describe("Its path in the run, or for a reference the path as the client gave it"),
  kind: z.string().describe("`checkpoint`, `hf_export`, `eval_report` or `merged_model`"),
  step: z.number().nullable().describe("The training step it was saved at; null: none"),
  size_bytes: z.number().nullable().describe("Its size in bytes; null: unknown"),
  digest: z.string().nullable().describe("Its uploaded bytes' digest (`sha256:…`); null for a reference"),
  verified: z.boolean().describe("`true`: the server checked the stored bytes against `digest`"),
  stored: z.boolean().describe("`true`: its bytes were uploaded and can be downloaded; `false`: a reference"),
  /** Whatever JSON the client attached (evaluation scores, …). */
  metrics: z
    .record(z.string(), Json)
    .nullable()
    .describe("Values by name (any JSON) the client attached, e.g. eval scores; null: none"),
  registered_at: z.string().describe("When it was last registered, ISO 8601 UTC"),
});
export type Artifact = z.infer<typeof Artifact>;

export const ArtifactList = z.looseObject({
  run_id: z.string().describe(RUN_READ),
  artifacts: z.array(Artifact).describe("What the run registered, by step (unnumbered last), then path"),
});

/** GET /v1/fleets/:fleet/nodes */
export const NodeList = z.looseObject({
  nodes: z.array(NodeView).describe("Every node of the fleet, live from its Fleet DO"),
});
/** What an admin's action on a node did (null node: it was removed). */
export const NodeAdminAnswer = z.looseObject({
  action: z.string().describe("The action: `cordon`, `uncordon`, `drain`, `revoke` or `remove`"),
  node: NodeView.nullable().describe("The node as it is now; null after `remove`"),
  requeued: JOB_IDS("a `drain` stopped with a checkpoint and queued again to run elsewhere; else empty"),
  blockers: z
    .array(DrainBlocker)
    .describe("Jobs a `drain` leaves running there: they cannot resume, so stop them or wait"),
});
