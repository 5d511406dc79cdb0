// Ids and timestamps every layer mints (contract/ids.ts): a prefix, a ULID in lowercase Crockford base32
// whose first ten characters sort by creation time, random characters spread over the whole alphabet, and
// ISO 8601 times that follow the clock.
import { describe, expect, it } from "vitest";
import { newId, nowIso } from "../../contract/ids.js";

describe("newId", () => {
  it("gives prefixed, distinct, time-sortable ULIDs", () => {
    const ids = Array.from({ length: 5000 }, () => newId("job"));
    for (const id of ids) expect(id).toMatch(/^job_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(new Set(ids).size).toBe(ids.length);
    const times = ids.map((id) => id.slice(4, 14));
    expect(times).toEqual([...times].sort());
  });

  it("draws the random part uniformly over the 32 characters", () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 4000; i++)
      for (const ch of newId("run").slice(14)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    // 64,000 characters: 2,000 expected per character; 5 standard deviations is about ±220.
    expect(counts.size).toBe(32);
    for (const n of counts.values()) expect(Math.abs(n - 2000)).toBeLessThan(300);
  });
});

describe("nowIso", () => {
  it("formats each instant, repeated or not", () => {
    expect(nowIso(0)).toBe("1970-01-01T00:00:00.000Z");
    expect(nowIso(0)).toBe("1970-01-01T00:00:00.000Z");
    expect(nowIso(86_400_001)).toBe("1970-01-02T00:00:00.001Z");
    expect(nowIso(0)).toBe("1970-01-01T00:00:00.000Z");
  });
});
