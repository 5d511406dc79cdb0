/**
 * What the Fleet engine's rules read (`FleetState`) and the only way they change it (`FleetEffect`).
 * Two implementations: the DO's SQLite store (fleet/store.ts) and an in-memory state for the unit and
 * property tests (fleet/memory-state.ts). Both answer every query in the same order.
 */
import type { Memo } from "./memo.js";
import type { OutboxEntry } from "./outbox-entry.js";
import type { AllocRow, CommandKind, CommandRow, JobRow, NodeRow, RankRow, RunRow } from "./rows.js";

export interface FleetState {
  meta(key: string): string | null;
  /** Meta rows whose key starts with `prefix`, by key. */
  metaByPrefix(prefix: string): Array<{ key: string; value: string }>;
  job(id: string): JobRow | null;
  /** Whether job `id` exists (every submit asks, for a job that almost never does). */
  jobExists(id: string): boolean;
  /** Jobs in `status`, in queue order (queue_seq). */
  jobsByStatus(status: string): JobRow[];
  /** How many jobs are QUEUED. */
  queuedCount(): number;
  /** The QUEUED jobs that have a meta row `<prefix><job id>`, in queue order, with its value. */
  queuedWithMeta(prefix: string): Array<{ id: string; value: string }>;
  run(id: string): RunRow | null;
  /** The job's runs by attempt. */
  runsOfJob(jobId: string): RunRow[];
  /** Runs that overlap [since, now]: open ones and those that ended after `since`. */
  runsSince(since: number): RunRow[];
  /** The resolved resume checkpoint of a run (JSON, "null" for none); undefined while unresolved. */
  runResume(runId: string): string | undefined;
  /** A run's ranks by rank. */
  ranks(runId: string): RankRow[];
  /** Ranks on a node whose run still holds GPUs, by run then rank. */
  openRanksOn(nodeId: string): RankRow[];
  command(id: string): CommandRow | null;
  /** Unacknowledged commands for a node, oldest first (created_at, id). */
  openCommands(nodeId: string): CommandRow[];
  node(id: string): NodeRow | null;
  nodeByName(name: string): NodeRow | null;
  /** Nodes by name. */
  nodes(): NodeRow[];
  /** The nodes a cluster agent fronts, by name. */
  nodesOfAgent(agentId: string): NodeRow[];
  /** GPU allocations by node, then index. */
  allocations(): AllocRow[];
  /** The allocated GPU indices of every node that has any (in no particular order): what placement needs. */
  usedGpus(): Map<string, number[]>;
  allocatedOn(nodeId: string): number[];
  quotaBody(userId: string): string | null;
  /** A job queued unconfirmed (rows.ts JobRow.unconfirmed): its user and admission time; else null. */
  unconfirmedJob(id: string): Unconfirmed | null;
}

export interface Unconfirmed {
  user: string;
  at: number;
}

/**
 * One change. Rows are written whole (the rule read the row, changed it and hands it back); commands
 * are settled by what they are for; a timer keeps the earlier of two due times (`due: null` cancels it).
 */
export type FleetEffect =
  | { kind: "meta"; key: string; value: string | null }
  | { kind: "job"; row: JobRow }
  /** Jobs queued unconfirmed whose reservation was confirmed: their `unconfirmed` mark goes (nothing else). */
  | { kind: "confirmed"; ids: string[] }
  /**
   * Forgets a job: one whose admission was withdrawn before it was confirmed (never placed, never in D1:
   * its outbox entries go with it), or, `moved`, one handed to another fleet while it waited (never
   * placed here; what it wrote for D1 still goes out).
   */
  | { kind: "job_gone"; id: string; moved?: boolean }
  | { kind: "run"; row: RunRow }
  | { kind: "rank"; row: RankRow }
  | { kind: "node"; row: NodeRow }
  /** Forgets a node that holds nothing (an admin removed it). */
  | { kind: "node_gone"; id: string }
  | { kind: "quota"; user_id: string; body: string }
  /** Books one GPU. The store refuses a second booking of the same (node, index). */
  | { kind: "alloc"; alloc: AllocRow }
  /** Frees every GPU of a run. */
  | { kind: "free"; run_id: string }
  | { kind: "command"; row: Omit<CommandRow, "sent_at" | "acked_at"> }
  /** Closes the open commands of `command` kind of a run (one rank, or every rank when null). */
  | { kind: "settle"; run_id: string; rank: number | null; command: CommandKind; at: number }
  | { kind: "ack"; id: string; at: number }
  /** The agent lost an acked launch: open it again so it is re-sent. */
  | { kind: "reopen"; run_id: string; rank: number; node_id: string }
  | { kind: "sent"; id: string; at: number }
  | { kind: "timer"; id: string; due: number | null }
  | { kind: "outbox"; entry: OutboxEntry; at: number }
  /** The first resolution of a run's resume checkpoint wins. */
  | { kind: "resume"; run_id: string; body: string };

/** A state that also executes effects: the one applier. */
export interface Ledger extends FleetState {
  apply(effect: FleetEffect): void;
  /**
   * True while nothing that scheduling reads has changed since the last full scheduling pass, other than
   * jobs queued since (which `decide` sets and clears, never the rules). A full pass leaves no queued job
   * placeable until something changes (it only ever uses capacity up), so a job submitted now can be
   * decided alone: see rules/schedule.ts `scheduleSubmitted`. Kept in memory only: after a restart the
   * first submit makes a full pass.
   */
  steady: boolean;
  /** What scheduling derives from the state, kept until an applied effect changes it (fleet/memo.ts). */
  readonly memo: Memo;
  /**
   * The last value each counter handed out from its current block (Tx.counter): an allocator's memory,
   * not state. Forgotten with a rollback (the next value then starts a new block).
   */
  readonly issued: Map<string, number>;
}
