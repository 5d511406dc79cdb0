/**
 * wrangler.toml's deployed environments and the checks the Cloudflare scripts make of them
 * (scripts/wrangler-envs.mjs, scripts/check-bundle.mjs), on the real file and on edited copies of it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { getCloudflarePreset } from "@cloudflare/unenv-preset";
import { afterAll, describe, expect, it } from "vitest";
import {
  GZIP_BUDGET,
  importProblems,
  NODE_ALLOWED,
  PLATFORM_SIZE_LIMIT,
  sizeFailures,
} from "../../scripts/check-bundle.mjs";
import {
  envNames,
  envProblems,
  notSetUp,
  parseTomlText,
  readRaw,
  setTomlValue,
} from "../../scripts/wrangler-envs.mjs";

const ROOT = resolve(import.meta.dirname, "../..");
const CONFIG = join(ROOT, "wrangler.toml");
const text = readFileSync(CONFIG, "utf8");
const scratch = mkdtempSync(join(tmpdir(), "sf-wrangler-envs-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The problems of wrangler.toml after `edit`. */
function problemsAfter(edit: (t: string) => string): string[] {
  return envProblems(parseTomlText(edit(text)));
}

describe("wrangler.toml's environments", () => {
  it("declares staging and production, each repeating every top-level var and binding", () => {
    const raw = readRaw(CONFIG);
    expect(envNames(raw)).toEqual(["staging", "production"]);
    expect(envProblems(raw)).toEqual([]);
  });

  it("gives them the top level's values except the public URL and a default fleet named default", () => {
    const raw = readRaw(CONFIG);
    for (const env of ["staging", "production"]) {
      const differ = Object.entries(raw.vars ?? {})
        .filter(([k, v]) => raw.env?.[env]?.vars?.[k] !== v)
        .map(([k]) => `${k}=${raw.env?.[env]?.vars?.[k]}`);
      expect(differ).toEqual([
        "SF_DEFAULT_FLEET=default",
        "SF_PUBLIC_URL=https://run-setup-cloudflare.invalid",
      ]);
    }
  });

  it("ships them as placeholders that a deploy refuses until setup:cloudflare has run", () => {
    const raw = readRaw(CONFIG);
    for (const env of ["staging", "production"]) {
      expect(notSetUp(raw.env?.[env] ?? {})).toEqual([
        "D1 DB database_id is the placeholder",
        "SF_PUBLIC_URL is the placeholder https://run-setup-cloudflare.invalid",
      ]);
    }
  });

  it("reports a top-level var an environment lacks", () => {
    const problems = problemsAfter((t) =>
      t.replace(/(\[env\.production\.vars\][^[]*?)SF_WEBHOOK_MAX_ATTEMPTS = "8"\n/s, "$1"),
    );
    expect(problems).toEqual(["[env.production] vars lack SF_WEBHOOK_MAX_ATTEMPTS (set at the top level)"]);
  });

  it("reports a missing Durable Object binding and ratelimit", () => {
    const problems = problemsAfter((t) =>
      t
        .replace(
          '[[env.staging.durable_objects.bindings]]\nname = "WEBHOOKS"',
          '[[env.staging.unused]]\nname = "WEBHOOKS"',
        )
        .replace(
          '[[env.staging.ratelimits]]\nname = "AUTH_FAILURES_BY_TOKEN"',
          '[[env.staging.unused2]]\nname = "X"',
        ),
    );
    expect(problems).toHaveLength(2);
    expect(problems[0] ?? "").toMatch(
      /^\[env\.staging\] durable_objects FLEET=FleetDO, RUN=RunDO, USERS=UserDO ≠ top level/,
    );
    expect(problems[1] ?? "").toMatch(
      /^\[env\.staging\] ratelimits AUTH_FAILURES_BY_ADDRESS 20\/60s ≠ top level/,
    );
  });

  it("refuses two environments sharing a database, a bucket or a ratelimit namespace", () => {
    const problems = problemsAfter((t) =>
      t
        .replace('database_name = "starforge-production"', 'database_name = "starforge-staging"')
        .replace('bucket_name = "starforge-production-blobs"', 'bucket_name = "starforge-staging-blobs"')
        .replace('namespace_id = "1421"', 'namespace_id = "1411"'),
    );
    expect(problems).toEqual([
      '[env.production] D1 database_name "starforge-staging" is also used by [env.staging]',
      '[env.production] R2 bucket_name "starforge-staging-blobs" is also used by [env.staging]',
      '[env.production] ratelimit namespace_id "1411" is also used by [env.staging]',
    ]);
  });

  it("refuses DO migrations declared per environment (they are inherited, one append-only list)", () => {
    const problems = problemsAfter(
      (t) => `${t}\n[[env.staging.migrations]]\ntag = "v1"\nnew_sqlite_classes = ["FleetDO"]\n`,
    );
    expect(problems).toEqual([
      "[env.staging] declares its own DO migrations; they are inherited from the top level",
    ]);
  });
});

describe("editing wrangler.toml in place", () => {
  it("changes only the value's line, in the right environment, keeping the file's comments", () => {
    const edited = setTomlValue(text, {
      table: "env.staging.d1_databases",
      key: "database_id",
      literal: '"4f8b2c1e-0000-4000-8000-000000000001"',
      match: { key: "binding", value: "DB" },
    });
    const before = text.split("\n");
    const after = edited.split("\n");
    expect(after).toHaveLength(before.length);
    const changed = after.flatMap((line, i) => (line === before[i] ? [] : [[before[i], line]]));
    expect(changed).toEqual([
      [
        'database_id = "00000000-0000-0000-0000-000000000000"',
        'database_id = "4f8b2c1e-0000-4000-8000-000000000001"',
      ],
    ]);
    const raw = parseTomlText(edited);
    expect(raw.env?.staging?.d1_databases?.[0]?.database_id).toBe("4f8b2c1e-0000-4000-8000-000000000001");
    expect(raw.env?.production?.d1_databases?.[0]?.database_id).toBe("00000000-0000-0000-0000-000000000000");
    expect(raw.d1_databases?.[0]?.database_id).toBe("00000000-0000-0000-0000-000000000000");
  });

  it("keeps a trailing comment, and adds a key a table lacks right under its header", () => {
    const t = '[env.x]\n\n[env.x.vars]\nA = "1" # why A\nB = "2"\n';
    const once = setTomlValue(t, { table: "env.x.vars", key: "A", literal: '"3 # not a comment"' });
    expect(once).toBe('[env.x]\n\n[env.x.vars]\nA = "3 # not a comment" # why A\nB = "2"\n');
    const routed = setTomlValue(once, {
      table: "env.x",
      key: "routes",
      literal: '[{ pattern = "sf.example.com", custom_domain = true }]',
    });
    expect(routed.split("\n").slice(0, 2)).toEqual([
      "[env.x]",
      'routes = [{ pattern = "sf.example.com", custom_domain = true }]',
    ]);
    const file = join(scratch, "routed.toml");
    writeFileSync(file, routed);
    expect(readRaw(file).env?.x?.routes).toEqual([{ pattern: "sf.example.com", custom_domain: true }]);
  });

  it("refuses a table the file does not have", () => {
    expect(() => setTomlValue(text, { table: "env.nope.vars", key: "A", literal: '"1"' })).toThrow(
      "wrangler.toml has no [env.nope.vars]",
    );
  });
});

describe("the bundle's size", () => {
  it("fails over the platform's 64 MiB uncompressed and over our 3 MiB gzip budget, not at them", () => {
    expect(PLATFORM_SIZE_LIMIT).toBe(64 * 1024 * 1024);
    expect(GZIP_BUDGET).toBe(3 * 1024 * 1024);
    expect(sizeFailures({ bytes: PLATFORM_SIZE_LIMIT, gzip: GZIP_BUDGET })).toEqual([]);
    const over = sizeFailures({ bytes: PLATFORM_SIZE_LIMIT + 1, gzip: GZIP_BUDGET + 1 });
    expect(over.map((f) => f.code)).toEqual(["BUNDLE_TOO_LARGE", "BUNDLE_OVER_BUDGET"]);
    expect(over[0]?.message).toBe("the bundle is 64.00 MiB, over Cloudflare's 64.00 MiB limit");
  });
});

describe("the bundle's imports", () => {
  it("allows only node: modules that workerd implements natively at our compatibility date", () => {
    const raw = readRaw(CONFIG);
    const preset = getCloudflarePreset({
      compatibilityDate: raw.compatibility_date,
      compatibilityFlags: raw.compatibility_flags,
    });
    for (const m of NODE_ALLOWED) expect(preset.external).toContain(`node:${m}`);
  });

  it("names the file that imports a Node-only module or leaves an import unresolved", () => {
    const meta = {
      inputs: {
        "worker/app.ts": {
          imports: [
            { path: "cloudflare:workers", kind: "import-statement", external: true },
            { path: "<runtime>", kind: "import-statement" },
            { path: "node:crypto", kind: "import-statement", external: true },
          ],
        },
        "contract/node-files.ts": {
          imports: [{ path: "node:fs", kind: "import-statement", external: true }],
        },
        "node_modules/x/index.js": {
          imports: [{ path: "left-pad", kind: "require-call", external: true }],
        },
      },
    };
    const { problems, external } = importProblems(meta, ROOT);
    expect(external).toEqual(["cloudflare:workers", "node:crypto", "node:fs"]);
    expect(problems.map((p) => p.code)).toEqual(["BUNDLE_NODE_MODULE", "BUNDLE_UNRESOLVED_IMPORT"]);
    expect(problems[0]?.message).toMatch(/^contract\/node-files\.ts imports node:fs,/);
    expect(problems[1]?.message).toMatch(/^node_modules\/x\/index\.js imports "left-pad"/);
  });
});
