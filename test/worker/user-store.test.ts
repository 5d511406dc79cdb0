/**
 * The User DO's store, inside a real object: the held count its triggers keep equals the slots held,
 * whatever moves them, the meta cache never outlives a transaction that rolled back, and meta rows are
 * found by prefix exactly (sql-store.ts, which every object's store shares).
 */
import { runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SlotState, UserStore } from "../../durable-objects/user/store.js";
import { userStub } from "../../durable-objects/user/stub.js";
import { testEnv } from "./test-env.js";

type Inside = { store: UserStore };
const storeOf = (instance: unknown) => (instance as Inside).store;

const counted = (store: UserStore) =>
  store.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM slots WHERE state IN ('reserved', 'active')").one()
    .n;

let round = 0;

describe("the User DO's store", () => {
  it("keeps the held count equal to the reserved + active slots under any sequence of moves", async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant("reserve" as const), job: fc.nat(7) }),
      fc.record({
        kind: fc.constant("state" as const),
        job: fc.nat(7),
        state: fc.constantFrom<SlotState>("reserved", "active", "released"),
      }),
      fc.record({
        kind: fc.constant("note" as const),
        job: fc.nat(7),
        state: fc.constantFrom<SlotState>("reserved", "active", "released"),
        version: fc.nat(5),
      }),
      fc.record({ kind: fc.constant("drop" as const), job: fc.nat(7) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        const stub = testEnv.USERS.get(testEnv.USERS.idFromName(`held-${round++}`));
        await runInDurableObject(stub, (instance) => {
          const s = storeOf(instance);
          for (const o of ops) {
            const id = `job_${o.job}`;
            if (o.kind === "reserve") {
              if (!s.slot(id)) s.reserve(id, "flt_a", 1);
            } else if (o.kind === "state") {
              if (s.slot(id)) s.setSlotState(id, o.state);
            } else if (o.kind === "note") {
              s.applyJobNote(id, "flt_a", o.state, o.version, 1);
            } else {
              s.dropSlot(id);
            }
            expect(s.heldCount()).toBe(counted(s));
          }
        });
      }),
      { numRuns: 30 },
    );
  });

  it("forgets cached meta written by a transaction that rolled back", async () => {
    const stub = userStub(testEnv, "meta-rollback");
    expect((await stub.inspect()).quota).toBeNull();
    await runInDurableObject(
      testEnv.USERS.get(testEnv.USERS.idFromName("meta-rollback")),
      (instance, state) => {
        const s = storeOf(instance);
        const quota = { max_gpus: 1, max_jobs: 1, daily_gpu_hours: 1, allowed_profiles: [], priority: 1 };
        expect(() =>
          s.transaction(state.storage, () => {
            s.setQuota(quota);
            expect(s.quota()).toEqual(quota);
            throw new Error("abort");
          }),
        ).toThrow("abort");
        // SQLite undid the write; the cache must not still answer it.
        expect(s.quota()).toBeNull();
        s.transaction(state.storage, () => s.setQuota(quota));
        expect(s.quota()).toEqual(quota);
      },
    );
  });

  it("finds meta rows by key prefix: exactly those, in key order, whatever is stored beside them", async () => {
    await runInDurableObject(testEnv.USERS.get(testEnv.USERS.idFromName("meta-prefix")), (instance) => {
      const s = storeOf(instance);
      // Around the prefix's range: the prefix without its last character, the next key up, a longer word.
      for (const k of [
        "node_admin:b",
        "node_admin:a",
        "node_admin;",
        "node_admin",
        "node_adminx:c",
        "moved:1",
      ])
        s.setMeta(k, k.toUpperCase());
      expect(s.metaByPrefix("node_admin:")).toEqual([
        { key: "node_admin:a", value: "NODE_ADMIN:A" },
        { key: "node_admin:b", value: "NODE_ADMIN:B" },
      ]);
      expect(s.metaByPrefix("moved:").map((m) => m.key)).toEqual(["moved:1"]);
      expect(s.metaByPrefix("retries:")).toEqual([]);
    });
  });
});
