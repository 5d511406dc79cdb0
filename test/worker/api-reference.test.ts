/** docs/api.md is checked against the routes the app really registers, so the reference cannot drift. */
import { describe, expect, it } from "vitest";
import doc from "../../docs/api.md?raw";
import { createApp } from "../../worker/app.js";

const headings = new Set(
  [...doc.matchAll(/^### (GET|POST|PUT|PATCH|DELETE|HEAD) (\S+)\s*$/gm)].map((m) => `${m[1]} ${m[2]}`),
);

const routes = createApp()
  .routes.filter((r) => r.method !== "ALL")
  .map((r) => `${r.method} ${r.path}`);

describe("docs/api.md", () => {
  it("documents every registered route with a `### METHOD /path` heading", () => {
    expect(routes.length).toBeGreaterThan(20);
    const missing = [...new Set(routes)].filter((r) => !headings.has(r));
    expect(missing).toEqual([]);
  });

  it("documents no route that does not exist (HEAD is served by the GET route)", () => {
    const registered = new Set(
      routes.flatMap((r) => (r.startsWith("GET ") ? [r, r.replace("GET ", "HEAD ")] : [r])),
    );
    expect([...headings].filter((h) => !registered.has(h))).toEqual([]);
  });
});
