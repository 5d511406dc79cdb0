import { describe, expect, it } from "vitest";
import type { TimeWindow } from "../../contract/api.schema.js";
import { isValidTimeZone } from "../../contract/time.js";
import { closesAt, minuteOfWeek, windowStatus } from "../../durable-objects/fleet/scheduler/windows.js";

// 2026-01-04 is a Sunday; January is outside daylight saving time in New York (UTC-5). Tokyo is UTC+9.
const SUN = "2026-01-04";
const MON = "2026-01-05";
const FRI = "2026-01-09";
const SAT = "2026-01-10";
const at = (day: string, hhmm: string, ss = "00") => Date.parse(`${day}T${hhmm}:${ss}Z`);

const win = (w: Partial<TimeWindow> & Pick<TimeWindow, "days" | "start" | "end">): TimeWindow => ({
  tz: "UTC",
  ...w,
});

function opensAt(windows: TimeWindow[], series: string, now: number): string {
  const s = windowStatus(windows, series, now);
  if (s.open) throw new Error("expected the window to be closed");
  return s.opensAt;
}

describe("minuteOfWeek", () => {
  it("counts from Sunday 00:00 in the given zone", () => {
    expect(minuteOfWeek(at(SUN, "00:00"), "UTC")).toBe(0);
    expect(minuteOfWeek(at(MON, "00:00"), "UTC")).toBe(1440);
    expect(minuteOfWeek(at(MON, "09:30"), "UTC")).toBe(1440 + 570);
    expect(minuteOfWeek(at(SAT, "23:59"), "UTC")).toBe(7 * 1440 - 1);
  });

  it("shifts by the zone's offset, crossing days", () => {
    // Sunday 15:00 UTC is Monday 00:00 in Tokyo; Monday 03:00 UTC is Sunday 22:00 in New York.
    expect(minuteOfWeek(at(SUN, "15:00"), "Asia/Tokyo")).toBe(1440);
    expect(minuteOfWeek(at(MON, "03:00"), "America/New_York")).toBe(22 * 60);
  });
});

describe("isValidTimeZone", () => {
  it("accepts IANA zones and refuses made-up ones", () => {
    expect(isValidTimeZone("UTC")).toBe(true);
    expect(isValidTimeZone("America/New_York")).toBe(true);
    expect(isValidTimeZone("Asia/Tokyo")).toBe(true);
    expect(isValidTimeZone("Mars/Olympus_Mons")).toBe(false);
    expect(isValidTimeZone("")).toBe(false);
  });
});

describe("windowStatus", () => {
  const weekdayNine2Five = win({ days: [1, 2, 3, 4, 5], start: "09:00", end: "17:00" });

  it("is open when there are no windows", () => {
    expect(windowStatus([], "h200", at(SUN, "03:00"))).toEqual({ open: true });
  });

  it("is open inside the window and closed outside, end exclusive", () => {
    expect(windowStatus([weekdayNine2Five], "h200", at(MON, "09:00")).open).toBe(true);
    expect(windowStatus([weekdayNine2Five], "h200", at(MON, "16:59")).open).toBe(true);
    expect(windowStatus([weekdayNine2Five], "h200", at(MON, "08:59")).open).toBe(false);
    expect(windowStatus([weekdayNine2Five], "h200", at(MON, "17:00")).open).toBe(false);
    expect(windowStatus([weekdayNine2Five], "h200", at(SAT, "12:00")).open).toBe(false);
  });

  it("reports when a closed window opens next", () => {
    expect(opensAt([weekdayNine2Five], "h200", at(MON, "08:00"))).toBe(`${MON}T09:00:00.000Z`);
    expect(opensAt([weekdayNine2Five], "h200", at(MON, "17:00"))).toBe("2026-01-06T09:00:00.000Z");
    // Friday evening waits for Monday morning.
    expect(opensAt([weekdayNine2Five], "h200", at(FRI, "18:00"))).toBe("2026-01-12T09:00:00.000Z");
  });

  it("lands opens_at on the minute even when now has seconds", () => {
    expect(opensAt([weekdayNine2Five], "h200", at(MON, "08:59", "45") + 123)).toBe(`${MON}T09:00:00.000Z`);
  });

  it("keeps an overnight window open past midnight", () => {
    const nights = win({ days: [5], start: "22:00", end: "06:00" });
    expect(windowStatus([nights], "h200", at(FRI, "21:59")).open).toBe(false);
    expect(windowStatus([nights], "h200", at(FRI, "23:00")).open).toBe(true);
    expect(windowStatus([nights], "h200", at(SAT, "00:00")).open).toBe(true);
    expect(windowStatus([nights], "h200", at(SAT, "05:59")).open).toBe(true);
    expect(windowStatus([nights], "h200", at(SAT, "06:00")).open).toBe(false);
    expect(opensAt([nights], "h200", at(SAT, "06:00"))).toBe("2026-01-16T22:00:00.000Z");
  });

  it("wraps a Saturday-night window into Sunday morning across the week boundary", () => {
    const satNight = win({ days: [6], start: "22:00", end: "04:00" });
    expect(windowStatus([satNight], "h200", at(SUN, "03:00")).open).toBe(true);
    expect(windowStatus([satNight], "h200", at(SUN, "04:00")).open).toBe(false);
    expect(windowStatus([satNight], "h200", at(SAT, "21:00")).open).toBe(false);
  });

  it("switches exactly at day-of-week boundaries", () => {
    const weekdays = win({ days: [1, 2, 3, 4, 5], start: "00:00", end: "24:00" });
    expect(windowStatus([weekdays], "h200", at(SUN, "23:59")).open).toBe(false);
    expect(windowStatus([weekdays], "h200", at(MON, "00:00")).open).toBe(true);
    expect(windowStatus([weekdays], "h200", at(FRI, "23:59")).open).toBe(true);
    expect(windowStatus([weekdays], "h200", at(SAT, "00:00")).open).toBe(false);
    expect(opensAt([weekdays], "h200", at(SAT, "00:00"))).toBe("2026-01-12T00:00:00.000Z");
  });

  it("reads days and hours in the window's zone (America/New_York)", () => {
    const ny = win({ days: [1], start: "09:00", end: "17:00", tz: "America/New_York" });
    // 09:00 EST is 14:00 UTC.
    expect(windowStatus([ny], "h200", at(MON, "13:59")).open).toBe(false);
    expect(windowStatus([ny], "h200", at(MON, "14:00")).open).toBe(true);
    expect(windowStatus([ny], "h200", at(MON, "21:59")).open).toBe(true);
    expect(windowStatus([ny], "h200", at(MON, "22:00")).open).toBe(false);
    expect(opensAt([ny], "h200", at(MON, "10:00"))).toBe(`${MON}T14:00:00.000Z`);
  });

  it("reads days and hours in the window's zone (Asia/Tokyo, a day ahead of UTC)", () => {
    const tokyo = win({ days: [1], start: "09:00", end: "10:00", tz: "Asia/Tokyo" });
    // Monday 09:00 in Tokyo is Monday 00:00 UTC; Sunday 23:30 UTC is already Monday 08:30 there.
    expect(windowStatus([tokyo], "h200", at(SUN, "23:30")).open).toBe(false);
    expect(opensAt([tokyo], "h200", at(SUN, "23:30"))).toBe(`${MON}T00:00:00.000Z`);
    expect(windowStatus([tokyo], "h200", at(MON, "00:30")).open).toBe(true);
    expect(windowStatus([tokyo], "h200", at(MON, "01:00")).open).toBe(false);
    // Monday 09:30 UTC is Monday 18:30 in Tokyo: a UTC-only reading would wrongly call this open.
    expect(windowStatus([tokyo], "h200", at(MON, "09:30")).open).toBe(false);
  });

  it("applies a series-specific window only to that series", () => {
    const h200Nights = win({ series: "h200", days: [0, 1, 2, 3, 4, 5, 6], start: "20:00", end: "06:00" });
    const noon = at(MON, "12:00");
    expect(windowStatus([h200Nights], "h200", noon).open).toBe(false);
    expect(windowStatus([h200Nights], "l40s", noon)).toEqual({ open: true });
  });

  it("applies a window without a series to every series", () => {
    expect(windowStatus([weekdayNine2Five], "l40s", at(SAT, "12:00")).open).toBe(false);
  });

  it("is open when any relevant window is open, and opens at the soonest one", () => {
    const morning = win({ days: [1], start: "06:00", end: "07:00" });
    const evening = win({ days: [1], start: "20:00", end: "21:00" });
    expect(windowStatus([morning, evening], "h200", at(MON, "20:30")).open).toBe(true);
    expect(opensAt([evening, morning], "h200", at(MON, "05:00"))).toBe(`${MON}T06:00:00.000Z`);
    expect(opensAt([morning, evening], "h200", at(MON, "08:00"))).toBe(`${MON}T20:00:00.000Z`);
  });
});

describe("closesAt", () => {
  const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

  it("is the end of the open window, to the minute", () => {
    const w = [win({ days: [1], start: "09:00", end: "17:00" })];
    expect(iso(closesAt(w, "h200", at(MON, "10:15", "42")))).toBe(`${MON}T17:00:00.000Z`);
    expect(iso(closesAt(w, "h200", at(MON, "16:59", "59")))).toBe(`${MON}T17:00:00.000Z`);
  });

  it("is null while closed, and for series no window governs", () => {
    const w = [win({ days: [1], start: "09:00", end: "17:00", series: "h200" })];
    expect(closesAt(w, "h200", at(MON, "18:00"))).toBeNull();
    expect(closesAt(w, "a100", at(MON, "10:00"))).toBeNull();
    expect(closesAt([], "h200", at(MON, "10:00"))).toBeNull();
  });

  it("treats back-to-back and overlapping windows as one", () => {
    const w = [
      win({ days: [1], start: "09:00", end: "12:00" }),
      win({ days: [1], start: "12:00", end: "14:00" }),
      win({ days: [1], start: "13:00", end: "15:30" }),
    ];
    expect(iso(closesAt(w, "h200", at(MON, "09:30")))).toBe(`${MON}T15:30:00.000Z`);
  });

  it("follows a window across midnight and in its own time zone", () => {
    const overnight = [win({ days: [5], start: "22:00", end: "06:00" })];
    expect(iso(closesAt(overnight, "h200", at(FRI, "23:00")))).toBe(`${SAT}T06:00:00.000Z`);
    // 09:00-17:00 in New York (UTC-5 in January) closes at 22:00 UTC.
    const ny = [win({ days: [1], start: "09:00", end: "17:00", tz: "America/New_York" })];
    expect(iso(closesAt(ny, "h200", at(MON, "15:00")))).toBe(`${MON}T22:00:00.000Z`);
  });

  it("is null when windows cover the whole week", () => {
    const always = [win({ days: [0, 1, 2, 3, 4, 5, 6], start: "00:00", end: "00:00" })];
    expect(closesAt(always, "h200", at(SUN, "12:00"))).toBeNull();
  });
});
