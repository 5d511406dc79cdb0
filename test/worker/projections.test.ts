/**
 * The outbox's entries as D1 statements (durable-objects/fleet/projections.ts), applied to the real D1
 * schema: many entries become a few statements (rows travel as JSON), the newest snapshot of a row wins
 * whatever the order, a replay changes nothing, and rows too big for one statement are split.
 */
import { describe, expect, it } from "vitest";
import type { OutboxEntry } from "../../durable-objects/fleet/outbox-entry.js";
import { isFanout, projectionStatements } from "../../durable-objects/fleet/projections.js";
import { testEnv } from "./test-env.js";

const DB = () => testEnv.DB;
const ts = (s: number) => new Date(Date.UTC(2026, 11, 1, 12, 0, s)).toISOString();

function job(id: string, version: number, status: string, spec = "{}"): OutboxEntry {
  return {
    kind: "job",
    job: {
      id,
      user_id: "usr_proj",
      fleet_id: "flt_proj",
      name: `n-${id}`,
      status,
      priority: 10,
      priority_class: "normal",
      team: null,
      gpus: 1,
      recipe: "custom/custom@1.0.0",
      spec,
      pending_reasons: "[]",
      current_run_id: null,
      version,
      created_at: ts(0),
      updated_at: ts(version),
    },
  };
}

function event(jobId: string, seq: number, to: string): OutboxEntry {
  return {
    kind: "event",
    event: {
      job_id: jobId,
      seq,
      ts: ts(seq),
      from_status: null,
      to_status: to,
      edge: "admitted",
      actor: "user:proj",
      detail: "{}",
    },
    job: { user_id: "usr_proj", fleet_id: "flt_proj", name: "n", run_id: null },
  };
}

async function rows<T>(sql: string, ...params: unknown[]): Promise<T[]> {
  return (
    await DB()
      .prepare(sql)
      .bind(...params)
      .all<T>()
  ).results;
}

describe("outbox projections", () => {
  it("turns a flush of many jobs into a few statements; the newest snapshot wins; a replay changes nothing", async () => {
    await DB()
      .prepare(
        `INSERT INTO webhooks (id, user_id, url, events, fleet_id, secret, created_at)
         VALUES ('wh_proj', 'usr_proj', 'http://127.0.0.1:9/h', '["job.queued"]', NULL, 's', ?)`,
      )
      .bind(ts(0))
      .run();
    const ids = Array.from({ length: 20 }, (_, i) => `job_proj_${String(i).padStart(2, "0")}`);
    for (const id of ids) {
      await DB()
        .prepare(
          `INSERT INTO admissions (job_id, user_id, fleet_id, state, version, created_at)
           VALUES (?, 'usr_proj', 'flt_proj', 'reserved', 0, ?)`,
        )
        .bind(id, ts(0))
        .run();
    }
    const entries: OutboxEntry[] = [];
    for (const id of ids) entries.push(job(id, 2, "SUCCEEDED"), job(id, 1, "QUEUED"), event(id, 1, "QUEUED"));
    entries.push({ kind: "blob_refs", job_id: ids[0]!, digests: [`sha256:${"a".repeat(64)}`] });
    entries.push({
      kind: "usage",
      run_id: "run_proj",
      day: "2026-12-01",
      user_id: "usr_proj",
      fleet_id: "flt_proj",
      gpu_seconds: 42,
    });

    const stmts = projectionStatements(DB(), entries);
    // jobs, admissions, events, fan-out, blob refs, usage: one statement each for 60 entries.
    expect(stmts).toHaveLength(6);
    expect(stmts.filter(isFanout)).toHaveLength(1);
    for (let i = 0; i < 2; i++) await DB().batch(projectionStatements(DB(), entries));

    const jobs = await rows<{ id: string; status: string; version: number }>(
      "SELECT id, status, version FROM jobs WHERE user_id = 'usr_proj' ORDER BY id",
    );
    expect(jobs).toEqual(ids.map((id) => ({ id, status: "SUCCEEDED", version: 2 })));
    const adm = await rows<{ state: string; version: number }>(
      "SELECT state, version FROM admissions WHERE user_id = 'usr_proj'",
    );
    expect(adm).toEqual(ids.map(() => ({ state: "released", version: 2 })));
    const events = await rows<{ n: number }>(
      "SELECT COUNT(*) AS n FROM job_events WHERE actor = 'user:proj'",
    );
    expect(events[0]!.n).toBe(20);
    const deliveries = await rows<{ event_id: string; type: string; payload: string }>(
      "SELECT event_id, type, payload FROM webhook_deliveries WHERE webhook_id = 'wh_proj' ORDER BY event_id",
    );
    expect(deliveries.map((d) => d.event_id)).toEqual(ids.map((id) => `evt_${id}_1`));
    expect(JSON.parse(deliveries[0]!.payload)).toMatchObject({
      id: `evt_${ids[0]}_1`,
      type: "job.queued",
      data: { job: { id: ids[0], status: "QUEUED", fleet_id: "flt_proj" } },
    });
    expect(await rows("SELECT job_id FROM blob_refs WHERE job_id = ?", ids[0])).toEqual([{ job_id: ids[0] }]);
    expect(await rows("SELECT gpu_seconds FROM run_usage WHERE run_id = 'run_proj'")).toEqual([
      { gpu_seconds: 42 },
    ]);
  });

  it("splits rows too big for one statement, and every row lands", async () => {
    const big = JSON.stringify({ blob: "x".repeat(400_000) });
    const entries = ["job_big_a", "job_big_b", "job_big_c"].map((id) => job(id, 1, "QUEUED", big));
    const stmts = projectionStatements(DB(), entries);
    // 3 × 400 kB of jobs: two statements (about 1 MB each at most), plus the admissions update.
    expect(stmts).toHaveLength(3);
    await DB().batch(stmts);
    const landed = await rows<{ id: string; n: number }>(
      "SELECT id, length(spec) AS n FROM jobs WHERE id LIKE 'job_big_%' ORDER BY id",
    );
    expect(landed).toEqual(["job_big_a", "job_big_b", "job_big_c"].map((id) => ({ id, n: big.length })));
  });
});
