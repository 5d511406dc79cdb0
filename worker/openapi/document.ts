/**
 * The OpenAPI 3.1 document of the HTTP API, generated from the app's routes (each carries `describe(...)`,
 * worker/openapi/describe.ts) by hono-openapi, then finished here: query parameters' schemas converted,
 * request-side components folded into their response-side twins when equal, the error body, the security
 * schemes, the webhooks, and a stable key order so the committed copy (contract/openapi.json) diffs well.
 * Never run on a request: `npm run gen:openapi` writes the committed copy, which the Worker serves.
 */
import type { Hono } from "hono";
import { findTargetHandler } from "hono/utils/handler";
import { generateSpecs, uniqueSymbol } from "hono-openapi";
import type { ZodType } from "zod";
import { ERROR_CODES, type ErrorCode } from "../../contract/errors.js";
import { PRODUCT_VERSION } from "../../contract/version.js";
import { loginLimited } from "../auth/middleware.js";
import { bodyLimitOf, versionExempt } from "../http.js";
import { CONVERT, ERROR_CODES_KEY, OPERATION, schemaOf } from "./describe.js";
import { TAGS, WEBHOOKS } from "./webhooks.js";

type Obj = Record<string, unknown>;
type Schemas = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Replaces every `{ [CONVERT]: zodSchema }` left in the tree by its converted schema. */
async function convertLeftovers(node: unknown, schemas: Schemas): Promise<unknown> {
  if (Array.isArray(node)) return Promise.all(node.map((n) => convertLeftovers(n, schemas)));
  if (!isObj(node)) return node;
  const field = (node as Record<symbol, unknown>)[CONVERT];
  if (field) {
    const r = await schemaOf(field as ZodType, "input").toOpenAPISchema();
    Object.assign(schemas, r.components.schemas);
    return r.schema;
  }
  const out: Obj = {};
  for (const [k, v] of Object.entries(node)) out[k] = await convertLeftovers(v, schemas);
  return out;
}

function rewriteRefs(node: unknown, rename: Map<string, string>): unknown {
  if (Array.isArray(node)) return node.map((n) => rewriteRefs(n, rename));
  if (!isObj(node)) return node;
  const out: Obj = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "$ref" && typeof v === "string" && rename.has(v)) out[k] = rename.get(v);
    else out[k] = rewriteRefs(v, rename);
  }
  return out;
}

/**
 * `X__input` (a named schema as a request carries it) becomes `X` when it reads the same as the answer's
 * `X` (or there is none), `XInput` otherwise (defaults make fields optional on the way in).
 */
function foldInputs(doc: Obj, schemas: Schemas): Obj {
  const ref = (id: string) => `#/components/schemas/${id}`;
  const inputs = Object.keys(schemas).filter((k) => k.endsWith("__input"));
  const baseOf = (id: string) => id.slice(0, -"__input".length);
  // Assume every input side folds, then un-fold those that still differ until nothing changes: an input
  // side that refers to an un-folded one differs from its answer side too.
  const folds = new Set(inputs);
  const renameFor = () =>
    new Map(
      inputs.map((id) => {
        const base = baseOf(id);
        return [ref(id), ref(folds.has(id) || !(base in schemas) ? base : `${base}Input`)];
      }),
    );
  for (let changed = true; changed; ) {
    changed = false;
    const rename = renameFor();
    for (const id of [...folds]) {
      const base = baseOf(id);
      if (!(base in schemas)) continue;
      const same = JSON.stringify(rewriteRefs(schemas[id], rename)) === JSON.stringify(schemas[base]);
      if (!same) {
        folds.delete(id);
        changed = true;
      }
    }
  }
  const rename = renameFor();
  const out: Schemas = {};
  for (const [id, s] of Object.entries(schemas)) {
    if (!id.endsWith("__input")) out[id] = rewriteRefs(s, rename);
  }
  for (const id of inputs) {
    const target = rename.get(ref(id))!.slice(ref("").length);
    if (!(target in out)) out[target] = rewriteRefs(schemas[id], rename);
  }
  return { ...(rewriteRefs(doc, rename) as Obj), components: out };
}

/**
 * A route ending in `/*` (an artifact's path inside a run) is written `/{path}`: OpenAPI has no wildcard.
 * Its value may hold slashes, which the parameter's description says.
 */
export function wildcards(paths: Obj): Obj {
  const out: Obj = {};
  for (const [p, ops] of Object.entries(paths)) {
    if (!p.endsWith("/*")) {
      out[p] = ops;
      continue;
    }
    const param = {
      in: "path",
      name: "path",
      required: true,
      description: "The rest of the path, slashes included",
      schema: { type: "string" },
    };
    out[`${p.slice(0, -2)}/{path}`] = Object.fromEntries(
      Object.entries(ops as Obj).map(([m, op]) => {
        const o = op as Obj;
        return [m, { ...o, parameters: [...((o.parameters as unknown[]) ?? []), param] }];
      }),
    );
  }
  return out;
}

/** The error body with `code` narrowed to the codes that can answer with this status. */
export function errorAnswer(codes: ErrorCode[]) {
  const status = ERROR_CODES[codes[0]!];
  return {
    description: `${status}: ${codes.join(", ")}`,
    content: {
      "application/json": {
        schema: {
          allOf: [
            { $ref: "#/components/schemas/Error" },
            {
              type: "object",
              properties: {
                error: {
                  type: "object",
                  description: "The refusal, as in every error answer",
                  properties: {
                    code: {
                      enum: [...codes].sort(),
                      description: "The codes this operation answers with this status",
                    },
                  },
                },
              },
            },
          ],
        },
      },
    },
  };
}

/**
 * The codes a request to `method path` can get from the middleware before its route runs
 * (worker/app.ts): the version handshake (a malformed or too old `starforge-cli-version`), the failed-login
 * limiter, the body limit, and INTERNAL from anywhere.
 */
function middlewareCodes(method: string, path: string, hasBody: boolean): ErrorCode[] {
  const codes: ErrorCode[] = ["INTERNAL"];
  const concrete = path.replace(/\{[^}]+\}/g, "x");
  if (!versionExempt(concrete)) codes.push("CLI_TOO_OLD", "BAD_REQUEST");
  if (loginLimited(method.toUpperCase(), concrete)) codes.push("TOO_MANY_FAILED_LOGINS");
  if (hasBody && bodyLimitOf(method.toUpperCase(), concrete) !== null) codes.push("PAYLOAD_TOO_LARGE");
  return codes;
}

/** Every operation's error answers: its declared codes and its middleware's, one answer per status. */
function errorAnswers(paths: Obj): Obj {
  const out: Obj = {};
  for (const [path, item] of Object.entries(paths)) {
    const ops: Obj = {};
    for (const [method, raw] of Object.entries(item as Obj)) {
      const { [ERROR_CODES_KEY]: declared, ...op } = raw as Obj & { responses: Obj };
      const codes = new Set<ErrorCode>([
        ...((declared as ErrorCode[] | undefined) ?? []),
        // A body is read (and limited) whenever one is sent: a POST that takes none still refuses a huge one.
        ...middlewareCodes(method, path, "requestBody" in op || ["post", "put", "patch"].includes(method)),
      ]);
      const byStatus = new Map<number, ErrorCode[]>();
      for (const code of codes)
        byStatus.set(ERROR_CODES[code], [...(byStatus.get(ERROR_CODES[code]) ?? []), code]);
      const responses: Obj = { ...op.responses };
      for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
        responses[String(status)] = errorAnswer(list);
      }
      ops[method] = { ...op, responses };
    }
    out[path] = ops;
  }
  return out;
}

const ERROR_SCHEMA = {
  type: "object",
  description:
    "Every error answer: a stable `code` to switch on (never the message), a message for people, and facts " +
    'about the refusal in `details` (docs/api.md "Errors").',
  required: ["error"],
  properties: {
    error: {
      type: "object",
      description: "What was refused and why",
      required: ["code", "message"],
      properties: {
        code: {
          type: "string",
          enum: Object.keys(ERROR_CODES).sort(),
          description: "The stable code to switch on; its HTTP status is fixed per code",
        },
        message: { type: "string", description: "What went wrong, for people; may change between versions" },
        details: {
          description:
            "Facts about the refusal (which limit, which id); for a rejected body or query " +
            "`{issues: [{path, message}]}`. Absent when there are none",
        },
        request_id: {
          type: "string",
          description:
            "The request's id, as in the `x-request-id` header: quote it when reporting a problem, it finds " +
            "the server's log line",
        },
      },
    },
  },
};

const SECURITY_SCHEMES = {
  userToken: {
    type: "http",
    scheme: "bearer",
    description: "A personal access token (`sf login`, POST /v1/tokens).",
  },
  agentCredential: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "A node's credential, minted by POST /v1/agents/enroll (forgelet).",
  },
  ingestToken: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "A run's own ingest token, in the LaunchRequest (the job capsule).",
  },
};

// biome-ignore lint/suspicious/noExplicitAny: any app's routes
export async function buildDocument(app: Hono<any, any, any>): Promise<Obj> {
  // Each describe() middleware's operation, handed to hono-openapi the way its own describeRoute would.
  for (const r of app.routes) {
    const h = findTargetHandler(r.handler) as unknown as Record<symbol, unknown>;
    if (h[OPERATION] && !h[uniqueSymbol]) h[uniqueSymbol] = { spec: h[OPERATION] };
  }
  const generated = (await generateSpecs(app, {
    documentation: {
      info: {
        title: "StarForge control plane API",
        version: PRODUCT_VERSION,
        description:
          "The HTTP API of a StarForge control plane: submit and follow training jobs, run fleets, " +
          "nodes and teams. Semantics and examples: docs/api.md. Generated from the code's own schemas.",
      },
    },
    // Only the /v1 API is the contract; the console's pages and the device page are documented in prose.
    exclude: [/^\/(?!v1\/)/],
    excludeMethods: ["OPTIONS"],
    excludeStaticFile: false,
    defaultValidationErrorResponse: false,
  })) as unknown as Obj;
  const schemas: Schemas = { ...((generated.components as Obj | undefined)?.schemas as Schemas) };
  const paths = errorAnswers(wildcards((await convertLeftovers(generated.paths, schemas)) as Obj));
  const webhooks: Obj = {};
  for (const [name, hook] of Object.entries(WEBHOOKS)) {
    const body = await schemaOf(hook.payload, "output").toOpenAPISchema();
    Object.assign(schemas, body.components.schemas);
    webhooks[name] = {
      post: {
        summary: hook.summary,
        description: hook.description,
        operationId: `webhook_${name.replace(/\W/g, "_")}`,
        tags: ["Webhooks"],
        parameters: ["webhook-id", "webhook-timestamp", "webhook-signature"].map((h) => ({
          in: "header",
          name: h,
          required: true,
          schema: { type: "string" },
        })),
        requestBody: { required: true, content: { "application/json": { schema: body.schema } } },
        responses: { "2XX": { description: "Received: any 2xx ends the delivery's retries." } },
      },
    };
  }
  schemas.Error = ERROR_SCHEMA;
  const doc: Obj = {
    openapi: "3.1.0",
    info: generated.info,
    servers: [{ url: "/", description: "The control plane this document was served by." }],
    tags: TAGS,
    security: [{ userToken: [] }],
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    webhooks,
  };
  const folded = foldInputs(doc, schemas);
  const named = Object.entries(folded.components as Schemas).sort(([a], [b]) => a.localeCompare(b));
  return { ...folded, components: { schemas: Object.fromEntries(named), securitySchemes: SECURITY_SCHEMES } };
}
