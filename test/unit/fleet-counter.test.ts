/**
 * The fleet's counters (queue order, lease epochs, projection versions; fleet/tx.ts `counter`): every value
 * is greater than every value before it, across a restart and after a rollback, and the counter's meta row
 * is written once per block of COUNTER_BLOCK values, not once per value (a submit would write it each time).
 */
import { describe, expect, it } from "vitest";
import { MemoryFleetState } from "../../durable-objects/fleet/memory-state.js";
import { COUNTER_BLOCK, Tx } from "../../durable-objects/fleet/tx.js";

const ctx = {
  now: 0,
  newId: () => "x",
  settings: { retryBaseMs: 1_000, lostGraceMs: 1_000 },
};
const tx = (s: MemoryFleetState) => new Tx(s, ctx, () => {});

describe("a fleet counter", () => {
  it("hands out increasing values and writes its meta row once per block", () => {
    const s = new MemoryFleetState();
    const values: number[] = [];
    let metaWrites = 0;
    for (let i = 0; i < 2.5 * COUNTER_BLOCK; i++) {
      const t = tx(s);
      values.push(t.counter("queue_seq"));
      metaWrites += t.effects.filter((e) => e.kind === "meta").length;
    }
    expect(values).toEqual(Array.from({ length: values.length }, (_, i) => i + 1));
    expect(metaWrites).toBe(3);
    expect(Number(s.meta("queue_seq"))).toBeGreaterThanOrEqual(values.at(-1)!);
  });

  it("starts past everything it handed out after a restart or a rollback (which forget the block)", () => {
    const s = new MemoryFleetState();
    const first = [1, 2, 3].map(() => tx(s).counter("epoch"));
    // A restart: the same rows, nothing in memory.
    const restarted = new MemoryFleetState();
    for (const [k, v] of s.metaRows) restarted.metaRows.set(k, v);
    const after = tx(restarted).counter("epoch");
    expect(after).toBeGreaterThan(Math.max(...first));
    // A rollback forgets what was issued: the next value comes from a new block, still greater.
    restarted.issued.clear();
    expect(tx(restarted).counter("epoch")).toBeGreaterThan(after);
    // Counters are independent.
    expect(tx(restarted).counter("queue_seq")).toBe(1);
  });
});
