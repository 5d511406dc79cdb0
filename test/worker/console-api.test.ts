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

  it("shows descriptions' code spans as code, and the document uses no markup beyond them", async () => {
    const all: string[] = [];
    const walk = (o: unknown): void => {
      if (o === null || typeof o !== "object") return;
      for (const [k, v] of Object.entries(o)) {
        if (k === "description" && typeof v === "string") all.push(v);
        else walk(v);
      }
    };
    walk(document);
    // The page renders code spans and paragraphs only: a link, emphasis or a list would show as raw text.
    for (const text of all) {
      const prose = text.replace(/`[^`]+`/g, "");
      expect(prose, text).not.toMatch(/\]\(|\*\*|^\s*[-*+] |^#|<[a-z]/m);
    }
    const token = await createUser("apicode", "viewer");
    const r = await (await signIn(token)).get("/console/api");
    const device = r.html.slice(r.html.indexOf('id="op-startDeviceLogin"'));
    expect(device).toContain("Show the person <code>user_code</code> and <code>verification_uri</code>");
    expect([...r.html.matchAll(/>[^<]*`[^`<]+`[^<]*</g)].map((m) => m[0])).toEqual([]);
    // What a field means is shown beside it; a table whose fields say nothing has no empty column.
    const spec = r.html.slice(r.html.indexOf('id="schema-JobSpec"'));
    expect(spec).toMatch(
      /<code>max_retries<\/code>.*?<\/td><td>How many times a failed run is retried<\/td>/,
    );
    const start = device.slice(0, device.indexOf('id="op-pollDeviceLogin"'));
    expect(start).toMatch(
      /<th scope="col">Meaning<\/th>.*<code>interval<\/code>.*?<\/td><td>Seconds to wait between polls/,
    );
    const blob = r.html.slice(r.html.indexOf('id="op-getBlob"'));
    const params = blob.slice(blob.indexOf("<h4>Parameters</h4>"), blob.indexOf("</table>"));
    expect(params).toContain("<code>digest</code>");
    expect(params).not.toContain("Meaning");
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
