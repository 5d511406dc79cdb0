/**
 * User DO: one per user (`idFromName(user_id)`), the single writer of what must be atomic across fleets
 * for that user: its job slots against `max_jobs`, its Idempotency-Keys, the fences of revoked tokens and
 * of a disabled or demoted account, and the quota figures admission checks (the quota itself and the
 * GPU-hours used today). A submit reserves here, then queues in its Fleet DO; the Fleet DO reports its
 * jobs' states and its runs' usage back (`notes`) after writing them to D1. Its state is its own SQLite:
 * D1 is read once, the first time the object is used, to take over what the ledger knew before it.
 * Order: constructor → RPC → alarm → helpers.
 */
import { DurableObject } from "cloudflare:workers";
import { DEFAULT_QUOTA, type Quota } from "../../contract/api.schema.js";
import { ACTIVE_STATES, type JobState } from "../../contract/job-states.js";
import { quotaRefusal } from "../../contract/quota.js";
import { type DoEnv, doSettings } from "../env.js";
import { type Settled, serveWire, type Wire } from "../group-commit.js";
import { type Rpc, stubOf } from "../rpc.js";
import { loadFromLedger } from "./load.js";
import { type KeyRow, type SlotRow, type SlotState, UserStore } from "./store.js";
import type {
  Confirmations,
  FleetAdmissions,
  FleetNotes,
  KeyView,
  ReserveInput,
  ReserveResult,
  ResumeResult,
  Unprojected,
} from "./types.js";

/** How far back a read looks for admissions not yet written to D1 (read-your-writes). */
const UNPROJECTED_WINDOW_MS = 10 * 60_000;
const ALARM_RETRY_MS = 5_000;

const stateOf = (status: string): SlotState =>
  ACTIVE_STATES.has(status as JobState) ? "active" : "released";

/** Slots grouped by the fleet that holds their jobs. */
function byFleet(slots: readonly SlotRow[]): Map<string, SlotRow[]> {
  const out = new Map<string, SlotRow[]>();
  for (const r of slots) {
    const list = out.get(r.fleet_id);
    if (list) list.push(r);
    else out.set(r.fleet_id, [r]);
  }
  return out;
}

export class UserDO extends DurableObject<DoEnv> {
  private readonly store: UserStore;
  /** The alarm as this object last set or read it (undefined: not known; the runtime clears it as it fires). */
  private alarmAt: number | null | undefined = undefined;
  /** The refresh of the held slots in flight, which refusals arriving meanwhile share (refreshHeld). */
  private refreshing: Promise<boolean> | null = null;

  constructor(ctx: DurableObjectState, env: DoEnv) {
    super(ctx, env);
    this.store = new UserStore(ctx.storage.sql);
    void ctx.blockConcurrencyWhile(async () => {
      this.store.migrate();
    });
  }

  /** A fleet's object, as this one asks it about admissions. */
  private fleet(fleetId: string): Rpc<FleetAdmissions> {
    return stubOf<FleetAdmissions>(this.env.FLEET, fleetId);
  }

  // RPC -------------------------------------------------------------------------

  /**
   * Reserves one slot per job (all or none), and the request's Idempotency-Key, in one transaction: the
   * token and account still may submit, the key is free, the quota allows every job, and the jobs held
   * plus these stay within max_jobs. Answers with the quota the fleet needs to queue them.
   */
  async reserve(input: ReserveInput): Promise<ReserveResult> {
    await this.ensureLoaded(input.userId);
    let result = this.tryReserve(input);
    // Slots follow their jobs a few ms behind the fleets (their reports come after D1): before refusing for
    // max_jobs, ask the fleets how the jobs holding slots are now, and try again.
    if (result.kind === "refused" && result.details?.limit === "max_jobs" && (await this.refreshHeld())) {
      result = this.tryReserve(input);
    }
    if (result.kind === "reserved") await this.armSettle(input.now);
    return result;
  }

  /**
   * Several requests' reservations (group commit, durable-objects/group-commit.ts), each as `reserve`
   * would, in order, in this turn: one storage commit for all; one answer each.
   */
  async reserveBatch(inputs: Wire<ReserveInput[]>): Promise<Wire<Settled<ReserveResult>[]>> {
    return serveWire(inputs, (input) => this.reserve(input));
  }

  private tryReserve(input: ReserveInput): ReserveResult {
    const s = this.store;
    return this.store.transaction(this.ctx.storage, (): ReserveResult => {
      const account = s.account();
      if (
        account?.disabled ||
        (account && !["operator", "admin"].includes(account.role)) ||
        s.fenced(input.tokenId)
      ) {
        return { kind: "fenced" };
      }
      const quota = s.quota() ?? DEFAULT_QUOTA;
      // Its fleet gave these job ids up (they were queued unconfirmed and this reservation came too late).
      const late = input.jobs.find((j) => s.givenUp(j.jobId));
      if (late)
        return {
          kind: "refused",
          code: "CONFLICT",
          message: `job ${late.jobId}'s admission took too long and was abandoned; nothing was queued: submit again`,
        };
      // A key already taken answers whatever the quota says now (a retry of an admitted request gets its
      // jobs): read on a refusal, and on success found by the key's insert, so an admission reads no key.
      const taken = (): ReserveResult | null => {
        const prior = input.key ? s.key(input.key) : null;
        return prior ? { kind: "key_taken", existing: this.keyView(prior), quota } : null;
      };
      const usedToday = s.gpuHoursToday(input.now);
      const held = s.heldCount();
      for (const [i, job] of input.jobs.entries()) {
        const refusal = quotaRefusal(
          job,
          quota,
          usedToday,
          i === 0 ? { held, adding: input.jobs.length } : undefined,
        );
        if (refusal) return taken() ?? { kind: "refused", ...refusal };
      }
      if (input.key) {
        const claimed =
          input.requestHash !== null &&
          s.claimKey({
            key: input.key,
            request_hash: input.requestHash,
            fleet_id: input.fleetId,
            job_ids: JSON.stringify(input.jobs.map((j) => j.jobId)),
            created_at: input.now,
          });
        if (!claimed) {
          const existing = taken();
          if (existing) return existing;
        }
      }
      for (const job of input.jobs) s.reserve(job.jobId, input.fleetId, input.now);
      return { kind: "reserved", quota };
    });
  }

  /**
   * Brings the active slots up to date with their fleets (a job that came to rest a moment ago has not been
   * reported yet). True when a slot was released. Refusals that arrive while one runs share it: a user at
   * max_jobs submitting in a loop asks each fleet once at a time, not once per refusal.
   */
  private refreshHeld(): Promise<boolean> {
    this.refreshing ??= this.askFleets().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async askFleets(): Promise<boolean> {
    let released = false;
    for (const [fleetId, slots] of byFleet(this.store.activeSlots())) {
      const states = await this.fleet(fleetId).jobsMoved(slots.map((r) => [r.job_id, r.job_version]));
      const moved: Array<{ jobId: string; state: SlotState; version: number }> = [];
      for (const [jobId, job] of Object.entries(states)) {
        if (!job) continue;
        const state = stateOf(job.status);
        if (state === "released") released = true;
        moved.push({ jobId, state, version: job.version });
      }
      // Not marked projected: D1 may not hold these versions yet.
      this.store.transaction(this.ctx.storage, () => this.store.applyJobStates(moved));
    }
    return released;
  }

  /** Who holds Idempotency-Key `key` (a refused request's retry may still be answered by it). */
  async keyOf(userId: string, key: string): Promise<KeyView | null> {
    await this.ensureLoaded(userId);
    const row = this.store.key(key);
    return row ? this.keyView(row) : null;
  }

  /** The fleet refused the jobs just reserved: their slots and the key go back, as if never asked. */
  async release(jobIds: string[]): Promise<void> {
    this.store.transaction(this.ctx.storage, () => {
      for (const id of jobIds) {
        const slot = this.store.slot(id);
        if (slot?.state === "reserved" && slot.job_version === 0) this.store.dropSlot(id);
      }
      this.store.dropKeysOf(jobIds);
    });
  }

  /**
   * Resuming makes a job active again: it takes a slot like a submit, unless it still holds one (its
   * pause has not reached this object yet). `reserved` until the fleet reports the resumed job.
   */
  async reserveResume(userId: string, jobId: string, fleetId: string, now: number): Promise<ResumeResult> {
    await this.ensureLoaded(userId);
    let r = this.tryResume(jobId, fleetId, now);
    if (r.kind === "over_quota" && (await this.refreshHeld())) r = this.tryResume(jobId, fleetId, now);
    if (r.kind === "reserved") await this.armSettle(now);
    return r;
  }

  private tryResume(jobId: string, fleetId: string, now: number): ResumeResult {
    const s = this.store;
    return this.store.transaction(this.ctx.storage, (): ResumeResult => {
      const slot = s.slot(jobId);
      if (slot && slot.state !== "released") return { kind: "held" };
      const quota = s.quota() ?? DEFAULT_QUOTA;
      const held = s.heldCount();
      if (held + 1 > quota.max_jobs) return { kind: "over_quota", max: quota.max_jobs, active: held };
      if (slot) s.setSlotState(jobId, "reserved", now);
      else s.reserve(jobId, fleetId, now);
      return { kind: "reserved" };
    });
  }

  /** The fleet refused the resume: the job rests again and its slot goes back. */
  async releaseResume(jobId: string): Promise<void> {
    const slot = this.store.slot(jobId);
    if (slot?.state === "reserved") this.store.setSlotState(jobId, "released");
  }

  /**
   * A fleet's report of its jobs' states and its runs' usage, sent after it wrote them to D1 (so each job
   * named here is projected). Idempotent: a job's state moves only with a newer version.
   */
  async notes(userId: string, n: FleetNotes): Promise<void> {
    await this.ensureLoaded(userId);
    const now = Date.now();
    this.store.transaction(this.ctx.storage, () => {
      this.store.applyJobNotes(
        n.fleetId,
        n.jobs.map((j) => ({ jobId: j.id, state: stateOf(j.status), version: j.version })),
        now,
      );
      for (const u of n.usage) this.store.putUsage(u.run_id, u.day, u.gpu_seconds);
      for (const r of n.runs) this.store.putRun(r.id, r.gpus, r.allocated_at, r.ended);
    });
  }

  /**
   * The admissions of the last minutes not yet in D1, by fleet: what a read must wait for (and have its
   * fleet confirm, should the submit's confirmation not have arrived yet), with the quota to confirm with.
   */
  async unprojected(): Promise<Unprojected> {
    const fleets: Record<string, string[]> = {};
    for (const r of this.store.unprojected(Date.now() - UNPROJECTED_WINDOW_MS)) {
      const ids = fleets[r.fleet_id] ?? [];
      ids.push(r.job_id);
      fleets[r.fleet_id] = ids;
    }
    return { fleets, quota: this.store.quota() ?? DEFAULT_QUOTA };
  }

  /**
   * A fleet asks about admissions it queued unconfirmed: those reserved here are confirmed there. Settling
   * old ones (`giveUp`, their submit's confirmation never came), the others are given up here, so that the
   * reservation, should it still arrive, is refused, and the fleet withdraws them.
   */
  async confirmations(userId: string, jobIds: string[], giveUp = true): Promise<Confirmations> {
    await this.ensureLoaded(userId);
    const now = Date.now();
    const reserved = this.store.transaction(this.ctx.storage, () =>
      jobIds.filter((id) => {
        const slot = this.store.slot(id);
        if (slot && slot.state !== "released") return true;
        // Asked early (FleetDO.pullConfirmations), a reservation not made yet may still come.
        if (!slot && giveUp) this.store.giveUp(id, now);
        return false;
      }),
    );
    return { quota: this.store.quota() ?? DEFAULT_QUOTA, reserved };
  }

  /** A token was revoked: from now on nothing it asks is reserved. */
  async fenceToken(userId: string, tokenId: string): Promise<void> {
    await this.ensureLoaded(userId);
    this.store.fence(tokenId, Date.now());
  }

  /** The account was disabled, enabled or given another role. */
  async setAccount(userId: string, account: { disabled: boolean; role: string }): Promise<void> {
    await this.ensureLoaded(userId);
    this.store.setAccount(account);
  }

  /** The user's quota as admissions apply it (a dry run's, which reserves nothing). */
  async quota(userId: string): Promise<Quota> {
    await this.ensureLoaded(userId);
    return this.store.quota() ?? DEFAULT_QUOTA;
  }

  async setQuota(userId: string, quota: Quota): Promise<void> {
    await this.ensureLoaded(userId);
    this.store.setQuota(quota);
  }

  /** What this object holds, for tests and diagnostics. */
  async inspect(): Promise<{ held: number; reserved: number; quota: Quota | null }> {
    return {
      held: this.store.heldCount(),
      reserved: this.store.staleReservations(Number.MAX_SAFE_INTEGER).length,
      quota: this.store.quota(),
    };
  }

  // alarm -----------------------------------------------------------------------

  /** Settles reservations that no fleet report settled: asks their fleets, who either have them or not. */
  override async alarm(): Promise<void> {
    this.alarmAt = undefined;
    const now = Date.now();
    try {
      const stale = this.store.staleReservations(now - this.settleMs());
      for (const [fleetId, slots] of byFleet(stale)) {
        const settled = await this.fleet(fleetId).settleAdmissions(
          slots.map((r) => r.job_id),
          this.store.quota() ?? DEFAULT_QUOTA,
        );
        this.store.transaction(this.ctx.storage, () => {
          const abandoned: string[] = [];
          for (const [jobId, job] of Object.entries(settled)) {
            if (job === null) {
              this.store.dropSlot(jobId);
              abandoned.push(jobId);
            } else {
              // What the fleet holds, not what D1 holds: a read still waits for its flush.
              this.store.applyJobNote(jobId, fleetId, stateOf(job.status), job.version, now, false);
              const slot = this.store.slot(jobId);
              // A resume's reservation of a job that rests again: the fleet's version did not move.
              if (slot?.state === "reserved") this.store.setSlotState(jobId, stateOf(job.status));
            }
          }
          this.store.dropKeysOf(abandoned);
        });
      }
      this.store.pruneUsage(now);
    } catch (err) {
      console.error("settling reservations failed; retrying", err);
      this.alarmAt = Date.now() + ALARM_RETRY_MS;
      await this.ctx.storage.setAlarm(this.alarmAt);
      return;
    }
    await this.armSettle();
  }

  // helpers ---------------------------------------------------------------------

  /**
   * A reservation no fleet report settled after this long (SF_RESERVATION_SETTLE_SECONDS, default 15) is
   * asked about: its fleet has the job (the slot follows it) or abandons the job id for good (the slot and
   * key are given back). With the alarm's own delay, a crash between reserve and enqueue holds a slot for
   * about 15–20 s.
   */
  private settleMs(): number {
    return doSettings(this.env).reservationSettleMs;
  }

  /**
   * The alarm at the oldest open reservation's settle time (or none). After a reservation made at
   * `reservedAt`, an alarm this object armed for no later than its settle time already covers it: every
   * older reservation was covered when it was made, and the alarm re-arms for what is left when it runs.
   */
  private async armSettle(reservedAt?: number): Promise<void> {
    if (reservedAt !== undefined && this.alarmAt != null && this.alarmAt <= reservedAt + this.settleMs())
      return;
    const oldest = this.store.oldestReservation();
    if (oldest === null) return;
    const due = oldest + this.settleMs();
    const current = await this.ctx.storage.getAlarm();
    this.alarmAt = current;
    if (current === null || current > due) {
      this.alarmAt = due;
      await this.ctx.storage.setAlarm(due);
    }
  }

  private keyView(k: KeyRow): KeyView {
    const jobIds = JSON.parse(k.job_ids) as string[];
    const slots = jobIds.map((id) => this.store.slot(id));
    return {
      request_hash: k.request_hash,
      fleet_id: k.fleet_id,
      job_ids: jobIds,
      reserved: slots.some((s) => s?.state === "reserved" && s.job_version === 0),
      created_at: k.created_at,
    };
  }

  /** The first call takes over what D1 knew about this user (quota, account, keys, slots, usage). */
  private async ensureLoaded(userId: string): Promise<void> {
    if (this.store.loaded()) return;
    await this.ctx.blockConcurrencyWhile(async () => {
      if (this.store.loaded()) return;
      const snapshot = await loadFromLedger(this.env.DB, userId, Date.now());
      this.store.transaction(this.ctx.storage, () => {
        if (snapshot.quota) this.store.setQuota(snapshot.quota);
        if (snapshot.account) this.store.setAccount(snapshot.account);
        for (const k of snapshot.keys) this.store.putKey(k);
        for (const sl of snapshot.slots)
          this.store.applyJobNote(sl.job_id, sl.fleet_id, sl.state, sl.version, sl.at);
        for (const u of snapshot.usage) this.store.putUsage(u.run_id, u.day, u.gpu_seconds);
        for (const r of snapshot.openRuns) this.store.putRun(r.run_id, r.gpus, r.allocated_at, false);
        this.store.markLoaded();
      });
      await this.armSettle();
    });
  }
}

export type UserStub = Rpc<UserDO>;
export type {
  ConfirmInput,
  FleetNotes,
  KeyView,
  ReserveInput,
  ReserveResult,
  ResumeResult,
  Unprojected,
} from "./types.js";
