/**
 * docs/api.md and the OpenAPI document say some things both: which role a route needs, whether it is
 * public, and which error codes it answers with which status. Where both speak they must agree. The
 * examples docs/api.md shows are the runnable files in docs/examples (test/node/openapi-client.test.ts
 * runs them), verbatim.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../contract/errors.js";

const read = (p: string) => readFileSync(new URL(`../../${p}`, import.meta.url), "utf8");
const prose = read("docs/api.md");
type Op = {
  security?: unknown[];
  "x-required-role"?: string;
  responses: Record<string, { content?: Record<string, { schema?: { allOf?: unknown[] } }> }>;
};
const doc = JSON.parse(read("contract/openapi.json")) as { paths: Record<string, Record<string, Op>> };

/** Each `### METHOD /v1/...` section of docs/api.md, with its operation in the document. */
const sections = [
  ...prose.matchAll(/^### (GET|POST|PUT|PATCH|DELETE) (\/v1\/\S+)\s*\n([\s\S]*?)(?=^#{2,3} )/gm),
].map((m) => {
  const template = m[2]!.replace(/:([A-Za-z_]+)/g, "{$1}").replace(/\/\*$/, "/{path}");
  return { route: `${m[1]} ${m[2]}`, op: doc.paths[template]?.[m[1]!.toLowerCase()], text: m[3]! };
});

function codesAt(op: Op, status: string): string[] {
  const schema = op.responses[status]?.content?.["application/json"]?.schema;
  const narrowed = schema?.allOf?.[1] as {
    properties: { error: { properties: { code: { enum: string[] } } } };
  };
  return narrowed?.properties.error.properties.code.enum ?? [];
}

describe("docs/api.md and contract/openapi.json", () => {
  it("have one operation per route section", () => {
    expect(sections.length).toBeGreaterThan(90);
    expect(sections.filter((s) => !s.op).map((s) => s.route)).toEqual([]);
  });

  it("agree on the least role a route needs", () => {
    const differ = sections.flatMap(({ route, op, text }) => {
      const said = /Least role: \*\*(viewer|operator|admin)\*\*/.exec(text)?.[1];
      return said && said !== op?.["x-required-role"]
        ? [`${route}: prose ${said}, document ${op?.["x-required-role"]}`]
        : [];
    });
    expect(differ).toEqual([]);
  });

  it("agree on which routes are public", () => {
    const differ = sections.flatMap(({ route, op, text }) => {
      const publicInProse = /^Public\b/.test(text.trimStart());
      const publicInDoc = (op?.security ?? [{}]).length === 0;
      return publicInProse !== publicInDoc
        ? [`${route}: prose ${publicInProse}, document ${publicInDoc}`]
        : [];
    });
    expect(differ).toEqual([]);
  });

  it("agree on the error codes a route answers, and with which status", () => {
    const differ = sections.flatMap(({ route, op, text }) =>
      [...text.matchAll(/\b([45]\d\d) `([A-Z][A-Z_]+)`/g)].flatMap(([, status, code]) => {
        if (!(code! in ERROR_CODES)) return [];
        if (String(ERROR_CODES[code as keyof typeof ERROR_CODES]) !== status) {
          return [
            `${route}: prose says ${status} ${code}, the code's status is ${ERROR_CODES[code as keyof typeof ERROR_CODES]}`,
          ];
        }
        return op && codesAt(op, status!).includes(code!)
          ? []
          : [`${route}: prose says ${status} ${code}, the document does not`];
      }),
    );
    expect([...new Set(differ)]).toEqual([]);
  });

  it("show the examples in docs/examples verbatim", () => {
    for (const [file, lang] of [
      ["docs/examples/submit-and-follow.ts", "ts"],
      ["docs/examples/submit_and_follow.py", "python"],
    ] as const) {
      expect(prose).toContain(`\`\`\`${lang}\n${read(file)}\`\`\``);
    }
  });
});

/** A JSON Schema as the document writes the JobSpec's. */
type Field = {
  type?: string;
  properties?: Record<string, Field>;
  required?: string[];
  items?: Field;
  default?: unknown;
  description?: string;
};
const jobSpec = (JSON.parse(read("contract/openapi.json")) as { components: { schemas: { JobSpec: Field } } })
  .components.schemas.JobSpec;

/** The rows of the markdown table that follows `heading` in docs/api.md: first cell (backticks off) → cells. */
function tableAfter(heading: string): Map<string, string[]> {
  const from = prose.indexOf(heading);
  expect(from, heading).toBeGreaterThan(-1);
  const rows = new Map<string, string[]>();
  let started = false;
  for (const line of prose.slice(from + heading.length).split("\n")) {
    if (!line.startsWith("|")) {
      if (started) break;
      continue;
    }
    started = true;
    const cells = line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
    const name = /^`([^`]+)`$/.exec(cells[0]!)?.[1];
    if (name) rows.set(name, cells.slice(1));
  }
  return rows;
}

/**
 * The JobSpec's fields as the table lists them: each top-level field, an object's fields one level down
 * (`metadata.name`); deeper objects (`metadata.sweep`, `resources.fleet_selector`) are one row.
 */
function specFields(): Map<string, { field: Field; required: boolean }> {
  const out = new Map<string, { field: Field; required: boolean }>();
  for (const [name, f] of Object.entries(jobSpec.properties!)) {
    if (!f.properties) {
      out.set(name, { field: f, required: (jobSpec.required ?? []).includes(name) });
      continue;
    }
    for (const [child, c] of Object.entries(f.properties))
      out.set(`${name}.${child}`, { field: c, required: (f.required ?? []).includes(child) });
  }
  return out;
}

describe("docs/api.md's JobSpec tables and the document's JobSpec", () => {
  const table = tableAfter("#### JobSpec (body of `POST /v1/jobs`)");
  const fields = specFields();

  it("list the same fields, each with its meaning in the document", () => {
    expect([...table.keys()].sort()).toEqual([...fields.keys()].sort());
    expect([...fields].filter(([, f]) => !f.field.description).map(([n]) => n)).toEqual([]);
    const pool = jobSpec.properties!.resources!.properties!.pools!.items!;
    const poolTable = tableAfter("\nPool:\n");
    expect([...poolTable.keys()].sort()).toEqual(Object.keys(pool.properties!).sort());
    expect(Object.entries(pool.properties!).filter(([, f]) => !f.description)).toEqual([]);
  });

  it("agree on which fields are required and on literal defaults", () => {
    const differ = [...table].flatMap(([name, cells]) => {
      const said = cells.at(-1)!;
      const f = fields.get(name);
      if (!f) return [];
      if ((said === "required") !== f.required)
        return [`${name}: the table says ${said}, the document ${f.required ? "required" : "optional"}`];
      const literal = /^`([^`]+)`$/.exec(said)?.[1];
      if (literal === undefined || f.field.default === undefined) return [];
      let value: unknown;
      try {
        value = JSON.parse(literal);
      } catch {
        value = literal;
      }
      return JSON.stringify(value) === JSON.stringify(f.field.default)
        ? []
        : [`${name}: default ${literal} in the table, ${JSON.stringify(f.field.default)} in the document`];
    });
    expect(differ).toEqual([]);
  });
});
