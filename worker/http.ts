/**
 * Request helpers: the server's half of the version handshake (headers on every answer, 426 for an sf
 * too old), every body and query through zod with a coded 400, and no body read past its route's size
 * limit (413 PAYLOAD_TOO_LARGE).
 */
import type { MiddlewareHandler } from "hono";
import type { z } from "zod";
import { MAX_JSON_DEPTH, nestedDeeperThan } from "../contract/json-depth.js";
import {
  API_VERSION,
  compareVersions,
  MIN_CLI_VERSION,
  PRODUCT_VERSION,
  VERSION_HEADERS,
} from "../contract/version.js";
import type { Ctx, Env } from "./auth/middleware.js";
import { AppError } from "./errors.js";

/** The server's half of the version handshake (contract/version.ts), on every answer. */
export const SERVER_VERSION_HEADERS: Readonly<Record<string, string>> = {
  [VERSION_HEADERS.api]: String(API_VERSION),
  [VERSION_HEADERS.minCli]: MIN_CLI_VERSION,
  [VERSION_HEADERS.server]: PRODUCT_VERSION,
};

/** A release as sf states it: three numbers, perhaps a pre-release or build suffix (`0.2.0-rc.1`). */
const CLI_VERSION = /^[0-9]{1,9}\.[0-9]{1,9}\.[0-9]{1,9}(?:[-+][0-9A-Za-z.+-]{1,64})?$/;

/**
 * Never refused for an old sf: health, which states the versions, and the routes of agents and running
 * jobs, which are not sf (nor is anything that sends no version header: browsers, curl, scrapers).
 */
export function versionExempt(path: string): boolean {
  return path === "/v1/health" || path.startsWith("/v1/ingest/") || path.startsWith("/v1/agents/");
}

/** Refuses a request from an sf older than MIN_CLI_VERSION (426 CLI_TOO_OLD) before anything else runs. */
export const refuseOldCli: MiddlewareHandler = async (c, next) => {
  const given = c.req.header(VERSION_HEADERS.cli);
  if (given === undefined || versionExempt(c.req.path)) return next();
  const version = given.trim();
  if (!CLI_VERSION.test(version)) {
    throw new AppError(
      "BAD_REQUEST",
      `the ${VERSION_HEADERS.cli} header must be a release like ${PRODUCT_VERSION}; got ${JSON.stringify(version.slice(0, 40))}`,
    );
  }
  if (compareVersions(version, MIN_CLI_VERSION) < 0) {
    throw new AppError(
      "CLI_TOO_OLD",
      `sf ${version} is older than this server accepts (${MIN_CLI_VERSION} or later): upgrade sf to ${PRODUCT_VERSION}`,
      { min_cli_version: MIN_CLI_VERSION, cli_version: version },
    );
  }
  return next();
};

const MiB = 1024 * 1024;
/** Every JSON body but job-side ingest's, a JobSpec's too (it names its files by digest: they are blobs). */
export const MAX_JSON_BODY_BYTES = 1 * MiB;
/**
 * Job-side ingest batches. The capsule sends at most about 512 KiB per request (500 log lines, 256 points,
 * one validation sample); this is the contract's largest log batch (1000 lines of 16 KiB).
 */
export const MAX_INGEST_BODY_BYTES = 16 * MiB;
/** Uploads that stream to R2 under their own limit, SF_MAX_BLOB_BYTES (services/verified-put.ts). */
const STREAMED_UPLOADS = [/^\/v1\/blobs\/[^/]+$/, /^\/v1\/ingest\/artifact\/blob\//];

export function bodyLimitOf(method: string, path: string): number | null {
  if (method === "PUT" && STREAMED_UPLOADS.some((re) => re.test(path))) return null;
  return path.startsWith("/v1/ingest/") ? MAX_INGEST_BODY_BYTES : MAX_JSON_BODY_BYTES;
}

function tooLarge(c: Ctx, limit: number): AppError {
  return new AppError(
    "PAYLOAD_TOO_LARGE",
    `the request body is larger than ${limit} bytes, the limit of ${c.req.method} ${c.req.path}`,
    { limit },
  );
}

/**
 * Refuses a body over its route's limit before it is read whole: at once when its Content-Length says so,
 * otherwise (chunked) as soon as the bytes read pass the limit, when the stream is cut off. The route's
 * own parse then fails, and its error is replaced by the 413. Mounted after authentication (app.ts), and
 * nothing is read here, so an unauthenticated body is never read at all.
 */
export const limitBodies: MiddlewareHandler<Env> = async (c, next) => {
  const body = c.req.raw.body;
  const limit = bodyLimitOf(c.req.method, c.req.path);
  if (!body || limit === null) return next();
  const declared = Number(c.req.header("content-length") ?? Number.NaN);
  if (declared > limit) {
    await body.cancel();
    throw tooLarge(c, limit);
  }
  // A declared length is the body's length (HTTP framing: the runtime reads that many bytes and no more),
  // so only a chunked body is counted as it is read.
  if (declared <= limit) return next();
  let seen = 0;
  let over = false;
  const capped = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctl) {
        seen += chunk.byteLength;
        if (seen > limit) {
          over = true;
          ctl.error(tooLarge(c, limit));
          return;
        }
        ctl.enqueue(chunk);
      },
    }),
  );
  c.req.raw = new Request(c.req.raw, { body: capped });
  await next();
  if (over) throw tooLarge(c, limit);
};

/** A parsed JSON body, refused with `code` if it nests deeper than MAX_JSON_DEPTH (contract/json-depth.ts). */
export function notTooDeep<T>(raw: T, code: "BAD_REQUEST" | "INVALID_SPEC" = "BAD_REQUEST"): T {
  if (nestedDeeperThan(raw)) {
    throw new AppError(code, `request body nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`);
  }
  return raw;
}

export function issuesOf(err: z.ZodError): Array<{ path: string; message: string }> {
  return err.issues.map((i) => ({ path: i.path.join(".") || "(root)", message: i.message }));
}

export function describeIssues(err: z.ZodError): string {
  return issuesOf(err)
    .slice(0, 5)
    .map((i) => `${i.path}: ${i.message}`)
    .join("; ");
}

export async function parseJson<S extends z.ZodType>(
  c: Pick<Ctx, "req">,
  schema: S,
  code: "BAD_REQUEST" | "INVALID_SPEC" = "BAD_REQUEST",
): Promise<z.infer<S>> {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    throw new AppError("BAD_REQUEST", "request body must be JSON");
  }
  return parseValue(schema, notTooDeep(raw, code), code);
}

export function parseValue<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  code: "BAD_REQUEST" | "INVALID_SPEC" = "BAD_REQUEST",
): z.infer<S> {
  const r = schema.safeParse(raw);
  if (!r.success)
    throw new AppError(code, `invalid request: ${describeIssues(r.error)}`, { issues: issuesOf(r.error) });
  return r.data;
}

/** Whether an If-None-Match header names `etag` (weak or strong, or `*`). */
export function ifNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((t) => {
    const tag = t.trim().replace(/^W\//, "");
    return tag === "*" || tag === etag;
  });
}
