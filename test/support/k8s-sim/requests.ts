/**
 * What an HTTP request addresses (its route, the RBAC access it asks for, the objects it selects),
 * and the wire helpers that read its body and write list and JSON answers.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { badRequest, noSuchResource } from "./errors.js";
import type { Access } from "./rbac.js";
import { apiVersionOf, type Json, type KubeObject, RESOURCES, type ResourceDef } from "./resources.js";
import { fieldSelector, labelSelector, type Predicate } from "./selectors.js";
import type { DeleteOptions } from "./store.js";

export interface Route {
  d: ResourceDef;
  namespace?: string;
  name?: string;
  sub?: "status";
}

/** `/api/v1/namespaces/ns/pods/name/status`, `/apis/ray.io/v1/rayjobs`, … → what it addresses. */
export function parseRoute(path: string): Route {
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  let group = "";
  let rest: string[];
  if (parts[0] === "api" && parts[1] === "v1") rest = parts.slice(2);
  else if (parts[0] === "apis" && parts[2] === "v1") {
    group = parts[1] ?? "";
    rest = parts.slice(3);
  } else throw noSuchResource();
  const namespace = rest[0] === "namespaces" && rest.length >= 3 ? rest[1] : undefined;
  if (namespace !== undefined) rest = rest.slice(2);
  const [plural, name, sub, ...extra] = rest;
  const d = Object.values(RESOURCES).find((x) => x.name === plural && x.group === group);
  const subOk = sub === undefined || (sub === "status" && d?.statusSubresource);
  if (
    !d ||
    extra.length ||
    !subOk ||
    (namespace !== undefined && !d.namespaced) ||
    (d.namespaced && name && !namespace)
  ) {
    throw noSuchResource();
  }
  return { d, namespace, name, sub: sub === "status" ? "status" : undefined };
}

export function accessOf(method: string, r: Route, query: Record<string, string>): Access {
  const watch = query.watch === "true" || query.watch === "1";
  const verbs: Record<string, string> = r.name
    ? { GET: watch ? "watch" : "get", PUT: "update", PATCH: "patch", DELETE: "delete" }
    : { GET: watch ? "watch" : "list", POST: "create", DELETE: "deletecollection" };
  return {
    verb: verbs[method] ?? method.toLowerCase(),
    group: r.d.group,
    resource: r.sub ? `${r.d.name}/${r.sub}` : r.d.name,
    ...(r.namespace ? { namespace: r.namespace } : {}),
    ...(r.name ? { name: r.name } : {}),
  };
}

export function matcher(r: Route, query: Record<string, string>): Predicate {
  const labels = labelSelector(query.labelSelector);
  const fields = fieldSelector(r.d, query.fieldSelector);
  return (o) => (!r.name || o.metadata.name === r.name) && labels(o) && fields(o);
}

/** A list answer. Built-in lists (PodList…) carry items without kind/apiVersion; custom resource lists with. */
export function listBody(d: ResourceDef, resourceVersion: string, items: KubeObject[]): Json {
  const shown = d.group ? items : items.map(({ kind: _k, apiVersion: _a, ...rest }) => rest);
  return { kind: `${d.kind}List`, apiVersion: apiVersionOf(d), metadata: { resourceVersion }, items: shown };
}

export function deleteOptions(query: Record<string, string>, body: unknown): DeleteOptions {
  const b = (body && typeof body === "object" ? body : {}) as Json;
  const policy = (query.propagationPolicy ?? b.propagationPolicy) as DeleteOptions["propagationPolicy"];
  const orphan = query.orphanDependents ?? b.orphanDependents;
  const grace = query.gracePeriodSeconds ?? b.gracePeriodSeconds;
  return {
    ...(policy
      ? { propagationPolicy: policy }
      : orphan === "true" || orphan === true
        ? { propagationPolicy: "Orphan" }
        : {}),
    ...(grace !== undefined ? { gracePeriodSeconds: Number(grace) } : {}),
    ...(b.preconditions ? { preconditions: b.preconditions as DeleteOptions["preconditions"] } : {}),
  };
}

export async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest("the body of the request could not be decoded as JSON");
  }
}

export function sendJson(res: ServerResponse, code: number, body: unknown, warnings: string[] = []): void {
  const headers: Record<string, string | string[]> = { "content-type": "application/json" };
  if (warnings.length) headers.warning = warnings.map((w) => `299 - ${JSON.stringify(w)}`);
  res.writeHead(code, headers).end(JSON.stringify(body));
}
