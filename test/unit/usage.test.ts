import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { utcDay } from "../../contract/time.js";
import { overlapGpuSeconds, splitByUtcDay } from "../../durable-objects/fleet/scheduler/usage.js";

const t = (iso: string) => Date.parse(iso);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe("splitByUtcDay", () => {
  it("keeps an interval inside one day whole", () => {
    expect(splitByUtcDay(t("2026-03-01T10:00:00Z"), t("2026-03-01T12:30:00Z"), 4)).toEqual([
      { day: "2026-03-01", gpuSeconds: 2.5 * 3600 * 4 },
    ]);
  });

  it("splits at UTC midnight", () => {
    expect(splitByUtcDay(t("2026-03-01T23:00:00Z"), t("2026-03-02T01:30:00Z"), 8)).toEqual([
      { day: "2026-03-01", gpuSeconds: 3600 * 8 },
      { day: "2026-03-02", gpuSeconds: 1.5 * 3600 * 8 },
    ]);
  });

  it("gives each full day in between 24 hours", () => {
    const parts = splitByUtcDay(t("2026-02-27T12:00:00Z"), t("2026-03-02T06:00:00Z"), 1);
    expect(parts).toEqual([
      { day: "2026-02-27", gpuSeconds: 12 * 3600 },
      { day: "2026-02-28", gpuSeconds: 24 * 3600 },
      { day: "2026-03-01", gpuSeconds: 24 * 3600 },
      { day: "2026-03-02", gpuSeconds: 6 * 3600 },
    ]);
  });

  it("does not emit an empty day when the interval ends exactly at midnight", () => {
    expect(splitByUtcDay(t("2026-03-01T22:00:00Z"), t("2026-03-02T00:00:00Z"), 2)).toEqual([
      { day: "2026-03-01", gpuSeconds: 2 * 3600 * 2 },
    ]);
  });

  it("starts a day cleanly when the interval starts exactly at midnight", () => {
    expect(splitByUtcDay(t("2026-03-02T00:00:00Z"), t("2026-03-02T00:00:01Z"), 3)).toEqual([
      { day: "2026-03-02", gpuSeconds: 3 },
    ]);
  });

  it("returns nothing for an empty or backwards interval", () => {
    const s = t("2026-03-01T10:00:00Z");
    expect(splitByUtcDay(s, s, 8)).toEqual([]);
    expect(splitByUtcDay(s, s - HOUR, 8)).toEqual([]);
  });

  it("sums to gpus x seconds, in increasing days, each within one day's worth", () => {
    const start = fc.integer({
      min: t("2020-01-01T00:00:00Z") / 1000,
      max: t("2030-01-01T00:00:00Z") / 1000,
    });
    fc.assert(
      fc.property(
        start,
        fc.integer({ min: 0, max: 10 * 86_400 }),
        fc.integer({ min: 0, max: 64 }),
        (s, len, gpus) => {
          const startMs = s * 1000;
          const endMs = startMs + len * 1000;
          const parts = splitByUtcDay(startMs, endMs, gpus);
          expect(parts.reduce((n, p) => n + p.gpuSeconds, 0)).toBe(len * gpus);
          expect(parts.length).toBe(
            len === 0 ? 0 : Math.floor((endMs - 1) / DAY) - Math.floor(startMs / DAY) + 1,
          );
          for (let i = 1; i < parts.length; i++) expect(parts[i]!.day > parts[i - 1]!.day).toBe(true);
          for (const p of parts) expect(p.gpuSeconds).toBeLessThanOrEqual(86_400 * gpus);
          if (parts.length > 0) {
            expect(parts[0]!.day).toBe(utcDay(startMs));
            expect(parts.at(-1)!.day).toBe(utcDay(endMs - 1));
          }
        },
      ),
    );
  });
});

describe("overlapGpuSeconds", () => {
  const s = t("2026-03-01T10:00:00Z");
  const e = s + 2 * HOUR;

  it("counts the whole interval when the window covers it", () => {
    expect(overlapGpuSeconds(s, e, 4, s - DAY, e + DAY)).toBe(2 * 3600 * 4);
  });

  it("counts only the part inside the window", () => {
    expect(overlapGpuSeconds(s, e, 4, s + HOUR, e + DAY)).toBe(3600 * 4);
    expect(overlapGpuSeconds(s, e, 4, s - DAY, s + HOUR / 2)).toBe(1800 * 4);
    expect(overlapGpuSeconds(s, e, 4, s + HOUR / 2, s + HOUR)).toBe(1800 * 4);
  });

  it("counts nothing for disjoint or merely touching intervals", () => {
    expect(overlapGpuSeconds(s, e, 4, e, e + HOUR)).toBe(0);
    expect(overlapGpuSeconds(s, e, 4, s - HOUR, s)).toBe(0);
    expect(overlapGpuSeconds(s, e, 4, e + HOUR, e + 2 * HOUR)).toBe(0);
  });

  it("counts nothing for zero GPUs, an empty interval or an empty window", () => {
    expect(overlapGpuSeconds(s, e, 0, s, e)).toBe(0);
    expect(overlapGpuSeconds(s, s, 4, s - HOUR, e)).toBe(0);
    expect(overlapGpuSeconds(s, e, 4, s + HOUR, s + HOUR)).toBe(0);
    expect(overlapGpuSeconds(s, e, 4, e, s)).toBe(0);
  });

  it("agrees with splitByUtcDay for a day window", () => {
    const start = t("2026-03-01T20:00:00Z");
    const end = t("2026-03-03T05:00:00Z");
    const day = t("2026-03-02T00:00:00Z");
    const split = splitByUtcDay(start, end, 8).find((p) => p.day === "2026-03-02");
    expect(overlapGpuSeconds(start, end, 8, day, day + DAY)).toBe(split?.gpuSeconds);
  });
});
