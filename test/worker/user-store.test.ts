/**
 * The User DO's store, inside a real object: the held count it keeps in memory equals the slots held,
 * whatever moves them (reports and answers naming a job more than once included) and after a rolled-back
 * reservation, and a store that counts afresh agrees; each schema step keeps every row; a key is claimed
 * once; the meta cache never outlives a transaction that rolled back, and meta rows are found by prefix
 * exactly (sql-store.ts, which every object's store shares).
 */
import { runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SqlStore } from "../../durable-objects/sql-store.js";
import { type SlotState, USER_MIGRATIONS, UserStore } from "../../durable-objects/user/store.js";
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
      fc.record({ kind: fc.constant("reserve" as const), job: fc.nat(3) }),
      fc.record({
        kind: fc.constant("state" as const),
        job: fc.nat(3),
        state: fc.constantFrom<SlotState>("reserved", "active", "released"),
      }),
      fc.record({
        kind: fc.constant("note" as const),
        job: fc.nat(3),
        state: fc.constantFrom<SlotState>("reserved", "active", "released"),
        version: fc.nat(5),
      }),
      fc.record({ kind: fc.constant("drop" as const), job: fc.nat(3) }),
      fc.record({
        kind: fc.constant("fleet_state" as const),
        job: fc.nat(3),
        state: fc.constantFrom<SlotState>("active", "released"),
        version: fc.nat(5),
      }),
      // A fleet's report or answer about several jobs at once, a job possibly named twice.
      fc.record({
        kind: fc.constantFrom("notes" as const, "fleet_states" as const),
        moves: fc.array(
          fc.record({
            job: fc.nat(3),
            state: fc.constantFrom<SlotState>("reserved", "active", "released"),
            version: fc.nat(5),
          }),
          { maxLength: 5 },
        ),
      }),
      // A reservation whose transaction rolls back (its request was refused after the slot was written).
      fc.record({ kind: fc.constant("rolled_back" as const), job: fc.nat(3) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        const stub = testEnv.USERS.get(testEnv.USERS.idFromName(`held-${round++}`));
        await runInDurableObject(stub, (instance, state) => {
          const s = storeOf(instance);
          for (const o of ops) {
            const id = "job" in o ? `job_${o.job}` : "";
            if (o.kind === "reserve") {
              if (!s.slot(id)) s.reserve(id, "flt_a", 1);
            } else if (o.kind === "state") {
              if (s.slot(id)) s.setSlotState(id, o.state);
            } else if (o.kind === "note") {
              s.applyJobNote(id, "flt_a", o.state, o.version, 1);
            } else if (o.kind === "fleet_state") {
              s.applyJobStates([{ jobId: id, state: o.state, version: o.version }]);
            } else if (o.kind === "notes" || o.kind === "fleet_states") {
              const moves = o.moves.map((m) => ({
                jobId: `job_${m.job}`,
                state: m.state,
                version: m.version,
              }));
              if (o.kind === "notes") s.applyJobNotes("flt_a", moves, 1);
              else s.applyJobStates(moves);
            } else if (o.kind === "rolled_back") {
              expect(() =>
                s.transaction(state.storage, () => {
                  if (!s.slot(id)) s.reserve(id, "flt_a", 1);
                  s.reserve(`${id}_more`, "flt_a", 1);
                  throw new Error("refused");
                }),
              ).toThrow("refused");
            } else {
              s.dropSlot(id);
            }
            expect(s.heldCount()).toBe(counted(s));
          }
          // A store that counts afresh (the object restarted) agrees.
          expect(new UserStore(state.storage.sql).heldCount()).toBe(counted(s));
        });
      }),
      { numRuns: 60 },
    );
  });

  it("moves a store of schema step 2 through every later step, with every row and the held count", async () => {
    await runInDurableObject(
      testEnv.USERS.get(testEnv.USERS.idFromName("migrate-v3")),
      (_instance, state) => {
        const sql = state.storage.sql;
        // This object as one created before schema step 3: its tables made by the first two steps only.
        for (const t of ["slots", "idem_keys", "fenced_tokens", "usage", "open_runs", "held", "meta"])
          sql.exec(`DROP TABLE IF EXISTS ${t}`);
        new SqlStore(sql, USER_MIGRATIONS.slice(0, 2)).migrate();
        const old = new UserStore(sql);
        old.reserve("job_1", "flt_a", 10);
        old.applyJobNote("job_2", "flt_a", "active", 3, 11);
        old.applyJobNote("job_3", "flt_b", "released", 2, 12);
        old.putKey({
          key: "k1",
          request_hash: "h1",
          fleet_id: "flt_a",
          job_ids: '["job_1"]',
          created_at: 10,
        });
        const rowsBefore = sql.exec("SELECT * FROM slots ORDER BY job_id").toArray();
        expect(old.heldCount()).toBe(2);

        const s = new UserStore(sql);
        s.migrate();
        expect(s.getMeta("schema_version")).toBe(String(USER_MIGRATIONS.length));
        const ddl = (name: string) =>
          sql.exec<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = ?", name).one().sql;
        expect(ddl("slots")).toMatch(/WITHOUT ROWID$/);
        expect(ddl("idem_keys")).toMatch(/WITHOUT ROWID$/);
        expect(sql.exec("SELECT * FROM slots ORDER BY job_id").toArray()).toEqual(rowsBefore);
        expect(s.key("k1")).toMatchObject({ request_hash: "h1", job_ids: '["job_1"]' });
        expect(s.heldCount()).toBe(2);
        // Step 4: one index over the slots, no held-count row or triggers (the count lives in memory).
        const onSlots = sql
          .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE tbl_name = 'slots' ORDER BY name")
          .toArray()
          .map((r) => r.name);
        expect(onSlots).toEqual(["slots", "slots_by_state"]);
        expect(sql.exec("SELECT name FROM sqlite_master WHERE name = 'held'").toArray()).toEqual([]);
        expect(s.unprojected(0)).toEqual([{ job_id: "job_1", fleet_id: "flt_a" }]);
        expect(s.staleReservations(11).map((r) => r.job_id)).toEqual(["job_1"]);
        s.reserve("job_4", "flt_a", 13);
        s.setSlotState("job_1", "released");
        s.dropSlot("job_2");
        expect(s.heldCount()).toBe(counted(s));
        expect(s.heldCount()).toBe(1);
      },
    );
  });

  it("claims a key once: a second claim writes nothing and the first request keeps it", async () => {
    await runInDurableObject(testEnv.USERS.get(testEnv.USERS.idFromName("claim-key")), (instance) => {
      const s = storeOf(instance);
      const row = { key: "k", request_hash: "h1", fleet_id: "flt_a", job_ids: '["job_1"]', created_at: 1 };
      expect(s.claimKey(row)).toBe(true);
      expect(s.claimKey({ ...row, request_hash: "h2", job_ids: '["job_2"]', created_at: 2 })).toBe(false);
      expect(s.key("k")).toEqual(row);
    });
  });

  it("forgets cached meta written by a transaction that rolled back", async () => {
    const stub = userStub(testEnv, "meta-rollback");
    expect((await stub.inspect()).quota).toBeNull();
    await runInDurableObject(
      testEnv.USERS.get(testEnv.USERS.idFromName("meta-rollback")),
      (instance, state) => {
        const s = storeOf(instance);
        const quota = {
          max_gpus: 1,
          max_jobs: 1,
          daily_gpu_hours: 1,
          allowed_profiles: [],
          priority: 1,
          max_priority_class: "normal",
        };
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
