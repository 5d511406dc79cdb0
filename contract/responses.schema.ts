/**
 * What the HTTP API answers, as the CLI (and any client) parses it (docs/api.md). Objects are loose:
 * `--json` prints what the server sent, including fields added after a client was written. Shapes that
 * the Fleet DO or the Run DO produce live beside them (fleet.schema.ts, readback.schema.ts) and are
 * reused here, so each answer has one definition.
 */

import { z } from "zod";
import { FleetNetwork, JobView, QuotaBody, Role } from "./api.schema.js";
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
import { SecretView } from "./secrets.schema.js";
import { BUDGET_POLICIES, TeamQuota } from "./teams.js";
import { DeliveryAttempt } from "./webhooks.schema.js";

export { FleetInspect, JobView, RunView };

/** Any answer whose body the client does not read (a 2xx is all it needs). */
export const Ignored = z.unknown();

// identity ---------------------------------------------------------------------------------

export const UserView = z.looseObject({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  role: z.string(),
  disabled: z.boolean(),
  created_at: z.string(),
});
export type UserView = z.infer<typeof UserView>;

/** POST /v1/users: the user and, once, their first token. */
export const CreatedUser = z.looseObject({ user: UserView, token: z.string() });
export const OneUser = z.looseObject({ user: UserView });
export const UserList = z.looseObject({ users: z.array(UserView) });

/** A personal access token as listed (the secret itself is shown once, at creation). */
export const TokenView = z.looseObject({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
});
export type TokenView = z.infer<typeof TokenView>;

export const QuotaView = QuotaBody.loose();
export type QuotaView = z.infer<typeof QuotaView>;

/** GET|PUT /v1/users/:name/quota */
export const UserQuota = z.looseObject({ user: z.string(), quota: QuotaView });
export type UserQuota = z.infer<typeof UserQuota>;

/** GET /v1/me */
export const Me = z.looseObject({
  user: z.looseObject({ name: z.string(), role: Role.or(z.string()), email: z.string().nullable() }),
  quota: QuotaView,
});
export type Me = z.infer<typeof Me>;

/** POST /v1/auth/device */
export const DeviceStarted = z.looseObject({
  device_code: z.string(),
  user_code: z.string(),
  verification_uri: z.string(),
  verification_uri_complete: z.string(),
  expires_in: z.number(),
  interval: z.number(),
});
export type DeviceStarted = z.infer<typeof DeviceStarted>;

/** POST /v1/auth/device/token once approved (every other answer is a coded 400). */
export const DeviceToken = z.looseObject({ token: z.string() });

// fleets and profiles ------------------------------------------------------------------------

/** A fleet as the ledger holds it. */
export const FleetView = z.looseObject({
  id: z.string(),
  name: z.string(),
  kind: z.string(),
  description: z.string(),
  image_allowlist: z.array(z.string()),
  windows: z.array(z.unknown()),
  draining: z.boolean(),
  drain_note: z.string().nullable(),
  network: FleetNetwork,
  hf_unavailable: z.enum(["refuse", "admit"]).default("refuse"),
  /** Absent from servers older than teams: their fixed 10. */
  preemptions_per_minute: z.number().int().default(10),
  /** Absent from servers older than placement: none. */
  labels: z.record(z.string(), z.string()).default({}),
  /** The fleet's own diagnosis rules (docs/operations.md "A fleet's own rules"); absent from older servers. */
  diagnosis: FleetDiagnosis.optional(),
  created_at: z.string(),
});
export type FleetView = z.infer<typeof FleetView>;

/** GET /v1/fleets */
export const FleetList = z.looseObject({ fleets: z.array(FleetView) });
/** POST /v1/fleets, PATCH /v1/fleets/:fleet */
export const OneFleet = z.looseObject({ fleet: FleetView });
/** GET /v1/fleets/:fleet: the fleet and what its Fleet DO sees now. */
export const FleetLive = FleetInspect.extend({ fleet: FleetView });
export type FleetLive = z.infer<typeof FleetLive>;

/** POST /v1/fleets/:fleet/enrollment-tokens */
export const EnrollmentTokenView = z.looseObject({
  token: z.string(),
  fleet: z.string(),
  expires_at: z.string(),
  one_shot: z.boolean(),
});

/** What a drain holds and what still blocks maintenance. */
const DrainState = {
  paused: z.array(z.string()),
  held: z.array(z.string()),
  blockers: z.array(
    z.looseObject({ job_id: z.string(), name: z.string(), status: z.string(), reason: z.string() }),
  ),
  resumed: z.array(z.string()),
};

/** GET /v1/fleets/:fleet/maintenance */
export const Maintenance = z.looseObject({
  fleet: z.string(),
  draining: z.boolean(),
  note: z.string().nullable(),
  queued: z.number(),
  running: z.number(),
  ...DrainState,
});
export type Maintenance = z.infer<typeof Maintenance>;

/** POST /v1/fleets/:fleet/maintenance/drain|resume: the fleet and its drain. */
export const DrainChange = z.looseObject({ fleet: FleetView, ...DrainState });

export const ProfileList = z.looseObject({ profiles: z.array(ProfileEntry) });
export const OneProfile = z.looseObject({ profile: ProfileEntry });
export const DeletedProfile = z.looseObject({ deleted: z.string() });

/** POST /v1/jobs?dry_run=1 */
export const DryRunAnswer = z.looseObject({ dry_run: z.literal(true), jobs: z.array(DryRunJob) });

/** GET /v1/priority-classes, PUT /v1/priority-classes/:name */
export const PriorityClassList = z.looseObject({ priority_classes: z.array(PriorityClass) });
export const OnePriorityClass = z.looseObject({ priority_class: PriorityClass });

/** One team as GET /v1/teams shows it (contract/teams.ts TeamView). */
export const TeamEntry = z.looseObject({
  name: z.string(),
  description: z.string(),
  members: z.array(z.looseObject({ user_id: z.string(), user: z.string(), primary: z.boolean() })),
  quotas: z.array(
    z.looseObject({ fleet_id: z.string(), fleet: z.string(), series: z.string(), ...TeamQuota.shape }),
  ),
  /** Its GPU-hour budget (a server before budgets sends none: then it has none). */
  budget: z
    .looseObject({
      monthly_gpu_hours: z.number().nullable(),
      weekly_gpu_hours: z.number().nullable(),
      policy: z.enum(BUDGET_POLICIES).or(z.string()),
    })
    .default({ monthly_gpu_hours: null, weekly_gpu_hours: null, policy: "refuse" }),
  created_at: z.string(),
});
export type TeamEntry = z.infer<typeof TeamEntry>;

/** GET /v1/teams */
export const TeamList = z.looseObject({ teams: z.array(TeamEntry) });
/** GET|PUT /v1/teams/:name, PUT|DELETE its members and quotas */
export const OneTeam = z.looseObject({ team: TeamEntry });

/** POST /v1/catalog/recipes */
export const PublishedRecipe = z.looseObject({
  created: z.boolean(),
  recipe: z.looseObject({ name: z.string(), version: z.string(), digest: z.string() }),
});

export { FleetConfig };

// jobs ---------------------------------------------------------------------------------------

/** One transition of a job (the same shape as a run's timeline transitions). */
export const JobEvent = TransitionView;
export type JobEvent = z.infer<typeof JobEvent>;

/** GET /v1/jobs/:id */
export const JobDetailResponse = z.looseObject({
  job: z.looseObject({ ...JobView.shape, spec: z.unknown() }),
  /** Why its latest run failed (docs/operations.md "Failure diagnosis"); null otherwise, or not yet. */
  diagnosis: DiagnosisView.nullable().default(null),
  runs: z.array(RunView),
  events: z.array(JobEvent),
});
export type JobDetailResponse = z.infer<typeof JobDetailResponse>;

export const JobList = z.looseObject({ jobs: z.array(JobView), next_cursor: z.string().nullable() });

/** POST /v1/jobs and stop/pause/resume: the Fleet DO's JobDetail (JobView plus runs). */
export const JobAnswer = z.looseObject({ job: JobDetail });
export type JobAnswer = z.infer<typeof JobAnswer>;

/** POST /v1/jobs with a job array (`{"jobs": [...]}`): every job, in the order sent. */
export const JobsAnswer = z.looseObject({ jobs: z.array(JobDetail) });
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
  rank: z.number().int(),
  stream: z.string(),
  released_to: z.number().int(),
  held: z.number().int(),
  eof_seq: z.number().int().nullable(),
});

export const LogsPage = z.looseObject({
  run_id: z.string(),
  lines: z.array(LogLine),
  next_offset: z.number().int(),
  ended: z.boolean(),
  streams: z.array(LogStreamState),
});
export type LogsPage = z.infer<typeof LogsPage>;

export const MetricPoint = z.looseObject({ step: z.number(), value: z.number(), ts: z.string() });
export type MetricPoint = z.infer<typeof MetricPoint>;

export const MetricKeys = z.looseObject({
  run_id: z.string(),
  keys: z.array(z.looseObject({ key: z.string(), count: z.number(), last: MetricPoint })),
});

export const MetricSeries = z.looseObject({
  run_id: z.string(),
  key: z.string(),
  points: z.array(MetricPoint),
  next_after: z.number().nullable(),
});

export const Artifact = z.looseObject({
  path: z.string(),
  kind: z.string(),
  step: z.number().nullable(),
  size_bytes: z.number().nullable(),
  digest: z.string().nullable(),
  verified: z.boolean(),
  stored: z.boolean(),
  /** Whatever JSON the client attached (evaluation scores, …). */
  metrics: z.record(z.string(), Json).nullable(),
  registered_at: z.string(),
});
export type Artifact = z.infer<typeof Artifact>;

export const ArtifactList = z.looseObject({ run_id: z.string(), artifacts: z.array(Artifact) });

export const Usage = z.looseObject({
  user: z.string(),
  active_gpus: z.number(),
  active_jobs: z.number(),
  gpu_hours_today: z.number(),
  gpu_hours_total: z.number(),
  quota: z.looseObject({
    max_gpus: z.number(),
    max_jobs: z.number(),
    daily_gpu_hours: z.number(),
    priority: z.number(),
  }),
  /** Only with `?days=N`: GPU-hours per UTC day, oldest first, every day of the window present. */
  daily: z.array(z.looseObject({ date: z.string(), gpu_hours: z.number() })).optional(),
});
export type Usage = z.infer<typeof Usage>;

/** One team's and fleet's GPU use in a budget period (GET /v1/usage/teams). */
export const TeamUsageRow = z.looseObject({
  /** null: jobs of no team. */
  team: z.string().nullable(),
  fleet: z.string(),
  fleet_id: z.string(),
  in_guarantee_gpu_seconds: z.number(),
  borrowed_gpu_seconds: z.number(),
  gpu_seconds: z.number(),
  /** Of gpu_seconds, what preempted runs trained past their last checkpoint (lost to preemption). */
  lost_gpu_seconds: z.number(),
});
export type TeamUsageRow = z.infer<typeof TeamUsageRow>;

/** GET /v1/usage/teams: per team (null: no team) its GPU-hours in the period and its budget's use. */
export const TeamUsage = z.looseObject({
  /** `2026-12` or `2026-W49`. */
  period: z.string(),
  start: z.string(),
  end: z.string(),
  teams: z.array(
    z.looseObject({
      team: z.string().nullable(),
      gpu_hours: z.number(),
      borrowed_gpu_hours: z.number(),
      /** Of gpu_hours, lost to preemption: what its preempted runs trained past their last checkpoint. */
      lost_gpu_hours: z.number(),
      /** The team's budget for this kind of period (month or week) while it is the current one, else null. */
      budget_gpu_hours: z.number().nullable(),
      budget_percent: z.number().nullable(),
      budget_policy: z.string().nullable(),
    }),
  ),
  rows: z.array(TeamUsageRow),
  total_gpu_seconds: z.number(),
});
export type TeamUsage = z.infer<typeof TeamUsage>;

// webhooks -------------------------------------------------------------------------------------

export const WebhookView = z.looseObject({
  id: z.string(),
  user_id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  fleet_id: z.string().nullable(),
  description: z.string(),
  secret_prefix: z.string(),
  /** While a rotated-out secret still signs deliveries (24 h), when it stops; else null. */
  previous_secret_expires_at: z.string().nullable(),
  created_at: z.string(),
});
export type WebhookView = z.infer<typeof WebhookView>;

export const WithSecret = z.looseObject({ webhook: WebhookView, secret: z.string() });
export const DeletedWebhook = z.looseObject({ id: z.string(), deleted: z.boolean() });
export const WebhookList = z.looseObject({ webhooks: z.array(WebhookView) });

export const DeliveryView = z.looseObject({
  id: z.string(),
  webhook_id: z.string(),
  type: z.string(),
  job_id: z.string().nullable(),
  state: z.string(),
  attempts: z.number(),
  last_status_code: z.number().nullable(),
  last_error: z.string().nullable(),
  next_attempt_at: z.string().nullable(),
  created_at: z.string(),
  delivered_at: z.string().nullable(),
  attempt_log: z.array(DeliveryAttempt),
});
export type DeliveryView = z.infer<typeof DeliveryView>;

export const DeliveryPage = z.looseObject({
  deliveries: z.array(DeliveryView),
  next_cursor: z.string().nullable(),
});
export const OneDelivery = z.looseObject({
  delivery: DeliveryView.extend({ payload: z.unknown().optional() }),
});

/** Job secrets (docs/api.md "Secrets"): names and who set them, never a value. */
export const SecretOne = z.looseObject({ secret: SecretView });
export const SecretList = z.looseObject({ secrets: z.array(SecretView) });
export const DeletedSecret = z.looseObject({ name: z.string(), deleted: z.boolean() });

// audit ----------------------------------------------------------------------------------------

/** One audit log entry (docs/api.md "GET /v1/audit"); `details` never holds a secret or token value. */
export const AuditEntry = z.looseObject({
  seq: z.number(),
  at: z.string(),
  actor: z.string(),
  actor_id: z.string().nullable(),
  action: z.string(),
  target: z.string(),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
});
export type AuditEntry = z.infer<typeof AuditEntry>;

export const AuditPage = z.looseObject({ entries: z.array(AuditEntry), next_cursor: z.string().nullable() });

/** GET /v1/fleets/:fleet/nodes */
export const NodeList = z.looseObject({ nodes: z.array(NodeView) });
/** What an admin's action on a node did (null node: it was removed). */
export const NodeAdminAnswer = z.looseObject({
  action: z.string(),
  node: NodeView.nullable(),
  requeued: z.array(z.string()),
  blockers: z.array(DrainBlocker),
});
