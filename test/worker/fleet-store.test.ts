/**
 * The Fleet DO's store inside a real object (fleet/store.ts): job rows and outbox entries written inside a
 * transaction are held back and written once before it commits, so the rules still read their own writes,
 * every read of the tables sees them, and a transaction that rolls back leaves nothing behind: not a row,
 * not an outbox entry, not a cached quota, timer, memo or counter block derived from what it undid.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ANY_ABANDONED } from "../../durable-objects/fleet/keys.js";
import { drainOutbox } from "../../durable-objects/fleet/outbox.js";
import type { JobRow } from "../../durable-objects/fleet/rows.js";
import { FLEET_SCHEMA_VERSION, FleetStore } from "../../durable-objects/fleet/store.js";
import { testEnv } from "./test-env.js";

type Inside = { store: FleetStore };
const storeOf = (instance: unknown) => (instance as Inside).store;

function jobRow(id: string, status = "QUEUED", version = 1): JobRow {
  return {
    id,
    user_id: "usr_a",
    name: id,
    status,
    priority: 10,
    queue_seq: Number(id.replace(/\D/g, "")) || 1,
    gpus: 1,
    recipe: "python/charlm@1.0.0",
    spec: "{}",
    pending_reasons: "[]",
    current_run_id: null,
    attempt: 0,
    version,
    event_seq: 0,
    created_at: 1,
    updated_at: 1,
    capsule: null,
    launch: null,
    unconfirmed: 0,
    priority_class: "normal",
    team: null,
  };
}

const inFleet = (name: string, fn: (s: FleetStore, storage: DurableObjectStorage) => void) =>
  runInDurableObject(testEnv.FLEET.get(testEnv.FLEET.idFromName(name)), (instance, state) =>
    fn(storeOf(instance), state.storage),
  );

const sqlCount = (s: FleetStore, table: string) =>
  s.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).one().n;

describe("the Fleet DO's store", () => {
  it("reads its own held-back writes inside a transaction, and holds them in SQLite after it commits", async () => {
    await inFleet("store-held", (s, storage) => {
      s.transaction(storage, () => {
        s.apply({ kind: "job", row: jobRow("job_1") });
        s.apply({ kind: "job", row: { ...jobRow("job_1"), version: 2, pending_reasons: '[{"code":"X"}]' } });
        expect(s.jobExists("job_1")).toBe(true);
        expect(s.job("job_1")?.version).toBe(2);
        // Reads that go to SQLite see the held rows too.
        expect(s.queuedCount()).toBe(1);
        s.apply({ kind: "job", row: jobRow("job_2", "QUEUED") });
        expect(s.jobsByStatus("QUEUED").map((j) => j.id)).toEqual(["job_1", "job_2"]);
        s.apply({ kind: "job", row: { ...jobRow("job_2"), status: "CANCELLED", version: 2 } });
        expect(s.jobStatuses()).toEqual([
          { id: "job_1", status: "QUEUED" },
          { id: "job_2", status: "CANCELLED" },
        ]);
      });
      const rows = s.sql.exec<JobRow>("SELECT * FROM jobs ORDER BY id").toArray();
      expect(rows.map((r) => [r.id, r.status, r.version, r.pending_reasons])).toEqual([
        ["job_1", "QUEUED", 2, '[{"code":"X"}]'],
        ["job_2", "CANCELLED", 2, "[]"],
      ]);
    });
  });

  it("answers, of the jobs named with a version, only those it holds at a newer one (held rows included)", async () => {
    await inFleet("store-moved", (s, storage) => {
      s.transaction(storage, () => {
        s.apply({ kind: "job", row: jobRow("job_1", "QUEUED", 1) });
        s.apply({ kind: "job", row: jobRow("job_2", "SUCCEEDED", 4) });
        s.apply({ kind: "job", row: jobRow("job_3", "RUNNING", 3) });
      });
      s.transaction(storage, () => {
        // Held back in this transaction: still answered as it stands.
        s.apply({ kind: "job", row: jobRow("job_1", "CANCELLED", 2) });
        const moved = s.jobsMoved([
          ["job_1", 1],
          ["job_2", 1],
          ["job_3", 3],
          ["job_missing", 0],
        ]);
        expect(Object.fromEntries(moved)).toEqual({
          job_1: { status: "CANCELLED", version: 2 },
          job_2: { status: "SUCCEEDED", version: 4 },
        });
      });
      expect(s.jobsMoved([])).toEqual(new Map());
    });
  });

  it("writes every outbox entry of a transaction, in order, however many there are", async () => {
    await inFleet("store-outbox", (s, storage) => {
      // More than one multi-row INSERT holds (50 rows each).
      s.transaction(storage, () => {
        for (let i = 0; i < 123; i++)
          s.apply({ kind: "outbox", entry: { kind: "blob_refs", job_id: `job_${i}`, digests: [] }, at: i });
      });
      const batch = s.outboxBatch(1000);
      expect(batch.map((r) => (JSON.parse(r.payload) as { job_id: string }).job_id)).toEqual(
        Array.from({ length: 123 }, (_, i) => `job_${i}`),
      );
      expect(s.outboxEmpty()).toBe(false);
    });
  });

  it("tells a reader whether the changes made before it reached D1, whatever came after", async () => {
    await inFleet("store-outbox-upto", (s, storage) => {
      const entry = (at: number) =>
        s.apply({ kind: "outbox", entry: { kind: "blob_refs", job_id: `job_${at}`, digests: [] }, at });
      s.transaction(storage, () => [1, 2, 3].forEach(entry));
      // A read begins at time 3: the three entries are its to wait for.
      expect(s.outboxHeldOnly(3)).toBe(false);
      s.ackOutbox(s.outboxBatch(10).at(-1)!.seq);
      // A busy fleet writes more while the read waits; they are numbered from 1 again (the outbox emptied).
      s.transaction(storage, () => [4, 5].forEach(entry));
      expect(s.outboxBatch(10)[0]!.seq).toBe(1);
      expect(s.outboxHeldOnly(3)).toBe(true);
      expect(s.outboxHeldOnly()).toBe(false);
    });
  });

  it("leaves nothing of a transaction that rolled back: rows, outbox entries, cached quota, timers, memos", async () => {
    await inFleet("store-rollback", (s, storage) => {
      s.transaction(storage, () => {
        s.apply({ kind: "quota", user_id: "usr_a", body: '{"max_gpus":1}' });
      });
      s.setTimer("schedule", 5_000);
      expect(s.nextTimerDue()).toBe(5_000);
      const before = s.memo.get("recent_runs", () => ({ since: 0, runs: s.runsSince(0) }));
      expect(before.runs).toEqual([]);
      expect(() =>
        s.transaction(storage, () => {
          s.apply({ kind: "job", row: jobRow("job_9") });
          s.apply({ kind: "outbox", entry: { kind: "blob_refs", job_id: "job_9", digests: [] }, at: 1 });
          s.apply({ kind: "quota", user_id: "usr_a", body: '{"max_gpus":2}' });
          s.apply({ kind: "timer", id: "retry:job_9", due: 1_000 });
          expect(s.nextTimerDue()).toBe(1_000);
          expect(s.quotaBody("usr_a")).toBe('{"max_gpus":2}');
          // A memo derived inside the transaction, from a run it then undoes.
          s.apply({
            kind: "run",
            row: {
              id: "run_9",
              job_id: "job_9",
              attempt: 1,
              epoch: 1,
              status: "SUBMITTED",
              placement: "[]",
              gpus: 1,
              user_id: "usr_a",
              allocated_at: 1,
              started_at: null,
              borrowed: 0,
              ended_at: null,
              exit_code: null,
              reason: null,
              version: 1,
            },
          });
          expect(s.memo.get("recent_runs", () => ({ since: 0, runs: s.runsSince(0) })).runs).toHaveLength(1);
          // A counter value handed out in it (Tx.counter): its block is forgotten.
          s.issued.set("queue_seq", 7);
          throw new Error("abort");
        }),
      ).toThrow("abort");
      expect(s.jobExists("job_9")).toBe(false);
      expect(s.job("job_9")).toBeNull();
      expect(sqlCount(s, "jobs")).toBe(0);
      expect(s.outboxEmpty()).toBe(true);
      expect(s.quotaBody("usr_a")).toBe('{"max_gpus":1}');
      expect(s.nextTimerDue()).toBe(5_000);
      expect(s.memo.get("recent_runs", () => ({ since: 0, runs: s.runsSince(0) })).runs).toEqual([]);
      expect(s.issued.size).toBe(0);
      // And the next transaction commits only its own rows.
      s.transaction(storage, () => s.apply({ kind: "job", row: jobRow("job_10") }));
      expect(s.sql.exec<{ id: string }>("SELECT id FROM jobs").toArray()).toEqual([{ id: "job_10" }]);
    });
  });

  it("knows when no command is open, and forgets it when one opens", async () => {
    await inFleet("store-commands", (s, storage) => {
      expect(s.openCommandNodes()).toEqual([]);
      s.transaction(storage, () =>
        s.apply({
          kind: "command",
          row: {
            id: "cmd_1",
            node_id: "nod_1",
            run_id: "run_1",
            rank: 0,
            kind: "launch",
            payload: "{}",
            created_at: 1,
          },
        }),
      );
      expect(s.openCommandNodes()).toEqual(["nod_1"]);
      expect(s.hasOpenCommands()).toBe(true);
      s.transaction(storage, () => s.apply({ kind: "ack", id: "cmd_1", at: 2 }));
      expect(s.openCommandNodes()).toEqual([]);
      s.transaction(storage, () => s.apply({ kind: "reopen", run_id: "run_1", rank: 0, node_id: "nod_1" }));
      expect(s.openCommandNodes()).toEqual(["nod_1"]);
    });
  });

  it("keeps the outbox entries of an unconfirmed job through a drain of several batches, and sends them once confirmed", async () => {
    await inFleet("store-held-back", async (s, storage) => {
      const entry = (job: string, i: number) => ({
        kind: "outbox" as const,
        entry: { kind: "blob_refs" as const, job_id: job, digests: [] },
        at: i,
      });
      s.transaction(storage, () => {
        s.apply({ kind: "job", row: { ...jobRow("job_unconfirmed"), unconfirmed: 1 } });
        // More than one batch (200): the held-back entries sit in the first.
        for (let i = 0; i < 310; i++)
          s.apply(entry(i >= 100 && i < 110 ? "job_unconfirmed" : "job_other", i));
      });
      const drained = await drainOutbox(s, testEnv.DB, async () => undefined);
      expect(drained).toMatchObject({ flushed: 300, held: 10 });
      const left = s.outboxBatch(1000).map((r) => (JSON.parse(r.payload) as { job_id: string }).job_id);
      expect(left).toEqual(Array.from({ length: 10 }, () => "job_unconfirmed"));
      s.transaction(storage, () => s.apply({ kind: "confirmed", ids: ["job_unconfirmed"] }));
      expect(await drainOutbox(s, testEnv.DB, async () => undefined)).toMatchObject({ flushed: 10, held: 0 });
      expect(s.outboxEmpty()).toBe(true);
    });
  });

  it("numbers outbox entries by rowid from schema step 8, keeping the entries of an older outbox and their order", async () => {
    await inFleet("migrate-outbox", (s, storage) => {
      const entry = (i: number) => ({ kind: "blob_refs" as const, job_id: `job_${i}`, digests: [] });
      const ids = (rows: Array<{ payload: string }>) =>
        rows.map((r) => (JSON.parse(r.payload) as { job_id: string }).job_id);
      // This object's outbox as step 7 left it: AUTOINCREMENT, two entries waiting, one flushed before.
      s.sql.exec("DROP TABLE outbox");
      s.sql.exec(
        "CREATE TABLE outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, payload TEXT NOT NULL, created_at INTEGER NOT NULL)",
      );
      for (let i = 1; i <= 3; i++)
        s.transaction(storage, () => s.apply({ kind: "outbox", entry: entry(i), at: i }));
      s.ackOutbox(s.outboxBatch(1)[0]!.seq);
      const waiting = s.outboxBatch(10);
      s.sql.exec("UPDATE meta SET value = '7' WHERE key = 'schema_version'");
      s.sql.exec("ALTER TABLE jobs DROP COLUMN unconfirmed");
      // (and without what later steps add)
      s.sql.exec("ALTER TABLE jobs DROP COLUMN priority_class");
      s.sql.exec("ALTER TABLE runs DROP COLUMN started_at");
      s.sql.exec("ALTER TABLE jobs DROP COLUMN team");
      s.sql.exec("ALTER TABLE runs DROP COLUMN borrowed");

      const migrated = new FleetStore(s.sql);
      migrated.migrate();
      expect(migrated.getMeta("schema_version")).toBe(String(FLEET_SCHEMA_VERSION));
      const ddl = migrated.sql
        .exec<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = 'outbox'")
        .one().sql;
      expect(ddl).not.toMatch(/AUTOINCREMENT/);
      expect(migrated.sql.exec("SELECT name FROM sqlite_sequence WHERE name = 'outbox'").toArray()).toEqual(
        [],
      );
      expect(migrated.outboxBatch(10)).toEqual(waiting);
      // What is written next comes after them; once all are acknowledged, numbering may start over.
      migrated.transaction(storage, () => migrated.apply({ kind: "outbox", entry: entry(4), at: 4 }));
      const all = migrated.outboxBatch(10);
      expect(ids(all)).toEqual(["job_2", "job_3", "job_4"]);
      expect(all[2]!.seq).toBeGreaterThan(all[1]!.seq);
      migrated.ackOutbox(all[2]!.seq);
      expect(migrated.outboxEmpty()).toBe(true);
      migrated.transaction(storage, () => migrated.apply({ kind: "outbox", entry: entry(5), at: 5 }));
      expect(ids(migrated.outboxBatch(10))).toEqual(["job_5"]);
    });
  });

  it("marks a fleet that abandoned admissions before schema step 7 as having abandoned some, and no other", async () => {
    for (const [name, marks] of [
      ["migrate-abandoned", ["abandoned:job_a", "abandoned:job_b"]],
      ["migrate-clean", []],
    ] as const) {
      await inFleet(name, (s) => {
        // This object as step 6 left it: its per-job marks, no fleet-wide one.
        s.sql.exec("DELETE FROM meta WHERE key = 'abandoned_any'");
        for (const key of marks) s.sql.exec("INSERT INTO meta (key, value) VALUES (?, '1')", key);
        s.sql.exec("INSERT INTO meta (key, value) VALUES ('abandonedz', 'not a mark')");
        s.sql.exec("UPDATE meta SET value = '6' WHERE key = 'schema_version'");
        s.sql.exec("ALTER TABLE jobs DROP COLUMN unconfirmed");
        s.sql.exec("ALTER TABLE jobs DROP COLUMN priority_class");
        s.sql.exec("ALTER TABLE runs DROP COLUMN started_at");
        s.sql.exec("ALTER TABLE jobs DROP COLUMN team");
        s.sql.exec("ALTER TABLE runs DROP COLUMN borrowed");
        s.sql.exec(
          "INSERT INTO jobs (id, user_id, name, status, priority, queue_seq, gpus, recipe, spec, pending_reasons, attempt, version, event_seq, created_at, updated_at) VALUES ('job_old', 'usr_a', 'old', 'QUEUED', 10, 1, 1, 'r@1', '{}', '[]', 0, 1, 0, 1, 1)",
        );
        const migrated = new FleetStore(s.sql);
        migrated.migrate();
        expect(migrated.getMeta("schema_version")).toBe(String(FLEET_SCHEMA_VERSION));
        expect(migrated.meta(ANY_ABANDONED)).toBe(marks.length > 0 ? "1" : null);
        // Step 10: a job queued before priority classes is a normal one; step 11: of no team.
        expect(migrated.job("job_old")).toMatchObject({
          priority_class: "normal",
          unconfirmed: 0,
          team: null,
        });
      });
    }
  });
});
