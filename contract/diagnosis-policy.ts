/**
 * What a diagnosis leads to (issue 29): per failure class a hint (what to change) and the retry it calls
 * for, a fleet's overrides of that table, and the decision for one failed run. Pure: the Fleet DO decides
 * with it, docs/operations.md "Failure diagnosis" prints the table, and tier 1 tests both agree.
 */
import { z } from "zod";
import {
  type Diagnosis,
  type DiagnosisInput,
  diagnose,
  FAILURE_CLASSES,
  type FailureClass,
} from "./diagnosis.js";

/**
 * - `retry`: re-queued with backoff while the job's `lifecycle.max_retries` lasts;
 * - `retry_elsewhere`: as `retry`, never on the same node, which is cordoned with the diagnosis as its note;
 * - `retry_if_infra`: retried only when the agent saw an infrastructure failure (the behaviour before classes);
 * - `no_retry`: the code would fail the same way: not retried unless the job sets
 *   `lifecycle.retry_on_user_failure`.
 */
export const FAILURE_ACTIONS = ["retry", "retry_elsewhere", "retry_if_infra", "no_retry"] as const;
export type FailureAction = (typeof FAILURE_ACTIONS)[number];

export const CLASS_POLICY: Record<FailureClass, { action: FailureAction; hint: string }> = {
  CUDA_OOM: {
    action: "no_retry",
    hint: "Lower the per-GPU batch size or sequence length, enable gradient checkpointing or mixed precision, or shard the model over more GPUs (FSDP/ZeRO).",
  },
  HOST_OOM: {
    action: "retry_if_infra",
    hint: "The host's memory ran out: use fewer DataLoader workers, stream the dataset instead of loading it whole, or ask for a node with more memory.",
  },
  NCCL_TIMEOUT: {
    action: "retry",
    hint: "A collective waited too long for a peer: look for a rank that was slower or stuck (uneven data, a barrier one rank skips); raise the process group's timeout only if the step is legitimately long.",
  },
  NCCL_ERROR: {
    action: "retry",
    hint: "The ranks lost each other: retried; if it repeats, check the network between the nodes (NCCL_DEBUG=INFO shows the transport it chose).",
  },
  GPU_HARDWARE: {
    action: "retry_elsewhere",
    hint: "The GPU itself failed (Xid / uncorrectable ECC): the job runs again on another node and this one is cordoned for an admin to check.",
  },
  CUDA_ERROR: {
    action: "no_retry",
    hint: "A kernel failed: run with CUDA_LAUNCH_BLOCKING=1 to find the operation; a device-side assert is usually an index out of range (labels vs. number of classes, embedding size).",
  },
  NAN_LOSS: {
    action: "no_retry",
    hint: "The loss diverged: lower the learning rate, add warm-up or gradient clipping, or use bf16 instead of fp16; resume from the last checkpoint before the NaN.",
  },
  HANG: {
    action: "retry",
    hint: "No step for much longer than usual: look for a rank stuck in I/O or a collective the others never reach; the last lines of each rank show where they waited.",
  },
  DATALOADER: {
    action: "no_retry",
    hint: "A DataLoader worker died: lower num_workers, raise the container's shared memory, or find the sample that crashes the worker (num_workers=0 shows its traceback).",
  },
  DISK_FULL: {
    action: "retry",
    hint: "The disk filled up: keep fewer checkpoints (or upload and delete them), and write caches to a volume with room.",
  },
  IMPORT_ERROR: {
    action: "no_retry",
    hint: "A module is missing from the image: add it to the image or the job's requirements, and check its name and version.",
  },
  FILE_NOT_FOUND: {
    action: "no_retry",
    hint: "A path the job reads does not exist where it runs: check the path against the job's working directory and mounted data.",
  },
  HF_ACCESS: {
    action: "no_retry",
    hint: "The Hub refused the model or dataset: accept its licence on huggingface.co, check the repo id and revision, and that the job's HF token secret is set and valid.",
  },
  NETWORK: {
    action: "retry",
    hint: "A connection failed: retried; if it repeats, check the service's address and that the node can reach it.",
  },
  SIGNAL: {
    action: "retry_if_infra",
    hint: "A rank was killed by a signal: a segmentation fault points at a native extension (check library versions); a kill from outside points at a limit.",
  },
  TIMEOUT: {
    action: "no_retry",
    hint: "The run reached its max_runtime_seconds: raise the limit, or resume from the last checkpoint.",
  },
  NODE_LOST: {
    action: "retry",
    hint: "The node went silent (power, network or agent): the job is retried; it resumes from its last checkpoint.",
  },
  USER_EXCEPTION: {
    action: "no_retry",
    hint: "The training code raised an exception: the line shows it; fix the code or its inputs and submit again.",
  },
  UNKNOWN: {
    action: "retry_if_infra",
    hint: "Nothing in the logs explains the exit: read the last lines of each rank (sf job logs --cause).",
  },
};

const Class = z.enum(FAILURE_CLASSES);

/**
 * An admin's rule (fleet configuration `diagnosis.rules`): a regular expression over a log line, or an exit
 * code, naming a class; tried before the built-in rules, in order. Its hint and action replace the class's.
 */
export const DiagnosisRule = z
  .object({
    /** A JavaScript regular expression (no flags: prefix `(?i)` for case-insensitive), over one log line. */
    pattern: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe("A JavaScript regular expression over one log line; a leading `(?i)` ignores case"),
    exit_code: z
      .number()
      .int()
      .min(-255)
      .max(255)
      .optional()
      .describe("Instead of `pattern`: a rank's exit code the rule matches"),
    class: Class.describe("The failure class a match gives the run, e.g. `NETWORK`"),
    hint: z.string().min(1).max(500).optional().describe("What to change, instead of the class's hint"),
    action: z
      .enum(FAILURE_ACTIONS)
      .optional()
      .describe("What is done about a match (`retry`, `no_retry`, …), instead of the class's action"),
  })
  .strict()
  .superRefine((r, ctx) => {
    if ((r.pattern === undefined) === (r.exit_code === undefined))
      ctx.addIssue({ code: "custom", message: "a rule names either a pattern or an exit_code" });
    if (r.pattern !== undefined) {
      const problem = patternProblem(r.pattern);
      if (problem) ctx.addIssue({ code: "custom", path: ["pattern"], message: problem });
    }
  });
export type DiagnosisRule = z.infer<typeof DiagnosisRule>;

/** A fleet's part of the table: rules tried first, and actions replacing the defaults per class. */
export const FleetDiagnosis = z
  .object({
    rules: z
      .array(DiagnosisRule)
      .max(100)
      .default([])
      .describe(
        "Rules tried in order before the built-in ones; the earliest line or exit one matches decides",
      ),
    actions: z
      .partialRecord(Class, z.enum(FAILURE_ACTIONS))
      .default({})
      .describe("Per failure class, the action that replaces the built-in one on this fleet"),
  })
  .strict();
export type FleetDiagnosis = z.infer<typeof FleetDiagnosis>;

/** A rule's pattern as a RegExp: `(?i)` up front makes it case-insensitive. */
export function rulePattern(pattern: string): RegExp {
  return pattern.startsWith("(?i)") ? new RegExp(pattern.slice(4), "i") : new RegExp(pattern);
}

/** Why a pattern cannot be a rule (it does not compile, or it matches every line), or null. */
export function patternProblem(pattern: string): string | null {
  let re: RegExp;
  try {
    re = rulePattern(pattern);
  } catch (err) {
    return `is not a valid regular expression: ${(err as Error).message}`;
  }
  if (re.test("")) return "matches an empty line (it would match every line)";
  return null;
}

/** What was done about a failed run, as the diagnosis reports it. */
export interface DiagnosisAction {
  /** The action the table (or the fleet, or a rule) names for the class. */
  policy: FailureAction;
  /** Whether the job was re-queued for another attempt. */
  retried: boolean;
  /** Why, in words (the class's policy, the job's request, the budget spent). */
  why: string;
  /** The node cordoned for a GPU failure (its name), or null. */
  cordoned: string | null;
}

/** A stored diagnosis: the classifier's verdict, where its line is in the log, the hint and what was done. */
export interface StoredDiagnosis extends Omit<Diagnosis, "line" | "rule"> {
  line: { rank: number; stream: string; seq: number; cursor: number | null; text: string } | null;
  hint: string;
  action: DiagnosisAction;
  /** The admin rule (its index in the fleet's `diagnosis.rules`) that decided the class, or null. */
  rule: number | null;
  diagnosed_at: string;
  /** False when the run's logs could not be read in time: the verdict rests on exits and events only. */
  from_logs: boolean;
}

/** The action for a class on a fleet: a matching admin rule's, else the fleet's override, else the table's. */
export function classAction(
  cls: FailureClass,
  fleet: FleetDiagnosis | undefined,
  rule?: DiagnosisRule,
): FailureAction {
  return rule?.action ?? fleet?.actions[cls] ?? CLASS_POLICY[cls].action;
}

/**
 * Whether a failed run is retried: the class's action, unless the job asks to retry its own failures
 * (`retry_on_user_failure`), within the budget. TIMEOUT is never retried (a new attempt meets the same limit).
 */
export function retryDecision(
  cls: FailureClass,
  policy: FailureAction,
  o: { infra: boolean; retryOnUserFailure: boolean; used: number; max: number },
): { retry: boolean; why: string } {
  if (cls === "TIMEOUT") return { retry: false, why: "a run that reached its time limit is not retried" };
  const wanted =
    policy === "retry" ||
    policy === "retry_elsewhere" ||
    (policy === "retry_if_infra" && o.infra) ||
    o.retryOnUserFailure;
  if (!wanted)
    return {
      retry: false,
      why:
        policy === "no_retry"
          ? `${cls} is not retried: the code would fail the same way (set lifecycle.retry_on_user_failure to retry it)`
          : `${cls} without an infrastructure failure is not retried`,
    };
  if (o.used >= o.max)
    return { retry: false, why: `its retries are spent (${o.used} of lifecycle.max_retries ${o.max})` };
  const by = policy === "no_retry" || (policy === "retry_if_infra" && !o.infra) ? "the job asks" : cls;
  return { retry: true, why: `retry ${o.used + 1} of ${o.max} (${by === cls ? `${cls} is retried` : by})` };
}

/** What the Fleet DO knows of a failed run (its ranks' exits, what it saw) and the fleet's rules. */
export interface RunFacts {
  ranks: Array<{
    rank: number;
    node: string | null;
    exit_code: number | null;
    reason: string | null;
    at: number;
  }>;
  /** A time limit, a node lost, an OOM kill, a live anomaly: in epoch milliseconds. */
  events: Array<
    | { kind: "oom_killed" | "node_lost" | "max_runtime" | "no_progress"; rank?: number; at: number }
    | { kind: "nan_loss"; at: number; key: string; step: number; value: string }
  >;
  rules: DiagnosisRule[];
}

/** One stored log line of a rank, as the Run DO keeps it. */
export type RunLogLine = {
  stream: string;
  seq: number;
  cursor: number | null;
  ts: number;
  line: string;
};

/** The classifier's verdict on a run, before the fleet decides what to do about it. */
export type RunVerdict = Omit<StoredDiagnosis, "hint" | "action" | "diagnosed_at">;

/**
 * Diagnoses a run from its facts and each rank's last log lines (oldest first; none when the logs could not
 * be read): lines are numbered per rank for the classifier and mapped back to their stream and sequence.
 */
export function runVerdict(
  facts: RunFacts,
  logs: ReadonlyMap<number, readonly RunLogLine[]> | null,
): RunVerdict {
  const input: DiagnosisInput = {
    ranks: facts.ranks.map((r) => ({
      rank: r.rank,
      node: r.node,
      exit_code: r.exit_code,
      lines: (logs?.get(r.rank) ?? []).map((l, i) => ({
        seq: i,
        t: l.ts / 1000,
        stream: l.stream,
        text: l.line,
      })),
    })),
    events: facts.events.flatMap((e) =>
      e.kind === "nan_loss" ? [] : [{ kind: e.kind, rank: e.rank, t: e.at / 1000 }],
    ),
    metrics: facts.events.flatMap((e) =>
      e.kind === "nan_loss" ? [{ rank: 0, step: e.step, key: e.key, value: e.value }] : [],
    ),
  };
  const rules = facts.rules.map((r) => ({
    cls: r.class,
    ...(r.pattern !== undefined ? { re: rulePattern(r.pattern) } : {}),
    ...(r.exit_code !== undefined ? { exit_code: r.exit_code } : {}),
  }));
  const d = diagnose(input, rules);
  const stored = d.line ? logs?.get(d.line.rank)?.[d.line.seq] : undefined;
  return {
    class: d.class,
    rank: d.rank,
    node: d.node,
    summary: d.summary,
    line:
      d.line && stored
        ? {
            rank: d.line.rank,
            stream: stored.stream,
            seq: stored.seq,
            cursor: stored.cursor,
            text: d.line.text,
          }
        : null,
    rule: d.rule ?? null,
    from_logs: logs !== null,
  };
}

/** A stored diagnosis as the API shows it (GET /v1/jobs/:id runs[].diagnosis, the `job.failed` webhook). */
export const DiagnosisView = z.looseObject({
  class: Class.describe("The failure class, a stable code such as `CUDA_OOM` or `NCCL_TIMEOUT`"),
  summary: z
    .string()
    .describe("Why the run failed, in one sentence (with the exception's message where there is one)"),
  rank: z
    .number()
    .int()
    .nullable()
    .describe("The root-cause rank (the first real failure in time); null when no rank is known"),
  node: z.string().nullable().describe("The name of the root-cause rank's node; null when it is not known"),
  line: z
    .looseObject({
      rank: z.number().int().describe("The rank that wrote the line"),
      stream: z.string().describe("The log stream the line is in: `stdout`, `stderr` or `console`"),
      seq: z.number().int().describe("The line's sequence number within its rank and stream (0, 1, 2, …)"),
      cursor: z
        .number()
        .int()
        .nullable()
        .describe("The line's `offset` in `GET /v1/jobs/:id/logs`; null if it was not yet released"),
      text: z.string().describe("The text of the line"),
    })
    .nullable()
    .describe("The log line the diagnosis rests on; null when no stored log line explains the failure"),
  hint: z.string().describe("What to change: the deciding fleet rule's hint, else the class's built-in hint"),
  action: z
    .looseObject({
      policy: z
        .enum(FAILURE_ACTIONS)
        .describe(
          "The action named for the class: a matching fleet rule's, the fleet's override or the built-in one",
        ),
      retried: z.boolean().describe("Whether the job was re-queued for another attempt"),
      why: z
        .string()
        .describe(
          "Why it was or was not retried, in words (the class's policy, the job's request, the budget)",
        ),
      cordoned: z
        .string()
        .nullable()
        .describe("The name of the node cordoned for a GPU failure (`retry_elsewhere`); null when none was"),
    })
    .describe("What was done about the failure"),
  rule: z
    .number()
    .int()
    .nullable()
    .describe(
      "The index in the fleet's `diagnosis.rules` of the rule that decided the class; null: built-in rules",
    ),
  diagnosed_at: z.string().describe("When the run was diagnosed (ISO 8601 UTC)"),
  from_logs: z
    .boolean()
    .describe("False when the run's logs could not be read in time: the diagnosis rests on exits and events"),
});
