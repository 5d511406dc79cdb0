/**
 * Imports point inward only (docs/architecture.md "Layers"): contract imports nothing of ours; the D1
 * layer (d1/) imports contract and itself; the Durable Objects import contract, d1 and themselves, never
 * the Worker; the Worker reaches an object only through its class, its stub, its env and how objects are called (rpc.ts, group-commit.ts); sf and forgelet share nothing but contract; no service
 * imports a route; Node-only helpers never reach workerd code; and no file imports itself in a cycle.
 * Read from the sources with the TypeScript scanner's rules approximated by one regex per form.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const LAYERS = ["contract", "d1", "durable-objects", "worker", "cli", "forgelet"] as const;
type Layer = (typeof LAYERS)[number];

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const rel = join(dir, name);
    if (statSync(join(ROOT, rel)).isDirectory()) return sources(rel);
    return /\.(ts|mts|tsx)$/.test(name) && !name.endsWith(".d.ts") ? [rel] : [];
  });
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s+(type\s+)?(?:[^"';]*?\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

function edges(file: string): Edge[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const out: Edge[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[2] ?? m[3];
    if (!spec?.startsWith(".")) continue;
    const ts = relative(ROOT, resolve(ROOT, dirname(file), spec)).replace(/\.js$/, ".ts");
    // A `.js` specifier names a .ts or a .tsx source (the console's pages are JSX).
    const target = !existsSync(join(ROOT, ts)) && existsSync(join(ROOT, `${ts}x`)) ? `${ts}x` : ts;
    out.push({ from: file, to: target, typeOnly: Boolean(m[1]) });
  }
  return out;
}

const files = LAYERS.flatMap((l) => sources(l));
const graph = files.flatMap(edges);
const layerOf = (f: string): Layer | null => LAYERS.find((l) => f.startsWith(`${l}/`)) ?? null;

/** May `from` import `to`? The rules of the layers, as one function. */
function allowed(from: string, to: string): boolean {
  const a = layerOf(from);
  const b = layerOf(to);
  // The agent carries the capsule's pull step to the jobs it renders (as text, never run by Node).
  if (a === "forgelet" && /^capsule\/[a-z_]+\.py$/.test(to)) return true;
  if (!a || !b) return false;
  // The console's browser code (bundled for the browser, not the Worker) and the Worker never mix.
  const client = (f: string) => f.startsWith("worker/console/client/");
  if (client(from) || client(to)) return client(to) || (client(from) && b === "contract");
  if (to === "contract/node-files.ts" && (a === "worker" || a === "durable-objects")) return false;
  switch (a) {
    case "contract":
      return b === "contract";
    case "d1":
      return b === "contract" || b === "d1";
    case "durable-objects":
      return b === "contract" || b === "d1" || b === "durable-objects";
    case "worker":
      if (from.startsWith("worker/services/") && to.startsWith("worker/routes/")) return false;
      // An object's class, its stub and its env, and how objects are called (rpc, group commit); nothing
      // else of the objects.
      if (b === "durable-objects")
        return /(\.do|\/stub|^durable-objects\/env|^durable-objects\/rpc|^durable-objects\/group-commit)\.ts$/.test(
          to,
        );
      return b === "contract" || b === "d1" || b === "worker";
    case "cli":
    case "forgelet":
      return b === "contract" || b === a;
  }
}

describe("the import graph", () => {
  it("reads every layer (a scanner that sees nothing would pass everything)", () => {
    expect(files.length).toBeGreaterThan(150);
    expect(graph.length).toBeGreaterThan(400);
    expect(graph.some((e) => e.from.startsWith("worker/") && e.to.startsWith("durable-objects/"))).toBe(true);
  });

  it("points inward only", () => {
    const outward = graph.filter((e) => !allowed(e.from, e.to)).map((e) => `${e.from} → ${e.to}`);
    expect(outward).toEqual([]);
  });

  it("reaches D1 only through its typed layer (d1/) and the fleet's projection: no SQL text elsewhere", () => {
    // durable-objects/fleet/projections.ts turns the fleet's outbox entries into D1 statements: D1 code
    // that belongs to the fleet (it reads the fleet's entry types and the webhook payload it fans out).
    const raw = files
      .filter(
        (f) =>
          (f.startsWith("worker/") || f.startsWith("durable-objects/")) &&
          f !== "durable-objects/fleet/projections.ts",
      )
      .flatMap((f) =>
        readFileSync(join(ROOT, f), "utf8")
          .split("\n")
          .map((line, i) => ({ f, i, line }))
          .filter(({ line }) => /\.prepare\(/.test(line) && !/prepare\("SELECT 1"\)/.test(line)),
      )
      .map(({ f, i }) => `${f}:${i + 1}`);
    expect(raw).toEqual([]);
  });

  it("has no import cycles", () => {
    const next = new Map<string, string[]>();
    for (const e of graph) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const stack: string[] = [];
    const visit = (f: string) => {
      state.set(f, "open");
      stack.push(f);
      for (const t of next.get(f) ?? []) {
        if (state.get(t) === "open") cycles.push([...stack.slice(stack.indexOf(t)), t].join(" → "));
        else if (!state.has(t)) visit(t);
      }
      stack.pop();
      state.set(f, "done");
    };
    for (const f of files) if (!state.has(f)) visit(f);
    expect(cycles).toEqual([]);
  });
});
