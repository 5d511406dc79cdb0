/**
 * The Fleet DO's side of admissions queued unconfirmed (decision 119): confirmations as they arrive,
 * a pull of the ones no call brought (5 ms after the jobs were queued, then less and less often), the
 * settle of those left long after (their users' objects give up what they never reserved; the fleet
 * withdraws it), and a read's wait for the confirmations of admissions made before it. The object owns
 * one instance and hands it its decisions and its after-change step.
 */
import { type DoEnv, doSettings } from "../env.js";
import { userStub } from "../user/stub.js";
import type { ConfirmInput } from "../user/types.js";
import type { FleetEvent, FleetResults } from "./decide.js";
import type { FleetStore } from "./store.js";
import { UNCONFIRMED_TIMER } from "./timers.js";

/** How long a read's barrier waits for the confirmation of an admission queued unconfirmed just before. */
const CONFIRM_WAIT_MS = 1_000;
/**
 * How long after queueing unconfirmed jobs the fleet asks their users' objects about those no call
 * confirmed meanwhile (then twice as long each time some still wait, up to PULL_MAX_MS).
 */
const PULL_FIRST_MS = 5;
const PULL_MAX_MS = 1_000;

export class UnconfirmedAdmissions {
  /** The settle timer is armed (armSettle). */
  private settleArmed = false;
  /** A pull is armed (pullSoon), and the delay of the next one. */
  private pulling = false;
  private pullDelayMs = PULL_FIRST_MS;

  constructor(
    private readonly store: FleetStore,
    private readonly env: DoEnv,
    private readonly decide: <E extends FleetEvent>(event: E) => FleetResults[E["type"]],
    private readonly afterChange: () => Promise<void>,
  ) {}

  /** Jobs were just queued unconfirmed: a pull soon, and the settle timer. */
  queued(now: number): void {
    this.armSettle(now);
    this.pullSoon();
  }

  confirm(confirms: readonly ConfirmInput[]): void {
    for (const c of confirms)
      if (c.jobIds.length > 0) this.decide({ type: "confirm_admissions", jobIds: c.jobIds, quota: c.quota });
  }

  /**
   * Waits (up to CONFIRM_WAIT_MS) for the confirmations of the admissions queued unconfirmed a moment
   * ago, which are on their way; only those: under load new ones keep coming. Older ones are stuck (their
   * submit's isolate went away): the settle timer resolves them.
   */
  async confirmedSoFar(): Promise<void> {
    const since = Date.now() - CONFIRM_WAIT_MS;
    const pending = [...this.store.unconfirmedJobs()].filter(([, u]) => u.at > since).map(([id]) => id);
    const until = Date.now() + CONFIRM_WAIT_MS;
    while (pending.some((id) => this.store.unconfirmedJob(id)) && Date.now() < until)
      await new Promise((r) => setTimeout(r, 5));
  }

  /**
   * Admissions still unconfirmed a while after they were queued (the submit's isolate went away before
   * its confirmation left): each user's object says which it reserved (confirmed here) and gives the rest
   * up (withdrawn here, and never reserved there from then on). Then the timer is armed for the rest.
   */
  async settle(now: number): Promise<void> {
    this.settleArmed = false;
    const due = now - doSettings(this.env).reservationSettleMs;
    for (const [userId, jobIds] of this.byUser(due)) {
      const c = await userStub(this.env, userId).confirmations(userId, jobIds);
      const reserved = new Set(c.reserved);
      this.confirm([{ jobIds: c.reserved, quota: c.quota }]);
      this.decide({ type: "withdraw_admissions", jobIds: jobIds.filter((id) => !reserved.has(id)) });
    }
    if (this.store.unconfirmedJobs().size > 0) this.armSettle(now);
  }

  /** The settle timer, armed once while any admission waits (not on every submit). */
  armSettle(now: number): void {
    if (this.settleArmed) return;
    this.settleArmed = true;
    this.store.setTimer(UNCONFIRMED_TIMER, now + doSettings(this.env).reservationSettleMs);
  }

  /** Arms a pull of confirmations (one at a time, coalescing every admission queued meanwhile). */
  private pullSoon(): void {
    if (this.pulling) return;
    this.pulling = true;
    setTimeout(() => {
      void this.pull().finally(() => {
        this.pulling = false;
        if (this.store.unconfirmedJobs().size > 0) {
          this.pullDelayMs = Math.min(this.pullDelayMs * 2, PULL_MAX_MS);
          this.pullSoon();
        } else this.pullDelayMs = PULL_FIRST_MS;
      });
    }, this.pullDelayMs);
  }

  /**
   * Jobs queued unconfirmed that no call confirmed within a few milliseconds (their submit's isolate had
   * no further call to carry the confirmation): each user's object says which it reserved, and those are
   * confirmed. The others wait: their reservation may still be on its way (`settle` gives up old ones).
   */
  private async pull(): Promise<void> {
    // Only those that had time for a call to bring their confirmation (a busy submitter's next call does).
    const byUser = this.byUser(Date.now() - PULL_FIRST_MS);
    if (byUser.size === 0) return;
    try {
      for (const [userId, jobIds] of byUser) {
        const c = await userStub(this.env, userId).confirmations(userId, jobIds, false);
        this.confirm([{ jobIds: c.reserved, quota: c.quota }]);
      }
    } catch (err) {
      console.error("asking users' objects for confirmations failed; asking again", err);
    }
    await this.afterChange();
  }

  /** The unconfirmed jobs queued no later than `before`, by user. */
  private byUser(before: number): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const [id, u] of this.store.unconfirmedJobs())
      if (u.at <= before) out.set(u.user, [...(out.get(u.user) ?? []), id]);
    return out;
  }
}
