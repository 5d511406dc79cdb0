/**
 * How a route describes itself in the OpenAPI document (contract/openapi.json, docs/api.md "The OpenAPI
 * document"): `describe({...})` is a middleware that does nothing at request time and carries the route's
 * operation for `hono-openapi`'s generator, which walks `createApp().routes` (worker/openapi/document.ts).
 * Bodies, queries and answers are the zod schemas the code validates and the CLI parses with; they are
 * converted by zod's own JSON Schema emitter (draft 2020-12, what OpenAPI 3.1 uses) only when the document
 * is generated, never on a request.
 */
import type { MiddlewareHandler } from "hono";
import { type ZodType, z } from "zod";
import type { ErrorCode } from "../../contract/errors.js";
import { componentRegistry } from "./components.js";

/** Who may call a route: a person's token, a node's credential, a run's ingest token, or anyone. */
export type Auth = "user" | "agent" | "user_or_agent" | "ingest" | "none";

export type Role = "viewer" | "operator" | "admin";

/** An answer: a JSON body (a zod schema), or another media type described in words. */
export type Answer =
  | ZodType
  | {
      description: string;
      /** A JSON body. */
      json?: ZodType;
      /** Another media type: its content type and, for text, what it holds. */
      media?: { type: string; schema?: ZodType | Record<string, unknown> };
      headers?: Record<string, string>;
    };

export interface RouteDoc {
  /** The operation's name in generated clients: a camelCase verb phrase (`submitJob`, `listJobs`). */
  id: string;
  /** The group it is listed under (docs/api.md's section). */
  tag: string;
  summary: string;
  description?: string;
  /** Default `user`. */
  auth?: Auth;
  /** The least role a person needs (`requireRole`). */
  role?: Role;
  /** The JSON request body; `optional` when the route also takes none. */
  body?: ZodType | { schema: ZodType; optional?: boolean; media?: string; description?: string };
  query?: z.ZodObject;
  /** Request headers the route reads (beside Authorization). */
  headers?: Record<string, { description: string; required?: boolean }>;
  /** Success answers by status. */
  ok: Record<number, Answer>;
  /** Error codes this route itself may answer (the common ones are added: auth, role, body, server). */
  errors?: ErrorCode[];
}

/** The marker `document.ts` uses to tell a converted schema from a literal one. */
export const CONVERT = Symbol.for("starforge.openapi.convert");

/** Where a `describe()` middleware carries its operation for document.ts. */
export const OPERATION = Symbol.for("starforge.openapi.operation");

/** Where an operation carries its declared error codes until document.ts writes the error answers. */
export const ERROR_CODES_KEY = "x-starforge-error-codes";

type Io = "input" | "output";

/**
 * A deferred conversion in the shape hono-openapi resolves (`toOpenAPISchema`): named schemas
 * (components.ts) become `$ref`s into components.schemas; an input-side one is named `<Name>__input` until
 * document.ts folds it into `<Name>` when both sides agree.
 */
export function schemaOf(schema: ZodType, io: Io) {
  return {
    toOpenAPISchema: async () => {
      const suffix = io === "input" ? "__input" : "";
      const json = z.toJSONSchema(schema, {
        target: "draft-2020-12",
        io,
        metadata: componentRegistry,
        unrepresentable: "any",
        cycles: "ref",
        reused: "inline",
        override: (ctx) => {
          // Answers are open: a client ignores fields added after it was written (docs/api.md). JSON
          // Schema's default says so; saying it explicitly would give every generated type an index
          // signature, which defeats a client's narrowing (`"job" in answer`).
          const extra = ctx.jsonSchema.additionalProperties;
          if (io === "output" && (extra === false || (isEmptySchema(extra) && ctx.jsonSchema.properties))) {
            delete ctx.jsonSchema.additionalProperties;
          }
          // A query integer travels as digits (a string schema with a pattern) and says it is an integer.
          if (ctx.jsonSchema.type === "integer") delete ctx.jsonSchema.pattern;
          // zod names some string checks as formats JSON Schema does not know (`starts_with`, …): the
          // pattern beside it says the same, so only the standard ones stay.
          const format = ctx.jsonSchema.format;
          if (typeof format === "string" && !STANDARD_FORMATS.has(format)) delete ctx.jsonSchema.format;
          // A date is sent as its ISO string.
          if (ctx.zodSchema._zod.def.type === "date") {
            ctx.jsonSchema.type = "string";
            ctx.jsonSchema.format = "date-time";
          }
        },
      }) as Record<string, unknown> & { $defs?: Record<string, unknown> };
      const { $defs, $schema: _, ...root } = json;
      const schemas: Record<string, unknown> = {};
      for (const [id, def] of Object.entries($defs ?? {}))
        schemas[`${id}${suffix}`] = toComponents(def, suffix);
      return { schema: toComponents(root, suffix) as Record<string, unknown>, components: { schemas } };
    },
  };
}

const isEmptySchema = (v: unknown) => typeof v === "object" && v !== null && Object.keys(v).length === 0;

/** JSON Schema 2020-12's defined formats (§7.3), and OpenAPI's. */
const STANDARD_FORMATS = new Set([
  "date-time",
  "date",
  "time",
  "duration",
  "email",
  "idn-email",
  "hostname",
  "idn-hostname",
  "ipv4",
  "ipv6",
  "uri",
  "uri-reference",
  "iri",
  "iri-reference",
  "uuid",
  "uri-template",
  "json-pointer",
  "relative-json-pointer",
  "regex",
  "int32",
  "int64",
  "float",
  "double",
  "byte",
  "binary",
  "password",
]);

/** zod writes references to named schemas as `#/$defs/<id>`; in the document they live in components. */
function toComponents(node: unknown, suffix: string): unknown {
  if (Array.isArray(node)) return node.map((n) => toComponents(n, suffix));
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    out[k] =
      k === "$ref" && typeof v === "string" && v.startsWith("#/$defs/")
        ? `#/components/schemas/${v.slice("#/$defs/".length)}${suffix}`
        : toComponents(v, suffix);
  }
  return out;
}

const AUTH_SECURITY: Record<Auth, Record<string, string[]>[]> = {
  user: [{ userToken: [] }],
  agent: [{ agentCredential: [] }],
  user_or_agent: [{ userToken: [] }, { agentCredential: [] }],
  ingest: [{ ingestToken: [] }],
  none: [],
};

function answerOf(a: Answer) {
  if (a instanceof z.ZodType) {
    return { description: "OK", content: { "application/json": { schema: schemaOf(a, "output") } } };
  }
  const content: Record<string, unknown> = {};
  if (a.json) content["application/json"] = { schema: schemaOf(a.json, "output") };
  if (a.media) {
    const s = a.media.schema;
    content[a.media.type] = { schema: s instanceof z.ZodType ? schemaOf(s, "output") : (s ?? {}) };
  }
  const headers = a.headers
    ? Object.fromEntries(
        Object.entries(a.headers).map(([k, d]) => [k, { description: d, schema: { type: "string" } }]),
      )
    : undefined;
  return {
    description: a.description,
    ...(Object.keys(content).length ? { content } : {}),
    ...(headers ? { headers } : {}),
  };
}

/**
 * The codes a route may answer by what it declares: its own, and those its credential, role, body and
 * query add. Those of the middleware every request passes (the version handshake, the failed-login
 * limiter, the body limit) are added by path when the document is built (document.ts).
 */
export function errorCodesOf(d: RouteDoc): ErrorCode[] {
  const codes = new Set<ErrorCode>(d.errors ?? []);
  const auth = d.auth ?? "user";
  if (auth !== "none") codes.add("UNAUTHENTICATED");
  // Any bearer token is resolved before the route runs: a revoked person's token is refused as such.
  if (auth !== "none" && auth !== "ingest") codes.add("TOKEN_REVOKED");
  if (d.role) codes.add("FORBIDDEN");
  if (d.body || d.query) codes.add("BAD_REQUEST");
  return [...codes];
}

/**
 * Query parameters from a zod object: one parameter per key, required when the input requires it. Their
 * schemas are converted with the rest of the document (document.ts resolves `{ [CONVERT]: field }`).
 */
function queryParameters(query: z.ZodObject) {
  return Object.entries(query.shape).map(([name, field]) => {
    const f = field as ZodType;
    const description = f.description;
    return {
      in: "query" as const,
      name,
      required: !f.safeParse(undefined).success,
      ...(description ? { description } : {}),
      schema: { [CONVERT]: f },
    };
  });
}

export function describe(d: RouteDoc): MiddlewareHandler {
  const responses: Record<string, unknown> = {};
  for (const [status, a] of Object.entries(d.ok)) responses[status] = answerOf(a);
  const auth = d.auth ?? "user";
  const body = d.body instanceof z.ZodType ? { schema: d.body } : d.body;
  const roleLine = d.role ? `Role: ${d.role} or above.` : undefined;
  const description = [d.description, roleLine].filter(Boolean).join("\n\n") || undefined;
  const parameters = [
    ...(d.query ? queryParameters(d.query) : []),
    ...Object.entries(d.headers ?? {}).map(([name, h]) => ({
      in: "header" as const,
      name,
      required: h.required ?? false,
      description: h.description,
      schema: { type: "string" },
    })),
  ];
  const spec = {
    operationId: d.id,
    tags: [d.tag],
    // Turned into the error answers by document.ts, with the middleware's codes.
    [ERROR_CODES_KEY]: errorCodesOf(d),
    summary: d.summary,
    ...(description ? { description } : {}),
    security: AUTH_SECURITY[auth],
    ...(d.role ? { "x-required-role": d.role } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(body
      ? {
          requestBody: {
            required: !body.optional,
            ...(body.description ? { description: body.description } : {}),
            content: { [body.media ?? "application/json"]: { schema: schemaOf(body.schema, "input") } },
          },
        }
      : {}),
    responses,
  };
  // Does nothing on a request; document.ts reads the operation off it (hono-openapi is not imported here:
  // its schema adapters load converters by dynamic import, which has no place in the Worker's bundle).
  const middleware: MiddlewareHandler = async (_c, next) => {
    await next();
  };
  return Object.assign(middleware, { [OPERATION]: spec });
}
