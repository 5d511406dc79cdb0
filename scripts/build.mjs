#!/usr/bin/env node
// Bundles the Node programs (forgelet; later sf) into dist/ with esbuild, so they start fast without a
// TypeScript loader, and builds the job capsule (dist/capsule) when its builder is present.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// The web console's browser assets, built into the Worker (scripts/build-console.mjs).
await import("./build-console.mjs");
const entries = [{ in: "forgelet/cli.ts", out: "forgelet" }].filter((e) => existsSync(join(root, e.in)));

// dist/forgelet.mjs is one file that runs on plain Node 20 from a directory holding nothing else (a GPU
// host has no node_modules): every package goes into it. Two need help:
// - forgelet/runtimes/docker.ts loads dockerode with a run-time require (for the unbundled sources); in
//   the bundle that require would escape to a node_modules that is not there, so it becomes an import.
// - dockerode's ssh2 (only for DOCKER_HOST=ssh://, which forgelet refuses: run directories are
//   bind-mounted from this host) carries optional native addons esbuild cannot bundle; it is replaced by
//   a stub that says so if it is ever reached.
const RUNTIME_REQUIRE = 'createRequire(import.meta.url)("dockerode")';
const singleFile = {
  name: "forgelet-single-file",
  setup(b) {
    b.onLoad({ filter: /[\\/]forgelet[\\/]runtimes[\\/]docker\.ts$/ }, async (args) => {
      const src = await readFile(args.path, "utf8");
      if (!src.includes(RUNTIME_REQUIRE)) return undefined; // a static import bundles by itself
      return {
        contents: `import __bundledDockerode from "dockerode";\n${src.replace(RUNTIME_REQUIRE, "__bundledDockerode")}`,
        loader: "ts",
      };
    });
    b.onResolve({ filter: /^ssh2$/ }, () => ({ path: "ssh2", namespace: "forgelet-stub" }));
    b.onLoad({ filter: /.*/, namespace: "forgelet-stub" }, () => ({
      contents:
        "class Client { constructor() { throw new Error('forgelet talks to the docker daemon over its local unix socket only (no ssh://)'); } }\nmodule.exports = { Client };",
      loader: "js",
    }));
  },
};

/**
 * Writes esbuild's outputs (write: false) only where their bytes changed, each through a temp file of this
 * process's own and a rename: two builds at once (CI's lanes each build) never hand a starting process
 * half a file, and an unchanged build touches nothing.
 */
async function writeOutputs(result) {
  for (const f of result.outputFiles) {
    const old = await readFile(f.path).catch(() => null);
    if (old?.equals(f.contents)) continue;
    await mkdir(dirname(f.path), { recursive: true });
    const tmp = `${f.path}.${process.pid}.tmp`;
    await writeFile(tmp, f.contents);
    await rename(tmp, f.path);
  }
}

await build({
  write: false,
  absWorkingDir: root,
  entryPoints: entries.map((e) => ({ in: e.in, out: e.out })),
  outdir: "dist",
  outExtension: { ".js": ".mjs" },
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // ws works without its optional native speed-ups (it falls back when they are missing).
  external: ["bufferutil", "utf-8-validate"],
  plugins: [singleFile],
  // The capsule's pull step (capsule/pull.py) travels inside forgelet as text, to the Slurm jobs it renders.
  loader: { ".py": "text" },
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
  logLevel: "warning",
}).then(writeOutputs);

// sf: code-split so each command's implementation loads only when that command runs (`sf --help`
// must start fast).
if (existsSync(join(root, "cli/main.ts"))) {
  await build({
    write: false,
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
  }).then(writeOutputs);
}

if (existsSync(join(root, "capsule", "build.py"))) {
  const r = spawnSync("python3", [join(root, "capsule", "build.py")], { cwd: root, stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

// The Worker as the local control plane serves it (scripts/serve-worker.mjs): wrangler's production
// bundle, rebuilt only when one of its inputs changed since the last build.
const { ensureWorkerBundle } = await import("./worker-bundle.mjs");
await ensureWorkerBundle();
