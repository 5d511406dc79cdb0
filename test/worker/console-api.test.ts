/**
 * /console/api: the OpenAPI document as pages, from the console itself: every operation and webhook has
 * its entry, every named schema its section and every link to one lands, and nothing is loaded from
 * elsewhere or run inline (it must work behind a firewall and under the console's CSP).
 */
import { describe, expect, it } from "vitest";
import document from "../../contract/openapi.json";
import { signIn } from "./console-support.js";
import { createUser } from "./helpers.js";

type Doc = {
  paths: Record<string, Record<string, { operationId: string }>>;
  webhooks: Record<string, { post: { operationId: string } }>;
  components: { schemas: Record<string, unknown> };
};
const doc = document as unknown as Doc;

describe("the API reference page", () => {
  it("shows every operation, webhook and schema to any signed-in user, its links landing on the page", async () => {
    const token = await createUser("apiviewer", "viewer");
    const b = await signIn(token);
    const r = await b.get("/console/api");
    expect(r.status).toBe(200);
    expect(r.html).toContain("<h1>API reference</h1>");
    const ids = new Set([...r.html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]));
    const ops = Object.values(doc.paths).flatMap((item) => Object.values(item).map((o) => o.operationId));
    const hooks = Object.values(doc.webhooks).map((w) => w.post.operationId);
    for (const op of [...ops, ...hooks]) expect(ids.has(`op-${op}`), op).toBe(true);
    for (const name of Object.keys(doc.components.schemas))
      expect(ids.has(`schema-${name}`), name).toBe(true);
    const anchors = [...r.html.matchAll(/href="#([^"]+)"/g)].map((m) => m[1]!);
    expect(anchors.length).toBeGreaterThan(50);
    expect(anchors.filter((a) => !ids.has(a))).toEqual([]);
    expect(r.html).toContain('href="/v1/openapi.json"');
  });

  it("loads nothing from another origin and runs nothing inline, under the console's CSP", async () => {
    const token = await createUser("apicsp", "viewer");
    const b = await signIn(token);
    const r = await b.get("/console/api");
    expect(r.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(r.html).not.toMatch(/\s(src|href)="(https?:)?\/\//);
    expect(r.html).not.toMatch(/<script(?![^>]*\ssrc=)/);
    expect(r.html).not.toMatch(/\sstyle="/);
    expect(r.html).not.toMatch(/\son[a-z]+="/);
  });

  it("is behind sign-in like every console page", async () => {
    const { ConsoleBrowser } = await import("./console-support.js");
    const r = await new ConsoleBrowser().get("/console/api");
    expect(r.status).toBe(303);
    expect(r.location).toContain("/console/sign-in");
  });
});
