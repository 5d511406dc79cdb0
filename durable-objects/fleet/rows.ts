/**
 * The Fleet DO's rows, as the rules see them. Times are epoch milliseconds (ISO strings only at the D1
 * boundary). Type aliases rather than interfaces, so a row is also a plain record for the SQL layer.
 */

export type JobRow = {
  id: string;
  user_id: string;
  name: string;
  status: string;
  priority: number;
  queue_seq: number;
  gpus: number;
  recipe: string;
  spec: string;
  pending_reasons: string;
  current_run_id: string | null;
  attempt: number;
  version: number;
  event_seq: number;
  created_at: number;
  updated_at: number;
  capsule: string | null;
  launch: string | null;
  /**
   * 1 while its admission waits for the submitter's reservation to be confirmed (the Worker asked the
   * user's object and this one at once): QUEUED with its admitted event, never placed, its outbox
   * entries held back from D1. 0 once confirmed (every admission made one after the other is).
   */
  unconfirmed: number;
  /** Its priority class (contract/priority-classes.ts), by name: the class's value orders the queue. */
  priority_class: string;
  /** The team it runs for (contract/teams.ts), resolved when it was queued; null: no team. */
  team: string | null;
};

export type RunRow = {
  id: string;
  job_id: string;
  attempt: number;
  epoch: number;
  status: string;
  placement: string;
  gpus: number;
  user_id: string;
  allocated_at: number;
  /** When it started running (its job went RUNNING); null until then. Minimum runtimes count from it. */
  started_at: number | null;
  /**
   * 1: placed beyond its team's guarantee in a series where teams hold guarantees (borrowed GPUs: a
   * team reclaiming its guarantee may preempt it); 0: inside it, or no team quotas govern its GPUs.
   */
  borrowed: number;
  ended_at: number | null;
  exit_code: number | null;
  reason: string | null;
  version: number;
};

/** pending (launch not acked) → accepted → launched → exited; `cancelled` if never acked before a stop. */
export type RankState = "pending" | "accepted" | "launched" | "exited" | "cancelled";

export type RankRow = {
  run_id: string;
  rank: number;
  node_id: string;
  pool: string;
  gpu_indices: string;
  state: string;
  exit_code: number | null;
  reason: string | null;
  updated_at: number;
};

export type CommandKind = "launch" | "stop";

export type CommandRow = {
  id: string;
  node_id: string;
  run_id: string;
  rank: number;
  kind: string;
  payload: string;
  created_at: number;
  sent_at: number | null;
  acked_at: number | null;
};

export type NodeRow = {
  id: string;
  name: string;
  series: string;
  gpus: number;
  status: string;
  runtime: string | null;
  labels: string;
  cpus: number | null;
  memory_mb: number | null;
  version: number;
  created_at: number;
  updated_at: number;
  agent: number;
  hostname: string | null;
  lost_since: number | null;
  /** The address its peers reach it at (agents only). */
  advertise_addr: string | null;
  /** A cluster node: the node id of the agent that fronts it (null: the agent's own host, admin nodes). */
  agent_id: string | null;
  /** Why the node takes no new runs, in its cluster's words (drain, down). */
  status_reason: string | null;
  /** What it runs, JSON (`["image","bare"]`); null: by its runtime (contract `defaultWorkloads`). */
  workloads: string | null;
};

export type AllocRow = { node_id: string; idx: number; run_id: string };

export type TimerRow = { id: string; due_at: number; attempts: number };

/** A rank in one of these states can no longer run anything. */
export const GONE_RANK_STATES: ReadonlySet<string> = new Set(["exited", "cancelled"]);
