/**
 * Structured logs. Every line is one object passed to the console (Workers Logs indexes its fields; the
 * console method carries the level), never a string to parse. A request's lines carry its request id,
 * which the client also gets (`x-request-id`, `error.request_id`), so support can find them. No line ever
 * holds a token, a secret or a request body: callers pass ids and codes only.
 */

export type LogLevel = "info" | "warn" | "error";

export type LogFields = Record<string, unknown>;

export function log(level: LogLevel, msg: string, fields: LogFields = {}): void {
  const line = { ts: new Date().toISOString(), level, msg, ...fields };
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}

/** An exception as log fields: its name, message and stack (logs only: a client never sees a stack). */
export function errorFields(err: unknown): { error: { name: string; message: string; stack?: string } } {
  if (err instanceof Error) {
    return { error: { name: err.name, message: err.message, ...(err.stack ? { stack: err.stack } : {}) } };
  }
  return { error: { name: "NonError", message: String(err) } };
}

/**
 * Cloudflare's id of the request (`cf-ray`, e.g. `8f2c1a9d3b7e4c21-AMS`), which also names it in
 * Cloudflare's own logs; only when it looks like one, so a client cannot write arbitrary text into a
 * log line through it. Otherwise (local development, tests) a fresh UUID.
 */
const CF_RAY = /^[0-9a-zA-Z-]{8,64}$/;

export function requestIdFrom(headers: Headers): string {
  const ray = headers.get("cf-ray");
  return ray && CF_RAY.test(ray) ? ray : crypto.randomUUID();
}

// Keyed by the request's Hono context, which every middleware and the error handler share.
const requestIds = new WeakMap<object, string>();

export function setRequestId(c: object, id: string): void {
  requestIds.set(c, id);
}

/** The request id of the request `c` answers; undefined outside a request (app.request in unit tests). */
export function requestIdOf(c: object): string | undefined {
  return requestIds.get(c);
}
