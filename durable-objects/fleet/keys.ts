/** Meta rows the rules keep per job (and per node), by what they remember. */

/** What an admin decided about a node (node-admin.ts): `node_admin:<node id>`. */
export const NODE_ADMIN_PREFIX = "node_admin:";

/** Which system mover (a drain, a window) moved a job, so undoing it touches only those jobs. */
export const MOVED_PREFIX = "moved:";
const RETRIES_PREFIX = "retries:";
/** How often a job was preempted, and when last (rules/preempt.ts): `preempted:<job>`. */
export const PREEMPTED_PREFIX = "preempted:";
/** A job's newest stored checkpoint as its runner registered it (rules/preempt.ts): `checkpoint:<job>`. */
export const CHECKPOINT_PREFIX = "checkpoint:";

export function checkpointKey(jobId: string): string {
  return `${CHECKPOINT_PREFIX}${jobId}`;
}
const ABANDONED_PREFIX = "abandoned:";
const NOTICE_PREFIX = "notice:";

/** Why and until when a run is being stopped (contract StopNotice), from its stop to its release. */
export function noticeKey(runId: string): string {
  return `${NOTICE_PREFIX}${runId}`;
}

const PREEMPT_EVENT_PREFIX = "preempt_event:";

/**
 * The PAUSED event of a run's preemption (a JobEventRecord), from the preemption to the run's release,
 * when its `job.preempted` webhook goes out with what the run lost.
 */
export function preemptEventKey(runId: string): string {
  return `${PREEMPT_EVENT_PREFIX}${runId}`;
}

export function movedKey(jobId: string): string {
  return `${MOVED_PREFIX}${jobId}`;
}

/** Automatic retries a job has used (a person resuming it gives it a fresh budget). */
export function retriesKey(jobId: string): string {
  return `${RETRIES_PREFIX}${jobId}`;
}

/** A job id whose admission was abandoned: it is never queued from then on. */
export function abandonedKey(jobId: string): string {
  return `${ABANDONED_PREFIX}${jobId}`;
}

/**
 * Set once this fleet has abandoned any admission: until then no job id can carry the mark, and a submit
 * skips the per-job read (one cached row instead of a statement per admission).
 */
export const ANY_ABANDONED = "abandoned_any";

export function preemptedKey(jobId: string): string {
  return `${PREEMPTED_PREFIX}${jobId}`;
}

/** The priority classes, as the Worker last pushed them (JSON PriorityClass[]); absent: the built-ins. */
export const PRIORITY_CLASSES_KEY = "priority_classes";
/** The teams, their members and this fleet's team quotas, as the Worker last pushed them (FleetTeams). */
export const TEAMS_KEY = "teams";
/** The teams whose GPU-hour budget is spent, as the Worker last pushed them (FleetBudgets). */
export const BUDGETS_KEY = "budgets";
/** GPUs held for preemptors while their victims leave, and the recent preemptions (rules/preempt.ts). */
export const PREEMPTION_KEY = "preemption";
/** Jobs this fleet preempted, ever, by cause (JSON { priority: n, reclaim: n }): the metrics' counter. */
export const PREEMPTED_TOTAL_KEY = "preempted_total";
/** GPU-seconds preempted runs used since their last checkpoint, ever (a number): work lost to preemption. */
export const PREEMPTION_LOST_KEY = "preemption_lost_gpu_seconds";

export const PLACEMENT_PREFIX = "placement:";
const HANDOFF_PREFIX = "handoff:";
const MOVED_TO_PREFIX = "moved_to:";
const MOVE_PREFIX = "move:";

/**
 * A job placed over several fleets (rules/reroute.ts): the fleets it may run on, in the order the Worker
 * ranked them at submit (JSON string[] of fleet names), so that while it waits it can move to another.
 */
export function placementKey(jobId: string): string {
  return `${PLACEMENT_PREFIX}${jobId}`;
}

/** A queued job this fleet is handing to another (JSON Handoff): frozen here until that fleet answers. */
export function handoffKey(jobId: string): string {
  return `${HANDOFF_PREFIX}${jobId}`;
}

/** The ids of the jobs in a handoff (JSON string[]): one cached read per scheduling pass. */
export const HANDOFFS_KEY = "handoffs";

/** A job that left this fleet for another (its fleet id): reads and actions follow it there. */
export function movedToKey(jobId: string): string {
  return `${MOVED_TO_PREFIX}${jobId}`;
}

const PRIOR_RUNS_PREFIX = "prior_runs:";
const PRIOR_RUN_PREFIX = "prior_run:";

/**
 * The runs a job had in other fleets before it moved here (JSON Array<{id, attempt}>): its next run
 * resumes from their newest checkpoint, and this fleet's agents may fetch those checkpoints.
 */
export function priorRunsKey(jobId: string): string {
  return `${PRIOR_RUNS_PREFIX}${jobId}`;
}

/** A run of another fleet whose job moved here (its job id): this fleet's agents may fetch its checkpoints. */
export function priorRunKey(runId: string): string {
  return `${PRIOR_RUN_PREFIX}${runId}`;
}

/**
 * Jobs that moved here after preempting on another fleet (JSON string[]): they never preempt here (a job
 * placed over several fleets preempts on one fleet at most). Pruned of jobs no longer waiting when written.
 */
export const NO_PREEMPT_KEY = "no_preempt";

const PREEMPTED_FOR_PREFIX = "preempted_for:";

/** A job placed over several fleets preempted others here: wherever it moves, it never preempts again. */
export function preemptedForKey(jobId: string): string {
  return `${PREEMPTED_FOR_PREFIX}${jobId}`;
}

/** Jobs that moved here from other fleets, ever, by why (JSON { starts_sooner: n, site_lost: n }): a counter. */
export const REROUTED_IN_KEY = "rerouted_in_total";

/** Set once any job moved from this fleet to another: until then a submit reads no tombstone. */
export const ANY_MOVED = "moved_any";

/**
 * How this fleet answered an offer (by move id; JSON MoveAnswer): a repeat of the same offer (its answer
 * was lost, or a late copy) gets the same answer, whatever happened since.
 */
export function moveKey(moveId: string): string {
  return `${MOVE_PREFIX}${moveId}`;
}

const DIAGNOSIS_PREFIX = "diagnosis:";
const DIAGNOSE_PENDING_PREFIX = "diagnose_pending:";

/** A failed run's diagnosis (JSON StoredDiagnosis, contract/diagnosis-policy.ts): `diagnosis:<run>`. */
export function diagnosisKey(runId: string): string {
  return `${DIAGNOSIS_PREFIX}${runId}`;
}

/**
 * A failed run waiting for its diagnosis (JSON PendingDiagnosis, rules/diagnosis.ts): its FAILED event,
 * whose webhook goes out with the diagnosis, and whether the agent saw an infrastructure failure.
 */
export function diagnosePendingKey(runId: string): string {
  return `${DIAGNOSE_PENDING_PREFIX}${runId}`;
}

const ANOMALY_PREFIX = "anomaly:";

/** The live anomalies a run raised (JSON string[]: `NAN_LOSS`, `HANG@<step>`): each is recorded once. */
export function anomalyKey(runId: string): string {
  return `${ANOMALY_PREFIX}${runId}`;
}

/** Failed runs diagnosed here, ever, by class (JSON Record<class, n>): starforge_failures_total. */
export const FAILURES_KEY = "failures_total";

/** Whether `key` is one job's (one row per job: read without caching it, store.ts). */
export function isPerJobKey(key: string): boolean {
  return (
    key.startsWith(MOVED_PREFIX) ||
    key.startsWith(RETRIES_PREFIX) ||
    key.startsWith(ABANDONED_PREFIX) ||
    key.startsWith(PREEMPTED_PREFIX) ||
    key.startsWith(CHECKPOINT_PREFIX) ||
    key.startsWith(NOTICE_PREFIX) ||
    key.startsWith(PLACEMENT_PREFIX) ||
    key.startsWith(HANDOFF_PREFIX) ||
    key.startsWith(MOVED_TO_PREFIX) ||
    key.startsWith(MOVE_PREFIX) ||
    key.startsWith(PRIOR_RUNS_PREFIX) ||
    key.startsWith(PRIOR_RUN_PREFIX) ||
    key.startsWith(PREEMPTED_FOR_PREFIX) ||
    key.startsWith(DIAGNOSIS_PREFIX) ||
    key.startsWith(DIAGNOSE_PENDING_PREFIX) ||
    key.startsWith(ANOMALY_PREFIX)
  );
}
