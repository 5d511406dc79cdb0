/**
 * Generated requests to the Worker's routes, with nothing of workerd in it (no `cloudflare:test`), so the
 * workerd fuzz (fuzz-routes.ts, sent through SELF.fetch) and the local-stack fuzz (test/node, sent over real
 * kept-alive connections) generate the same requests: a route's valid seed (fuzz-seeds.ts) mutated in
 * every part, its credentials, path parameters, query, body, content type and headers.
 */
import fc from "fast-check";
import {
  type Body,
  bodyFor,
  garbage,
  oddHeaders,
  oddSegment,
  queryFor,
  serialize,
} from "./fuzz-arbitraries.js";
import { type Fixture, IDENTITIES, type Identities, idsOfEveryKind, type Who } from "./fuzz-model.js";
import type { Seed } from "./fuzz-seeds.js";

/** Authorization values that are not a valid credential, or an odd spelling of one (`{admin}`). */
const BAD_AUTH = [
  "Bearer",
  "Bearer ",
  "Basic Zm9vOmJhcg==",
  "Bearer a b",
  "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJub2RfeCJ9.",
  "Bearer eyJ!!!.e30.x",
  "Bearer eyJhbGciOiJIUzI1NiJ9.e30.AAAA",
  `Bearer sfp_${"0".repeat(40)}`,
  `Bearer ${"x".repeat(8_000)}`,
  "bearer {admin}",
  "Bearer\t{admin}",
  "Bearer {admin} extra",
  "Bearer {ingest}",
  "Bearer é",
];
const BAD_INGEST = ["garbage", "eyJ.eyJ.sig", "{admin}", "{agent}", " ", "x".repeat(8_000)];

export type Auth = { who: Who } | { header: "authorization" | "x-starforge-token"; value: string };

/** Mostly `right` (so requests reach the route's own code), sometimes anyone else or a bad form. */
export function authFor(right: Who): fc.Arbitrary<Auth> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant<Auth>({ who: right }) },
    { weight: 2, arbitrary: fc.constantFrom(...IDENTITIES).map((who): Auth => ({ who })) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.constantFrom(...BAD_AUTH).map((value): Auth => ({ header: "authorization", value })),
        fc.constantFrom(...BAD_INGEST).map((value): Auth => ({ header: "x-starforge-token", value })),
      ),
    },
  );
}

function authHeaders(auth: Auth, ids: Identities): Record<string, string> {
  const fill = (v: string) => v.replace(/\{(\w[\w-]*)\}/g, (_, k: keyof Identities) => ids[k] ?? k);
  if ("header" in auth) return { [auth.header]: fill(auth.value) };
  if (auth.who === "none") return {};
  if (auth.who === "ingest" || auth.who === "ingest-other") return { "x-starforge-token": ids[auth.who] };
  return { authorization: `Bearer ${ids[auth.who]}` };
}

export interface FuzzRequest {
  method: string;
  /** Path with its parameters in place, as they go on the wire (already escaped, or oddly). */
  path: string;
  query: string;
  auth: Auth;
  body: Body;
  /** The route's own content type for its valid body (JSON unless said otherwise). */
  contentType: string | null;
  headers: Array<[string, string]>;
}

function bodyInit(b: Body): string | Uint8Array | undefined {
  if (b.kind === "json") return b.value === undefined ? undefined : serialize(b.value);
  if (b.kind === "text") return b.text;
  if (b.kind === "bytes") return new Uint8Array(b.bytes);
  return undefined;
}

/**
 * A generated request as a client sends it: its credentials filled in from `ids`, its body serialized
 * (GET and HEAD carry none), the route's content type unless a generated header replaces it, and
 * `target`, the path and query as generated (the caller puts them after an origin).
 */
export function wireRequest(
  req: FuzzRequest,
  ids: Identities,
): { method: string; target: string; headers: Headers; body: string | Uint8Array | undefined } {
  const headers = new Headers();
  for (const [k, v] of Object.entries(authHeaders(req.auth, ids))) headers.set(k, v);
  const body = req.method === "GET" || req.method === "HEAD" ? undefined : bodyInit(req.body);
  if (body !== undefined && req.contentType !== null) headers.set("content-type", req.contentType);
  for (const [k, v] of req.headers) headers.set(k, v);
  return { method: req.method, target: `${req.path}${req.query ? `?${req.query}` : ""}`, headers, body };
}

/** The routes `app` registers (`app.routes`, as Hono lists them) whose path passes `filter`, as `METHOD /path`. */
export function routesOf(
  app: { routes: ReadonlyArray<{ method: string; path: string }> },
  filter: (path: string) => boolean = () => true,
): string[] {
  const all = app.routes
    .filter((r) => r.method !== "ALL" && filter(r.path))
    .map((r) => `${r.method} ${r.path}`);
  return [...new Set(all)];
}

/** The route's path with its parameters: mostly the seed's, sometimes another kind of id, or odd. */
export function pathArb(f: Fixture, route: string, seed: Seed): fc.Arbitrary<string> {
  const template = route.split(" ")[1]!;
  const names = [...template.matchAll(/:(\w+)|\*/g)].map((m) => m[1] ?? "*");
  const others = idsOfEveryKind(f);
  const values = names.map((n) =>
    fc.oneof(
      { weight: 6, arbitrary: fc.constant(seed.params?.[n] ?? f.main.name) },
      { weight: 1, arbitrary: fc.constantFrom(...others) },
      { weight: 2, arbitrary: oddSegment },
    ),
  );
  return fc.tuple(...values).map((vs) => {
    let i = 0;
    return template.replace(/:(\w+)|\*/g, () => vs[i++]!);
  });
}

export function bodyArb(seed: Seed): fc.Arbitrary<Body> {
  if (!seed.raw && seed.also) return fc.constantFrom(seed.body, ...seed.also).chain(bodyFor);
  if (!seed.raw) return bodyFor(seed.body);
  const raw = seed.raw.text;
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant<Body>({ kind: "text", text: raw }) },
    { weight: 2, arbitrary: garbage() },
    {
      weight: 1,
      arbitrary: fc.nat({ max: raw.length }).map((n): Body => ({ kind: "text", text: raw.slice(n) })),
    },
    { weight: 1, arbitrary: fc.constant<Body>({ kind: "none" }) },
  );
}

/** A request to `route`: its seed, mutated in every part. */
export function requestArb(f: Fixture, route: string, seed: Seed): fc.Arbitrary<FuzzRequest> {
  const method = route.split(" ")[0]!;
  const seedHeaders = Object.entries(seed.headers ?? {});
  return fc.record({
    method: method === "GET" ? fc.constantFrom("GET", "GET", "GET", "HEAD") : fc.constant(method),
    path: pathArb(f, route, seed),
    query: queryFor(seed.query ?? {}),
    auth: authFor(seed.as),
    body: bodyArb(seed),
    contentType: fc.constant(seed.raw?.type ?? "application/json"),
    headers: fc.tuple(fc.subarray(seedHeaders), oddHeaders).map(([kept, odd]) => [...kept, ...odd]),
  });
}
