/** The HTTP client every command uses: JSON in and out, server errors mapped once to CliError. */
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

  /** A JSON request; non-2xx answers become CliError with the server's code and message. */
  async json<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    o: RequestOptions = {},
  ): Promise<T> {
    const res = await this.fetch(method, path, body, o);
    return (await readJson(res)) as T;
  }

  get<T = Record<string, unknown>>(path: string): Promise<T> {
    return this.json<T>("GET", path);
  }

  post<T = Record<string, unknown>>(path: string, body?: unknown, o?: RequestOptions): Promise<T> {
    return this.json<T>("POST", path, body ?? {}, o);
  }

  put<T = Record<string, unknown>>(path: string, body?: unknown): Promise<T> {
    return this.json<T>("PUT", path, body);
  }

  patch<T = Record<string, unknown>>(path: string, body?: unknown): Promise<T> {
    return this.json<T>("PATCH", path, body);
  }

  delete<T = Record<string, unknown>>(path: string): Promise<T> {
    return this.json<T>("DELETE", path);
  }
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
