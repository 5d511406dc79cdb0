/**
 * Every answer the Worker tier's tests receive from SELF.fetch is checked against the OpenAPI document
 * (contract/openapi.json): the route must describe the status, and a JSON body must match that status's
 * schema (for an error, `code` must be one the route lists). A test whose request gets an answer the
 * document does not describe fails with what differs. Installed by test/worker/setup.ts.
 */
import { SELF } from "cloudflare:test";
import { type Schema, Validator } from "@cfworker/json-schema";
import document from "../../contract/openapi.json";

type Obj = Record<string, unknown>;
interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: Obj }> }>;
}

const doc = document as unknown as { paths: Record<string, Record<string, Operation>>; components: Obj };

/** Path templates as regular expressions, the literal ones first (`/jobs/{id}` vs `/jobs/new`). */
const templates = Object.keys(doc.paths)
  .map((t) => ({
    template: t,
    re: new RegExp(`^${t.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`),
    literal: t.split("{").length,
  }))
  .sort((a, b) => a.literal - b.literal);

/** The named schemas with their refs rewritten for `$defs`, made once and shared by every answer's validator. */
const DEFS = JSON.parse(
  JSON.stringify((doc.components as { schemas: Obj }).schemas).replaceAll(
    '"#/components/schemas/',
    '"#/$defs/',
  ),
) as Obj;

/** `#/components/schemas/X` refs made resolvable inside one standalone schema. */
function standalone(schema: Obj): Schema {
  const own = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"#/$defs/')) as Obj;
  return { ...own, $defs: DEFS } as Schema;
}

const validators = new Map<string, Validator>();

export interface Conformance {
  problem: string | null;
  checked: boolean;
}

/** Whether an answer is one the document describes for its route; null when it is (or is not ours). */
export function conformance(method: string, url: string, status: number, contentType: string, body: string) {
  const path = new URL(url).pathname;
  if (!path.startsWith("/v1/")) return null;
  const t = templates.find((x) => x.re.test(path));
  const m = method.toLowerCase() === "head" ? "get" : method.toLowerCase();
  const op = t ? doc.paths[t.template]![m] : undefined;
  // A path no route serves (404) or a method it does not (404/405) is not an operation to check.
  if (!t || !op) return null;
  const where = `${method} ${t.template} → ${status}`;
  const answer = op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`];
  if (!answer)
    return `${where}: the document does not describe this status (it lists ${Object.keys(op.responses).join(", ")})`;
  const media = contentType.split(";")[0]!.trim().toLowerCase();
  if (method.toUpperCase() === "HEAD" || status === 204 || status === 304 || media === "") return null;
  if (!answer.content) return `${where}: answered a ${media} body, the document describes none`;
  const described = answer.content[media];
  if (!described) {
    return `${where}: answered ${media}, the document describes ${Object.keys(answer.content).join(", ")}`;
  }
  if (media !== "application/json" || !described.schema || body === "") return null;
  const key = `${m} ${t.template} ${status}`;
  let v = validators.get(key);
  if (!v) {
    v = new Validator(standalone(described.schema), "2020-12", false);
    validators.set(key, v);
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return `${where}: the body is not JSON`;
  }
  const r = v.validate(value);
  if (r.valid) return null;
  const errors = r.errors
    .filter((e) => e.keyword !== "$ref" && e.keyword !== "allOf" && e.keyword !== "properties")
    .slice(0, 6)
    .map((e) => `${e.instanceLocation}: ${e.error}`);
  return `${where}: the body does not match the document:\n  ${errors.join("\n  ")}\n  body: ${body.slice(0, 600)}`;
}

/**
 * Throws when an answer to `method url` is not one the document describes; returns the answer untouched.
 * For the tests that call the Worker's fetch handler directly (another env, a strict rate limit) rather
 * than through SELF.fetch.
 */
export async function described(method: string, url: string, res: Response): Promise<Response> {
  const type = res.headers.get("content-type") ?? "";
  // Only JSON bodies are read here: streams (SSE) never end, downloads are checked by media type.
  const body = type.includes("json") ? await res.clone().text() : "";
  const problem = conformance(method, url, res.status, type, body);
  if (problem) throw new Error(`OpenAPI conformance: ${problem}`);
  return res;
}

/** Wraps SELF.fetch so every answer is checked; a mismatch throws where the test made the request. */
export function checkAnswersAgainstDocument(): void {
  const self = SELF as unknown as { fetch: typeof fetch };
  const original = self.fetch.bind(SELF);
  self.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    const url = input instanceof Request ? input.url : String(input);
    return described(method, url, await original(input, init));
  };
}
