/**
 * The console's way to the /v1 API: an in-process call through the same Hono app, tagged with the
 * signed-in session's principal (auth/delegation.ts). Permissions, validation, audit and error codes stay
 * the API's; a page only renders what the API answered.
 */
import type { Context } from "hono";
import type { ErrorBody } from "../../contract/errors.js";
import { delegate } from "../auth/delegation.js";
import type { AppVars } from "../auth/principal.js";
import type { AppEnv } from "../env.js";
import type { Session } from "./session.js";

export type ConsoleEnv = {
  Bindings: AppEnv;
  Variables: AppVars & {
    session: Session;
    /** The whole app's fetch (set by createApp), so the console can call /v1 in-process. */
    dispatch: (req: Request) => Promise<Response>;
  };
};
export type ConsoleCtx = Context<ConsoleEnv>;

/** An API answer that was not 2xx, with its stable code. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** Sends `path` (starting with /v1/) to the API as the session's user; the Response as the API gave it. */
export function apiFetch(c: ConsoleCtx, path: string, init: RequestInit = {}): Promise<Response> {
  const req = new Request(new URL(path, c.req.url), init);
  return c.get("dispatch")(delegate(req, c.get("session").principal));
}

async function parsed<T>(res: Response): Promise<T> {
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!res.ok) {
    const e = (body as ErrorBody | null)?.error;
    throw new ApiFailure(res.status, e?.code ?? "INTERNAL", e?.message ?? `HTTP ${res.status}`, e?.details);
  }
  return body as T;
}

/** GET a /v1 JSON route; throws ApiFailure on a non-2xx answer. */
export async function apiGet<T>(c: ConsoleCtx, path: string): Promise<T> {
  return parsed<T>(await apiFetch(c, path));
}

/** POST/PUT/PATCH/DELETE a /v1 JSON route; throws ApiFailure on a non-2xx answer. */
export async function apiSend<T>(
  c: ConsoleCtx,
  method: "POST" | "PUT" | "PATCH" | "DELETE",
  path: string,
  body?: unknown,
): Promise<T> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { "content-type": "application/json" };
  }
  return parsed<T>(await apiFetch(c, path, init));
}
