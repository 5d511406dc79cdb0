#!/usr/bin/env node
// Writes contract/openapi.json, the OpenAPI 3.1 document generated from the Worker's routes
// (worker/openapi/). `--check` writes nothing and fails when the committed copy is not what the code
// generates. The Worker's sources are bundled for Node first; the Durable Object base class they extend
// (cloudflare:workers) is stood in for, as no Durable Object runs while the document is generated.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const DOCUMENT = join(root, "contract", "openapi.json");

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
  if (process.argv.includes("--check")) {
    let committed = "";
    try {
      committed = readFileSync(DOCUMENT, "utf8");
    } catch {}
    if (committed !== text) {
      console.error(
        "contract/openapi.json is not what the code generates: run `npm run gen:openapi` and commit it",
      );
      process.exit(1);
    }
    console.log("contract/openapi.json is current");
  } else {
    writeFileSync(DOCUMENT, text);
    const doc = JSON.parse(text);
    const ops = Object.values(doc.paths).reduce((n, p) => n + Object.keys(p).length, 0);
    console.log(`contract/openapi.json: ${ops} operations, ${Object.keys(doc.webhooks).length} webhooks`);
  }
}
