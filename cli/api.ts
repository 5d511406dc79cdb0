/** The HTTP client every command uses: JSON in and out, server errors mapped once to CliError. */
import type { z } from "zod";
import { CliError, EXIT, fromServer } from "./errors.js";

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Raw body (e.g. blob bytes); sent as is instead of JSON. */
  raw?: BodyInit;
  signal?: AbortSignal;
}

export class Api {
  constructor(
    readonly server: string,
    private readonly token: string | null,
  ) {}

  async fetch(method: string, path: string, body?: unknown, o: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { ...o.headers };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    let payload: BodyInit | undefined = o.raw;
    if (body !== undefined && o.raw === undefined) {
      headers["content-type"] = "application/json";
      payload = JSON.stringify(body);
    }
    try {
      return await fetch(`${this.server}${path}`, {
        method,
        headers,
        body: payload,
        signal: o.signal,
        duplex: "half",
      } as RequestInit);
    } catch (err) {
      if (o.signal?.aborted) throw err;
      const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
      throw new CliError(`cannot reach ${this.server}: ${cause}`, {
        code: "UNREACHABLE",
        exit: EXIT.UNAVAILABLE,
        hint: "is the control plane running? (`npm start` runs one locally)",
      });
    }
  }

  /**
   * A JSON request whose answer is parsed with `schema` (contract/responses.schema.ts): non-2xx answers
   * become CliError with the server's code and message, and an answer of another shape a BAD_RESPONSE.
   */
  async json<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    body?: unknown,
    o: RequestOptions = {},
  ): Promise<z.infer<S>> {
    const res = await this.fetch(method, path, body, o);
    return parse(schema, await readJson(res), `${method} ${path.split("?")[0]}`);
  }

  get<S extends z.ZodType>(path: string, schema: S): Promise<z.infer<S>> {
    return this.json("GET", path, schema);
  }

  post<S extends z.ZodType>(
    path: string,
    schema: S,
    body?: unknown,
    o?: RequestOptions,
  ): Promise<z.infer<S>> {
    return this.json("POST", path, schema, body ?? {}, o);
  }

  put<S extends z.ZodType>(path: string, schema: S, body?: unknown): Promise<z.infer<S>> {
    return this.json("PUT", path, schema, body);
  }

  patch<S extends z.ZodType>(path: string, schema: S, body?: unknown): Promise<z.infer<S>> {
    return this.json("PATCH", path, schema, body);
  }

  delete<S extends z.ZodType>(path: string, schema: S): Promise<z.infer<S>> {
    return this.json("DELETE", path, schema);
  }
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
      hint: "is sf older than the control plane? check `sf --version` against the server",
    },
  );
}

export async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  let body: unknown = {};
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    if (!res.ok)
      throw new CliError(`HTTP ${res.status}: ${text.slice(0, 200)}`, {
        exit: res.status >= 500 ? EXIT.UNAVAILABLE : EXIT.FAILURE,
      });
    throw new CliError(`the server answered with something that is not JSON: ${text.slice(0, 200)}`);
  }
  if (!res.ok) {
    const e = (body as { error?: { code?: string; message?: string; details?: unknown } }).error;
    throw fromServer(
      res.status,
      e?.code ?? `HTTP_${res.status}`,
      e?.message ?? `HTTP ${res.status}`,
      e?.details,
    );
  }
  return body;
}
