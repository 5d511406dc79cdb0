/**
 * docs/api.md (the API) and docs/console.md (the web console's pages) are checked against the routes the
 * app really registers, so the references cannot drift.
 */
import { describe, expect, it } from "vitest";
import doc from "../../docs/api.md?raw";
import consoleDoc from "../../docs/console.md?raw";
import { createApp } from "../../worker/app.js";

const isConsole = (path: string) => path === "/console" || path.startsWith("/console/");

const headingsOf = (text: string) =>
  new Set(
    [...text.matchAll(/^### (GET|POST|PUT|PATCH|DELETE|HEAD) (\S+)\s*$/gm)].map((m) => `${m[1]} ${m[2]}`),
  );

const allRoutes = createApp().routes.filter((r) => r.method !== "ALL");

describe.each([
  { file: "docs/api.md", text: doc, mine: (p: string) => !isConsole(p) },
  { file: "docs/console.md", text: consoleDoc, mine: isConsole },
])("$file", ({ text, mine }) => {
  const headings = headingsOf(text);
  const routes = allRoutes.filter((r) => mine(r.path)).map((r) => `${r.method} ${r.path}`);

  it("documents every registered route with a `### METHOD /path` heading", () => {
    expect(routes.length).toBeGreaterThan(2);
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
