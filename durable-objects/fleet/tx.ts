/**
 * One decision in progress. Rules read through `s` and change state only with `put(effect)`: the effect
 * is applied at once (inside the DO's single transaction, or to the in-memory state in tests), so a rule
 * that composes steps reads its own writes, and it is recorded, so a decision returns the list of what
 * it changed. Nothing here touches SQL, a socket or the clock: `now` and new ids come from the context.
 */
import type { IdPrefix } from "../../contract/ids.js";
import type { JobSpec } from "../../contract/jobspec.schema.js";
import type { JobRow } from "./rows.js";
import type { FleetEffect, Ledger } from "./state.js";

export interface DecideSettings {
  /** Base of the auto-retry backoff (SF_RETRY_BACKOFF_SECONDS). */
  retryBaseMs: number;
  /** How long a lost agent's runs keep running before they fail (SF_AGENT_LOST_GRACE_SECONDS). */
  lostGraceMs: number;
  /** How long a failed run's diagnosis waits for its last logs (SF_DIAGNOSIS_SETTLE_SECONDS; default 2 s). */
  diagnosisSettleMs?: number;
}

export interface DecideContext {
  now: number;
  newId: (prefix: IdPrefix) => string;
  settings: DecideSettings;
}

/** Counter values handed out per meta write (Tx.counter). */
export const COUNTER_BLOCK = 1000;

export class Tx {
  readonly effects: FleetEffect[] = [];
  /** Set while a windows pass runs: the scheduling passes it causes must not start another one. */
  inWindowPass = false;
  /** A full scheduling pass ran in this decision (it leaves the fleet steady: see Ledger.steady). */
  passed = false;
  /** Jobs whose snapshot this decision wrote to the outbox (rules/ledger.ts emitJob). */
  readonly emittedJobs = new Set<string>();
  /** The JobSpecs of jobs this decision queued, as submitted: scheduling them need not parse the rows. */
  readonly queuedSpecs = new Map<string, JobSpec>();

  /**
   * `pass` is the scheduling pass (rules/schedule.ts; with `submitted`, the one for a job just queued),
   * handed in by `decide` so that the rules which end in one (a stop that frees GPUs, a retry, a hello) need not import it: the rules call each other
   * recursively, their modules must not.
   */
  constructor(
    readonly s: Ledger,
    readonly ctx: DecideContext,
    private readonly pass: (t: Tx, submitted?: JobRow) => void,
    /** The fleet was steady when this decision began (Ledger.steady). */
    readonly steady = false,
  ) {}

  /** Runs a scheduling pass now (dispatch, pending reasons, windows). */
  schedule(): void {
    this.pass(this);
  }

  /** Schedules a job just queued: alone when the fleet is steady, else by a full pass. */
  scheduleSubmitted(job: JobRow): void {
    this.pass(this, job);
  }

  get now(): number {
    return this.ctx.now;
  }

  put(effect: FleetEffect): void {
    this.s.apply(effect);
    this.effects.push(effect);
  }

  newId(prefix: IdPrefix): string {
    return this.ctx.newId(prefix);
  }

  setMeta(key: string, value: string): void {
    this.put({ kind: "meta", key, value });
  }

  deleteMeta(key: string): void {
    if (this.s.meta(key) !== null) this.put({ kind: "meta", key, value: null });
  }

  /**
   * The next value of a monotonic counter (queue order, lease epochs, versions), handed out from blocks of
   * COUNTER_BLOCK: meta holds the end of the current block, so a submit writes it once per block rather
   * than once per job. Values only grow: after a restart (or a rollback, which forgets what was issued)
   * the next one starts past the stored end.
   */
  counter(key: string): number {
    const end = Number(this.s.meta(key) ?? "0");
    const n = (this.s.issued.get(key) ?? end) + 1;
    if (n > end) this.setMeta(key, String(n + COUNTER_BLOCK - 1));
    this.s.issued.set(key, n);
    return n;
  }

  /** Arms a timer; an earlier due time already set is kept. */
  setTimer(id: string, due: number): void {
    this.put({ kind: "timer", id, due });
  }

  cancelTimer(id: string): void {
    this.put({ kind: "timer", id, due: null });
  }
}
