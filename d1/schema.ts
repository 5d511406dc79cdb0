/**
 * The D1 ledger: what is queried across fleets. Scheduling state lives in the Fleet DO; the `jobs`,
 * `runs`, `job_events`, `nodes` and `run_usage` tables are projections the DO's outbox writes
 * idempotently (versioned upserts and insert-or-ignore by key). Times are ISO-8601 UTC strings.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

const now = sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;

export const meta = sqliteTable("meta", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  email: text("email"),
  role: text("role", { enum: ["viewer", "operator", "admin"] }).notNull(),
  disabled: integer("disabled", { mode: "boolean" }).notNull().default(false),
  createdAt: text("created_at").notNull().default(now),
});

export const tokens = sqliteTable(
  "tokens",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    name: text("name").notNull(),
    /** sha256 hex of the token; the token itself is shown once and never stored. */
    hash: text("hash").notNull().unique(),
    /** First characters, so a user can tell tokens apart in `list`. */
    prefix: text("prefix").notNull(),
    createdAt: text("created_at").notNull().default(now),
    expiresAt: text("expires_at"),
    revokedAt: text("revoked_at"),
    lastUsedAt: text("last_used_at"),
  },
  (t) => [index("tokens_user").on(t.userId)],
);

export const recipes = sqliteTable(
  "recipes",
  {
    name: text("name").notNull(),
    version: text("version").notNull(),
    digest: text("digest").notNull(),
    /** The full RecipeVersionBody as canonical JSON. */
    body: text("body").notNull(),
    publishedAt: text("published_at").notNull().default(now),
    publishedBy: text("published_by").notNull(),
  },
  (t) => [primaryKey({ columns: [t.name, t.version] })],
);

export const profiles = sqliteTable("profiles", {
  name: text("name").primaryKey(),
  series: text("series").notNull(),
  gpusPerNode: integer("gpus_per_node").notNull(),
  defaultGpus: integer("default_gpus").notNull(),
  description: text("description").notNull().default(""),
  updatedAt: text("updated_at").notNull().default(now),
});

export const fleets = sqliteTable("fleets", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  kind: text("kind", { enum: ["process", "docker", "kuberay", "slurm"] }).notNull(),
  description: text("description").notNull().default(""),
  /** JSON array of image patterns. */
  imageAllowlist: text("image_allowlist").notNull().default("[]"),
  /** JSON array of TimeWindow. */
  windows: text("windows").notNull().default("[]"),
  draining: integer("draining", { mode: "boolean" }).notNull().default(false),
  drainNote: text("drain_note"),
  createdAt: text("created_at").notNull().default(now),
  /** JSON FleetNetwork: network variables for every rank, rendezvous timeout and port range. */
  network: text("network").notNull().default("{}"),
  /** What admission does while the HuggingFace Hub cannot be reached: refuse (503) or admit unchecked. */
  hfUnavailable: text("hf_unavailable", { enum: ["refuse", "admit"] })
    .notNull()
    .default("refuse"),
  /** Preemptions that may start in the fleet per minute (anti-thrash; 0: never preempt). */
  preemptionsPerMinute: integer("preemptions_per_minute").notNull().default(10),
  /** JSON FleetLabels (`site`, `region`, …) a job's fleet selector matches. */
  labels: text("labels").notNull().default("{}"),
  /** JSON FleetDiagnosis: the fleet's failure rules and retry overrides (docs/operations.md "Failure diagnosis"). */
  diagnosis: text("diagnosis").notNull().default("{}"),
});

/**
 * What each Fleet DO last published about its capacity (JSON FleetCapacity), for placement over several
 * fleets. Apart from `fleets`: that is configuration, and a change to it moves the configuration
 * generation every isolate's cache follows; this changes with every decision.
 */
export const fleetCapacity = sqliteTable("fleet_capacity", {
  fleetId: text("fleet_id").primaryKey(),
  capacity: text("capacity").notNull(),
  updatedAt: text("updated_at").notNull(),
});

export const enrollmentTokens = sqliteTable("enrollment_tokens", {
  hash: text("hash").primaryKey(),
  fleetId: text("fleet_id")
    .notNull()
    .references(() => fleets.id),
  createdBy: text("created_by").notNull(),
  createdAt: text("created_at").notNull().default(now),
  expiresAt: text("expires_at").notNull(),
  usedAt: text("used_at"),
  nodeId: text("node_id"),
});

/** Projection of the Fleet DO's nodes. */
export const nodes = sqliteTable(
  "nodes",
  {
    id: text("id").primaryKey(),
    fleetId: text("fleet_id").notNull(),
    name: text("name").notNull(),
    series: text("series").notNull(),
    gpus: integer("gpus").notNull(),
    gpusAllocated: integer("gpus_allocated").notNull().default(0),
    status: text("status").notNull(),
    labels: text("labels").notNull().default("{}"),
    version: integer("version").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [uniqueIndex("nodes_fleet_name").on(t.fleetId, t.name)],
);

/** Projection of the Fleet DO's jobs; `version` makes replayed or reordered flushes harmless. */
export const jobs = sqliteTable(
  "jobs",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    fleetId: text("fleet_id").notNull(),
    name: text("name").notNull(),
    status: text("status").notNull(),
    priority: integer("priority").notNull(),
    /** Its priority class (contract/priority-classes.ts). */
    priorityClass: text("priority_class").notNull().default("normal"),
    /** The team it runs for (contract/teams.ts); null: its submitter is in no team. */
    team: text("team"),
    gpus: integer("gpus").notNull(),
    recipe: text("recipe").notNull(),
    spec: text("spec").notNull(),
    pendingReasons: text("pending_reasons").notNull().default("[]"),
    currentRunId: text("current_run_id"),
    version: integer("version").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("jobs_user").on(t.userId, t.id), index("jobs_fleet_status").on(t.fleetId, t.status)],
);

export const runs = sqliteTable(
  "runs",
  {
    id: text("id").primaryKey(),
    jobId: text("job_id").notNull(),
    attempt: integer("attempt").notNull(),
    epoch: integer("epoch").notNull(),
    status: text("status").notNull(),
    /** JSON Placement[]. */
    placement: text("placement").notNull(),
    gpus: integer("gpus").notNull(),
    userId: text("user_id").notNull(),
    allocatedAt: text("allocated_at").notNull(),
    endedAt: text("ended_at"),
    exitCode: integer("exit_code"),
    reason: text("reason"),
    version: integer("version").notNull(),
    /** JSON { run_id, step }: the checkpoint this run continued from (null: it started fresh). */
    resumedFrom: text("resumed_from"),
    /** 1: it used GPUs beyond its team's guarantee (borrowed from idle teams). */
    borrowed: integer("borrowed", { mode: "boolean" }).notNull().default(false),
    /** JSON StoredDiagnosis of a failed run (contract/diagnosis-policy.ts; docs/operations.md). */
    diagnosis: text("diagnosis"),
  },
  (t) => [index("runs_job").on(t.jobId), index("runs_user_active").on(t.userId, t.endedAt)],
);

/** Append-only: one row per transition, keyed by the job's own sequence. */
export const jobEvents = sqliteTable(
  "job_events",
  {
    jobId: text("job_id").notNull(),
    seq: integer("seq").notNull(),
    ts: text("ts").notNull(),
    fromStatus: text("from_status"),
    toStatus: text("to_status").notNull(),
    edge: text("edge").notNull(),
    actor: text("actor").notNull(),
    detail: text("detail").notNull().default("{}"),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.seq] })],
);

export const quotas = sqliteTable("quotas", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id),
  maxGpus: integer("max_gpus").notNull(),
  maxJobs: integer("max_jobs").notNull(),
  dailyGpuHours: real("daily_gpu_hours").notNull(),
  allowedProfiles: text("allowed_profiles").notNull().default("[]"),
  priority: integer("priority").notNull().default(0),
  maxPriorityClass: text("max_priority_class").notNull().default("normal"),
  updatedAt: text("updated_at").notNull().default(now),
});

/** Priority classes an admin set (contract/priority-classes.ts); the built-ins need no row. */
export const priorityClasses = sqliteTable("priority_classes", {
  name: text("name").primaryKey(),
  /** The class as JSON (PriorityClass). */
  body: text("body").notNull(),
  updatedAt: text("updated_at").notNull(),
});

/** Teams (contract/teams.ts); their members and quotas are below. */
export const teams = sqliteTable("teams", {
  name: text("name").primaryKey(),
  description: text("description").notNull().default(""),
  monthlyGpuHours: real("monthly_gpu_hours"),
  weeklyGpuHours: real("weekly_gpu_hours"),
  budgetPolicy: text("budget_policy", { enum: ["refuse", "pause", "borrow_free"] })
    .notNull()
    .default("refuse"),
  createdAt: text("created_at").notNull(),
});

/** Budget alerts sent: once per team, period (`2026-12`, `2026-W49`) and threshold (80, 100). */
export const budgetAlerts = sqliteTable(
  "budget_alerts",
  {
    team: text("team").notNull(),
    period: text("period").notNull(),
    threshold: integer("threshold").notNull(),
    at: text("at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.team, t.period, t.threshold] })],
);

export const teamMembers = sqliteTable(
  "team_members",
  {
    team: text("team")
      .notNull()
      .references(() => teams.name, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    /** Exactly one of a user's teams is primary: the team of their jobs that name none. */
    isPrimary: integer("is_primary", { mode: "boolean" }).notNull().default(false),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.team, t.userId] }), index("team_members_user").on(t.userId)],
);

export const teamQuotas = sqliteTable(
  "team_quotas",
  {
    team: text("team")
      .notNull()
      .references(() => teams.name, { onDelete: "cascade" }),
    fleetId: text("fleet_id").notNull(),
    series: text("series").notNull(),
    guaranteed: integer("guaranteed").notNull(),
    borrowLimit: integer("borrow_limit"),
    lendLimit: integer("lend_limit"),
    weight: real("weight").notNull().default(1),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.team, t.fleetId, t.series] })],
);

/**
 * GPU-seconds per run and UTC day, written when a run releases its GPUs. Keyed by (run, day) and
 * upserted with the computed value, so a replayed flush never double counts.
 */
export const runUsage = sqliteTable(
  "run_usage",
  {
    runId: text("run_id").notNull(),
    day: text("day").notNull(),
    userId: text("user_id").notNull(),
    fleetId: text("fleet_id").notNull(),
    gpuSeconds: real("gpu_seconds").notNull(),
    /** The run's job's team (null: none), and whether the run borrowed beyond its guarantee. */
    team: text("team"),
    borrowed: integer("borrowed", { mode: "boolean" }).notNull().default(false),
    /** Of gpuSeconds, what a preempted run trained past its last checkpoint: lost to the preemption. */
    lostGpuSeconds: real("lost_gpu_seconds").notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.runId, t.day] }),
    index("run_usage_user_day").on(t.userId, t.day),
    index("run_usage_team_day").on(t.team, t.day),
  ],
);

/**
 * The per-user admission ledger, one row per job: a projection. The user's Durable Object owns the slots
 * against max_jobs and the Idempotency-Keys (durable-objects/user); the job's fleet writes its row here
 * from its outbox once it queued the job, and moves it to `active` or `released` as the job's status
 * changes. A user's object created for a user this ledger already knew takes its keys and slots from
 * here once (durable-objects/user/load.ts).
 */
export const admissions = sqliteTable(
  "admissions",
  {
    jobId: text("job_id").primaryKey(),
    userId: text("user_id").notNull(),
    fleetId: text("fleet_id").notNull(),
    idemKey: text("idem_key"),
    requestHash: text("request_hash"),
    state: text("state", { enum: ["reserved", "active", "released"] }).notNull(),
    /** Version of the job snapshot that last set `state` (0 = the reservation itself). */
    version: integer("version").notNull().default(0),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("admissions_user_key").on(t.userId, t.idemKey),
    index("admissions_user_state").on(t.userId, t.state, t.createdAt),
  ],
);

export const blobs = sqliteTable("blobs", {
  digest: text("digest").primaryKey(),
  size: integer("size").notNull(),
  createdBy: text("created_by").notNull(),
  createdAt: text("created_at").notNull().default(now),
});

/** Which jobs reference which blobs: a blob is readable by whoever may read one of its jobs. */
export const blobRefs = sqliteTable(
  "blob_refs",
  {
    digest: text("digest").notNull(),
    jobId: text("job_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.digest, t.jobId] }), index("blob_refs_job").on(t.jobId)],
);

/**
 * Device logins in progress (`sf login` without a token; RFC 8628 shapes, docs/api.md). Only the sha256 of
 * the device code is stored: the CLI holds the code itself. No token is ever stored here: approval records
 * who approved, and the CLI's one successful poll mints the token and marks the row `consumed` in the same
 * D1 batch. Rows live 10 minutes and are swept when new ones are created.
 */
export const deviceCodes = sqliteTable(
  "device_codes",
  {
    deviceCodeHash: text("device_code_hash").primaryKey(),
    /** 8 letters without the dash, from an alphabet with no vowels and no look-alikes. */
    userCode: text("user_code").notNull(),
    status: text("status", { enum: ["pending", "approved", "denied", "consumed"] })
      .notNull()
      .default("pending"),
    /** Who approved or denied it. */
    userId: text("user_id"),
    /** The token minted when the CLI picked it up. */
    tokenId: text("token_id"),
    intervalSeconds: integer("interval_seconds").notNull(),
    /** Epoch milliseconds of the last poll, for SLOW_DOWN. */
    lastPolledAt: integer("last_polled_at"),
    createdAt: text("created_at").notNull().default(now),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [
    uniqueIndex("device_codes_user_code").on(t.userCode),
    index("device_codes_expires").on(t.expiresAt),
  ],
);

/**
 * Webhook endpoints (docs/operations.md "Webhooks"). The secret is kept as is because every delivery is
 * signed with it; it is shown once (create, rotate) and never returned by a read. After a rotation the
 * previous secret also signs deliveries until `previous_secret_expires_at`, so receivers can switch over.
 */
export const webhooks = sqliteTable(
  "webhooks",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    url: text("url").notNull(),
    /** JSON array of event types (`job.succeeded`, …) or `["*"]`. */
    events: text("events").notNull(),
    /** Only jobs of this fleet; null = every fleet. */
    fleetId: text("fleet_id"),
    description: text("description").notNull().default(""),
    secret: text("secret").notNull(),
    previousSecret: text("previous_secret"),
    previousSecretExpiresAt: text("previous_secret_expires_at"),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [index("webhooks_user").on(t.userId)],
);

/**
 * One row per (webhook, event): created by the Fleet DO's outbox flush in the same D1 batch as the job
 * event (insert-or-ignore, so a replayed flush creates nothing twice), sent by the owner's
 * WebhookDispatcher DO. `next_attempt_at` (epoch ms) is the timer row of a pending delivery; while an
 * attempt is in flight it is the end of the sender's lease, so a sender lost mid-attempt is retried.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    webhookId: text("webhook_id").notNull(),
    /** The idempotency id (`StarForge-Webhook-Id`): the same for every attempt and redelivery. */
    eventId: text("event_id").notNull(),
    userId: text("user_id").notNull(),
    jobId: text("job_id"),
    type: text("type").notNull(),
    /** The exact JSON body sent. */
    payload: text("payload").notNull(),
    state: text("state", { enum: ["pending", "delivered", "failed"] }).notNull(),
    /** Every attempt ever made. */
    attempts: integer("attempts").notNull().default(0),
    /** Attempts since it was (re)queued: the retry budget counts these. */
    cycleAttempts: integer("cycle_attempts").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at"),
    /** The claim of the attempt in flight; a redelivery clears it so the late result does not win. */
    lease: text("lease"),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    /** JSON array of DeliveryAttempt. */
    attemptLog: text("attempt_log").notNull().default("[]"),
    createdAt: text("created_at").notNull(),
    deliveredAt: text("delivered_at"),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_event").on(t.webhookId, t.eventId),
    index("webhook_deliveries_list").on(t.webhookId, t.seq),
    index("webhook_deliveries_due").on(t.state, t.nextAttemptAt),
    index("webhook_deliveries_user_due").on(t.userId, t.state, t.nextAttemptAt),
  ],
);

/**
 * Job secrets (docs/security.md "Secrets"): a user's own (`scope = 'user'`, owner = the user's id) or a
 * fleet's, set by an admin (`scope = 'fleet'`, owner = the fleet's id). Only the sealed value is stored:
 * AES-256-GCM under the key `key_id` names (SF_SECRETS_KEY, or an older key kept for rotation), with the
 * row's scope, owner and name as additional data so a value cannot be moved to another row. No read
 * route returns `sealed`; the Fleet DO opens it into the LaunchRequest of a run that names it.
 */
export const secrets = sqliteTable(
  "secrets",
  {
    scope: text("scope", { enum: ["user", "fleet"] }).notNull(),
    ownerId: text("owner_id").notNull(),
    name: text("name").notNull(),
    keyId: text("key_id").notNull(),
    /** base64url(iv ‖ ciphertext ‖ tag). */
    sealed: text("sealed").notNull(),
    /** The user who set the current value (an admin, for a fleet's). */
    setBy: text("set_by").notNull(),
    createdAt: text("created_at").notNull().default(now),
    updatedAt: text("updated_at").notNull().default(now),
  },
  (t) => [primaryKey({ columns: [t.scope, t.ownerId, t.name] })],
);

/**
 * The audit log (docs/api.md "GET /v1/audit"): one row per successful administrative or security-relevant
 * action, written after the action (worker/services/audit.service.ts); refused or failed actions leave no
 * row. `seq` orders the log and is the page cursor. `actor` is the user's name, `agent:<node id>` or
 * `system`; `actor_id` the user's id when a user acted. `details` is small JSON that never holds a secret
 * or token value.
 */
export const auditLog = sqliteTable(
  "audit_log",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    at: text("at").notNull(),
    actor: text("actor").notNull(),
    actorId: text("actor_id"),
    action: text("action").notNull(),
    target: text("target").notNull(),
    /** Client address: `CF-Connecting-IP`, else the first `X-Forwarded-For` entry. */
    ip: text("ip"),
    userAgent: text("user_agent"),
    details: text("details").notNull().default("{}"),
  },
  (t) => [index("audit_log_at").on(t.at), index("audit_log_actor").on(t.actor, t.seq)],
);
