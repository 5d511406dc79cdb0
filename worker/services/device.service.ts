/**
 * The device login (RFC 8628 shapes): `sf login` without a token asks for a code pair, a person approves
 * the short user code on the `/device` page from a browser signed in to the console, and the CLI's next
 * poll receives a brand-new token for that person, exactly once.
 *
 * Trade-off (docs/api.md): the token is minted by the successful poll, not by the approval, so no usable
 * secret is ever at rest in D1 — not even for the minutes between approval and pickup. The insert of the
 * token and the move of the row to `consumed` are one D1 batch (a transaction) guarded on `approved`, so
 * two racing polls cannot both receive a token.
 */
import { and, eq, gt, lt, sql } from "drizzle-orm";
import { nowIso } from "../../contract/ids.js";
import { col, db, prepared, schema } from "../../d1/client.js";
import { hashSecret } from "../auth/secrets.js";
import type { AppEnv } from "../env.js";
import { AppError } from "../errors.js";
import { prepareToken } from "./tokens.service.js";

export const DEVICE_CODE_TTL_SECONDS = 600;
export const POLL_INTERVAL_SECONDS = 2;
/** RFC 8628 §3.5: each SLOW_DOWN adds 5 s to the interval for this and all later polls. */
const SLOW_DOWN_STEP_SECONDS = 5;
/** A poll that comes this much early still counts as on time (timer and network jitter). */
const POLL_TOLERANCE_MS = 250;
/** Expired rows are kept this long, so a late poll still hears EXPIRED_TOKEN rather than INVALID_GRANT. */
const SWEEP_AFTER_MS = 3_600_000;

/** RFC 8628 §6.1: consonants only (no words), no look-alikes (no vowels, so no O/0 or I/1). 20^8 ≈ 2^34.6. */
const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";

export type DeviceRow = typeof schema.deviceCodes.$inferSelect;

function randomUserCode(): string {
  let out = "";
  while (out.length < 8) {
    for (const b of crypto.getRandomValues(new Uint8Array(16))) {
      // 240 = 12 × 20: rejecting the top bytes keeps every letter equally likely.
      if (b < 240 && out.length < 8) out += USER_CODE_ALPHABET[b % 20];
    }
  }
  return out;
}

/** `ABCDEFGH` → `ABCD-EFGH`, the form people read and type. */
export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** What a person typed (any case, with or without the dash or spaces) → the stored form, or null. */
export function normalizeUserCode(input: string): string | null {
  const code = input.toUpperCase().replace(/[\s-]/g, "");
  if (code.length !== 8) return null;
  for (const ch of code) if (!USER_CODE_ALPHABET.includes(ch)) return null;
  return code;
}

function randomDeviceCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return `sfd_${btoa(s).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "")}`;
}

export interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

export async function startDeviceLogin(
  env: AppEnv,
  publicUrl: string,
  now = Date.now(),
): Promise<DeviceAuthorization> {
  const d = db(env.DB);
  await d
    .delete(schema.deviceCodes)
    .where(lt(schema.deviceCodes.expiresAt, nowIso(now - SWEEP_AFTER_MS)))
    .run();
  const deviceCode = randomDeviceCode();
  const deviceCodeHash = await hashSecret(deviceCode);
  // A user code collides with a live one about once in 2^34 tries; retrying on the unique index is enough.
  for (let attempt = 0; ; attempt++) {
    const userCode = randomUserCode();
    try {
      await d
        .insert(schema.deviceCodes)
        .values({
          deviceCodeHash,
          userCode,
          intervalSeconds: POLL_INTERVAL_SECONDS,
          expiresAt: nowIso(now + DEVICE_CODE_TTL_SECONDS * 1000),
        })
        .run();
      const base = publicUrl.replace(/\/+$/, "");
      return {
        device_code: deviceCode,
        user_code: formatUserCode(userCode),
        verification_uri: `${base}/device`,
        verification_uri_complete: `${base}/device?user_code=${formatUserCode(userCode)}`,
        expires_in: DEVICE_CODE_TTL_SECONDS,
        interval: POLL_INTERVAL_SECONDS,
      };
    } catch (err) {
      if (attempt >= 3 || !String(err).includes("UNIQUE")) throw err;
    }
  }
}

/** What a poll gets, decided from the row alone (pure; the caller writes `touch` and acts on `kind`). */
export type PollDecision =
  | { kind: "invalid" }
  | { kind: "consumed" }
  | { kind: "expired" }
  | { kind: "denied" }
  | { kind: "slow_down"; interval: number }
  | { kind: "pending" }
  | { kind: "approved" };

export function decidePoll(row: DeviceRow | undefined, now: number): PollDecision {
  if (!row) return { kind: "invalid" };
  if (row.status === "consumed") return { kind: "consumed" };
  if (Date.parse(row.expiresAt) <= now) return { kind: "expired" };
  if (row.status === "denied") return { kind: "denied" };
  if (row.lastPolledAt !== null && now - row.lastPolledAt < row.intervalSeconds * 1000 - POLL_TOLERANCE_MS) {
    return { kind: "slow_down", interval: row.intervalSeconds + SLOW_DOWN_STEP_SECONDS };
  }
  return row.status === "approved" ? { kind: "approved" } : { kind: "pending" };
}

/** `POST /v1/auth/device/token`: the token exactly once, or the RFC 8628 error for where the login is. */
export async function pollDeviceLogin(
  env: AppEnv,
  deviceCode: string,
  now = Date.now(),
): Promise<{ token: string; user: string; name: string }> {
  const d = db(env.DB);
  const hash = await hashSecret(deviceCode);
  const row = await d
    .select()
    .from(schema.deviceCodes)
    .where(eq(schema.deviceCodes.deviceCodeHash, hash))
    .get();
  const decision = decidePoll(row, now);
  switch (decision.kind) {
    case "invalid":
      throw new AppError("INVALID_GRANT", "unknown device code; start again with `sf login`");
    case "consumed":
      throw new AppError("INVALID_GRANT", "this device code was already exchanged for a token");
    case "expired":
      throw new AppError(
        "EXPIRED_TOKEN",
        "the code expired before it was approved; start again with `sf login`",
      );
    case "denied":
      throw new AppError("ACCESS_DENIED", "the login was denied on the device page");
    case "slow_down":
      await d
        .update(schema.deviceCodes)
        .set({ intervalSeconds: decision.interval, lastPolledAt: now })
        .where(eq(schema.deviceCodes.deviceCodeHash, hash))
        .run();
      throw new AppError("SLOW_DOWN", `polled too often; wait ${decision.interval} s between polls`, {
        interval: decision.interval,
      });
    case "pending":
      await d
        .update(schema.deviceCodes)
        .set({ lastPolledAt: now })
        .where(eq(schema.deviceCodes.deviceCodeHash, hash))
        .run();
      throw new AppError(
        "AUTHORIZATION_PENDING",
        "waiting for someone to approve the code on the device page",
        {
          interval: row!.intervalSeconds,
        },
      );
    case "approved":
      return mintForApproved(env, row!, now);
  }
}

async function mintForApproved(env: AppEnv, row: DeviceRow, now: number) {
  const userId = row.userId!;
  const name = `sf device login ${nowIso(now).slice(0, 10)}`;
  const { row: tok, secret } = await prepareToken(userId, name);
  const at = nowIso(now);
  // One transaction: the token exists only if this poll moved the row from approved to consumed, and only
  // while its owner is still enabled.
  const { tokens, deviceCodes: dc, users } = schema;
  const [inserted] = await env.DB.batch([
    prepared(
      env.DB,
      sql`INSERT INTO ${tokens}
          (${col(tokens.id)}, ${col(tokens.userId)}, ${col(tokens.name)}, ${col(tokens.hash)},
           ${col(tokens.prefix)}, ${col(tokens.createdAt)})
        SELECT ${tok.id}, ${dc.userId}, ${name}, ${tok.hash}, ${tok.prefix}, ${at}
        FROM ${dc} JOIN ${users} ON ${users.id} = ${dc.userId}
        WHERE ${dc.deviceCodeHash} = ${row.deviceCodeHash} AND ${dc.status} = 'approved'
          AND ${dc.expiresAt} > ${at} AND ${users.disabled} = 0`,
    ),
    prepared(
      env.DB,
      db(env.DB)
        .update(dc)
        .set({ status: "consumed", tokenId: tok.id, lastPolledAt: now })
        .where(
          and(
            eq(dc.deviceCodeHash, row.deviceCodeHash),
            eq(dc.status, "approved"),
            sql`EXISTS (SELECT 1 FROM ${tokens} WHERE ${tokens.id} = ${tok.id})`,
          ),
        ),
    ),
  ]);
  if (!inserted?.meta.changes) {
    const user = await db(env.DB).select().from(schema.users).where(eq(schema.users.id, userId)).get();
    if (user?.disabled) throw new AppError("ACCESS_DENIED", `user ${user.name} is disabled`);
    throw new AppError("INVALID_GRANT", "this device code was already exchanged for a token");
  }
  const user = await db(env.DB).select().from(schema.users).where(eq(schema.users.id, userId)).get();
  return { token: secret, user: user?.name ?? "", name };
}

/** Why an approval on the page failed; `status` is the HTTP status the page answers with. */
export class DeviceApprovalError extends Error {
  constructor(
    readonly status: 400 | 404 | 409,
    message: string,
  ) {
    super(message);
  }
}

/** Who approves: the signed-in console session's user (its token, user and enabled state already checked). */
export interface Approver {
  userId: string;
  name: string;
}

/** The `/device` form: approve or deny a user code, for the signed-in person. */
export async function decideDeviceLogin(
  env: AppEnv,
  input: { userCode: string; approver: Approver; approve: boolean },
  now = Date.now(),
): Promise<{ user: string; userCode: string }> {
  const user = { id: input.approver.userId, name: input.approver.name };
  const code = normalizeUserCode(input.userCode);
  if (!code) throw new DeviceApprovalError(400, "A code is 8 letters, like BCDF-GHJK.");
  const d = db(env.DB);
  const row = await d.select().from(schema.deviceCodes).where(eq(schema.deviceCodes.userCode, code)).get();
  if (!row || Date.parse(row.expiresAt) <= now) {
    throw new DeviceApprovalError(
      404,
      "No login is waiting for that code (it may have expired). Run `sf login` again.",
    );
  }
  if (row.status !== "pending")
    throw new DeviceApprovalError(409, "That code was already approved or denied.");
  const dc = schema.deviceCodes;
  const r = await prepared(
    env.DB,
    d
      .update(dc)
      .set({ status: input.approve ? "approved" : "denied", userId: user.id })
      .where(and(eq(dc.userCode, code), eq(dc.status, "pending"), gt(dc.expiresAt, nowIso(now)))),
  ).run();
  if (!r.meta.changes) throw new DeviceApprovalError(409, "That code was already approved or denied.");
  return { user: user.name, userCode: formatUserCode(code) };
}
