#!/usr/bin/env node
// Bundles the Node programs (forgelet; later sf) into dist/ with esbuild, so they start fast without a
// TypeScript loader, and builds the job capsule (dist/capsule) when its builder is present.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const entries = [{ in: "forgelet/cli.ts", out: "forgelet" }].filter((e) => existsSync(join(root, e.in)));

await build({
  absWorkingDir: root,
  entryPoints: entries.map((e) => ({ in: e.in, out: e.out })),
  outdir: "dist",
  outExtension: { ".js": ".mjs" },
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // ws works without its optional native speed-ups.
  external: ["bufferutil", "utf-8-validate"],
  // The capsule's pull step (capsule/pull.py) travels inside forgelet as text, to the Slurm jobs it renders.
  loader: { ".py": "text" },
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
  logLevel: "warning",
});

// sf: code-split so each command's implementation loads only when that command runs (`sf --help`
// must start fast).
if (existsSync(join(root, "cli/main.ts"))) {
  await build({
    absWorkingDir: root,
    entryPoints: [{ in: "cli/main.ts", out: "sf" }],
    outdir: "dist",
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunks/[name]-[hash]",
    splitting: true,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    logLevel: "warning",
  });
}

if (existsSync(join(root, "capsule", "build.py"))) {
  const r = spawnSync("python3", [join(root, "capsule", "build.py")], { cwd: root, stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
