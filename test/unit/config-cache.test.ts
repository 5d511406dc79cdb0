/**
 * The Worker's ConfigCache: admin-owned rows are read once per configuration generation. "None" (no
 * capsule published yet) is an answer like any other: reading it again on every submit cost a D1 round
 * trip per admission (found by the admissions benchmark).
 */
import { describe, expect, it } from "vitest";
import { ConfigCache } from "../../worker/services/generation-cache.js";

function counting<T>(value: T) {
  const load = async () => {
    load.calls += 1;
    return value;
  };
  load.calls = 0;
  return load;
}

describe("ConfigCache", () => {
  it("loads a value, and a null answer, once per generation", async () => {
    const cache = new ConfigCache();
    cache.sync("1");
    const fleet = counting({ name: "f" });
    const capsule = counting(null);
    for (let i = 0; i < 3; i++) {
      expect(await cache.get("fleet:f", fleet)).toEqual({ name: "f" });
      expect(await cache.get("capsule", capsule)).toBeNull();
    }
    expect([fleet.calls, capsule.calls]).toEqual([1, 1]);
    expect(cache.sync("1")).toBe(false);
    expect(cache.sync("2")).toBe(true);
    await cache.get("fleet:f", fleet);
    await cache.get("capsule", capsule);
    expect([fleet.calls, capsule.calls]).toEqual([2, 2]);
  });

  it("keeps nothing from a load that throws, or one that finished after the generation moved", async () => {
    const cache = new ConfigCache();
    cache.sync("1");
    let calls = 0;
    const failing = async () => {
      calls += 1;
      throw new Error("D1 unavailable");
    };
    await expect(cache.get("profiles", failing)).rejects.toThrow("D1 unavailable");
    await expect(cache.get("profiles", failing)).rejects.toThrow("D1 unavailable");
    expect(calls).toBe(2);

    let release: (v: string) => void = () => {};
    const slow = cache.get("recipe:r", () => new Promise<string>((r) => (release = r)));
    cache.sync("2");
    release("read under generation 1");
    expect(await slow).toBe("read under generation 1");
    const fresh = counting("read under generation 2");
    expect(await cache.get("recipe:r", fresh)).toBe("read under generation 2");
    expect(fresh.calls).toBe(1);
  });
});
