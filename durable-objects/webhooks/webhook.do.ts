/**
 * WebhookDispatcher: one per user (`idFromName(user_id)`), the only sender of that user's webhook
 * deliveries. Its state is in D1 (a pending delivery is a timer row); this object is an alarm that points
 * at the earliest one. A poke (after a Fleet DO flush created deliveries, or a redeliver/test request)
 * sets the alarm to now, so every attempt runs inside an alarm, which the platform retries and which
 * outlives the request that poked it. Nothing here is on a scheduling path.
 */
import { DurableObject } from "cloudflare:workers";
import type { DoEnv } from "../env.js";
import { dispatchDue, nextDue, sweepOld } from "./dispatch.js";
import { retrySettings } from "./policy.js";

const USER_KEY = "user_id";
const SWEPT_KEY = "swept_at";
/** After a pass that failed (D1 unreachable), the alarm tries again this much later. */
const FAILED_PASS_RETRY_MS = 30_000;
const SWEEP_EVERY_MS = 86_400_000;

export class WebhookDispatcher extends DurableObject<DoEnv> {
  /** Set by a poke; a pass that saw it set re-arms for now, so a poke during a pass is never lost. */
  private poked = false;

  // RPC -------------------------------------------------------------------------

  /** Something may be due for `userId` (this object's own user): send it soon, off the caller's path. */
  async poke(userId: string): Promise<void> {
    if ((await this.ctx.storage.get<string>(USER_KEY)) !== userId)
      await this.ctx.storage.put(USER_KEY, userId);
    this.poked = true;
    await this.ctx.storage.setAlarm(Date.now());
  }

  // alarm -----------------------------------------------------------------------

  override async alarm(): Promise<void> {
    const userId = await this.ctx.storage.get<string>(USER_KEY);
    if (!userId) return;
    let next: number | null = null;
    try {
      this.poked = false;
      await dispatchDue(this.env.DB, userId, retrySettings(this.env));
      await this.sweep(userId);
      next = await nextDue(this.env.DB, userId);
    } catch (err) {
      console.error(`webhook dispatch for ${userId} failed; retrying in ${FAILED_PASS_RETRY_MS} ms`, err);
      next = Date.now() + FAILED_PASS_RETRY_MS;
    } finally {
      // Always re-armed: at the earliest pending delivery, now after a poke during the pass, else cleared.
      if (this.poked) next = Date.now();
      if (next === null) await this.ctx.storage.deleteAlarm();
      else await this.ctx.storage.setAlarm(Math.max(next, Date.now()));
    }
  }

  // helpers ---------------------------------------------------------------------

  /** Deletes finished deliveries past their retention, at most once a day. */
  private async sweep(userId: string): Promise<void> {
    const now = Date.now();
    const last = (await this.ctx.storage.get<number>(SWEPT_KEY)) ?? 0;
    if (now - last < SWEEP_EVERY_MS) return;
    await sweepOld(this.env.DB, userId, now);
    await this.ctx.storage.put(SWEPT_KEY, now);
  }
}
