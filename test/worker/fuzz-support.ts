/**
 * What the fuzz suites share in workerd: the run count (SF_RUNS) and seed, sending a generated request
 * over the real fetch path, and snapshots of the state a refused request must not change (D1, a Fleet DO,
 * a Run DO). What needs no workerd (who sends, the answer rules, the request generators) lives in
 * fuzz-model.ts and fuzz-requests.ts, which the local-stack fuzz imports from Node too.
 */
import { env, runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import type fc from "fast-check";
import { expect } from "vitest";
import { CONTENT_TYPES } from "./fuzz-arbitraries.js";
import {
  type Answer,
  expectCodedAnswer,
  IDENTITIES,
  type Identities,
  seedOf,
  type Who,
} from "./fuzz-model.js";
import { type Auth, authFor, type FuzzRequest, wireRequest } from "./fuzz-requests.js";
import { converged } from "./helpers.js";
import { testEnv } from "./test-env.js";

/**
 * Runs per property: SF_RUNS when set (SF_RUNS=200 npx vitest run --project worker test/worker/fuzz-*),
 * else `fallback`, which keeps the suite near a minute on a 2-core machine.
 */
export function fuzzRuns(fallback: number): number {
  const n = Number((env as { SF_RUNS?: string }).SF_RUNS);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

export function fuzzParams<T>(name: string, fallbackRuns: number, examples: T[] = []): fc.Parameters<T> {
  return { seed: seedOf(name), numRuns: fuzzRuns(fallbackRuns), examples };
}

/**
 * Sends one request through the Worker's fetch handler. An event stream is cut off after its headers
 * (a live tail never ends by itself) and an accepted WebSocket upgrade is closed at once.
 */
export async function send(req: FuzzRequest, ids: Identities): Promise<Answer> {
  const { method, target, headers, body } = wireRequest(req, ids);
  const res = await SELF.fetch(`http://sf.test${target}`, { method, headers, body });
  const contentType = res.headers.get("content-type") ?? "";
  if (res.webSocket) {
    res.webSocket.accept();
    res.webSocket.close(1000, "fuzz done");
    return { status: res.status, contentType, text: "" };
  }
  if (contentType.includes("text/event-stream")) {
    await res.body?.cancel();
    return { status: res.status, contentType, text: "" };
  }
  return { status: res.status, contentType, text: await res.text() };
}

let tableNames: string[] | null = null;

/**
 * Tables whose rows may change while a refused request runs, for reasons of their own: a token's
 * last_used_at (written off the request path), webhook deliveries (their dispatcher's alarm), device
 * codes (a poll that is refused with SLOW_DOWN records the poll), the audit log is append-only (counted).
 * Their row counts are still compared. `metric_counters` is left out altogether: counting refused
 * requests (by code) is its purpose, so a refusal changes it by design.
 */
const COUNT_ONLY = new Set(["tokens", "webhook_deliveries", "device_codes", "audit_log"]);

/**
 * Every D1 table's row count, and the rows of the tables that change only when a request succeeds, at the
 * convergence point (what the fleets hold is in D1: a change reaches D1 after its answer).
 */
export async function ledgerSnapshot(): Promise<Record<string, unknown>> {
  await converged();
  tableNames ??= (
    await testEnv.DB.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%' AND name != 'metric_counters' ORDER BY name",
    ).all<{ name: string }>()
  ).results.map((r) => r.name);
  const names = tableNames;
  const statements = names.flatMap((t) => [
    testEnv.DB.prepare(`SELECT COUNT(*) AS n FROM "${t}"`),
    ...(COUNT_ONLY.has(t) ? [] : [testEnv.DB.prepare(`SELECT * FROM "${t}" ORDER BY rowid`)]),
  ]);
  const results = await testEnv.DB.batch<Record<string, unknown>>(statements);
  const out: Record<string, unknown> = {};
  let i = 0;
  for (const t of names) {
    out[`${t}#count`] = results[i++]!.results[0]!.n;
    if (COUNT_ONLY.has(t)) continue;
    out[t] = results[i++]!.results;
  }
  return out;
}

/**
 * Waits out the diagnoses of runs that failed (each is made a moment after its failure, by the fleet's
 * alarm: rules/diagnosis.ts), so a footprint is taken between asynchronous changes, never across one.
 */
export async function diagnosesSettled(fleetIds: string[]): Promise<void> {
  for (const id of fleetIds) {
    const stub = testEnv.FLEET.get(testEnv.FLEET.idFromName(id));
    const pending = () =>
      runInDurableObject(
        stub,
        (_i, state) =>
          state.storage.sql
            .exec<{ n: number }>("SELECT COUNT(*) AS n FROM meta WHERE key LIKE 'diagnose_pending:%'")
            .one().n,
      );
    for (let i = 0; (await pending()) > 0; i++) {
      if (i > 100) throw new Error(`fleet ${id}: a diagnosis is still pending after 10 s`);
      await new Promise((r) => setTimeout(r, 100));
      await runDurableObjectAlarm(stub);
    }
  }
}

/** A Fleet DO's scheduling state: nodes, allocations, jobs, runs, ranks and commands (not its timers). */
export async function fleetSnapshot(fleetId: string): Promise<Record<string, unknown>> {
  const stub = testEnv.FLEET.get(testEnv.FLEET.idFromName(fleetId));
  return runInDurableObject(stub, (_i, state) => {
    const sql = state.storage.sql;
    const rows = (q: string) => sql.exec(q).toArray();
    return {
      nodes: rows("SELECT id, name, status, gpus, series, agent FROM nodes ORDER BY id"),
      gpu_alloc: rows("SELECT node_id, idx, run_id FROM gpu_alloc ORDER BY node_id, idx"),
      jobs: rows("SELECT id, status, current_run_id, attempt FROM jobs ORDER BY id"),
      runs: rows("SELECT id, status, epoch, ended_at FROM runs ORDER BY id"),
      run_ranks: rows("SELECT run_id, rank, state FROM run_ranks ORDER BY run_id, rank"),
      commands: rows("SELECT id, kind, acked_at FROM commands ORDER BY id"),
      quotas: rows("SELECT user_id, body FROM quotas ORDER BY user_id"),
    };
  });
}

/** Row counts of every table of a Run DO (what ingest writes). */
export async function runSnapshot(runId: string): Promise<Record<string, number>> {
  const stub = testEnv.RUN.get(testEnv.RUN.idFromName(runId));
  return runInDurableObject(stub, (_i, state) => {
    const sql = state.storage.sql;
    const names = sql
      .exec<{ name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name != 'meta'",
      )
      .toArray()
      .map((r) => r.name);
    return Object.fromEntries(
      names.map((t) => [t, sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM "${t}"`).one().n]),
    );
  });
}

/**
 * No GPU booked twice, beyond its node or on no node; and the fleet's timers still run (an alarm that
 * throws would be a crash no request sees).
 */
export async function expectConsistentFleet(fleetId: string): Promise<void> {
  const stub = testEnv.FLEET.get(testEnv.FLEET.idFromName(fleetId));
  await runDurableObjectAlarm(stub);
  const s = await runInDurableObject(stub, (_i, state) => {
    const sql = state.storage.sql;
    return {
      twice: sql
        .exec("SELECT node_id, idx FROM gpu_alloc GROUP BY node_id, idx HAVING COUNT(*) > 1")
        .toArray(),
      beyond: sql
        .exec(
          "SELECT a.node_id, a.idx FROM gpu_alloc a JOIN nodes n ON n.id = a.node_id WHERE a.idx >= n.gpus",
        )
        .toArray(),
      orphan: sql
        .exec("SELECT a.node_id FROM gpu_alloc a LEFT JOIN nodes n ON n.id = a.node_id WHERE n.id IS NULL")
        .toArray(),
    };
  });
  expect(s).toEqual({ twice: [], beyond: [], orphan: [] });
}

// What moved to the workerd-free modules (fuzz-model.ts, fuzz-requests.ts), still importable from here.
export {
  type Answer,
  type Auth,
  authFor,
  CONTENT_TYPES,
  expectCodedAnswer,
  type FuzzRequest,
  IDENTITIES,
  type Identities,
  seedOf,
  type Who,
};
