// Group commit per object (durable-objects/group-commit.ts): a call with nothing in flight goes at once;
// calls that arrive meanwhile go together next, each with its own result; limits cap a batch; a lane whose
// call never comes back does not hold the waiting requests forever.
import { describe, expect, it } from "vitest";
import {
  GroupCommit,
  type Sender,
  type Settled,
  serveWire,
  settledFromWire,
  settleEach,
  toWire,
} from "../../durable-objects/group-commit.js";

/** An object that answers each batch when `release` is called (or at once), recording every batch. */
function fakeObject(opts: { hold?: boolean } = {}) {
  const batches: { key: string; inputs: number[] }[] = [];
  const pending: (() => void)[] = [];
  const keptAlive: Promise<unknown>[] = [];
  const via: Sender<number, number> = {
    keepAlive: (p) => void keptAlive.push(p),
    send: (key, inputs) => {
      batches.push({ key, inputs });
      const answer = (): Settled<number>[] =>
        inputs.map((x) =>
          x < 0 ? { ok: false, error: new Error(`refused ${x}`) } : { ok: true, value: x * 10 },
        );
      if (!opts.hold) return Promise.resolve(answer());
      return new Promise((resolve) => pending.push(() => resolve(answer())));
    },
  };
  const release = async () => {
    const next = pending.shift();
    if (!next) throw new Error("no call in flight");
    next();
    // Let the answers, the next turn and the next send run.
    for (let i = 0; i < 10; i++) await Promise.resolve();
  };
  return { batches, via, release, keptAlive };
}

const limits = { maxInputs: 64, maxWeight: 1000, stallMs: 60_000 };

describe("group commit", () => {
  it("sends a lone call at once, and the calls that arrive while it is in flight together next", async () => {
    const g = new GroupCommit<number, number>(limits);
    const o = fakeObject({ hold: true });
    const first = g.call("u1", 1, 1, o.via);
    const rest = [2, 3, 4].map((x) => g.call("u1", x, 1, o.via));
    await Promise.resolve();
    expect(o.batches).toEqual([{ key: "u1", inputs: [1] }]);
    await o.release();
    expect(await first).toBe(10);
    expect(o.batches.at(-1)).toEqual({ key: "u1", inputs: [2, 3, 4] });
    await o.release();
    expect(await Promise.all(rest)).toEqual([20, 30, 40]);
  });

  it("after a call that carried several requests, waits one timer turn for the requests right behind", async () => {
    const g = new GroupCommit<number, number>(limits);
    const o = fakeObject();
    // A contended lane: two calls at once share the second call.
    const first = g.call("u1", 1, 1, o.via);
    await Promise.all([first, g.call("u1", 2, 1, o.via), g.call("u1", 3, 1, o.via)]);
    expect(o.batches.map((b) => b.inputs)).toEqual([[1], [2, 3]]);
    // The lane is idle, and contended: a lone call waits a zero timer, and what comes meanwhile joins it.
    const lone = g.call("u1", 4, 1, o.via);
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(o.batches).toHaveLength(2);
    const behind = g.call("u1", 5, 1, o.via);
    expect(await Promise.all([lone, behind])).toEqual([40, 50]);
    expect(o.batches.at(-1)?.inputs).toEqual([4, 5]);
    // That call carried two: contended still. A call alone resets it, and the next one goes at once.
    await g.call("u1", 6, 1, o.via);
    expect(o.batches.at(-1)?.inputs).toEqual([6]);
    void g.call("u1", 7, 1, o.via);
    await Promise.resolve();
    expect(o.batches.at(-1)?.inputs).toEqual([7]);
  });

  it("keeps objects apart: a call to another object does not wait", async () => {
    const g = new GroupCommit<number, number>(limits);
    const o = fakeObject({ hold: true });
    void g.call("u1", 1, 1, o.via);
    void g.call("u2", 2, 1, o.via);
    await Promise.resolve();
    expect(o.batches).toEqual([
      { key: "u1", inputs: [1] },
      { key: "u2", inputs: [2] },
    ]);
  });

  it("gives each input its own outcome: one refusal fails only its request", async () => {
    const g = new GroupCommit<number, number>(limits);
    const o = fakeObject({ hold: true });
    const first = g.call("u1", 1, 1, o.via);
    const calls = [2, -3, 4].map((x) => g.call("u1", x, 1, o.via));
    await o.release();
    await first;
    await o.release();
    const outcomes = await Promise.allSettled(calls);
    expect(outcomes.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((outcomes[1] as PromiseRejectedResult).reason.message).toBe("refused -3");
  });

  it("fails every request of a call that failed, and the lane goes on", async () => {
    const g = new GroupCommit<number, number>(limits);
    let fail = true;
    const batches: number[][] = [];
    const via: Sender<number, number> = {
      keepAlive: () => undefined,
      send: async (_key, inputs) => {
        batches.push(inputs);
        if (fail) throw new Error("object unreachable");
        return inputs.map((x) => ({ ok: true as const, value: x }));
      },
    };
    await expect(g.call("u1", 1, 1, via)).rejects.toThrow("object unreachable");
    fail = false;
    expect(await g.call("u1", 2, 1, via)).toBe(2);
    expect(batches).toEqual([[1], [2]]);
  });

  it("fails the batch, not the lane, when sending throws before any call leaves", async () => {
    const g = new GroupCommit<number, number>(limits);
    let calls = 0;
    const via: Sender<number, number> = {
      keepAlive: () => undefined,
      send: (_key, inputs) => {
        calls += 1;
        if (calls === 1) throw new Error("stub refused");
        return Promise.resolve(inputs.map((x) => ({ ok: true as const, value: x })));
      },
    };
    await expect(g.call("u1", 1, 1, via)).rejects.toThrow("stub refused");
    expect(await g.call("u1", 2, 1, via)).toBe(2);
  });

  it("caps a batch by inputs and by weight; a heavy input still goes, alone", async () => {
    const g = new GroupCommit<number, number>({ maxInputs: 2, maxWeight: 10, stallMs: 60_000 });
    const o = fakeObject({ hold: true });
    const all = [g.call("u1", 0, 1, o.via)];
    all.push(g.call("u1", 1, 1, o.via), g.call("u1", 2, 1, o.via), g.call("u1", 3, 1, o.via));
    all.push(g.call("u1", 4, 9, o.via), g.call("u1", 5, 50, o.via));
    for (let i = 0; i < 4; i++) await o.release();
    expect(await Promise.all(all)).toEqual([0, 10, 20, 30, 40, 50]);
    expect(o.batches.map((b) => b.inputs)).toEqual([[0], [1, 2], [3, 4], [5]]);
  });

  it("keeps a waiting request's context alive until its input is served", async () => {
    const g = new GroupCommit<number, number>(limits);
    const o = fakeObject({ hold: true });
    const first = g.call("u1", 1, 1, o.via);
    const second = g.call("u1", 2, 1, o.via);
    await Promise.resolve();
    // The sender keeps its call alive; the waiting request keeps its own result alive.
    expect(o.keptAlive.length).toBe(2);
    await o.release();
    await o.release();
    expect(await Promise.all([first, second])).toEqual([10, 20]);
  });

  it("when the call in flight never comes back, a waiting request sends after stallMs", async () => {
    const g = new GroupCommit<number, number>({ maxInputs: 64, maxWeight: 1000, stallMs: 20 });
    const batches: number[][] = [];
    const via: Sender<number, number> = {
      keepAlive: () => undefined,
      send: (_key, inputs) => {
        batches.push(inputs);
        // The first call hangs for good; later ones answer.
        if (batches.length === 1) return new Promise(() => undefined);
        return Promise.resolve(inputs.map((x) => ({ ok: true as const, value: x })));
      },
    };
    void g.call("u1", 1, 1, via);
    const waiting = [g.call("u1", 2, 1, via), g.call("u1", 3, 1, via)];
    expect(await Promise.all(waiting)).toEqual([2, 3]);
    expect(batches).toEqual([[1], [2, 3]]);
  });
});

describe("settleEach", () => {
  it("serves inputs in order, an exception being that input's result only", async () => {
    const seen: number[] = [];
    const out = await settleEach([1, 2, 3], async (x) => {
      seen.push(x);
      if (x === 2) throw new Error("two");
      return x;
    });
    expect(seen).toEqual([1, 2, 3]);
    expect(out[0]).toEqual({ ok: true, value: 1 });
    expect(out[1]?.ok).toBe(false);
    expect(out[2]).toEqual({ ok: true, value: 3 });
  });
});

describe("a batch on the wire", () => {
  it("carries each input's answer as JSON, and each exception back as an Error with its name and message", async () => {
    const seen: Array<{ id: string; spec: { pools: number[] } }> = [];
    const batch = toWire([
      { id: "a", spec: { pools: [1, 2] } },
      { id: "b", spec: { pools: [] } },
      { id: "c", spec: { pools: [3] } },
    ]);
    expect(typeof batch).toBe("string");
    const answered = await serveWire(batch, (input) => {
      seen.push(input);
      if (input.id === "b") throw new TypeError("b is refused");
      if (input.id === "c") throw "not an error";
      return { jobs: [{ id: input.id, pools: input.spec.pools.length }] };
    });
    expect(typeof answered).toBe("string");
    expect(seen.map((s) => s.id)).toEqual(["a", "b", "c"]);
    const out = settledFromWire(answered);
    expect(out[0]).toEqual({ ok: true, value: { jobs: [{ id: "a", pools: 2 }] } });
    const b = out[1]!;
    expect(b.ok).toBe(false);
    expect(!b.ok && b.error instanceof Error && [b.error.name, b.error.message]).toEqual([
      "TypeError",
      "b is refused",
    ]);
    const c = out[2]!;
    expect(!c.ok && c.error instanceof Error && c.error.message).toBe("not an error");
  });
});
