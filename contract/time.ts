/** Time helpers every layer uses the same way (quotas by UTC day, time zones of windows). Pure. */
import { nowIso } from "./ids.js";

/** The UTC calendar day of an instant, `YYYY-MM-DD`: the unit of daily GPU-hour quotas and usage. */
export function utcDay(ms: number): string {
  return nowIso(ms).slice(0, 10);
}

export const DAY_MS = 86_400_000;

/** Splits an allocation interval into GPU-seconds per UTC day, so daily quotas and reports agree. */
export function splitByUtcDay(
  startMs: number,
  endMs: number,
  gpus: number,
): Array<{ day: string; gpuSeconds: number }> {
  const out: Array<{ day: string; gpuSeconds: number }> = [];
  let t = startMs;
  while (t < endMs) {
    const upTo = Math.min((Math.floor(t / DAY_MS) + 1) * DAY_MS, endMs);
    out.push({ day: utcDay(t), gpuSeconds: ((upTo - t) / 1000) * gpus });
    t = upTo;
  }
  return out;
}

/** Whether the runtime knows the IANA time zone (fleet windows are given in one). */
export function isValidTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** A span of time for people, the same on the server and in the browser: 45s, 12m 05s, 3h 02m, 2d 04h. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const pad = (n: number) => String(n).padStart(2, "0");
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${pad(s % 60)}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${pad(Math.floor((s % 3600) / 60))}m`;
  return `${Math.floor(s / 86400)}d ${pad(Math.floor((s % 86400) / 3600))}h`;
}
