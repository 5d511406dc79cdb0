/**
 * How a Fleet DO's outbox reaches D1 and the users' objects: after the answers, changes of FLUSH_WINDOW_MS
 * coalesced into one flush (fleet/outbox.ts drains it in batches); concurrent callers share one flush; a
 * failure keeps the entries and backs off through the outbox timer; `projected` is the read barrier.
 * The object owns this one instance and calls `afterChange` / `projected` / `flush` (its alarm).
 */
import { backoffDelay } from "../../contract/backoff.js";
import { db, schema } from "../../d1/client.js";
import { type DoEnv, doSettings } from "../env.js";
import { runStub } from "../run/stub.js";
import { userStub } from "../user/stub.js";
import { pokeDueWebhooks } from "../webhooks/stub.js";
import { capacitySummary } from "./capacity.js";
import { drainOutbox, userNotes } from "./outbox.js";
import type { OutboxEntry } from "./outbox-entry.js";
import { fleetId } from "./rules/ledger.js";
import type { FleetStore } from "./store.js";
import { OUTBOX_TIMER } from "./timers.js";

const MAX_OUTBOX_RETRY_MS = 300_000;
/** How long changes gather before one flush writes them to D1 together. */
const FLUSH_WINDOW_MS = 100;
/** The alarm that flushes should the coalescing timer never fire (the object was evicted first). */
const OUTBOX_BACKSTOP_MS = 1_000;
/** The capacity summary is computed (and, if it changed, published) at most this often. */
const CAPACITY_PUBLISH_MS = 500;

export class OutboxFlusher {
  private flushing: Promise<void> | null = null;
  /** A coalesced flush is armed (afterChange). */
  private armed = false;
  /** Until when a failed flush's backoff holds further coalesced flushes back (0: none failed). */
  private retryAt = 0;
  /** Flushes that failed in a row (the backoff's attempt count). */
  private failures = 0;
  /** The capacity summary (its series) last written to D1 by this instance, and when it was computed. */
  private publishedCapacity = "";
  private publishedAt = 0;
  /** A change's summary was held back by the throttle: the window's end (or a reader's barrier) publishes it. */
  private capacityDue = false;

  constructor(
    private readonly store: FleetStore,
    private readonly env: DoEnv,
    private readonly ctx: DurableObjectState,
    /** Points the object's alarm at its earliest timer (a failed flush armed its retry timer). */
    private readonly armAlarm: () => Promise<void>,
  ) {}

  /**
   * After a change: the first change after a flush arms one, FLUSH_WINDOW_MS later, which writes every
   * change made meanwhile in one D1 batch (up to its size cap; a drain takes several if needed). The
   * outbox timer, armed once per window, is the backstop should the object be evicted first.
   */
  afterChange(): void {
    // After a failed flush the outbox timer's backoff decides when D1 is tried again.
    if (this.armed || Date.now() < this.retryAt || this.store.outboxEmpty()) return;
    this.armed = true;
    this.store.setTimer(OUTBOX_TIMER, Date.now() + OUTBOX_BACKSTOP_MS);
    setTimeout(() => {
      this.armed = false;
      void this.flush().then(() => this.armAlarm());
    }, FLUSH_WINDOW_MS);
  }

  /**
   * Placement over several fleets reads each fleet's capacity summary from D1 (contract/placement.ts): it is
   * written after a flush that changed it, one row, so a submit placed elsewhere never asks this object.
   */
  /**
   * Publishes the capacity summary if it changed: at most once per CAPACITY_PUBLISH_MS (it reads every
   * queued job), the last change of a burst published by the outbox timer armed for the window's end.
   */
  private async publishCapacity(force = false): Promise<void> {
    const now = Date.now();
    if (!force && now - this.publishedAt < CAPACITY_PUBLISH_MS) {
      this.capacityDue = true;
      this.store.setTimer(OUTBOX_TIMER, this.publishedAt + CAPACITY_PUBLISH_MS);
      return;
    }
    this.capacityDue = false;
    this.publishedAt = now;
    const summary = capacitySummary(this.store, now);
    const key = JSON.stringify(summary.series);
    if (key === this.publishedCapacity) return;
    const row = { capacity: JSON.stringify(summary), updatedAt: new Date(summary.at).toISOString() };
    await db(this.env.DB)
      .insert(schema.fleetCapacity)
      .values({ fleetId: fleetId(this.store), ...row })
      .onConflictDoUpdate({ target: schema.fleetCapacity.fleetId, set: row })
      .run();
    this.publishedCapacity = key;
  }

  /**
   * A released victim's `job.preempted` webhook says how many steps it trained past the checkpoint it
   * resumes from: its Run DO knows the last step its training reported (its runner drained its metrics
   * before the run ended). A retried flush asks again; the webhook's delivery is made once.
   */
  private async withStepsLost(entries: OutboxEntry[]): Promise<void> {
    await Promise.all(
      entries.map(async (e) => {
        if (e.kind !== "preempted" || e.job.run_id === null) return;
        e.steps_lost = await runStub(this.env, e.job.run_id).stepsLost(e.resume_step);
      }),
    );
  }

  /**
   * Read-your-writes: flushes what is waiting for D1 now. True once D1 holds every change made before
   * this call (but those of admissions not confirmed yet, which no reader has been told of: a reader's
   * own are confirmed before it asks); false when D1 refused (the caller answers 503, not a stale read).
   */
  async projected(): Promise<boolean> {
    // The changes made before this call: under load others keep coming, and a reader does not wait for
    // them (waiting for an empty outbox answered busy fleets' readers 503 with D1 healthy).
    const upTo = Date.now();
    for (let i = 0; i < 3 && !this.store.outboxHeldOnly(upTo); i++) {
      await this.flush(this.failures, true);
      // D1 refused: the outbox timer's backoff tries again; the reader hears so now.
      if (this.retryAt > Date.now()) break;
    }
    // What D1 holds includes the capacity summary of what was just written (the throttle's held-back one).
    if (this.capacityDue && this.retryAt <= Date.now())
      await this.publishCapacity(true).catch((err: unknown) =>
        console.error("capacity summary not published", err),
      );
    await this.armAlarm();
    return this.store.outboxHeldOnly(upTo);
  }

  /**
   * Flushes the outbox to D1. Concurrent callers share one flush. A failure leaves the entries in place
   * and arms a retry timer with exponential backoff; the caller's request still succeeds because the
   * state is durable in the object.
   */
  async flush(attempts = this.failures, again = false): Promise<void> {
    // A read's barrier waits for the flush under way, then runs its own for what came after it.
    if (this.flushing) {
      await this.flushing;
      if (!again) return;
    }
    if (this.flushing) return this.flushing;
    this.flushing = (async () => {
      try {
        const { deliveries } = await drainOutbox(
          this.store,
          this.env.DB,
          (entries) => this.notifyUsers(entries),
          (entries) => this.withStepsLost(entries),
        );
        this.retryAt = 0;
        this.failures = 0;
        await this.publishCapacity();
        // The outbox timer stays: it fires within a second and finds nothing to do. Deleting it after every
        // flush and setting it again at the next change moved the alarm ~100 times a second under load.
        // Webhook deliveries the flush created are sent by their owners' dispatchers, never on this path.
        if (deliveries) this.ctx.waitUntil(pokeDueWebhooks(this.env));
      } catch (err) {
        const delay = backoffDelay(attempts, {
          baseMs: doSettings(this.env).outboxRetryMs,
          capMs: MAX_OUTBOX_RETRY_MS,
          jitter: "none",
        });
        console.error(`fleet outbox flush failed (attempt ${attempts + 1}); retrying in ${delay} ms`, err);
        this.failures = attempts + 1;
        this.retryAt = Date.now() + delay;
        this.store.setTimer(OUTBOX_TIMER, this.retryAt, attempts + 1);
      } finally {
        this.flushing = null;
      }
    })();
    return this.flushing;
  }

  /** Tells each user's object what a flushed chunk says about its jobs and runs (fleet/outbox.ts). */
  private async notifyUsers(entries: readonly OutboxEntry[]): Promise<void> {
    const notes = userNotes(fleetId(this.store), entries);
    await Promise.all([...notes].map(([userId, n]) => userStub(this.env, userId).notes(userId, n)));
  }
}
