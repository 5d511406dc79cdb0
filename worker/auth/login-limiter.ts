/**
 * Failed logins, limited per client address and per presented token. A failure (an unknown, malformed,
 * revoked or expired token, an agent credential that does not verify, a failed enrollment) is counted by
 * the Rate Limiting bindings AUTH_FAILURES_BY_ADDRESS and AUTH_FAILURES_BY_TOKEN (limits in wrangler.toml).
 * The failure that passes either limit locks that address or token out for LOCKOUT_SECONDS: its requests
 * are answered 429 TOO_MANY_FAILED_LOGINS before any token is looked up, a valid token's too, so a guess
 * that happens to be right during a lockout tells the guesser nothing. Successful requests never reach
 * the bindings, so no amount of good traffic is ever limited.
 *
 * Why a lockout map beside the bindings: a binding can only count (`limit()` checks and increments in
 * one call), so asking it "is this address locked out?" on every request would count successes too.
 * The bindings hold the shared count (per Cloudflare location, across isolates); this isolate remembers
 * what they refused. Another isolate learns of a lockout at the first failure it sees from that address
 * or with that token, which it then refuses without looking the token up.
 */
import { sha256Hex } from "../../contract/digest.js";
import type { AppEnv } from "../env.js";
import { AppError } from "../errors.js";

/** What the limiter uses of a request's context (any route's: the /v1 API's, the /device page's). */
type Ctx = {
  env: Pick<AppEnv, "AUTH_FAILURES_BY_ADDRESS" | "AUTH_FAILURES_BY_TOKEN">;
  req: { raw: Request };
  header(name: string, value: string): void;
};

/** The longest period a [[ratelimits]] binding can have (10 or 60 s): never shorter than its window. */
export const LOCKOUT_SECONDS = 60;
/** Bounded memory: past this many, the oldest lockout is forgotten first (the bindings still count). */
const MAX_LOCKOUTS = 10_000;

/**
 * `addr:<address key>` or `tok:<token key>` → when its lockout ends (epoch ms). Every lockout lasts as
 * long, and a renewed one is moved to the end, so insertion order is expiry order.
 */
const lockedUntil = new Map<string, number>();

/** Forgets the lockouts that have ended, oldest first, so an isolate that knows of none pays nothing. */
function forgetEnded(now: number): void {
  for (const [key, until] of lockedUntil) {
    if (until > now) return;
    lockedUntil.delete(key);
  }
}

/** The address Cloudflare reports, else a proxy's first X-Forwarded-For hop, else one shared bucket. */
export function clientAddress(headers: Headers): string {
  const cf = headers.get("cf-connecting-ip")?.trim();
  if (cf) return cf;
  const forwarded = headers.get("x-forwarded-for")?.split(",")[0]?.trim();
  return forwarded || "unknown";
}

/**
 * What an address is counted as: IPv4 as is, IPv6 by its /64 (one subscriber's usual share, which an
 * attacker could otherwise walk through one address per guess).
 */
export function addressKey(address: string): string {
  if (!address.includes(":")) return address;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  const [head = "", tail] = address.split("%")[0]!.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups =
    tail === undefined
      ? left
      : [...left, ...new Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  const prefix = groups.slice(0, 4).map((g) => (Number.parseInt(g, 16) || 0).toString(16));
  return `${prefix.join(":")}::/64`;
}

/** A presented credential without its `Bearer` scheme, so varying the scheme's case counts as one token. */
function credentialOf(presented: string): string {
  return presented.replace(/^\s*bearer\s+/i, "").trim();
}

/** Never the token, nor the hash D1 stores for it: a digest of its own, labelled for this use. */
function tokenKey(presented: string): Promise<string> {
  return sha256Hex(`starforge login limit\n${credentialOf(presented)}`);
}

function addressOf(c: Ctx): string {
  return addressKey(clientAddress(c.req.raw.headers));
}

function refuse(c: Ctx, scope: "address" | "token", untilMs: number, now: number): never {
  const seconds = Math.max(1, Math.ceil((untilMs - now) / 1000));
  c.header("Retry-After", String(seconds));
  const message =
    scope === "address"
      ? `too many failed logins from this address; it is refused for ${seconds} s, valid tokens too`
      : `too many failed logins with this token; it is refused for ${seconds} s`;
  throw new AppError("TOO_MANY_FAILED_LOGINS", message, { scope, retry_after: seconds });
}

/**
 * Refuses (429, with Retry-After) a request whose address or presented credential is locked out. Free
 * while this isolate knows of no lockout: no hashing, no I/O.
 */
export async function refuseIfLockedOut(c: Ctx, presented: string | null): Promise<void> {
  const now = Date.now();
  forgetEnded(now);
  if (lockedUntil.size === 0) return;
  const locks: Array<["address" | "token", string]> = [["address", `addr:${addressOf(c)}`]];
  if (presented) locks.push(["token", `tok:${await tokenKey(presented)}`]);
  for (const [scope, lock] of locks) {
    const until = lockedUntil.get(lock);
    if (until !== undefined) refuse(c, scope, until, now);
  }
}

/**
 * Counts one failed login against the client's address and, when one was presented, the credential.
 * Returns while both are within their limits (the caller then answers its own 401); otherwise locks out
 * whichever passed its limit and throws 429 TOO_MANY_FAILED_LOGINS instead.
 */
export async function countFailedLogin(c: Ctx, presented: string | null): Promise<void> {
  const address = addressOf(c);
  const token = presented ? await tokenKey(presented) : null;
  const [addressOk, tokenOk] = await Promise.all([
    withinLimit(c.env.AUTH_FAILURES_BY_ADDRESS, address),
    token === null || withinLimit(c.env.AUTH_FAILURES_BY_TOKEN, token),
  ]);
  if (addressOk && tokenOk) return;
  const now = Date.now();
  const until = now + LOCKOUT_SECONDS * 1000;
  if (!addressOk) lockOut(`addr:${address}`, until);
  if (!tokenOk) lockOut(`tok:${token}`, until);
  refuse(c, addressOk ? "token" : "address", until, now);
}

/** A binding that fails is not a reason to answer 500: the failure being counted is refused anyway. */
async function withinLimit(binding: RateLimit, key: string): Promise<boolean> {
  try {
    return (await binding.limit({ key })).success;
  } catch (err) {
    console.warn("failed-login rate limiter unavailable", err);
    return true;
  }
}

function lockOut(key: string, until: number): void {
  lockedUntil.delete(key);
  forgetEnded(Date.now());
  if (lockedUntil.size >= MAX_LOCKOUTS) {
    const oldest = lockedUntil.keys().next().value;
    if (oldest !== undefined) lockedUntil.delete(oldest);
  }
  lockedUntil.set(key, until);
}

/** Whether an error refused the caller's credentials (every 401), as opposed to their role or the request. */
export function isFailedLogin(err: unknown): boolean {
  return err instanceof AppError && err.status === 401;
}
