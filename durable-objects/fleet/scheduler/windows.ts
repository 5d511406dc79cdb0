/**
 * Recurring time windows (days of week + HH:MM range in a time zone). Pure: `now` is passed in.
 * A window whose end is at or before its start spans midnight into the next day.
 * `opens_at` is computed in minutes-of-week in the window's zone; across a DST change it may be an hour off.
 */
import type { TimeWindow } from "../../../contract/api.schema.js";

const WEEK = 7 * 1440;
const DAY_INDEX: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      weekday: "short",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    });
    formatters.set(tz, f);
  }
  return f;
}

/** Minute of the week (0 = Sunday 00:00) of `now` in zone `tz`. */
export function minuteOfWeek(now: number, tz: string): number {
  const parts = formatter(tz).formatToParts(new Date(now));
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? "";
  return (DAY_INDEX[get("weekday")] ?? 0) * 1440 + Number(get("hour")) * 60 + Number(get("minute"));
}

function toMinutes(hhmm: string): number {
  const [h, m] = hhmm.split(":").map(Number);
  return h! * 60 + m!;
}

/** The [start, end) intervals of a window in minutes-of-week; an end beyond WEEK wraps. */
function intervals(w: TimeWindow): Array<[number, number]> {
  const start = toMinutes(w.start);
  let end = toMinutes(w.end);
  if (end <= start) end += 1440;
  return w.days.map((d) => [d * 1440 + start, d * 1440 + end]);
}

function contains([s, e]: [number, number], m: number): boolean {
  return (m >= s && m < e) || (m + WEEK >= s && m + WEEK < e);
}

export type WindowStatus = { open: true } | { open: false; opensAt: string };

export function windowStatus(windows: readonly TimeWindow[], series: string, now: number): WindowStatus {
  const relevant = windows.filter((w) => w.series === undefined || w.series === series);
  if (relevant.length === 0) return { open: true };
  let soonest = Number.POSITIVE_INFINITY;
  for (const w of relevant) {
    const m = minuteOfWeek(now, w.tz);
    for (const iv of intervals(w)) {
      if (contains(iv, m)) return { open: true };
      soonest = Math.min(soonest, (((iv[0] - m) % WEEK) + WEEK) % WEEK);
    }
  }
  // Round down to the minute so opens_at lands on the window's HH:MM.
  const base = Math.floor(now / 60_000) * 60_000;
  return { open: false, opensAt: new Date(base + soonest * 60_000).toISOString() };
}

/**
 * When the open window for `series` closes (ms), or null when no window governs the series or it is closed
 * now. Back-to-back or overlapping windows count as one: the close is the first minute nothing covers.
 */
export function closesAt(windows: readonly TimeWindow[], series: string, now: number): number | null {
  const relevant = windows.filter((w) => w.series === undefined || w.series === series);
  if (relevant.length === 0 || !windowStatus(relevant, series, now).open) return null;
  const base = Math.floor(now / 60_000) * 60_000;
  const ahead = new Set<number>();
  for (const w of relevant) {
    const m = minuteOfWeek(now, w.tz);
    for (const [, end] of intervals(w)) ahead.add((((end - m) % WEEK) + WEEK) % WEEK || WEEK);
  }
  for (const d of [...ahead].sort((a, b) => a - b)) {
    const at = base + d * 60_000;
    if (!windowStatus(relevant, series, at).open) return at;
  }
  return null; // covered all week
}
