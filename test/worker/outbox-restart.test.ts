/**
 * The outbox reaches D1 even when D1 fails at write time and the Fleet DO restarts before the retry:
 * the state is durable in the DO, the alarm survives the restart and the flush is idempotent.
 */
import { abortAllDurableObjects, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createFleet, createUser, customSpec, registerNode } from "./helpers.js";
import { testEnv } from "./test-env.js";

async function d1Job(id: string) {
  return testEnv.DB.prepare("SELECT status, version FROM jobs WHERE id = ?")
    .bind(id)
    .first<{ status: string; version: number }>();
}

describe("outbox", () => {
  it("reaches D1 after the DO is restarted between write and flush", async () => {
    const op = await createUser("outbox-op");
    const f = await createFleet("outbox");
    await registerNode("outbox", "n1", 8);
    const stub = testEnv.FLEET.get(testEnv.FLEET.idFromName(f.id));

    // D1 refuses the flush: the batch that carries the job's events fails as a whole.
    await testEnv.DB.exec("ALTER TABLE job_events RENAME TO job_events_offline");
    const submitted = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "outbox", gpus: 2 }));
    expect(submitted.status).toBe(201);
    const id = submitted.body.job.id as string;
    expect(submitted.body.job.status).toBe("SUBMITTED");
    expect(await d1Job(id)).toBeNull();
    expect(await stub.outboxSize()).toBeGreaterThan(0);

    // The object restarts before any retry; D1 comes back.
    await abortAllDurableObjects();
    await testEnv.DB.exec("ALTER TABLE job_events_offline RENAME TO job_events");

    // A stub of the aborted instance is dead; a fresh one reaches the restarted object.
    const restarted = testEnv.FLEET.get(testEnv.FLEET.idFromName(f.id));
    expect(await runDurableObjectAlarm(restarted)).toBe(true);
    expect(await restarted.outboxSize()).toBe(0);
    expect(await d1Job(id)).toMatchObject({ status: "SUBMITTED" });
    const events = await testEnv.DB.prepare("SELECT seq, edge FROM job_events WHERE job_id = ? ORDER BY seq")
      .bind(id)
      .all();
    expect(events.results).toEqual([
      { seq: 1, edge: "admitted" },
      { seq: 2, edge: "dispatch" },
    ]);
    const runs = await testEnv.DB.prepare("SELECT gpus FROM runs WHERE job_id = ?").bind(id).all();
    expect(runs.results).toEqual([{ gpus: 2 }]);
  });

  it("applies a replayed flush without duplicating or regressing rows", async () => {
    const op = await createUser("replay-op");
    const f = await createFleet("replay");
    const stub = testEnv.FLEET.get(testEnv.FLEET.idFromName(f.id));
    const submitted = await api(op, "POST", "/v1/jobs", await customSpec({ fleet: "replay", gpus: 1 }));
    const id = submitted.body.job.id as string;
    // D1 is a projection: read it at the convergence point.
    await stub.projected();
    const before = await d1Job(id);
    expect(before?.status).toBe("QUEUED");

    // Node registration moves the job on; then an old snapshot is replayed into D1 directly.
    await registerNode("replay", "n1", 1);
    await stub.projected();
    const moved = await d1Job(id);
    expect(moved?.status).toBe("SUBMITTED");
    await testEnv.DB.prepare(
      "INSERT INTO jobs (id, user_id, fleet_id, name, status, priority, gpus, recipe, spec, pending_reasons, version, created_at, updated_at) VALUES (?, 'u', ?, 'x', 'QUEUED', 0, 1, 'r', '{}', '[]', ?, 't', 't') ON CONFLICT(id) DO UPDATE SET status = excluded.status WHERE excluded.version > jobs.version",
    )
      .bind(id, f.id, before!.version)
      .run();
    expect(await d1Job(id)).toMatchObject({ status: "SUBMITTED", version: moved!.version });
    expect(await stub.outboxSize()).toBe(0);
  });
});
