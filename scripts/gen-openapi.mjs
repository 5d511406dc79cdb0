#!/usr/bin/env node
// Writes contract/openapi.json, the OpenAPI 3.1 document generated from the Worker's routes
// (worker/openapi/), and contract/openapi-types.generated.d.ts, its TypeScript types (openapi-typescript),
// which sf's HTTP layer is typed with (cli/api.ts). `--check` writes nothing and fails when a committed
// copy is not what the code generates. The Worker's sources are bundled for Node first; the Durable Object base class they extend
// (cloudflare:workers) is stood in for, as no Durable Object runs while the document is generated.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import openapiTS, { astToString } from "openapi-typescript";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const DOCUMENT = join(root, "contract", "openapi.json");
export const TYPES = join(root, "contract", "openapi-types.generated.d.ts");

/** The document's types, as openapi-typescript writes them. */
export async function typesText(documentText) {
  const ast = await openapiTS(JSON.parse(documentText));
  return `// Generated from contract/openapi.json by \`npm run gen:openapi\`: do not edit.\n${astToString(ast)}`;
}

/** The document the code generates now, as the committed file's text. */
export async function generatedText() {
  const dir = mkdtempSync(join(tmpdir(), "sf-openapi-"));
  try {
    const out = join(dir, "generate.mjs");
    await build({
      entryPoints: [join(root, "worker", "openapi", "generate.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      outfile: out,
      logLevel: "error",
      plugins: [
        {
          name: "cloudflare-workers-stand-in",
          setup(b) {
            b.onResolve({ filter: /^cloudflare:workers$/ }, () => ({ path: "cf", namespace: "stand-in" }));
            b.onLoad({ filter: /.*/, namespace: "stand-in" }, () => ({
              contents:
                "export class DurableObject { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }",
              loader: "js",
            }));
          },
        },
      ],
    });
    const { generateDocument } = await import(pathToFileURL(out).href);
    return `${JSON.stringify(await generateDocument(), null, 2)}\n`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = await generatedText();
  const types = await typesText(text);
  if (process.argv.includes("--check")) {
    const read = (f) => {
      try {
        return readFileSync(f, "utf8");
      } catch {
        return "";
      }
    };
    const stale = [
      [DOCUMENT, text],
      [TYPES, types],
    ].filter(([f, want]) => read(f) !== want);
    for (const [f] of stale) {
      console.error(
        `${f.slice(root.length + 1)} is not what the code generates: run \`npm run gen:openapi\``,
      );
    }
    if (stale.length) process.exit(1);
    console.log("contract/openapi.json and its types are current");
  } else {
    writeFileSync(DOCUMENT, text);
    writeFileSync(TYPES, types);
    const doc = JSON.parse(text);
    const ops = Object.values(doc.paths).reduce((n, p) => n + Object.keys(p).length, 0);
    console.log(`contract/openapi.json: ${ops} operations, ${Object.keys(doc.webhooks).length} webhooks`);
  }
}
