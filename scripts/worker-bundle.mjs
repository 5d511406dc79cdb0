// The Worker's bundle for the local runtime (scripts/serve-worker.mjs): exactly what `wrangler deploy` would
// upload (wrangler's own bundler, `--dry-run --outdir`), so the local control plane runs the production code
// path. Built into dist/worker/ by `npm run build` and rebuilt on demand when any input esbuild read (its
// metafile lists them, node_modules included) is newer than the bundle, or wrangler.toml changed. Beside it,
// the Miniflare options wrangler derives from wrangler.toml (bindings, Durable Objects, D1, R2, rate
// limits), so starting a control plane does not have to load wrangler itself (~2 s).
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const WORKER_BUNDLE_DIR = join(root, "dist", "worker");
const bundle = join(WORKER_BUNDLE_DIR, "index.js");
const meta = join(WORKER_BUNDLE_DIR, "meta.json");
const options = join(WORKER_BUNDLE_DIR, "miniflare-options.json");
const migrationsDir = join(root, "migrations");
const migrationsFile = join(WORKER_BUNDLE_DIR, "migrations.json");
const migrationNames = () =>
  readdirSync(migrationsDir)
    .filter((f) => f.endsWith(".sql"))
    .sort();

/** The inputs that made the current bundle are unchanged since it was built. */
function fresh() {
  if (![bundle, meta, options, migrationsFile].every((f) => existsSync(f))) return false;
  const built = statSync(bundle).mtimeMs;
  let inputs;
  try {
    inputs = Object.keys(JSON.parse(readFileSync(meta, "utf8")).inputs ?? {});
  } catch {
    return false;
  }
  if (inputs.length === 0) return false;
  const split = JSON.parse(readFileSync(migrationsFile, "utf8")).map((m) => m.name);
  if (split.join("\n") !== migrationNames().join("\n")) return false;
  for (const input of [...inputs, "wrangler.toml", ...split.map((n) => join("migrations", n))]) {
    const path = resolve(root, input);
    // An input that no longer exists (a deleted or renamed module) means the bundle is stale.
    if (!existsSync(path) || statSync(path).mtimeMs > built) return false;
  }
  return true;
}

/**
 * An up-to-date bundle (built now when missing or stale): its path, the Miniflare worker options of
 * wrangler.toml's local environment, and the D1 migrations as statements (split by wrangler's own SQL
 * splitter, as `wrangler d1 migrations apply` splits them). Throws with wrangler's output on failure.
 */
export async function ensureWorkerBundle() {
  if (!fresh()) await build();
  return {
    scriptPath: bundle,
    workerOptions: JSON.parse(readFileSync(options, "utf8")),
    migrations: JSON.parse(readFileSync(migrationsFile, "utf8")),
  };
}

async function build() {
  // Built beside the final place and moved there whole, so a control plane starting at the same moment
  // never reads half a bundle.
  const tmp = mkdtempSync(join(root, "dist", ".worker-"));
  const r = spawnSync(
    join(root, "node_modules", ".bin", "wrangler"),
    ["deploy", "--dry-run", "--outdir", tmp, "--metafile", join(tmp, "meta.json")],
    {
      cwd: root,
      encoding: "utf8",
      env: {
        ...process.env,
        CI: "true",
        WRANGLER_SEND_METRICS: "false",
        CLOUDFLARE_CF_FETCH_ENABLED: "false",
      },
    },
  );
  if (r.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`bundling the Worker (wrangler deploy --dry-run) failed:\n${r.stdout}${r.stderr}`);
  }
  const { unstable_getMiniflareWorkerOptions, unstable_splitSqlQuery } = await import("wrangler");
  const { workerOptions } = unstable_getMiniflareWorkerOptions(join(root, "wrangler.toml"));
  writeFileSync(join(tmp, "miniflare-options.json"), JSON.stringify(workerOptions, null, 1));
  const migrations = migrationNames().map((name) => ({
    name,
    statements: unstable_splitSqlQuery(readFileSync(join(migrationsDir, name), "utf8")),
  }));
  writeFileSync(join(tmp, "migrations.json"), JSON.stringify(migrations, null, 1));
  rmSync(WORKER_BUNDLE_DIR, { recursive: true, force: true });
  try {
    renameSync(tmp, WORKER_BUNDLE_DIR);
  } catch (err) {
    // Another process put a bundle there first; it was built from the same inputs.
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(bundle)) throw err;
  }
}
