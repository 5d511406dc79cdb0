/**
 * contract/openapi.json as a document: valid OpenAPI 3.1 (the specification's own JSON Schema, via
 * @seriousme/openapi-schema-validator), clean under Redocly's `recommended` lint rules (warnings count),
 * and consistent with the error table: every error answer lists codes whose status is that answer's.
 * Whether it matches the routes and what they send is test/worker/openapi*.test.ts.
 */
import { readFileSync } from "node:fs";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../contract/errors.js";

const path = new URL("../../contract/openapi.json", import.meta.url).pathname;
const text = readFileSync(path, "utf8");
type Op = {
  operationId?: string;
  summary?: string;
  tags?: string[];
  responses: Record<string, { content?: Record<string, { schema?: { allOf?: unknown[] } }> }>;
};
const doc = JSON.parse(text) as {
  paths: Record<string, Record<string, Op>>;
  webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: Schema }> } } }>;
  tags: { name: string }[];
};
const operations = Object.entries(doc.paths).flatMap(([p, ops]) =>
  Object.entries(ops).map(([m, op]) => ({ where: `${m.toUpperCase()} ${p}`, op })),
);

type Schema = {
  $ref?: string;
  description?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  additionalProperties?: Schema | boolean;
};
const schemas = (JSON.parse(text) as { components: { schemas: Record<string, Schema> } }).components.schemas;

/**
 * Adds to `out` the fields of `s` (nested objects and array items included) without a description. A field
 * typed by a named schema is explained where that schema is; `follow` also walks into those (once each).
 */
function undescribed(
  s: Schema | undefined,
  where: string,
  out: string[],
  opts: { follow: boolean },
  seen = new Set<Schema>(),
): void {
  const r = s?.$ref ? (opts.follow ? schemas[s.$ref.split("/").pop()!] : undefined) : s;
  if (!r || seen.has(r)) return;
  seen.add(r);
  const values = typeof r.additionalProperties === "object" ? r.additionalProperties : undefined;
  for (const x of [r.items, values, ...(r.allOf ?? []), ...(r.anyOf ?? []), ...(r.oneOf ?? [])])
    undescribed(x, where, out, opts, seen);
  for (const [name, f] of Object.entries(r.properties ?? {})) {
    if (!f.description && !f.$ref) out.push(`${where}: ${name}`);
    undescribed(f, `${where}.${name}`, out, opts, seen);
  }
}

describe("contract/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const v = new Validator();
    const res = await v.validate(JSON.parse(text));
    expect(res.errors ?? []).toEqual([]);
    expect(res.valid).toBe(true);
    expect(v.version).toBe("3.1");
  });

  it("has no problem under Redocly's recommended rules, warnings included", async () => {
    // The product carries no licence grant (package.json is private), so the document names none.
    const config = await createConfig({ extends: ["recommended"], rules: { "info-license": "off" } });
    const problems = await lintFromString({ source: text, absoluteRef: path, config });
    const found = problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}`);
    // Two routes the rules cannot fit, each as it must be: the agent's WebSocket answers 101 (OpenAPI has
    // no WebSocket), and /v1/health has no 4xx (never refused for credentials, logins or an old sf).
    const known = [
      "operation-2xx-response at #/paths/~1v1~1agents~1connect/get/responses",
      "operation-4xx-response at #/paths/~1v1~1health/get/responses",
    ];
    expect(found.filter((f) => !known.includes(f))).toEqual([]);
    expect(known.filter((k) => !found.includes(k))).toEqual([]);
  });

  it("lists for each error status only codes that answer with that status", () => {
    const wrong: string[] = [];
    for (const { where, op } of operations) {
      for (const [status, answer] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        const schema = answer.content?.["application/json"]?.schema;
        const codes = (
          schema?.allOf?.[1] as { properties: { error: { properties: { code: { enum: string[] } } } } }
        )?.properties.error.properties.code.enum;
        expect(codes, `${where} ${status}`).toBeDefined();
        for (const c of codes ?? []) {
          if (String(ERROR_CODES[c as keyof typeof ERROR_CODES]) !== status)
            wrong.push(`${where} ${status} ${c}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it("names, sums up and files every operation under a declared tag", () => {
    const tags = new Set(doc.tags.map((t) => t.name));
    const ids = operations.map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { where, op } of operations) {
      expect(op.operationId, where).toMatch(/^[a-z][A-Za-z0-9]+$/);
      expect(op.summary, where).toBeTruthy();
      expect(
        op.tags?.every((t) => tags.has(t)),
        where,
      ).toBe(true);
    }
  });

  it("says what every field a client sends means (request bodies, every level)", () => {
    const out: string[] = [];
    for (const { where, op } of operations) {
      const body = (op as { requestBody?: { content?: Record<string, { schema?: Schema }> } }).requestBody;
      undescribed(body?.content?.["application/json"]?.schema, where, out, { follow: true });
    }
    expect(out).toEqual([]);
  });

  it("says what every field a client receives means (every answer and webhook delivery, every level)", () => {
    const out: string[] = [];
    for (const { where, op } of operations)
      for (const [status, answer] of Object.entries(op.responses))
        for (const [type, content] of Object.entries(answer.content ?? {}))
          undescribed(content.schema as Schema, `${where} ${status} ${type}`, out, { follow: true });
    for (const [name, hook] of Object.entries(doc.webhooks))
      undescribed(hook.post.requestBody.content["application/json"]?.schema, `webhook ${name}`, out, {
        follow: true,
      });
    expect([...new Set(out)]).toEqual([]);
  });

  it("describes what every kind of webhook delivery carries", () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual(["job-event", "team-budget", "webhook-test"]);
  });
});
