/**
 * The REST verbs of the simulated API server over the store: get, list, watch, create, update,
 * delete and deletecollection of one resource, with decoding and admission of request bodies.
 */
import type { ServerResponse } from "node:http";
import { admitRayJob, admitSecret } from "./admission.js";
import { badRequest, conflict, detailsOf, failure, notFound } from "./errors.js";
import { deleteOptions, listBody, matcher, type Route, sendJson } from "./requests.js";
import { apiVersionOf, type Json, type KubeObject, type ObjectMeta, type ResourceDef } from "./resources.js";
import type { Predicate } from "./selectors.js";
import { type Change, type KubeStore, randomSuffix, type WatchEvent } from "./store.js";

/** Answers the requests the server has authenticated, authorized and routed. */
export class ResourceHandlers {
  constructor(
    private readonly store: KubeStore,
    private readonly bookmarkIntervalMs: number,
  ) {}

  async dispatch(
    method: string,
    r: Route,
    query: Record<string, string>,
    body: unknown,
    res: ServerResponse,
  ): Promise<void> {
    const watch = query.watch === "true" || query.watch === "1";
    if (method === "GET" && watch) return this.watch(r, query, res);
    if (method === "GET" && r.name) return sendJson(res, 200, this.mustGet(r));
    if (method === "GET") return sendJson(res, 200, this.listOf(r, query));
    if (method === "POST" && !r.name) return this.create(r, query, body, res);
    if (method === "PUT" && r.name) return sendJson(res, 200, this.update(r, query, body));
    if (method === "DELETE" && r.name) return this.deleteOne(r, query, body, res);
    if (method === "DELETE") return sendJson(res, 200, this.deleteCollection(r, query));
    throw failure(
      405,
      "MethodNotAllowed",
      "the server does not allow this method on the requested resource",
      {},
    );
  }

  private mustGet(r: Route): KubeObject {
    const obj = this.store.get(r.d.name, r.namespace, r.name ?? "");
    if (!obj) throw notFound(r.d, r.name ?? "");
    return obj;
  }

  private listOf(r: Route, query: Record<string, string>): Json {
    const match = matcher(r, query);
    return listBody(r.d, this.store.resourceVersion, this.store.list(r.d.name, r.namespace, match));
  }

  private create(r: Route, query: Record<string, string>, body: unknown, res: ServerResponse): void {
    const obj = this.decode(r, body);
    const m = obj.metadata;
    if (!m.name && !m.generateName) {
      throw failure(
        422,
        "Invalid",
        `${r.d.group ? `${r.d.kind}.${r.d.group}` : r.d.kind} "" is invalid: metadata.name: Required value: name or generateName is required`,
      );
    }
    m.name ||= `${m.generateName}${randomSuffix()}`;
    for (const field of [
      "uid",
      "resourceVersion",
      "creationTimestamp",
      "deletionTimestamp",
      "generation",
    ] as const) {
      delete m[field];
    }
    // With a status subresource, a create's status is dropped before validation (the CR strategy).
    if (r.d.statusSubresource) delete obj.status;
    const warnings = this.admit(r.d, obj, query);
    const created = this.store.create(r.d.name, obj);
    sendJson(res, 201, created, warnings);
  }

  private update(r: Route, query: Record<string, string>, body: unknown): KubeObject {
    const cur = this.mustGet(r);
    const obj = this.decode(r, body);
    if (obj.metadata.name !== r.name) {
      throw badRequest(
        `the name of the object (${obj.metadata.name}) does not match the name on the URL (${r.name})`,
      );
    }
    const rv = obj.metadata.resourceVersion;
    if (rv && rv !== cur.metadata.resourceVersion) {
      throw conflict(
        r.d,
        cur.metadata.name,
        "the object has been modified; please apply your changes to the latest version and try again",
      );
    }
    if (r.sub === "status") return this.store.replace(r.d.name, { ...cur, status: obj.status ?? {} });
    // Only these of the metadata are the client's to change; status is the subresource's.
    const { labels, annotations, finalizers, ownerReferences } = obj.metadata;
    const metadata = { ...cur.metadata, labels, annotations, finalizers, ownerReferences };
    for (const k of Object.keys(metadata) as Array<keyof ObjectMeta>) {
      if (metadata[k] === undefined) delete metadata[k];
    }
    const next: KubeObject = { ...obj, metadata };
    if (r.d.statusSubresource) delete next.status;
    if (r.d.statusSubresource && cur.status) next.status = cur.status;
    this.admit(r.d, next, query);
    return this.store.replace(r.d.name, next);
  }

  private deleteOne(r: Route, query: Record<string, string>, body: unknown, res: ServerResponse): void {
    const { object, gone } = this.store.delete(
      r.d.name,
      r.namespace,
      r.name ?? "",
      deleteOptions(query, body),
    );
    // The generic registry answers a finished deletion with a Status, except where the resource
    // returns the deleted object (pods); a pending one (finalizers, grace) with the object.
    if (!gone || r.d.name === "pods") {
      sendJson(res, 200, object);
      return;
    }
    const m = object.metadata;
    sendJson(res, 200, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: { ...detailsOf(r.d, m.name), uid: m.uid },
    });
  }

  private deleteCollection(r: Route, query: Record<string, string>): Json {
    const o = deleteOptions(query, undefined);
    const deleted = this.store
      .list(r.d.name, r.namespace, matcher(r, query))
      .map((x) => this.store.delete(r.d.name, x.metadata.namespace, x.metadata.name, o).object);
    return listBody(r.d, this.store.resourceVersion, deleted);
  }

  /** The body as an object of this resource, or 400 as the API server would decode it. */
  private decode(r: Route, body: unknown): KubeObject {
    if (!body || typeof body !== "object" || Array.isArray(body))
      throw badRequest("the body of the request was not a JSON object");
    const obj = structuredClone(body) as KubeObject;
    const expected = apiVersionOf(r.d);
    // Built-in types take their kind from the URL when the body has none; custom resources cannot.
    if (!r.d.group) {
      obj.apiVersion ??= expected;
      obj.kind ??= r.d.kind;
    }
    if (!obj.kind) throw badRequest(`Object 'Kind' is missing in '${JSON.stringify(body)}'`);
    if (obj.apiVersion !== expected || obj.kind !== r.d.kind) {
      throw badRequest(
        `the API version in the data (${obj.apiVersion}) does not match the expected API version (${expected})`,
      );
    }
    obj.metadata = { ...(obj.metadata ?? {}) };
    const ns = obj.metadata.namespace;
    if (r.d.namespaced && ns && ns !== r.namespace) {
      throw badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      );
    }
    if (r.d.namespaced) obj.metadata.namespace = r.namespace;
    return obj;
  }

  private admit(d: ResourceDef, obj: KubeObject, query: Record<string, string>): string[] {
    if (d.name === "secrets") admitSecret(obj);
    if (d.name !== "rayjobs") return [];
    const v = query.fieldValidation ?? "Warn";
    if (v !== "Strict" && v !== "Warn" && v !== "Ignore")
      throw badRequest(`fieldValidation must be one of Strict, Warn, Ignore, got ${v}`);
    return admitRayJob(obj, v);
  }

  /** A watch: replay from resourceVersion (or the current state), then live changes, as NDJSON. */
  private watch(r: Route, query: Record<string, string>, res: ServerResponse): void {
    const match = matcher(r, query);
    const inScope = (c: Change) =>
      c.resource === r.d.name && (!r.namespace || c.object.metadata.namespace === r.namespace);
    const send = (type: string, object: unknown) => res.write(`${JSON.stringify({ type, object })}\n`);
    const emit = (c: Change) => {
      const e = inScope(c) ? watchEventOf(c, match) : undefined;
      if (e) send(e.type, e.object);
    };
    res.writeHead(200, { "content-type": "application/json", "cache-control": "no-cache, private" });
    // A watch with nothing to replay must still answer: clients wait for the headers.
    res.flushHeaders();
    const rv = query.resourceVersion;
    let replay: Change[] = [];
    if (rv && rv !== "0") {
      const since = this.store.since(Number(rv));
      if (!Array.isArray(since)) {
        send("ERROR", failure(410, "Expired", `too old resource version: ${rv} (${since.expired})`).status);
        res.end();
        return;
      }
      replay = since;
    } else {
      for (const object of this.store.list(r.d.name, r.namespace, match)) send("ADDED", object);
    }
    const unsubscribe = this.store.subscribe(emit);
    for (const c of replay) emit(c);
    const timers: NodeJS.Timeout[] = [];
    if (query.allowWatchBookmarks === "true") {
      const bookmark = () => {
        const metadata = { resourceVersion: this.store.resourceVersion };
        send("BOOKMARK", { kind: r.d.kind, apiVersion: apiVersionOf(r.d), metadata });
      };
      timers.push(setInterval(bookmark, this.bookmarkIntervalMs));
    }
    const timeout = Number(query.timeoutSeconds);
    if (timeout > 0) timers.push(setTimeout(() => res.end(), timeout * 1000));
    res.on("close", () => {
      unsubscribe();
      for (const t of timers) clearTimeout(t);
    });
  }
}

/**
 * What a watcher with this filter sees of a change: an object entering the selection is ADDED; one
 * leaving it is DELETED, carrying its last matching state at the change's resourceVersion (as the
 * watch cache does); else the change as it is.
 */
function watchEventOf(c: Change, match: Predicate): WatchEvent | undefined {
  const before = c.previous !== undefined && match(c.previous);
  if (c.type === "DELETED") return before || match(c.object) ? c : undefined;
  if (match(c.object)) return { type: before ? "MODIFIED" : "ADDED", object: c.object };
  if (!before || !c.previous) return undefined;
  const object = structuredClone(c.previous);
  object.metadata.resourceVersion = String(c.rv);
  return { type: "DELETED", object };
}
