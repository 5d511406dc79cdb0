/**
 * The HTTP client every command uses: JSON in and out, server errors mapped once to CliError. Every
 * request states sf's version and every answer is checked against the server's (contract/version.ts),
 * every failure before an answer gets its own code (errors.ts `networkError`), and nothing waits forever:
 * a JSON exchange has a total deadline, a stream (SSE, downloads) or an upload an inactivity one.
 */
import type { z } from "zod";
import type { paths } from "../contract/openapi-types.generated.js";
import {
  compareVersions,
  MIN_SERVER_API_VERSION,
  PRODUCT_VERSION,
  VERSION_HEADERS,
  VERSION_RE,
} from "../contract/version.js";
import {
  CliError,
  cliTooOld,
  EXIT,
  fromServer,
  networkError,
  notStarforge,
  serverTooOld,
  timeoutError,
} from "./errors.js";

/** sf's own release: sf, forgelet and the Worker ship together. */
export const CLI_VERSION = PRODUCT_VERSION;

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Raw body (e.g. blob bytes); sent as is instead of JSON. */
  raw?: BodyInit;
  signal?: AbortSignal;
  /**
   * "total": the whole exchange, body included, within SF_HTTP_TIMEOUT_SECONDS (what `json()` uses).
   * "idle" (the default of `fetch()`, whose caller streams the body): no byte either way for
   * SF_HTTP_IDLE_TIMEOUT_SECONDS, so a long upload, download or log follow is never cut while it moves.
   */
  timeout?: "total" | "idle";
  /** false: return the answer even when the versions do not fit (`sf version` reports them itself). */
  handshake?: boolean;
}

export interface Timeouts {
  totalMs: number;
  idleMs: number;
}

const DEFAULT_TIMEOUT_S = 60;
const DEFAULT_IDLE_S = 60;

function seconds(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback * 1000;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0)
    throw new CliError(`${name} must be a positive number of seconds, got "${raw}"`, {
      code: "BAD_ENV",
      exit: EXIT.USAGE,
    });
  return n * 1000;
}

/** SF_HTTP_TIMEOUT_SECONDS (default 60) and SF_HTTP_IDLE_TIMEOUT_SECONDS (default 60). */
export function timeoutsFromEnv(env: NodeJS.ProcessEnv = process.env): Timeouts {
  return {
    totalMs: seconds(env, "SF_HTTP_TIMEOUT_SECONDS", DEFAULT_TIMEOUT_S),
    idleMs: seconds(env, "SF_HTTP_IDLE_TIMEOUT_SECONDS", DEFAULT_IDLE_S),
  };
}

/** What an answer says about its server; null where a header is absent or malformed. */
export interface ServerVersions {
  api: number | null;
  minCli: string | null;
  server: string | null;
}

export function serverVersions(headers: Headers): ServerVersions {
  const api = headers.get(VERSION_HEADERS.api)?.trim() ?? "";
  const minCli = headers.get(VERSION_HEADERS.minCli)?.trim() ?? "";
  const server = headers.get(VERSION_HEADERS.server)?.trim() ?? "";
  return {
    api: /^[0-9]+$/.test(api) ? Number(api) : null,
    minCli: VERSION_RE.test(minCli) ? minCli : null,
    server: server === "" ? null : server,
  };
}

/**
 * Whether this sf and that server fit: CLI_TOO_OLD, SERVER_TOO_OLD or null. A server that states
 * nothing (one from before the handshake) is given the benefit of the doubt.
 */
export function handshakeError(
  server: string,
  v: ServerVersions,
  mine: string = CLI_VERSION,
): CliError | null {
  if (v.minCli && compareVersions(mine, v.minCli) < 0) return cliTooOld(server, mine, v.minCli, v.server);
  if (v.api !== null && v.api < MIN_SERVER_API_VERSION)
    return serverTooOld(server, v.api, MIN_SERVER_API_VERSION);
  return null;
}

/** An answer from a StarForge server states its API version (every answer, since the handshake). */
function statesVersion(res: Response): boolean {
  return res.headers.has(VERSION_HEADERS.api);
}

/** A timer that aborts a request when it fires; `touch()` restarts it (inactivity), `stop()` ends it. */
class Deadline {
  private readonly ac = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  fired = false;

  constructor(private readonly ms: number) {
    this.touch();
  }

  get signal(): AbortSignal {
    return this.ac.signal;
  }

  touch(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.fired = true;
      this.ac.abort();
    }, this.ms);
    // A pending socket keeps the process alive by itself; an answer nobody reads must not.
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}

/** Statuses whose answers never have a body (a Response cannot be built around one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** The server's health, read without refusing on its versions: `sf version` and `sf login` look first. */
export interface Probe {
  versions: ServerVersions;
  /** The health body (`{ok, api, time}`), or null when the server answered an error. */
  health: unknown;
  /** CLI_TOO_OLD / SERVER_TOO_OLD when the versions do not fit. */
  incompatible: CliError | null;
}

export class Api {
  private readonly timeouts: Timeouts;

  constructor(
    readonly server: string,
    private readonly token: string | null,
    timeouts?: Timeouts,
  ) {
    this.timeouts = timeouts ?? timeoutsFromEnv();
  }

  /**
   * One request to a documented route (`route()`), its answer returned as it came (streams, downloads,
   * uploads); `json`/`get`/… parse JSON answers.
   */
  async fetch<U extends Uppercase<ApiMethod>, P extends Documented<Verb<U>>>(
    method: U,
    path: Route<P>,
    body?: unknown,
    o: RequestOptions = {},
  ): Promise<Response> {
    const idle = (o.timeout ?? "idle") === "idle";
    const ms = idle ? this.timeouts.idleMs : this.timeouts.totalMs;
    const what = `${method} ${path.split("?")[0]}`;
    const deadline = new Deadline(ms);
    const timedOut = () => timeoutError(what, this.server, ms / 1000, idle);
    const headers: Record<string, string> = { ...o.headers, [VERSION_HEADERS.cli]: CLI_VERSION };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    let payload: BodyInit | undefined = o.raw;
    if (body !== undefined && o.raw === undefined) {
      headers["content-type"] = "application/json";
      payload = JSON.stringify(body);
    }
    // An upload is activity: each chunk handed to the socket restarts the inactivity clock.
    if (idle && payload instanceof ReadableStream)
      payload = (payload as ReadableStream<Uint8Array>).pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, ctl) {
            deadline.touch();
            ctl.enqueue(chunk);
          },
        }),
      );
    let res: Response;
    try {
      res = await fetch(`${this.server}${path}`, {
        method,
        headers,
        body: payload,
        signal: o.signal ? AbortSignal.any([o.signal, deadline.signal]) : deadline.signal,
        duplex: "half",
      } as RequestInit);
    } catch (err) {
      deadline.stop();
      if (o.signal?.aborted) throw err;
      if (deadline.fired) throw timedOut();
      throw networkError(this.server, err);
    }
    if (idle) deadline.touch();
    if (o.handshake !== false) {
      try {
        await this.checkHandshake(res);
      } catch (err) {
        deadline.stop();
        await res.body?.cancel().catch(() => undefined);
        throw deadline.fired ? timedOut() : err;
      }
    }
    return this.guardBody(res, deadline, idle, timedOut, o.signal);
  }

  /** Refuses an answer from a server this sf does not fit, by its headers or by a 426 CLI_TOO_OLD body. */
  private async checkHandshake(res: Response): Promise<void> {
    const v = serverVersions(res.headers);
    const refused = handshakeError(this.server, v);
    if (refused) throw refused;
    if (res.status !== 426) return;
    const e = errorOf(
      await res
        .clone()
        .json()
        .catch(() => null),
    );
    if (e?.code !== "CLI_TOO_OLD") return;
    const min = (e.details as { min_cli_version?: unknown } | undefined)?.min_cli_version;
    throw cliTooOld(
      this.server,
      CLI_VERSION,
      typeof min === "string" ? min : (v.minCli ?? "a newer release"),
      v.server,
    );
  }

  /**
   * The answer with a body that keeps the deadline: each chunk read restarts an inactivity clock, the end
   * stops it, and a read cut by it fails as TIMEOUT (a dropped connection as what it is), never a hang.
   */
  private guardBody(
    res: Response,
    deadline: Deadline,
    idle: boolean,
    timedOut: () => CliError,
    signal: AbortSignal | undefined,
  ): Response {
    if (!res.body || NULL_BODY.has(res.status)) {
      deadline.stop();
      return res;
    }
    const reader = res.body.getReader();
    const server = this.server;
    const body = new ReadableStream<Uint8Array>({
      async pull(ctl) {
        try {
          const r = await reader.read();
          if (r.done) {
            deadline.stop();
            ctl.close();
            return;
          }
          if (idle) deadline.touch();
          ctl.enqueue(r.value);
        } catch (err) {
          deadline.stop();
          ctl.error(signal?.aborted ? err : deadline.fired ? timedOut() : networkError(server, err));
        }
      },
      cancel(reason) {
        deadline.stop();
        return reader.cancel(reason);
      },
    });
    const out = new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    Object.defineProperty(out, "url", { value: res.url });
    return out;
  }

  /**
   * A JSON request whose answer is parsed with `schema` (contract/responses.schema.ts): non-2xx answers
   * become CliError with the server's code and message, and an answer of another shape a BAD_RESPONSE.
   */
  async json<U extends Uppercase<ApiMethod>, P extends Documented<Verb<U>>, S extends z.ZodType>(
    method: U,
    path: Route<P>,
    schema: S & Reads<S, P, Verb<U>>,
    body?: unknown,
    o: RequestOptions = {},
  ): Promise<z.infer<S>> {
    const res = await this.fetch(method, path, body, { timeout: "total", ...o });
    return parse(schema, await readJson(res), `${method} ${path.split("?")[0]}`);
  }

  get<P extends Documented<"get">, S extends z.ZodType>(
    path: Route<P>,
    schema: S & Reads<S, P, "get">,
  ): Promise<z.infer<S>> {
    return this.json<"GET", P, S>("GET", path, schema);
  }

  post<P extends Documented<"post">, S extends z.ZodType>(
    path: Route<P>,
    schema: S & Reads<S, P, "post">,
    body?: unknown,
    o?: RequestOptions,
  ): Promise<z.infer<S>> {
    return this.json<"POST", P, S>("POST", path, schema, body ?? {}, o);
  }

  put<P extends Documented<"put">, S extends z.ZodType>(
    path: Route<P>,
    schema: S & Reads<S, P, "put">,
    body?: unknown,
  ): Promise<z.infer<S>> {
    return this.json<"PUT", P, S>("PUT", path, schema, body);
  }

  patch<P extends Documented<"patch">, S extends z.ZodType>(
    path: Route<P>,
    schema: S & Reads<S, P, "patch">,
    body?: unknown,
  ): Promise<z.infer<S>> {
    return this.json<"PATCH", P, S>("PATCH", path, schema, body);
  }

  delete<P extends Documented<"delete">, S extends z.ZodType>(
    path: Route<P>,
    schema: S & Reads<S, P, "delete">,
  ): Promise<z.infer<S>> {
    return this.json<"DELETE", P, S>("DELETE", path, schema);
  }

  /**
   * GET /v1/health without credentials, its versions reported rather than refused. A server that states
   * no version must still look like one of ours (`{api: "v1", …}`), else NOT_STARFORGE: sf never sends a
   * token to something that is not a control plane.
   */
  async probe(): Promise<Probe> {
    const res = await this.fetch("GET", route("/v1/health"), undefined, {
      timeout: "total",
      handshake: false,
    });
    const versions = serverVersions(res.headers);
    let health: unknown = null;
    try {
      health = await readJson(res);
    } catch (err) {
      // A coded error (the ledger is down: 503 UNAVAILABLE) is still an answer of ours.
      if (!(err instanceof CliError) || err.code === "NOT_STARFORGE") throw err;
    }
    const api = (health as { api?: unknown } | null)?.api;
    if (versions.api === null && typeof api === "string" && /^v[0-9]+$/.test(api))
      versions.api = Number(api.slice(1));
    else if (!statesVersion(res) && health !== null)
      throw notStarforge(res.url, res.status, res.headers.get("content-type"));
    return { versions, health, incompatible: handshakeError(this.server, versions) };
  }
}

export type ApiMethod = "get" | "post" | "put" | "patch" | "delete" | "head";

/** The document's method for an HTTP method: HEAD is served by the GET route. */
type Verb<U extends string> = U extends "HEAD" ? "get" : Lowercase<U> & ApiMethod;

/** The path templates contract/openapi.json lists method `M` for. */
export type Documented<M extends ApiMethod> = {
  [P in keyof paths]: paths[P] extends Record<M, object> ? P : never;
}[keyof paths];

/** The `{name}` parameters of a path template. */
type ParamsOf<P extends string> = P extends `${string}{${infer K}}${infer R}` ? K | ParamsOf<R> : never;

/** A request path made by `route()` from a documented template: only such paths reach the server. */
export type Route<P extends string> = string & { readonly __template: P };

/** The JSON body a documented operation answers on success, per the document. */
type SuccessJson<P extends keyof paths, M extends ApiMethod> = paths[P][M] extends { responses: infer R }
  ? {
      [K in keyof R]: K extends 200 | 201 | 202
        ? R[K] extends { content: { "application/json": infer T } }
          ? T
          : never
        : never;
    }[keyof R]
  : never;

/** `true` for each member of the union `T` that `I` accepts (distributes over T's members). */
type AcceptedMembers<T, I> = T extends I ? true : never;

/**
 * A schema sf reads an answer with must accept what the document says the route sends: the whole shape,
 * or, where the route answers one of several (a dry run or a submit, a metric's keys or its series, picked
 * by the request), one of them. Else the typecheck fails at the call, naming the document's shape
 * (`__document_answers`).
 */
type Reads<S extends z.ZodType, P extends keyof paths, M extends ApiMethod> = [SuccessJson<P, M>] extends [
  never,
]
  ? unknown
  : [AcceptedMembers<SuccessJson<P, M>, z.input<S>>] extends [never]
    ? { __document_answers: SuccessJson<P, M> }
    : unknown;

type Query = Record<string, string | number | boolean | undefined> | URLSearchParams;

/**
 * The path of a documented route: `template` is a key of the OpenAPI document's paths (a typo or a route
 * the document no longer lists fails the typecheck), each `{name}` is filled URI-encoded from `params`,
 * and `query` (undefined values left out) follows.
 */
export function route<P extends keyof paths & string>(
  template: P,
  ...[params, query]: ParamsOf<P> extends never
    ? [params?: Record<string, never>, query?: Query]
    : [params: Record<ParamsOf<P>, string | number>, query?: Query]
): Route<P> {
  const filled = template.replace(/\{([^}]+)\}/g, (_, k: string) =>
    encodeURIComponent(String((params as Record<string, string | number>)[k])),
  );
  const q =
    query instanceof URLSearchParams
      ? query
      : new URLSearchParams(
          Object.entries(query ?? {})
            .filter(([, v]) => v !== undefined)
            .map(([k, v]) => [k, String(v)]),
        );
  const qs = q.toString();
  return (qs ? `${filled}?${qs}` : filled) as Route<P>;
}

/** Parses a server answer; a shape this client does not understand is a clear error, not a crash later. */
export function parse<T extends z.ZodType>(schema: T, value: unknown, what: string): z.infer<T> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new CliError(
    `unexpected answer to ${what} from the server: ${issue?.path.join(".") || "(root)"}: ${issue?.message}`,
    {
      code: "BAD_RESPONSE",
      hint: "is sf older than the control plane? `sf version` shows both versions",
    },
  );
}

function errorOf(body: unknown): { code?: string; message?: string; details?: unknown } | undefined {
  if (!body || typeof body !== "object") return undefined;
  const e = (body as { error?: unknown }).error;
  return e && typeof e === "object"
    ? (e as { code?: string; message?: string; details?: unknown })
    : undefined;
}

/**
 * An answer's JSON body, or its error as a CliError. An answer that is neither JSON nor a coded error and
 * does not state a version (an HTML page, a foreign 404) is NOT_STARFORGE: the URL points elsewhere. A
 * 5xx stays a server fault (a proxy in front of the control plane may answer those).
 */
export async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  const foreign = !statesVersion(res) && res.status < 500;
  let body: unknown = {};
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    if (foreign) throw notStarforge(res.url, res.status, res.headers.get("content-type"));
    if (!res.ok)
      throw new CliError(`HTTP ${res.status}: ${text.slice(0, 200)}`, {
        exit: res.status >= 500 ? EXIT.UNAVAILABLE : EXIT.FAILURE,
      });
    throw new CliError(`the server answered with something that is not JSON: ${text.slice(0, 200)}`);
  }
  if (!res.ok) {
    const e = errorOf(body);
    if (typeof e?.code !== "string" && foreign)
      throw notStarforge(res.url, res.status, res.headers.get("content-type"));
    throw fromServer(
      res.status,
      e?.code ?? `HTTP_${res.status}`,
      e?.message ?? `HTTP ${res.status}`,
      e?.details,
    );
  }
  return body;
}
