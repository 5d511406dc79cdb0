/** The Run DO's pure rules: held-back log lines are released in seq order, and holes are bounded. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runIsOver } from "../../contract/job-states.js";
import {
  type HeldLine,
  LOG_HOLD_LIMITS,
  normalizeTs,
  planRelease,
} from "../../durable-objects/run/policy.js";

const T0 = 1_800_000_000_000;

function held(seqs: number[], receivedAt = T0): HeldLine[] {
  return seqs.map((seq) => ({ seq, receivedAt }));
}

function plan(nextSeq: number, seqs: number[], opts: { now?: number; force?: boolean; at?: number } = {}) {
  return planRelease({
    nextSeq,
    held: held(seqs, opts.at ?? T0),
    heldTotal: seqs.length,
    now: opts.now ?? T0,
    force: opts.force ?? false,
  });
}

describe("planRelease", () => {
  it("releases a contiguous run from next_seq and holds what follows a hole", () => {
    expect(plan(3, [3, 4, 5, 7, 8])).toEqual({ release: [3, 4, 5], nextSeq: 6, skipped: [] });
    expect(plan(0, [2, 3])).toEqual({ release: [], nextSeq: 0, skipped: [] });
  });

  it("gives up on a hole once the oldest held line has waited maxWaitMs", () => {
    const justBefore = plan(0, [2, 3], { now: T0 + LOG_HOLD_LIMITS.maxWaitMs - 1 });
    expect(justBefore.release).toEqual([]);
    const due = plan(0, [2, 3, 5], { now: T0 + LOG_HOLD_LIMITS.maxWaitMs });
    expect(due).toEqual({
      release: [2, 3, 5],
      nextSeq: 6,
      skipped: [
        { from: 0, to: 2 },
        { from: 4, to: 5 },
      ],
    });
  });

  it("gives up on a hole when more than maxHeldLines wait behind it", () => {
    const limits = { maxHeldLines: 3, maxWaitMs: 60_000 };
    const few = planRelease(
      { nextSeq: 0, held: held([1, 2, 3]), heldTotal: 3, now: T0, force: false },
      limits,
    );
    expect(few.release).toEqual([]);
    const many = planRelease(
      { nextSeq: 0, held: held([1, 2, 3, 4]), heldTotal: 4, now: T0, force: false },
      limits,
    );
    expect(many).toEqual({ release: [1, 2, 3, 4], nextSeq: 5, skipped: [{ from: 0, to: 1 }] });
  });

  it("releases everything, skipping holes, when forced (the run is over)", () => {
    expect(plan(0, [1, 4], { force: true })).toEqual({
      release: [1, 4],
      nextSeq: 5,
      skipped: [
        { from: 0, to: 1 },
        { from: 2, to: 4 },
      ],
    });
  });

  it("never releases out of seq order, and releases everything once no hole is left", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.nat({ max: 60 }), { maxLength: 40 }),
        fc.nat({ max: 20 }),
        (seqs, start) => {
          const sorted = seqs.map((s) => s + start).sort((a, b) => a - b);
          const p = plan(start, sorted);
          // Released: exactly the contiguous prefix starting at `start`.
          let expected = 0;
          while (sorted[expected] === start + expected) expected++;
          expect(p.release).toEqual(sorted.slice(0, expected));
          expect(p.nextSeq).toBe(start + expected);
          expect(p.skipped).toEqual([]);
        },
      ),
    );
  });
});

describe("normalizeTs", () => {
  it("reads ISO strings, epoch seconds and epoch milliseconds", () => {
    expect(normalizeTs("2026-11-01T10:00:00.250Z", 0)).toBe(Date.parse("2026-11-01T10:00:00.250Z"));
    expect(normalizeTs(1_800_000_000.5, 0)).toBe(1_800_000_000_500);
    expect(normalizeTs(1_800_000_000_123, 0)).toBe(1_800_000_000_123);
  });

  it("falls back to the receive time for a missing or unreadable timestamp", () => {
    for (const ts of [undefined, "yesterday", -5, 1e300, Number.NaN]) expect(normalizeTs(ts, 42)).toBe(42);
  });
});

describe("runIsOver", () => {
  it("counts a run over once released or once it left the active statuses", () => {
    expect(runIsOver("RUNNING", null)).toBe(false);
    expect(runIsOver("SUBMITTED", null)).toBe(false);
    expect(runIsOver("RUNNING", "2026-11-01T00:00:00Z")).toBe(true);
    for (const s of ["SUCCEEDED", "FAILED", "STOPPED", "PAUSED"]) expect(runIsOver(s, null)).toBe(true);
  });
});
