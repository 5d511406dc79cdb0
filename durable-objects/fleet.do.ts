/**
 * Fleet Durable Object: one per fleet, the single writer of its scheduling state. This class is an
 * adapter: it turns RPC calls and alarms into synchronous FleetEngine operations inside
 * `transactionSync`, then flushes the outbox to D1. Order inside the class: constructor → RPC → alarm →
 * helpers.
 */
import { DurableObject } from "cloudflare:workers";
import type { Quota, RegisterNodeBody } from "../contract/api.schema.js";
import type { Result } from "../contract/errors.js";
import type { AppEnv } from "../worker/env.js";
import {
  type Actor,
  type FleetConfig,
  FleetEngine,
  type FleetInspect,
  type JobAction,
  type JobDetail,
  type NodeView,
  type SubmitInput,
} from "./fleet-engine.js";
import { FleetStore } from "./fleet-store.js";
import { drainOutbox } from "./outbox.js";

const OUTBOX_TIMER = "outbox";
const SCHEDULE_TIMER = "schedule";
const MAX_RETRY_MS = 300_000;

export class FleetDO extends DurableObject<AppEnv> {
  private readonly store: FleetStore;
  private readonly engine: FleetEngine;
  private flushing: Promise<void> | null = null;

  constructor(ctx: DurableObjectState, env: AppEnv) {
    super(ctx, env);
    this.store = new FleetStore(ctx.storage.sql);
    this.engine = new FleetEngine(this.store);
    void ctx.blockConcurrencyWhile(async () => {
      this.store.migrate();
      // After a restart, anything written but not yet flushed is picked up by the alarm.
      if (this.store.outboxSize() > 0) this.store.setTimer(OUTBOX_TIMER, Date.now());
      await this.armAlarm();
    });
  }

  // RPC -------------------------------------------------------------------------

  async configure(cfg: FleetConfig): Promise<void> {
    this.tx(() => this.engine.configure(cfg, Date.now()));
    await this.flush();
  }

  async setQuota(userId: string, quota: Quota): Promise<void> {
    this.tx(() => this.engine.setQuota(userId, quota, Date.now()));
    await this.flush();
  }

  async submit(input: SubmitInput): Promise<Result<{ job: JobDetail }>> {
    const r = this.tx(() => this.engine.submit(input, Date.now()));
    await this.flush();
    return r;
  }

  async jobAction(
    jobId: string,
    action: JobAction,
    actor: Actor,
    reason?: string,
  ): Promise<Result<JobDetail>> {
    const r = this.tx(() => this.engine.action(jobId, action, actor, reason, Date.now()));
    await this.flush();
    return r;
  }

  async registerNode(input: RegisterNodeBody): Promise<Result<NodeView>> {
    const r = this.tx(() => this.engine.registerNode(input, Date.now()));
    await this.flush();
    return r;
  }

  async setDrain(draining: boolean, note: string | null): Promise<FleetConfig> {
    const cfg = this.tx(() => this.engine.setDrain(draining, note, Date.now()));
    await this.flush();
    return cfg;
  }

  async getJob(jobId: string): Promise<JobDetail | null> {
    return this.engine.jobDetail(jobId);
  }

  async inspect(): Promise<FleetInspect> {
    return this.engine.inspect();
  }

  async jobStatuses(): Promise<Array<{ id: string; status: string }>> {
    return this.engine.jobStatuses();
  }

  /** Entries written but not yet in D1 (operations and tests). */
  async outboxSize(): Promise<number> {
    return this.store.outboxSize();
  }

  // alarm -----------------------------------------------------------------------

  override async alarm(): Promise<void> {
    try {
      const now = Date.now();
      for (const t of this.store.dueTimers(now)) {
        this.store.deleteTimer(t.id);
        if (t.id === SCHEDULE_TIMER) this.tx(() => this.engine.schedule(now));
        if (t.id === OUTBOX_TIMER || t.id === SCHEDULE_TIMER) await this.flush(t.attempts);
      }
    } finally {
      await this.armAlarm();
    }
  }

  // helpers ---------------------------------------------------------------------

  /** Runs one decision as a single SQL transaction, then points the alarm at the earliest timer. */
  private tx<T>(fn: () => T): T {
    const out = this.ctx.storage.transactionSync(fn);
    void this.armAlarm();
    return out;
  }

  /**
   * Flushes the outbox to D1. Concurrent callers share one flush. A failure leaves the entries in place
   * and arms a retry timer with exponential backoff; the caller's request still succeeds because the
   * state is durable in this object.
   */
  private async flush(attempts = 0): Promise<void> {
    if (this.flushing) return this.flushing;
    this.flushing = (async () => {
      try {
        await drainOutbox(this.store, this.env.DB);
      } catch (err) {
        const base = Number(this.env.SF_OUTBOX_RETRY_SECONDS) * 1000 || 2000;
        const delay = Math.min(base * 2 ** attempts, MAX_RETRY_MS);
        console.error(`fleet outbox flush failed (attempt ${attempts + 1}); retrying in ${delay} ms`, err);
        this.store.setTimer(OUTBOX_TIMER, Date.now() + delay, attempts + 1);
        await this.armAlarm();
      } finally {
        this.flushing = null;
      }
    })();
    return this.flushing;
  }

  private async armAlarm(): Promise<void> {
    const due = this.store.nextTimerDue();
    if (due === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(due);
  }
}
