/** The one backoff rule: capped exponential, full jitter by default, exact ceilings when asked. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { backoffCeiling, backoffDelay, sleepBackoff } from "../../contract/backoff.js";

describe("backoff", () => {
  it("doubles from the base up to the cap", () => {
    const b = { baseMs: 100, capMs: 1000 };
    expect([0, 1, 2, 3, 4, 5, 60].map((a) => backoffCeiling(a, b))).toEqual([
      100, 200, 400, 800, 1000, 1000, 1000,
    ]);
  });

  it("full jitter is uniform in [0, ceiling]: the extremes of random() reach both ends", () => {
    const b = { baseMs: 100, capMs: 1000 };
    expect(backoffDelay(3, b, () => 0)).toBe(0);
    expect(backoffDelay(3, b, () => 0.999_999)).toBe(799);
    fc.assert(
      fc.property(
        fc.nat({ max: 80 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (a, r) => {
          const d = backoffDelay(a, b, () => r);
          expect(d).toBeGreaterThanOrEqual(0);
          expect(d).toBeLessThanOrEqual(backoffCeiling(a, b));
        },
      ),
    );
  });

  it("without jitter it is exactly the ceiling (the minimum spacing users are promised)", () => {
    const b = { baseMs: 1000, capMs: 60_000, jitter: "none" as const };
    expect([0, 1, 2, 10].map((a) => backoffDelay(a, b, () => 0))).toEqual([1000, 2000, 4000, 60_000]);
  });

  it("sleepBackoff returns at once when its signal aborts", async () => {
    const ac = new AbortController();
    const started = Date.now();
    const p = sleepBackoff(10, { baseMs: 10_000, capMs: 60_000, jitter: "none" }, ac.signal);
    ac.abort();
    await p;
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
