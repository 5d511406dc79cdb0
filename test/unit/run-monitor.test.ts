/**
 * Live anomalies (durable-objects/run/monitor.ts): a hang is no new step for factor × the median interval
 * between step reports and at least the floor, judged only with enough intervals, raised once per stalled
 * step; a loss reported as NaN or infinite is NAN_LOSS, any other metric's is not.
 */
import { describe, expect, it } from "vitest";
import type { MetricPoint } from "../../contract/ingest.schema.js";
import {
  hangAt,
  hangBound,
  hangDue,
  nanLoss,
  observe,
  type Progress,
  type Watch,
} from "../../durable-objects/run/monitor.js";

const WATCH: Watch = { fleet_id: "flt", job_id: "job", policy: "warn", factor: 10, floor_ms: 60_000 };
const pt = (step: number, value: MetricPoint["value"] = 1, key = "train/loss"): MetricPoint => ({
  key,
  step,
  value,
});

/** Step reports every `every` ms from t=0: steps 0, 10, 20, … */
function steady(reports: number, every: number): Progress | null {
  let p: Progress | null = null;
  for (let i = 0; i < reports; i++) p = observe(p, [pt(i * 10), pt(i * 10, 2, "lr")], i * every);
  return p;
}

describe("a hang", () => {
  it("is judged only after enough step reports to have a median", () => {
    expect(hangBound(steady(3, 1_000), WATCH)).toBeNull();
    expect(hangDue(steady(3, 1_000), WATCH)).toBeNull();
    expect(hangBound(steady(4, 1_000), WATCH)).toBe(60_000);
  });

  it("is factor × the median interval, or the floor when that is longer", () => {
    const slow = steady(6, 30_000);
    expect(hangBound(slow, WATCH)).toBe(300_000);
    expect(hangDue(slow, WATCH)).toBe(5 * 30_000 + 300_000);
    expect(hangAt(slow, WATCH, 5 * 30_000 + 299_999)).toBeNull();
    const h = hangAt(slow, WATCH, 5 * 30_000 + 300_000);
    expect(h).toMatchObject({ class: "HANG", step: 50, silent_seconds: 300, bound_seconds: 300 });
    expect(h?.summary).toMatch(/no new step for 300 s after step 50/);
    // The median, not the mean: one long evaluation pause does not stretch the bound.
    let p = steady(10, 1_000);
    p = observe(p, [pt(100)], 9_000 + 500_000);
    expect(hangBound(p, WATCH)).toBe(60_000);
  });

  it("a repeated or older step is no progress; a newer one restarts the clock and may hang again", () => {
    let p = steady(5, 1_000);
    const before = hangDue(p, WATCH);
    p = observe(p, [pt(40), pt(12)], 50_000);
    expect(hangDue(p, WATCH)).toBe(before);
    const raised = { ...p!, hang_raised_at_step: p!.step };
    expect(hangDue(raised, WATCH)).toBeNull();
    const moved = observe(raised, [pt(50)], 70_000);
    expect(moved?.hang_raised_at_step).toBeNull();
    expect(hangDue(moved, WATCH)).toBe(70_000 + 60_000);
  });
});

describe("a NaN loss", () => {
  it("is a loss metric reported as nan or an infinity, the first of the batch", () => {
    expect(nanLoss([pt(1, 2.5), pt(2, "nan", "grad_norm")])).toBeNull();
    expect(nanLoss([pt(1, 2.5), pt(7, "inf", "eval/loss"), pt(8, "nan")])).toMatchObject({
      class: "NAN_LOSS",
      step: 7,
      key: "eval/loss",
      value: "inf",
      summary: "eval/loss became inf at step 7",
    });
  });
});
