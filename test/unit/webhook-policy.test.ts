/** The webhook retry policy: what an attempt's answer means for the delivery, and when it is tried again. */
import { describe, expect, it } from "vitest";
import { attemptOutcome, retryDelayMs, retrySettings } from "../../durable-objects/webhooks/policy.js";

const s = { baseMs: 30_000, maxAttempts: 8 };

describe("webhook retry policy", () => {
  it("delivers on any 2xx and retries everything else: 199, 300, 404, 500 and no answer", () => {
    for (const status of [200, 204, 299]) expect(attemptOutcome(status, 1, s, 0).state).toBe("delivered");
    for (const status of [199, 300, 404, 500, null])
      expect(attemptOutcome(status, 1, s, 0)).toEqual({ state: "pending", nextAttemptAt: 30_000 });
  });

  it("waits 30 s, 1, 2, 4, 8, 16, 32 min between the 8 default attempts, then fails", () => {
    const waits = [1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayMs(n, s) / 1000);
    expect(waits).toEqual([30, 60, 120, 240, 480, 960, 1920]);
    expect(attemptOutcome(500, 8, s, 0)).toEqual({ state: "failed", nextAttemptAt: null });
    expect(attemptOutcome(200, 8, s, 0).state).toBe("delivered");
  });

  it("never waits more than an hour, whatever the attempt", () => {
    expect(retryDelayMs(40, s)).toBe(3_600_000);
  });

  it("reads SF_WEBHOOK_* and falls back to 30 s and 8 attempts for missing or invalid values", () => {
    expect(retrySettings({ SF_WEBHOOK_RETRY_SECONDS: "1", SF_WEBHOOK_MAX_ATTEMPTS: "3" })).toEqual({
      baseMs: 1000,
      maxAttempts: 3,
    });
    expect(retrySettings({})).toEqual({ baseMs: 30_000, maxAttempts: 8 });
    expect(retrySettings({ SF_WEBHOOK_RETRY_SECONDS: "-1", SF_WEBHOOK_MAX_ATTEMPTS: "2.5" })).toEqual({
      baseMs: 30_000,
      maxAttempts: 8,
    });
  });
});
