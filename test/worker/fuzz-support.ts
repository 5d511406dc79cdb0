/**
 * What the fuzz suites share: the run count (SF_RUNS) and seed, sending a generated request over the
 * real fetch path, the checks every answer must pass, and snapshots of the state a refused request must
 * not change (D1, a Fleet DO, a Run DO).
 */
import { env, runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import fc from "fast-check";
import { expect } from "vitest";
import { ERROR_CODES } from "../../contract/errors.js";
import { type Body, CONTENT_TYPES, serialize } from "./fuzz-arbitraries.js";
import { LEAK } from "./helpers.js";
import { testEnv } from "./test-env.js";

/**
 * Runs per property: SF_RUNS when set (SF_RUNS=200 npx vitest run --project worker test/worker/fuzz-*),
 * else `fallback`, which keeps the suite near a minute on a 2-core machine.
 */
export function fuzzRuns(fallback: number): number {
  const n = Number((env as { SF_RUNS?: string }).SF_RUNS);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** One fixed seed per property name, so every run generates the same requests and a failure replays. */
export function seedOf(name: string): number {
  let h = 0x5f0f;
  for (const ch of name) h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
  return h;
}

export function fuzzParams<T>(name: string, fallbackRuns: number, examples: T[] = []): fc.Parameters<T> {
  return { seed: seedOf(name), numRuns: fuzzRuns(fallbackRuns), examples };
}

/** Who sends a request: a role's token, an agent credential, a run's ingest token, nobody, or a bad form. */
export const IDENTITIES = ["admin", "operator", "viewer", "none", "agent", "ingest", "ingest-other"] as const;
export type Who = (typeof IDENTITIES)[number];
export type Identities = Record<Exclude<Who, "none">, string>;

/** Authorization values that are not a valid credential, or an odd spelling of one (`{admin}`). */
const BAD_AUTH = [
  "Bearer",
  "Bearer ",
  "Basic Zm9vOmJhcg==",
  "Bearer a b",
  "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJub2RfeCJ9.",
  "Bearer eyJ!!!.e30.x",
  "Bearer eyJhbGciOiJIUzI1NiJ9.e30.AAAA",
  `Bearer sfp_${"0".repeat(40)}`,
  `Bearer ${"x".repeat(8_000)}`,
  "bearer {admin}",
  "Bearer\t{admin}",
  "Bearer {admin} extra",
  "Bearer {ingest}",
  "Bearer é",
];
const BAD_INGEST = ["garbage", "eyJ.eyJ.sig", "{admin}", "{agent}", " ", "x".repeat(8_000)];

export type Auth = { who: Who } | { header: "authorization" | "x-starforge-token"; value: string };

/** Mostly `right` (so requests reach the route's own code), sometimes anyone else or a bad form. */
export function authFor(right: Who): fc.Arbitrary<Auth> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant<Auth>({ who: right }) },
    { weight: 2, arbitrary: fc.constantFrom(...IDENTITIES).map((who): Auth => ({ who })) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.constantFrom(...BAD_AUTH).map((value): Auth => ({ header: "authorization", value })),
        fc.constantFrom(...BAD_INGEST).map((value): Auth => ({ header: "x-starforge-token", value })),
      ),
    },
  );
}

function authHeaders(auth: Auth, ids: Identities): Record<string, string> {
  const fill = (v: string) => v.replace(/\{(\w[\w-]*)\}/g, (_, k: keyof Identities) => ids[k] ?? k);
  if ("header" in auth) return { [auth.header]: fill(auth.value) };
  if (auth.who === "none") return {};
  if (auth.who === "ingest" || auth.who === "ingest-other") return { "x-starforge-token": ids[auth.who] };
  return { authorization: `Bearer ${ids[auth.who]}` };
}

export interface FuzzRequest {
  method: string;
  /** Path with its parameters in place, as they go on the wire (already escaped, or oddly). */
  path: string;
  query: string;
  auth: Auth;
  body: Body;
  /** The route's own content type for its valid body (JSON unless said otherwise). */
  contentType: string | null;
  headers: Array<[string, string]>;
}

export interface Answer {
  status: number;
  contentType: string;
  text: string;
}

function bodyInit(b: Body): string | Uint8Array | undefined {
  if (b.kind === "json") return b.value === undefined ? undefined : serialize(b.value);
  if (b.kind === "text") return b.text;
  if (b.kind === "bytes") return new Uint8Array(b.bytes);
  return undefined;
}

/**
 * Sends one request through the Worker's fetch handler. An event stream is cut off after its headers
 * (a live tail never ends by itself) and an accepted WebSocket upgrade is closed at once.
 */
export async function send(req: FuzzRequest, ids: Identities): Promise<Answer> {
  const headers = new Headers();
  for (const [k, v] of Object.entries(authHeaders(req.auth, ids))) headers.set(k, v);
  const body = req.method === "GET" || req.method === "HEAD" ? undefined : bodyInit(req.body);
  if (body !== undefined && req.contentType !== null) headers.set("content-type", req.contentType);
  for (const [k, v] of req.headers) headers.set(k, v);
  const url = `http://sf.test${req.path}${req.query ? `?${req.query}` : ""}`;
  const res = await SELF.fetch(url, { method: req.method, headers, body });
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

/**
 * What every answer must be: never a 5xx; a refusal is `{error: {code, message}}` with a known code whose
 * status is the HTTP status, and names no file, stack frame or server path. HEAD answers have no body;
 * HTML pages (`html`) answer a person, not a client, so only the status rule applies to them.
 */
export function expectCodedAnswer(label: string, method: string, res: Answer, html = false): void {
  const shown = `${label} → ${res.status} ${res.text.slice(0, 400)}`;
  expect(res.status, shown).toBeLessThan(500);
  if (res.status < 400 || method === "HEAD" || html) return;
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    expect.fail(`${shown}: a refusal that is not JSON`);
  }
  expect(body, shown).toEqual({
    error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }),
  });
  const code = (body as { error: { code: string } }).error.code;
  expect(Object.keys(ERROR_CODES), shown).toContain(code);
  expect(res.status, shown).toBe(ERROR_CODES[code as keyof typeof ERROR_CODES]);
  expect(res.text, shown).not.toMatch(LEAK);
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

/** Every D1 table's row count, and the rows of the tables that change only when a request succeeds. */
export async function ledgerSnapshot(): Promise<Record<string, unknown>> {
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

export { CONTENT_TYPES };
