#!/usr/bin/env node
// `npm run pack:cli [-- --out-dir DIR]`: the installable package of sf and forgelet, starforge-cli-<version>.tgz
// (default in dist/). Install it with `npm install -g ./starforge-cli-<version>.tgz`: it needs nothing else
// (no dependencies, nothing of this repository), only Node >= 20.
//   1. `npm run build`, then a package directory holding only what the two programs run, from dist/:
//      sf.mjs and the chunks it loads (code-split so `sf --help` starts fast), and forgelet.mjs (one file)
//   2. a package.json whose only bins are sf and forgelet, with no dependencies
//   3. checks: every import of every file is bundled, a node builtin or an optional native add-on that its
//      importer does without; `sf --version` and `forgelet --version` print the package's version
//   4. `npm pack` of that directory
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { exitWith, ROOT, ScriptError } from "./wrangler-envs.mjs";

const SCRIPT = "pack:cli";
const NAME = "starforge-cli";

/**
 * Imports a package file may leave to run time: optional add-ons, each loaded inside a try/catch by the
 * library that wants it, which works without (ws: bufferutil, utf-8-validate; node-fetch: encoding;
 * proxy-agent-negotiate: kerberos, only for Negotiate proxy authentication, which then says to install it).
 */
const OPTIONAL = new Set(["bufferutil", "utf-8-validate", "encoding", "kerberos"]);
const BUILTINS = new Set(builtinModules);
const isBuiltin = (spec) => spec.startsWith("node:") || BUILTINS.has(spec.split("/")[0]);

/** Every module specifier a built file names: static and dynamic imports, and esbuild's leftover requires. */
export function specifiers(code) {
  const patterns = [
    /(?:^|[\s;})])(?:import|export)\s*(?:[\w*${}\s,]+?\s*from\s*)?"([^"]+)"/g,
    /\bimport\(\s*"([^"]+)"\s*\)/g,
    /\b__require\(\s*"([^"]+)"\s*\)/g,
    /\bcreateRequire\(import\.meta\.url\)\(\s*"([^"]+)"\s*\)/g,
  ];
  const out = new Set();
  for (const re of patterns) for (const m of code.matchAll(re)) out.add(m[1]);
  return [...out];
}

/** Copies `entry` and, transitively, every relative module it loads; returns the copied paths. */
function copyWithChunks(fromDir, entry, toDir) {
  const todo = [entry];
  const done = new Set();
  while (todo.length > 0) {
    const rel = todo.pop();
    if (done.has(rel)) continue;
    done.add(rel);
    const from = join(fromDir, rel);
    if (!existsSync(from))
      throw new ScriptError("PACK_MISSING_FILE", `${from} is missing; run npm run build`);
    mkdirSync(dirname(join(toDir, rel)), { recursive: true });
    copyFileSync(from, join(toDir, rel));
    for (const spec of specifiers(readFileSync(from, "utf8"))) {
      if (spec.startsWith(".")) todo.push(relative(fromDir, resolve(dirname(from), spec)));
    }
  }
  return [...done];
}

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: "utf8", ...opts });
  if (r.status !== 0) {
    throw new ScriptError(
      "PACK_STEP_FAILED",
      `${cmd} ${args.join(" ")} failed:\n${r.stdout ?? ""}${r.stderr ?? ""}`,
    );
  }
  return r.stdout ?? "";
}

async function main() {
  const { values: opts } = parseArgs({
    options: {
      "out-dir": { type: "string", default: join(ROOT, "dist") },
      "skip-build": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (opts.help) {
    console.log("usage: npm run pack:cli [-- --out-dir DIR] [--skip-build]");
    return;
  }
  const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  if (!opts["skip-build"]) sh("npm", ["run", "build"], { cwd: ROOT, stdio: "inherit" });

  const stage = mkdtempSync(join(tmpdir(), "sf-pack-"));
  const pkg = join(stage, NAME);
  try {
    mkdirSync(pkg);
    // forgelet.mjs is one file by construction (scripts/build.mjs bundles dockerode into it); sf.mjs
    // loads its commands' chunks lazily. Only what each reaches is copied: dist/chunks also holds the
    // chunks of earlier builds.
    const files = [
      ...copyWithChunks(join(ROOT, "dist"), "sf.mjs", pkg),
      ...copyWithChunks(join(ROOT, "dist"), "forgelet.mjs", pkg),
    ];

    for (const file of files) {
      for (const spec of specifiers(readFileSync(join(pkg, file), "utf8"))) {
        const ok = spec.startsWith(".")
          ? existsSync(resolve(dirname(join(pkg, file)), spec))
          : isBuiltin(spec) || OPTIONAL.has(spec);
        if (!ok) {
          throw new ScriptError(
            "PACK_UNBUNDLED_IMPORT",
            `${file} loads "${spec}" at run time, which the package does not contain; bundle it`,
          );
        }
      }
    }

    writeFileSync(
      join(pkg, "package.json"),
      `${JSON.stringify(
        {
          name: NAME,
          version,
          description: "StarForge: sf (the command line) and forgelet (the GPU host agent)",
          type: "module",
          bin: { sf: "sf.mjs", forgelet: "forgelet.mjs" },
          files: ["sf.mjs", "chunks/", "forgelet.mjs"],
          engines: { node: ">=20" },
        },
        null,
        2,
      )}\n`,
    );

    for (const bin of ["sf.mjs", "forgelet.mjs"]) {
      const printed = sh(process.execPath, [join(pkg, bin), "--version"], { cwd: stage }).trim();
      if (printed !== version) {
        throw new ScriptError(
          "PACK_VERSION_MISMATCH",
          `${bin} --version prints ${printed}, the package is ${version}; keep them equal`,
        );
      }
    }

    mkdirSync(opts["out-dir"], { recursive: true });
    const [packed] = JSON.parse(
      sh("npm", ["pack", "--json", "--pack-destination", resolve(opts["out-dir"])], { cwd: pkg }),
    );
    const tarball = join(resolve(opts["out-dir"]), packed.filename);
    const shown = tarball.startsWith(`${process.cwd()}/`) ? relative(process.cwd(), tarball) : tarball;
    console.log(
      `${SCRIPT}: ${shown} (${(packed.size / 1024 / 1024).toFixed(1)} MB, ${packed.entryCount} files)\n` +
        `  install: npm install -g ${shown}`,
    );
    console.log(`TARBALL ${tarball}`);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  main().catch((err) => exitWith(SCRIPT, err));
}
