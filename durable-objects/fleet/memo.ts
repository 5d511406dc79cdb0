/**
 * What the scheduler derives from the fleet's state on every submit (the nodes as placement sees them, the
 * runs that count toward fair share and daily quotas), kept between decisions until an effect changes a
 * table it was derived from. A steady fleet admitting jobs changes neither: each submit would otherwise
 * read every node, every allocation and every recent run again to decide one job.
 *
 * Both ledgers (the SQLite store and the in-memory state of the unit and property tests) hold one and call
 * `changed` from their applier, so the tests that check every decision against a full recomputation also
 * check the invalidation. A transaction that rolls back must `clear` it: a value derived inside it may
 * rest on rows it undid.
 */
import { CHECKPOINT_PREFIX, NODE_ADMIN_PREFIX, PRIORITY_CLASSES_KEY } from "./keys.js";

/** What a memo needs of an effect (state.ts `FleetEffect`; named apart, as state.ts holds a Memo). */
type Change = { kind: string; key?: string; row?: unknown };

export type MemoName =
  /** The nodes as the placement policy sees them: free GPUs, schedulable or not (rules/schedule.ts). */
  | "policy_nodes"
  /** The runs open or ended in the fair-share horizon, with the horizon's start (rules/schedule.ts). */
  | "recent_runs"
  /** Running jobs of preemptible classes, as preemption may choose among them (rules/preempt.ts). */
  | "preemptible"
  /** The GPUs each team's open runs hold, per series (rules/teams.ts). */
  | "team_usage";

/** Whether an effect changes what a memo was derived from. */
const DERIVED_FROM: Record<MemoName, (e: Change) => boolean> = {
  policy_nodes: (e) =>
    e.kind === "node" ||
    e.kind === "node_gone" ||
    e.kind === "alloc" ||
    e.kind === "free" ||
    e.kind === "job_gone" ||
    (e.kind === "meta" && e.key !== undefined && e.key.startsWith(NODE_ADMIN_PREFIX)),
  recent_runs: (e) => e.kind === "run" || e.kind === "job_gone",
  // A job's team never changes; a node's series may (an admin re-registers it).
  team_usage: (e) => e.kind === "run" || e.kind === "job_gone" || e.kind === "node" || e.kind === "node_gone",
  // Only a job that starts running adds to the list (it is written as RUNNING); one that leaves RUNNING is
  // skipped where the list is read (rules/preempt.ts `stillRunning`). Run writes come with their job's. A
  // new checkpoint moves a job in the order (and may end its exemption).
  preemptible: (e) =>
    (e.kind === "job" && (e.row as { status?: unknown } | undefined)?.status === "RUNNING") ||
    e.kind === "job_gone" ||
    (e.kind === "meta" &&
      e.key !== undefined &&
      (e.key === PRIORITY_CLASSES_KEY || e.key.startsWith(CHECKPOINT_PREFIX))),
};

export class Memo {
  private readonly values = new Map<MemoName, unknown>();
  /** Facts that never change once written (a job's spec, a run's placement), by key: see `lasting`. */
  private readonly facts = new Map<string, unknown>();

  /**
   * A fact derived from rows that never change once written (whether a job can resume, from its spec and
   * launch; a run's placement), kept across decisions until a rollback. Bounded: forgotten when large.
   */
  lasting<T>(key: string, compute: () => T): T {
    if (this.facts.has(key)) return this.facts.get(key) as T;
    if (this.facts.size >= 50_000) this.facts.clear();
    const value = compute();
    this.facts.set(key, value);
    return value;
  }

  /** The memo's value, computed now if an effect changed what it was derived from. Never mutate it. */
  get<T>(name: MemoName, compute: () => T): T {
    if (this.values.has(name)) return this.values.get(name) as T;
    const value = compute();
    this.values.set(name, value);
    return value;
  }

  /** An effect was applied: the memos derived from what it changed are dropped. */
  changed(e: Change): void {
    if (this.values.size === 0) return;
    for (const name of this.values.keys()) if (DERIVED_FROM[name](e)) this.values.delete(name);
  }

  clear(): void {
    this.values.clear();
    this.facts.clear();
  }
}
