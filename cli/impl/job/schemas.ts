/**
 * The shapes of the job read routes as the CLI relies on them (docs/api.md). Objects are loose: `--json`
 * prints what the server sent, including fields added after this client was written.
 */
import { z } from "zod";
import { JobView } from "../../../contract/api.schema.js";
import { TransitionView } from "../../../contract/readback.schema.js";
import { CliError } from "../../errors.js";

export { JobView };

export const Placement = z.looseObject({
  rank: z.number(),
  pool: z.string(),
  node_id: z.string(),
  gpu_indices: z.array(z.number()),
});

export const RunView = z.looseObject({
  id: z.string(),
  attempt: z.number(),
  status: z.string(),
  placement: z.array(Placement).catch([]),
  gpus: z.number(),
  allocated_at: z.string().nullable(),
  ended_at: z.string().nullable(),
  exit_code: z.number().nullable(),
  reason: z.string().nullable(),
  resumed_from: z
    .looseObject({ run_id: z.string(), step: z.number().nullable() })
    .nullable()
    .catch(null)
    .default(null),
});
export type RunView = z.infer<typeof RunView>;

/** One transition of a job (the same shape as a run's timeline transitions). */
export const JobEvent = TransitionView;
export type JobEvent = z.infer<typeof JobEvent>;

export const JobDetailResponse = z.looseObject({
  job: z.looseObject({ ...JobView.shape, spec: z.unknown() }),
  runs: z.array(RunView),
  events: z.array(JobEvent),
});
export type JobDetailResponse = z.infer<typeof JobDetailResponse>;

export const JobList = z.looseObject({ jobs: z.array(JobView), next_cursor: z.string().nullable() });

/** The answer of stop/pause/resume: the Fleet DO's JobDetail (same fields as JobView, plus runs). */
export const JobActionResponse = z.looseObject({
  job: z.looseObject({ ...JobView.shape, runs: z.array(RunView) }),
});

export const LogLine = z.looseObject({
  cursor: z.number().int().min(0),
  rank: z.number().int(),
  stream: z.string(),
  seq: z.number().int(),
  ts: z.string(),
  line: z.string(),
});
export type LogLine = z.infer<typeof LogLine>;

export const LogsPage = z.looseObject({
  run_id: z.string(),
  lines: z.array(LogLine),
  next_offset: z.number().int(),
  ended: z.boolean(),
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
});
export type Usage = z.infer<typeof Usage>;

export const FleetList = z.looseObject({
  fleets: z.array(
    z.looseObject({ id: z.string(), name: z.string(), kind: z.string(), draining: z.boolean() }),
  ),
});

export const FleetInspect = z.looseObject({
  totals: z.looseObject({
    gpus: z.number(),
    allocated: z.number(),
    free: z.number(),
    queued: z.number(),
    running: z.number().optional(),
  }),
});

/** Parses a server answer; a shape this client does not understand is a clear error, not a crash later. */
export function parse<T extends z.ZodType>(schema: T, value: unknown, what: string): z.infer<T> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new CliError(
    `unexpected ${what} from the server: ${issue?.path.join(".") || "(root)"}: ${issue?.message}`,
    {
      code: "BAD_RESPONSE",
      hint: "is sf older than the control plane? check `sf --version` against the server",
    },
  );
}
