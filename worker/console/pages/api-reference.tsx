/** @jsxImportSource hono/jsx */
/**
 * /console/api: the OpenAPI document (contract/openapi.json, also GET /v1/openapi.json) as pages a person
 * reads: operations by tag, each with who may call it, its parameters, body and answers (error codes per
 * status), the webhooks, and every named schema once, linked from where it is used. Rendered on the
 * server from the bundled document: no script, no style attribute, nothing fetched from elsewhere, so it
 * works behind a firewall and under the console's CSP.
 */

import { Hono } from "hono";
import type { Child } from "hono/jsx";
import document from "../../../contract/openapi.json";
import type { ConsoleEnv } from "../api.js";
import { Layout } from "../layout.js";

interface Schema {
  $ref?: string;
  type?: string | string[];
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: Schema | boolean;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  default?: unknown;
}
interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}
interface Answer {
  description: string;
  content?: Record<string, { schema?: Schema }>;
}
interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security?: Record<string, string[]>[];
  "x-required-role"?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: Schema }> };
  responses: Record<string, Answer>;
}
interface Doc {
  info: { title: string; version: string; description: string };
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: Operation }>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, { description: string }> };
}
const doc = document as unknown as Doc;

const refName = (ref: string) => ref.slice(ref.lastIndexOf("/") + 1);
const anchor = (kind: string, name: string) => `${kind}-${name.replace(/[^A-Za-z0-9_-]/g, "-")}`;

/** Bounds and formats, in a few words. */
function facets(s: Schema): string {
  const f: string[] = [];
  if (s.format) f.push(s.format);
  if (s.minimum !== undefined) f.push(`≥ ${s.minimum}`);
  if (s.maximum !== undefined && s.maximum < 1e15) f.push(`≤ ${s.maximum}`);
  if (s.minLength !== undefined && s.minLength > 0) f.push(`min ${s.minLength} chars`);
  if (s.maxLength !== undefined) f.push(`max ${s.maxLength} chars`);
  if (s.pattern) f.push(`matches ${s.pattern}`);
  if (s.default !== undefined) f.push(`default ${JSON.stringify(s.default)}`);
  return f.join(", ");
}

/** A schema's type, as one line where it can be (with links to named schemas). */
function TypeOf({ s }: { s: Schema }): Child {
  if (s.$ref) {
    const n = refName(s.$ref);
    return <a href={`#${anchor("schema", n)}`}>{n}</a>;
  }
  if (s.const !== undefined) return <code>{JSON.stringify(s.const)}</code>;
  if (s.enum) return <span>one of {s.enum.map((v) => JSON.stringify(v)).join(", ")}</span>;
  const alts = s.anyOf ?? s.oneOf;
  if (alts) {
    return (
      <span>
        {alts.map((a, i) => (
          <>
            {i > 0 ? " or " : null}
            <TypeOf s={a} />
          </>
        ))}
      </span>
    );
  }
  if (s.type === "array" && s.items) {
    return (
      <span>
        array of <TypeOf s={s.items} />
      </span>
    );
  }
  const t = Array.isArray(s.type) ? s.type.join(" or ") : (s.type ?? (s.properties ? "object" : "any"));
  const more = facets(s);
  return (
    <span>
      {t}
      {more ? <span class="note"> ({more})</span> : null}
    </span>
  );
}

/** A schema in full: an object's fields as a table (inline objects nested), anything else as its type. */
function SchemaView({ s, depth = 0 }: { s: Schema; depth?: number }): Child {
  if (s.allOf) {
    return (
      <>
        {s.allOf.map((m) => (
          <SchemaView s={m} depth={depth} />
        ))}
      </>
    );
  }
  const nested = (v: Schema) => !v.$ref && (v.properties || v.items?.properties) && depth < 4;
  if (!s.properties) {
    return (
      <p>
        <TypeOf s={s} />
        {s.description ? (
          <>
            {" — "}
            <Prose text={s.description} />
          </>
        ) : null}
      </p>
    );
  }
  const required = new Set(s.required ?? []);
  // A table none of whose fields says what it means, or holds an object, has no third column.
  const third = Object.values(s.properties).some((v) => v.description || nested(v));
  return (
    <div class="table-wrap">
      <table class="api-schema">
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Type</th>
            {third ? <th scope="col">Meaning</th> : null}
          </tr>
        </thead>
        <tbody>
          {Object.entries(s.properties).map(([name, v]) => (
            <tr>
              <th scope="row">
                <code>{name}</code>
                {required.has(name) ? <span class="note"> required</span> : null}
              </th>
              <td>{nested(v) ? v.items ? "array of objects" : "object" : <TypeOf s={v} />}</td>
              {third ? (
                <td>
                  <Prose text={v.description} />
                  {nested(v) ? <SchemaView s={v.items ?? v} depth={depth + 1} /> : null}
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** An error answer: its status and the codes this route answers with it. */
function errorCodes(a: Answer): string[] | null {
  const schema = a.content?.["application/json"]?.schema;
  const narrowed = schema?.allOf?.[1]?.properties?.error?.properties?.code?.enum;
  return narrowed ? (narrowed as string[]) : null;
}

/**
 * A description's text as the document means it (CommonMark): its code spans (`x`) as code, the rest as
 * text (escaped by JSX). Descriptions use no other markup (test/worker/console-api.test.ts).
 */
export const Prose = ({ text }: { text: string | undefined }): Child =>
  text
    ? text.split(/(`[^`]+`)/).map((part, i) => (i % 2 === 1 ? <code>{part.slice(1, -1)}</code> : part))
    : null;

const Paragraphs = ({ text }: { text: string | undefined }) =>
  text
    ? text.split(/\n\n+/).map((p) => (
        <p>
          <Prose text={p} />
        </p>
      ))
    : null;

function whoMay(op: Operation): string {
  const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
  if (schemes.length === 0) return "Anyone: no credential.";
  const names: Record<string, string> = {
    userToken: "a person's token",
    agentCredential: "a node's credential",
    ingestToken: "a run's ingest token",
  };
  const role = op["x-required-role"] ? `, role ${op["x-required-role"]} or above` : "";
  return `${schemes.map((s) => names[s] ?? s).join(" or ")}${role}.`;
}

function OperationView({ method, path, op }: { method: string; path: string; op: Operation }) {
  const body = op.requestBody;
  const meanings = op.parameters?.some((p) => p.description) ?? false;
  return (
    <details class="api-op" id={anchor("op", op.operationId)}>
      <summary>
        <code class="api-method">{method.toUpperCase()}</code> <code>{path}</code> —{" "}
        <Prose text={op.summary} />
      </summary>
      <Paragraphs text={op.description} />
      <p>
        <strong>Who may call it:</strong> {whoMay(op)} Operation id <code>{op.operationId}</code>.
      </p>
      {op.parameters?.length ? (
        <>
          <h4>Parameters</h4>
          <div class="table-wrap">
            <table class="api-schema">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">In</th>
                  <th scope="col">Type</th>
                  {meanings ? <th scope="col">Meaning</th> : null}
                </tr>
              </thead>
              <tbody>
                {op.parameters.map((p) => (
                  <tr>
                    <th scope="row">
                      <code>{p.name}</code>
                      {p.required ? <span class="note"> required</span> : null}
                    </th>
                    <td>{p.in}</td>
                    <td>{p.schema ? <TypeOf s={p.schema} /> : "string"}</td>
                    {meanings ? (
                      <td>
                        <Prose text={p.description} />
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
      {body ? (
        <>
          <h4>Body{body.required ? null : " (optional)"}</h4>
          {Object.entries(body.content).map(([media, c]) => (
            <>
              <p class="note">{media}</p>
              {c.schema ? <SchemaView s={c.schema} /> : null}
            </>
          ))}
        </>
      ) : null}
      <h4>Answers</h4>
      <dl class="api-answers">
        {Object.entries(op.responses).map(([status, a]) => {
          const codes = errorCodes(a);
          return (
            <>
              <dt>
                <code>{status}</code>
              </dt>
              <dd>
                {codes ? (
                  <p>
                    Error{" "}
                    {codes.map((c, i) => (
                      <>
                        {i > 0 ? ", " : null}
                        <code>{c}</code>
                      </>
                    ))}
                  </p>
                ) : (
                  <>
                    <Paragraphs text={a.description} />
                    {Object.entries(a.content ?? {}).map(([media, c]) => (
                      <>
                        <p class="note">{media}</p>
                        {c.schema ? <SchemaView s={c.schema} /> : null}
                      </>
                    ))}
                  </>
                )}
              </dd>
            </>
          );
        })}
      </dl>
    </details>
  );
}

const METHOD_ORDER = ["get", "post", "put", "patch", "delete"];

function referencePage() {
  const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .sort(([a], [b]) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b))
      .map(([method, op]) => ({ method, path, op })),
  );
  return (
    <>
      <h1>API reference</h1>
      <p>
        {doc.info.title}, version {doc.info.version}: every route under <code>/v1</code>, from the OpenAPI 3.1
        document this control plane serves at <a href="/v1/openapi.json">/v1/openapi.json</a> (generate a
        client from it). Errors are <code>{'{ "error": { "code", "message", "details" } }'}</code>; answers
        may carry fields not listed here.
      </p>
      <nav aria-label="API sections" class="api-toc">
        <ul>
          {doc.tags.map((t) => (
            <li>
              <a href={`#${anchor("tag", t.name)}`}>{t.name}</a>
            </li>
          ))}
          <li>
            <a href="#webhooks">Webhook deliveries</a>
          </li>
          <li>
            <a href="#schemas">Schemas</a>
          </li>
        </ul>
      </nav>
      {doc.tags.map((t) => {
        const mine = ops.filter((o) => o.op.tags.includes(t.name));
        return mine.length === 0 ? null : (
          <section id={anchor("tag", t.name)} aria-labelledby={`${anchor("tag", t.name)}-h`}>
            <h2 id={`${anchor("tag", t.name)}-h`}>{t.name}</h2>
            <Paragraphs text={t.description} />
            {mine.map((o) => (
              <OperationView {...o} />
            ))}
          </section>
        );
      })}
      <section id="webhooks" aria-labelledby="webhooks-h">
        <h2 id="webhooks-h">Webhook deliveries</h2>
        <p>What an endpoint receives: a signed POST per event (Standard Webhooks headers).</p>
        {Object.entries(doc.webhooks).map(([name, w]) => (
          <OperationView method="post" path={`(your endpoint) ${name}`} op={w.post} />
        ))}
      </section>
      <section id="schemas" aria-labelledby="schemas-h">
        <h2 id="schemas-h">Schemas</h2>
        {Object.entries(doc.components.schemas).map(([name, s]) => (
          <section id={anchor("schema", name)} aria-labelledby={`${anchor("schema", name)}-h`}>
            <h3 id={`${anchor("schema", name)}-h`}>{name}</h3>
            <Paragraphs text={s.description} />
            <SchemaView s={s} />
          </section>
        ))}
      </section>
    </>
  );
}

export const apiReferencePages = new Hono<ConsoleEnv>().get("/api", (c) =>
  c.html(
    <Layout title="API reference" session={c.get("session")} section="api">
      {referencePage()}
    </Layout>,
  ),
);
