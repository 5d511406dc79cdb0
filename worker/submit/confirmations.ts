/**
 * A submit asks the user's object and the fleet's at once (submit.ts): the fleet queues the jobs
 * unconfirmed, and hears that their reservation was taken a moment after the answer. That confirmation
 * rides on this isolate's next call to the same fleet (a busy submitter sends one every millisecond or
 * so); what no call brought within a few milliseconds the fleet asks the users' objects for itself
 * (FleetDO.pullConfirmations), and a read of the jobs confirms them first (read-your-writes.ts).
 *
 * Also what this isolate last heard of each user's quota: the parallel path needs one to queue with (the
 * confirmation brings the reservation's own), and a user this isolate never reserved for goes the serial
 * way, reservation first.
 */
import type { Quota } from "../../contract/api.schema.js";
import { toWire, type Wire } from "../../durable-objects/group-commit.js";
import type { ConfirmInput } from "../../durable-objects/user/user.do.js";

const MAX_USERS = 10_000;
/** Confirmations kept per fleet for its next call (a fleet pulls what no call brought). */
const MAX_WAITING = 1_000;

const waiting = new Map<string, ConfirmInput[]>();
const quotas = new Map<string, Quota>();

/** The quota this isolate last heard for `userId` (null: none yet). */
export function knownQuota(userId: string): Quota | null {
  return quotas.get(userId) ?? null;
}

export function rememberQuota(userId: string, quota: Quota): void {
  if (quotas.size >= MAX_USERS && !quotas.has(userId)) quotas.clear();
  quotas.set(userId, quota);
}

/** The confirmations waiting for fleet `fleetId`, taken by the call about to carry them. */
export function takeConfirmations(fleetId: string): Wire<ConfirmInput[]> | undefined {
  const list = waiting.get(fleetId);
  if (!list) return undefined;
  waiting.delete(fleetId);
  return toWire(list);
}

/**
 * Confirms `input` to fleet `fleetId` with this isolate's next call to it. Nothing else is armed here (a
 * timer per request cost more than the parallel call saved): a fleet that still holds unconfirmed jobs a
 * few milliseconds later asks their users' objects itself (FleetDO.pullConfirmations).
 */
export function confirmLater(fleetId: string, input: ConfirmInput): void {
  const list = waiting.get(fleetId);
  if (!list) waiting.set(fleetId, [input]);
  // A fleet this isolate stopped calling has pulled these long ago: keep the list bounded.
  else if (list.length < MAX_WAITING) list.push(input);
}
