/**
 * The OpenAPI document (contract/openapi.json) against the app: it is what the code generates now, it
 * lists every /v1 route the app registers and no other, it is served at GET /v1/openapi.json without a
 * token, and the conformance check every Worker-tier answer goes through does refuse what it does not
 * describe.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import document from "../../contract/openapi.json";
import { PRODUCT_VERSION } from "../../contract/version.js";
import { createApp } from "../../worker/app.js";
import { generateDocument } from "../../worker/openapi/generate.js";
import { ADMIN, api } from "./helpers.js";
import { conformance } from "./openapi-conformance.js";

type Doc = { paths: Record<string, Record<string, unknown>>; info: { version: string } };
const doc = document as unknown as Doc;

const toTemplate = (p: string) => p.replace(/:([A-Za-z_]+)(\{[^}]*\})?/g, "{$1}").replace(/\/\*$/, "/{path}");

describe("the OpenAPI document", () => {
  it("is what the code generates (run `npm run gen:openapi` after changing a route or a schema)", async () => {
    const fresh = JSON.parse(JSON.stringify(await generateDocument()));
    expect(fresh).toEqual(document);
  });

  it("lists every /v1 route the app registers, and no route it does not", () => {
    const registered = new Set(
      createApp()
        .routes.filter((r) => r.method !== "ALL" && r.path.startsWith("/v1/"))
        .map((r) => `${r.method.toLowerCase()} ${toTemplate(r.path)}`),
    );
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`)),
    );
    expect([...registered].filter((r) => !documented.has(r)).sort()).toEqual([]);
    expect([...documented].filter((d) => !registered.has(d)).sort()).toEqual([]);
  });

  it("is served without a token, cacheable, with the server's version", async () => {
    const res = await SELF.fetch("http://sf.test/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toContain("max-age");
    const body = (await res.json()) as Doc & { openapi: string };
    expect(body.openapi).toBe("3.1.0");
    expect(body.info.version).toBe(PRODUCT_VERSION);
    const again = await SELF.fetch("http://sf.test/v1/openapi.json", {
      headers: { "if-none-match": res.headers.get("etag")! },
    });
    expect(again.status).toBe(304);
  });

  it("refuses an answer it does not describe: an unlisted status, a wrong body, an unlisted error code", async () => {
    const url = "http://sf.test/v1/jobs";
    expect(conformance("GET", url, 200, "application/json", '{"jobs":[],"next_cursor":null}')).toBeNull();
    expect(conformance("GET", url, 418, "application/json", "{}")).toMatch(/does not describe this status/);
    expect(conformance("GET", url, 200, "application/json", '{"jobs":"none"}')).toMatch(/does not match/);
    const err = (code: string) => JSON.stringify({ error: { code, message: "m" } });
    expect(conformance("GET", url, 404, "application/json", err("FLEET_NOT_FOUND"))).toBeNull();
    expect(conformance("GET", url, 404, "application/json", err("WEBHOOK_NOT_FOUND"))).toMatch(
      /does not match/,
    );
    expect(conformance("GET", url, 200, "text/html", "<p>")).toMatch(/answered text\/html/);
  });

  it("checks the answers tests receive: a described answer passes through SELF.fetch", async () => {
    const me = await api(ADMIN, "GET", "/v1/jobs");
    expect(me.status).toBe(200);
  });
});
