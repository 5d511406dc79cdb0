/**
 * Job-side ingest: the original platform's wire format (paths relative to STARFORGE_ENDPOINT, auth
 * `X-StarForge-Token` or `Authorization: Bearer`), plus our additions that do not break it: optional
 * sequence numbers on log batches (exactly-once lines), `rank`, lifecycle exit codes, and checkpoint
 * upload URLs. Timestamps may be ISO-8601 strings (the original client) or epoch numbers.
 *
 * Batches have two layers. The *envelope* (run_id and the item array) must be right or the request is a
 * 400. The *items* are checked one by one (`checkItems`): the valid ones are stored and the others are
 * listed in the answer with a reason. The original client re-queues a refused batch and retries it
 * forever, 4xx included, so refusing a whole batch for one bad point would lose every later point too.
 * Optional fields accept `null` (Python's None) as "absent".
 */
import { z } from "zod";
import { Digest } from "./digest.js";

export const Timestamp = z.union([z.string().min(1).max(64), z.number()]);

export const MAX_METRIC_POINTS = 256;
export const MAX_LOG_CHUNKS = 1000;
/** A sequenced chunk is one line: at most this many UTF-16 code units. */
export const MAX_LOG_LINE = 16 * 1024;
/** An unsequenced chunk is terminal text (the original sends ≤ 8 KiB); it is split into lines. */
export const MAX_CONSOLE_CHUNK = 64 * 1024;
export const MAX_VALIDATION_SAMPLES = 256;
/** JSON size of one validation sample, of one environment probe, of one node entry. */
export const MAX_SAMPLE_BYTES = 512 * 1024;
export const MAX_ENVIRONMENT_BYTES = 256 * 1024;
export const MAX_ENV_NODES = 1024;

/** Why one item of a batch was not stored. Stable codes: clients may switch on them. */
export const INGEST_REJECTION_CODES = ["INVALID_ITEM", "OVER_LIMIT"] as const;
export const IngestRejection = z.object({
  index: z.number().int().min(0).describe("The item's index in the request's array, from 0"),
  code: z
    .enum(INGEST_REJECTION_CODES)
    .describe(
      "`INVALID_ITEM`: it fails its schema; `OVER_LIMIT`: past the request's item limit, too large, or past what the run keeps",
    ),
  message: z.string().describe("Why, in words, e.g. `value: Invalid input: expected number, received null`"),
});
export type IngestRejection = z.infer<typeof IngestRejection>;

/** The answer to every batch route: how many items were stored, and which were not and why. */
export const BatchAccepted = z.object({
  accepted: z
    .number()
    .int()
    .describe("How many items were accepted (/hparams: names stored; /environment: 1, or 0 when refused)"),
  rejected: z
    .array(IngestRejection)
    .describe(
      "The items refused, each with its index and why; empty when none was (a `nan` or `inf` metric value is accepted but not charted)",
    ),
});
export type BatchAccepted = z.infer<typeof BatchAccepted>;

export interface CheckedItems<T> {
  valid: Array<{ index: number; value: T }>;
  rejected: IngestRejection[];
}

/**
 * Checks a batch's items one by one: each valid one is kept with its index, each invalid one (or one
 * past `max`) is rejected with a reason. `size` optionally measures an item (its JSON bytes) against
 * `maxBytes`.
 */
export function checkItems<T>(
  raw: readonly unknown[],
  item: z.ZodType<T>,
  max: number,
  limits: { maxBytes?: number } = {},
): CheckedItems<T> {
  const out: CheckedItems<T> = { valid: [], rejected: [] };
  raw.forEach((value, index) => {
    if (index >= max) {
      out.rejected.push({ index, code: "OVER_LIMIT", message: `a request carries at most ${max} items` });
      return;
    }
    const r = item.safeParse(value);
    if (!r.success) {
      const why = r.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join(".") || "(item)"}: ${i.message}`)
        .join("; ");
      out.rejected.push({ index, code: "INVALID_ITEM", message: why });
      return;
    }
    if (limits.maxBytes !== undefined) {
      const bytes = utf8Length(JSON.stringify(value));
      if (bytes > limits.maxBytes) {
        out.rejected.push({
          index,
          code: "OVER_LIMIT",
          message: `item is ${bytes} bytes of JSON; at most ${limits.maxBytes}`,
        });
        return;
      }
    }
    out.valid.push({ index, value: r.data });
  });
  return out;
}

export function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length;
}

const RunId = z.string().min(1).max(128);
const Items = z.array(z.unknown());

// metrics ------------------------------------------------------------------------------------

/**
 * A value JSON cannot carry as a number: NaN or an infinity, as Python writes it (`str(float("nan"))`). Not
 * charted; a loss that becomes one is a NAN_LOSS anomaly (docs/operations.md "Failure diagnosis").
 */
export const NON_FINITE_VALUES = ["nan", "inf", "-inf"] as const;
export const MetricPoint = z.object({
  key: z.string().min(1).max(256),
  step: z.number().int().min(0),
  value: z.union([z.number(), z.enum(NON_FINITE_VALUES)]),
  ts: Timestamp.nullish(),
});
export type MetricPoint = z.infer<typeof MetricPoint>;
export const MetricsBatch = z.object({
  run_id: RunId.describe("The run reported on: the token's run (another run's id is a 403)"),
  points: Items.describe(
    'Up to 256 points `{ key, step, value, ts? }`; `value` a number, or `"nan"`, `"inf"`, `"-inf"`',
  ),
});

// logs ---------------------------------------------------------------------------------------

/**
 * `stdout`/`stderr` are sequenced streams (our runner's: each line numbered by `seq`); `console` is the
 * stream of unsequenced writers (the original client: terminal text, stdout and stderr as it captured
 * them). The two never share seq numbers, so neither can drop or close the other's lines.
 */
export const LOG_STREAMS = ["stdout", "stderr", "console"] as const;
export const LogStream = z.enum(LOG_STREAMS);
export type LogStream = z.infer<typeof LogStream>;

export const LogsBatch = z
  .object({
    run_id: RunId.describe("The run reported on: the token's run (another run's id is a 403)"),
    chunks: Items.describe(
      "Up to 1000 strings: with `seq` one line each (≤ 16384 characters), without it terminal text (≤ 65536 each)",
    ),
    eof: z
      .boolean()
      .nullish()
      .describe("True when the batch's last line is the last of its (rank, stream); omitted or null: false"),
    /** Ours: sequence number of chunks[0] for this rank/stream; retries with the same seq are idempotent. */
    seq: z
      .number()
      .int()
      .min(0)
      .nullish()
      .describe(
        "Ours: the line number of `chunks[0]` in its (rank, stream); omitted or null: the `console` stream",
      ),
    rank: z
      .number()
      .int()
      .min(0)
      .nullish()
      .describe("Ours: the rank whose output this is; omitted or null: 0"),
    stream: LogStream.nullish().describe(
      "Ours: `stdout` (default) or `stderr` with `seq`; without `seq` omitted, null or `console`",
    ),
  })
  .refine((b) => (b.seq == null ? b.stream == null || b.stream === "console" : b.stream !== "console"), {
    message:
      "a batch with `seq` goes to stdout or stderr; a batch without `seq` always goes to the console stream (omit `stream`)",
    path: ["stream"],
  });
export type LogsBatch = z.infer<typeof LogsBatch>;

/** Where a log batch goes: sequenced batches to their (rank, stream), unsequenced ones to the console. */
export function logTarget(b: LogsBatch): { rank: number; stream: LogStream; sequenced: boolean } {
  const rank = b.rank ?? 0;
  if (b.seq == null) return { rank, stream: "console", sequenced: false };
  return { rank, stream: b.stream ?? "stdout", sequenced: true };
}

export const SequencedChunk = z.string().max(MAX_LOG_LINE);
export const ConsoleChunk = z.string().max(MAX_CONSOLE_CHUNK);

// lifecycle, hparams -------------------------------------------------------------------------

export const LIFECYCLE_EVENTS = ["started", "succeeded", "failed"] as const;

export const LifecycleEvent = z.object({
  run_id: RunId.describe("The run reported on: the token's run (another run's id is a 403)"),
  event: z
    .enum(LIFECYCLE_EVENTS)
    .describe("What happened to the rank: it `started`, `succeeded` or `failed`"),
  ts: Timestamp.nullish().describe(
    "When it happened: ISO 8601, epoch seconds (below 1e11) or epoch milliseconds; omitted or null: receive time",
  ),
  rank: z.number().int().min(0).default(0).describe("Ours: the rank reporting. Default 0"),
  exit_code: z
    .number()
    .int()
    .nullish()
    .describe("Ours: the rank's exit code; omitted or null: 0 for `succeeded`, unknown otherwise"),
  reason: z
    .string()
    .max(2000)
    .nullish()
    .describe(
      "Ours: why the rank ended, in a person's words; omitted or null: one made from the event and exit code",
    ),
  /** Ours: the failure is the infrastructure's (peers unreachable at the rendezvous), not the training's. */
  infra: z
    .boolean()
    .default(false)
    .describe(
      "Ours: the `failed` is the infrastructure's fault (e.g. the ranks never met), not the training's. Default false",
    ),
});
export type LifecycleEvent = z.infer<typeof LifecycleEvent>;

export const HparamsBody = z.object({
  run_id: RunId.describe("The run reported on: the token's run (another run's id is a 403)"),
  params: z
    .record(z.string().max(256), z.unknown())
    .describe("Hyperparameters by name, each any JSON value; names not sent keep their stored value"),
});

// hardware -----------------------------------------------------------------------------------

/**
 * One sample. A series is (key, node_id, worker_id, gpu_idx): outside Ray `node_id` is null and
 * `worker_id` names the host/process; host keys (`cpu.*`, `mem.*`) have a null `gpu_idx`.
 */
export const HardwarePoint = z.object({
  key: z.string().min(1).max(256),
  value: z.number(),
  node_id: z.string().max(256).nullish(),
  worker_id: z.string().max(256).nullish(),
  gpu_idx: z.number().int().min(0).max(1_000_000).nullish(),
  gpu_uuid: z.string().max(128).nullish(),
  ts: Timestamp.nullish(),
});
export type HardwarePoint = z.infer<typeof HardwarePoint>;
export const HardwareBatch = z.object({
  run_id: RunId.describe("The run reported on: the token's run (another run's id is a 403)"),
  points: Items.describe(
    "Up to 256 samples `{ key, value, node_id?, worker_id?, gpu_idx?, gpu_uuid?, ts? }`, each checked alone",
  ),
});

// artifacts ----------------------------------------------------------------------------------

export const ARTIFACT_KINDS = ["checkpoint", "hf_export", "eval_report", "merged_model"] as const;

/**
 * A registration names a file by path. Without `digest` it is a reference (the file stays where it is,
 * often an absolute path under FORGE_OUT_DIR on the cluster); with `digest` its bytes were uploaded
 * through /artifact/upload, and the upload path rules apply.
 */
export const ArtifactRegistration = z.object({
  run_id: RunId.describe("The run reported on: the token's run (another run's id is a 403)"),
  kind: z
    .enum(ARTIFACT_KINDS)
    .describe("What the artifact is: a checkpoint, a Hugging Face export, an eval report or a merged model"),
  path: z
    .string()
    .min(1)
    .max(4096)
    .describe("Without `digest` any path, recorded as given; with it the path it was uploaded to"),
  step: z
    .number()
    .int()
    .min(0)
    .nullish()
    .describe("The training step the artifact was saved at; omitted or null: none"),
  size_bytes: z
    .number()
    .int()
    .min(0)
    .nullish()
    .describe(
      "The file's size in bytes, checked against uploaded bytes; omitted or null: unknown, or the upload's size",
    ),
  metrics: z
    .record(z.string().max(256), z.unknown())
    .nullish()
    .describe("Values by name (any JSON) recorded with the artifact; omitted or null: none"),
  /** Ours: the uploaded bytes' digest, when the artifact was uploaded through /artifact/upload. */
  digest: Digest.optional(),
});
export type ArtifactRegistration = z.infer<typeof ArtifactRegistration>;

/** Ours: ask where to PUT an artifact's bytes (the Worker itself locally, an R2 presigned URL in production). */
export const ArtifactUploadRequest = z.object({
  run_id: RunId.describe("The run reported on: the token's run (another run's id is a 403)"),
  path: z
    .string()
    .min(1)
    .max(1024)
    .describe(
      "The artifact's path in the run: relative, `/`-separated, without empty, `.` or `..` segments, ≤ 900 bytes",
    ),
  size_bytes: z
    .number()
    .int()
    .min(0)
    .describe("The file's exact size in bytes (a presigned URL is signed for exactly this size)"),
  digest: Digest,
});
export const ArtifactUploadTarget = z.object({
  method: z.literal("PUT").describe("The method to send the bytes with: always `PUT`"),
  url: z
    .string()
    .url()
    .describe(
      "Where to PUT them: this Worker's /v1/ingest/artifact/blob/{run}/{path}, or a presigned R2 URL",
    ),
  headers: z
    .record(z.string(), z.string())
    .describe("Headers to send with the PUT: `X-StarForge-Token` for the Worker's URL, none for R2's"),
  expires_at: z
    .string()
    .describe("Until when to use the target (an hour), ISO 8601 UTC; ask again for a later retry"),
});
export type ArtifactUploadTarget = z.infer<typeof ArtifactUploadTarget>;

// environment, validation --------------------------------------------------------------------

/** An environment probe: run_id plus whatever the client found (image, packages, python, hostname…). */
export const EnvironmentProbe = z.looseObject({
  run_id: RunId.describe("The run reported on: the token's run (another run's id is a 403)"),
});

export const EnvironmentNodes = z.object({
  run_id: RunId.describe("The run reported on: the token's run (another run's id is a 403)"),
  nodes: Items.describe(
    "Up to 1024 entries `{ hostname, cpu?, gpu?, … }` (≤ 512 KiB of JSON each), stored by hostname",
  ),
});
export const EnvironmentNode = z.looseObject({
  hostname: z.string().min(1).max(256),
  cpu: z.unknown().optional(),
  gpu: z.unknown().optional(),
});
export type EnvironmentNode = z.infer<typeof EnvironmentNode>;

/** One chunk of a step's validation samples; a step is complete once all `total_chunks` arrived. */
export const ValidationChunk = z
  .object({
    run_id: RunId.describe("The run reported on: the token's run (another run's id is a 403)"),
    step: z.number().int().min(0).describe("The training step the samples were validated at"),
    chunk_index: z
      .number()
      .int()
      .min(0)
      .describe("This chunk's index among the step's chunks, from 0, below `total_chunks`"),
    total_chunks: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .describe("How many chunks the step's samples are sent in"),
    total_samples: z.number().int().min(0).describe("How many samples the step has, over all its chunks"),
    samples: Items.describe(
      "Up to 256 samples `{ idx, reward?, user?, assistant?, env? }`, ≤ 512 KiB of JSON each, stored by (step, idx)",
    ),
    avg_reward: z
      .number()
      .nullish()
      .describe("The step's average reward; omitted or null: the one an earlier chunk sent, if any"),
    dist: z
      .unknown()
      .optional()
      .describe(
        "A distribution summary for the step (any JSON, ≤ 512 KiB); omitted or null: an earlier chunk's, if any",
      ),
  })
  .refine((v) => v.chunk_index < v.total_chunks, {
    message: "chunk_index must be below total_chunks",
    path: ["chunk_index"],
  });
export type ValidationChunk = z.infer<typeof ValidationChunk>;

export const ValidationSample = z.looseObject({
  idx: z.number().int().min(0),
  reward: z.number().nullish(),
  user: z.unknown().optional(),
  assistant: z.unknown().optional(),
  env: z.unknown().optional(),
});
export type ValidationSample = z.infer<typeof ValidationSample>;

// rendezvous (ours) ----------------------------------------------------------------------------

/** A long poll holds at most this long; the runner polls again until its own deadline. */
export const RENDEZVOUS_MAX_WAIT_MS = 20_000;

/**
 * How the ranks of a distributed run find each other (docs/multi-node.md): each node rank's runner
 * registers the address its peers reach it at (rank 0 also the port it will listen on) and waits until
 * every rank of the run has registered. The world's size comes from the run's placement, never from
 * the client; `nnodes`, when sent, is checked against it.
 */
export const RendezvousBody = z.object({
  run_id: RunId.describe("The run reported on: the token's run (another run's id is a 403)"),
  node_rank: z.number().int().min(0).max(1023).describe("This node's rank, below the run's node count"),
  nnodes: z
    .number()
    .int()
    .min(1)
    .max(1024)
    .nullish()
    .describe("The node count the client expects, checked against the run's; omitted or null: not checked"),
  addr: z
    .string()
    .min(1)
    .max(253)
    .regex(/^[A-Za-z0-9.:-]+$/, "an IP address or a host name")
    .describe("The IP address or host name this node's peers reach it at"),
  port: z
    .number()
    .int()
    .min(1)
    .max(65535)
    .nullish()
    .describe("The port node rank 0 listens on (MASTER_PORT); required for rank 0, ignored for the others"),
  wait_ms: z
    .number()
    .int()
    .min(0)
    .max(RENDEZVOUS_MAX_WAIT_MS)
    .default(0)
    .describe("How long to wait for every rank, in milliseconds (at most 20000); 0: answer at once"),
});
export type RendezvousBody = z.infer<typeof RendezvousBody>;

export const RENDEZVOUS_STATES = ["waiting", "complete", "failed"] as const;

export const RendezvousAnswer = z.object({
  state: z
    .enum(RENDEZVOUS_STATES)
    .describe(
      "`waiting` for the `missing` ranks, `complete` once every rank joined, or `failed`: the run is over",
    ),
  nnodes: z.number().int().describe("The run's node count, from its placement"),
  joined: z
    .array(z.number().int())
    .describe("The node ranks registered so far for this lease epoch (none when `failed`)"),
  missing: z.array(z.number().int()).describe("The node ranks not registered yet (none when `failed`)"),
  master: z
    .object({
      addr: z.string().describe("Node rank 0's address (MASTER_ADDR)"),
      port: z.number().int().describe("The port node rank 0 listens on (MASTER_PORT)"),
    })
    .nullable()
    .describe("Where node rank 0 listens, once `complete`; null before, or when `failed`"),
  hosts: z
    .array(z.string())
    .nullable()
    .describe("Every node rank's address, by node rank, once `complete`; null before, or when `failed`"),
  reason: z.string().nullable().describe("Why it `failed`, e.g. `the run is FAILED: …`; null otherwise"),
});
export type RendezvousAnswer = z.infer<typeof RendezvousAnswer>;

/** Claims of the per-run ingest token (HS256 JWT): useless for any other run or route. */
export const IngestClaims = z.object({
  sub: z.string().startsWith("run_"),
  job: z.string().startsWith("job_"),
  fleet: z.string().startsWith("flt_"),
  epoch: z.number().int().min(1),
  scope: z.literal("ingest"),
});
export type IngestClaims = z.infer<typeof IngestClaims>;

/**
 * GET /v1/ingest/notice: why the run is being stopped and by when, once the control plane decided it
 * (the runner asks when it gets SIGTERM, and writes the answer where the training can read it:
 * `starforge.report.stop_notice()`). Null while nobody asked it to stop.
 */
export const StopNotice = z.object({
  reason: z.string().describe("Why, in a person's words (the stop command's reason), e.g. `stop by ada`"),
  deadline: z.string().describe("When the agent sends SIGKILL if the workload is still there, ISO 8601 UTC"),
  grace_seconds: z
    .number()
    .int()
    .describe("The grace the stop gave, in seconds: `deadline` is that long after it"),
  cause: z
    .enum(["preempted", "stopped"])
    .describe(
      "`preempted`: a job of a higher priority class needs its GPUs; `stopped`: anything else (a stop or pause, a fleet or node drain, a closing window, a spent budget, `max_runtime_seconds`, an anomaly stop)",
    ),
  preempted_by: z
    .string()
    .nullable()
    .describe("The job that preempted it (`job_…`) when `preempted`; else null"),
});
export type StopNotice = z.infer<typeof StopNotice>;
