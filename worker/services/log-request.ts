/**
 * The outermost middleware: every request gets an id (`cf-ray`, else a UUID), every answer the version
 * headers and `x-request-id`, every JSON error body `error.request_id`, and every request one structured
 * log line. It also counts what the metrics report: refused submits by their error code and ingested
 * items from the answers, admissions from what the submit set (`admitted`: reading a 201's body again
 * cost a copy and a parse on every admission).
 */
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { IngestClaims } from "../../contract/ingest.schema.js";
import type { Admitted, Principal } from "../auth/principal.js";
import { type AppEnv, config } from "../env.js";
import { executionCtxOf } from "../execution.js";
import { SERVER_VERSION_HEADERS } from "../http.js";
import { type LogLevel, log, requestIdFrom, setRequestId } from "./log.js";
import { addToCounter, flushCountersSoon } from "./metrics-counters.js";

type ObservedEnv = {
  Bindings: AppEnv;
  Variables: { principal?: Principal; claims?: IngestClaims; admitted?: Admitted };
};
type Observed = Context<ObservedEnv>;

/** Ingest routes whose answers say how many items they took (`accepted`): the metric's `kind` label. */
const INGEST_KINDS: Record<string, string> = {
  "/v1/ingest/logs": "logs",
  "/v1/ingest/metrics": "metrics",
  "/v1/ingest/hparams": "hparams",
  "/v1/ingest/hardware": "hardware",
  "/v1/ingest/environment": "environment",
  "/v1/ingest/environment/nodes": "environment_nodes",
  "/v1/ingest/validation": "validation",
};

const ERROR_CODE = /^[A-Z][A-Z0-9_]{0,63}$/;

/** The route pattern that serves the request (`/v1/jobs/:id`), null when none does (a 404). */
function routeOf(c: Observed): string | null {
  return matchedRoutes(c).find((r) => r.method !== "ALL")?.path ?? null;
}

function principalOf(c: Observed): { kind: string; id: string } | null {
  const p = c.get("principal");
  if (p) return p.kind === "user" ? { kind: "user", id: p.userId } : { kind: "agent", id: p.nodeId };
  const claims = c.get("claims");
  return claims ? { kind: "run", id: claims.sub } : null;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Puts the request id into a JSON error body (`error.request_id`); returns the error's code. */
async function stampErrorBody(c: Observed, requestId: string): Promise<string | null> {
  const res = c.res;
  if (!res.body || !res.headers.get("content-type")?.includes("application/json")) return null;
  const text = await res.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON after all: passed on as it was.
  }
  const record = isRecord(body) ? body : null;
  const error = record && isRecord(record.error) ? record.error : null;
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  const out = error ? JSON.stringify({ ...record, error: { ...error, request_id: requestId } }) : text;
  c.res = undefined;
  c.res = new Response(out, { status: res.status, statusText: res.statusText, headers });
  return error && typeof error.code === "string" && ERROR_CODE.test(error.code) ? error.code : null;
}

/** A successful answer's JSON, read from a copy (the client still gets the body); null if it is not JSON. */
async function answerOf(c: Observed): Promise<Record<string, unknown> | null> {
  try {
    const body: unknown = await c.res.clone().json();
    return isRecord(body) ? body : null;
  } catch {
    return null;
  }
}

/** Adds this request's outcome to the stored counters; true when it counted something. */
async function count(c: Observed, route: string | null, code: string | null): Promise<boolean> {
  if (c.req.method !== "POST" || route === null) return false;
  const status = c.res.status;
  if (route === "/v1/jobs") {
    if (status >= 400 && code) addToCounter("admission_rejections", code);
    else if (status === 201) {
      // One job, or a job array's (all in one fleet), as the submit said (its answer is not read again).
      const admitted = c.get("admitted");
      if (!admitted) return false;
      addToCounter("admissions", admitted.fleetId, admitted.jobs);
    } else return false;
    return true;
  }
  const kind = INGEST_KINDS[route];
  if (!kind || status >= 300) return false;
  const accepted = (await answerOf(c))?.accepted;
  if (typeof accepted !== "number" || !(accepted > 0)) return false;
  addToCounter("ingested_items", kind, accepted);
  return true;
}

function levelOf(status: number): LogLevel {
  return status >= 500 ? "error" : status >= 400 ? "warn" : "info";
}

const RANK: Record<LogLevel, number> = { info: 0, warn: 1, error: 2 };

/** Whether a request line of `level` is written (SF_LOG_LEVEL). A bad setting fails /v1 elsewhere: log all. */
function wanted(env: AppEnv, level: LogLevel): boolean {
  try {
    return RANK[level] >= RANK[config(env).logLevel];
  } catch {
    return true;
  }
}

function stampHeaders(c: Observed, requestId: string): void {
  for (const [name, value] of Object.entries(SERVER_VERSION_HEADERS)) c.header(name, value);
  c.header("x-request-id", requestId);
}

export const observeRequests: MiddlewareHandler<ObservedEnv> = async (c, next) => {
  const started = Date.now();
  const requestId = requestIdFrom(c.req.raw.headers);
  setRequestId(c, requestId);
  // Set before the handler, they are in every response it makes with `c` (no copy of the response to
  // add them afterwards); a response it made itself gets them below.
  stampHeaders(c, requestId);
  await next();
  const route = routeOf(c);
  const code = c.res.status >= 400 ? await stampErrorBody(c, requestId) : null;
  // A socket upgrade's 101 carries the socket itself; it is answered as the object made it.
  if (c.res.status !== 101 && c.res.headers.get("x-request-id") !== requestId) stampHeaders(c, requestId);
  if (await count(c, route, code)) {
    const ctx = executionCtxOf(c);
    // No execution context (app.request in tests): the counts wait for the next request that has one.
    if (ctx) flushCountersSoon(c.env.DB, (p) => ctx.waitUntil(p));
  }
  const level = levelOf(c.res.status);
  if (!wanted(c.env, level)) return;
  log(level, "request", {
    request_id: requestId,
    method: c.req.method,
    route,
    path: c.req.path,
    status: c.res.status,
    duration_ms: Date.now() - started,
    principal: principalOf(c),
    ...(code ? { code } : {}),
  });
};
