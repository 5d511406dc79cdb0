/**
 * `npm run setup:cloudflare` and `npm run deploy` (scripts/setup-cloudflare.mjs, scripts/deploy.mjs) without
 * a Cloudflare account: the dry run, and the real path against a fake `wrangler` first on PATH that keeps an
 * account's state in a JSON file, records every call (argv and standard input) and answers the way wrangler
 * 4.86 prints. Bundling and local D1 always use the real, pinned wrangler.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { readRaw, setTomlValue } from "../../scripts/wrangler-envs.mjs";
import { call, startControlPlane } from "../support/control-plane.js";

const ROOT = resolve(import.meta.dirname, "../..");
const SETUP = join(ROOT, "scripts", "setup-cloudflare.mjs");
const DEPLOY = join(ROOT, "scripts", "deploy.mjs");
const work = mkdtempSync(join(tmpdir(), "sf-setup-cf-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A CommonJS stand-in for wrangler's account commands; state and call log in $FAKE_WRANGLER_STATE. */
const FAKE_WRANGLER = String.raw`#!/usr/bin/env node
const fs = require("node:fs");
const { randomUUID } = require("node:crypto");
const file = process.env.FAKE_WRANGLER_STATE;
const state = JSON.parse(fs.readFileSync(file, "utf8"));
const argv = process.argv.slice(2);
const stdin = argv[0] === "secret" && argv[1] === "bulk" ? fs.readFileSync(0, "utf8") : null;
state.calls.push({ argv, stdin });
const flag = (name) => { const i = argv.indexOf(name); return i < 0 ? undefined : argv[i + 1]; };
const words = argv.filter((a, i) => !a.startsWith("--") && !(i > 0 && argv[i - 1].startsWith("--") && !["--json", "--remote"].includes(argv[i - 1])));
const say = (s) => process.stdout.write(s + "\n");
let code = 0;
const cmd = words.slice(0, 2).join(" ");
if (cmd === "whoami") {
  if (state.loggedIn) say(JSON.stringify({ loggedIn: true, authType: "OAuth Token", email: "ops@example.com", accounts: [{ id: "0123456789abcdef0123456789abcdef", name: "Acme" }] }));
  else { say(JSON.stringify({ loggedIn: false })); code = 1; }
} else if (cmd === "d1 list") {
  say(JSON.stringify(state.d1, null, 2));
} else if (cmd === "d1 create") {
  const db = { uuid: randomUUID(), name: words[2], created_at: new Date().toISOString(), version: "production", num_tables: 0, file_size: 0 };
  state.d1.push(db);
  say("✅ Successfully created DB '" + db.name + "' in region WEUR\nCreated your new D1 database.\n");
} else if (cmd === "r2 bucket" && state.r2Disabled) {
  process.stderr.write("✘ [ERROR] A request to the Cloudflare API (/accounts/0123/r2/buckets) failed.\n\n  Please enable R2 through the Cloudflare Dashboard. [code: 10042]\n");
  code = 1;
} else if (cmd === "r2 bucket" && words[2] === "list") {
  say("Listing buckets...\n" + state.r2.map((b) => "name:           " + b + "\ncreation_date:  2026-12-01T10:00:00.000Z").join("\n\n"));
} else if (cmd === "r2 bucket" && words[2] === "create") {
  state.r2.push(words[3]);
  say("Creating bucket '" + words[3] + "'...\n✅ Created bucket '" + words[3] + "' with default storage class of Standard.");
} else if (cmd === "secret list") {
  const env = flag("--env");
  if (!state.secrets[env]) { process.stderr.write('✘ [ERROR] Worker "starforge-' + env + '" (env: ' + env + ') not found.\n\nIf this is a new Worker, run wrangler deploy first to create it.\n'); code = 1; }
  else say(JSON.stringify(Object.keys(state.secrets[env]).map((name) => ({ name, type: "secret_text" })), null, "  "));
} else if (cmd === "secret bulk") {
  const env = flag("--env");
  const values = JSON.parse(stdin);
  state.secrets[env] = { ...(state.secrets[env] || {}), ...values };
  say("✨ " + Object.keys(values).length + " secrets successfully uploaded");
} else if (cmd === "d1 migrations") {
  say("✅ Migrations applied (or none to apply)");
} else if (cmd === "deploy") {
  say("Deployed starforge-" + flag("--env") + " triggers");
} else {
  process.stderr.write("fake wrangler: unsupported: " + argv.join(" ") + "\n");
  code = 1;
}
fs.writeFileSync(file, JSON.stringify(state, null, 2));
process.exit(code);
`;

interface Call {
  argv: string[];
  stdin: string | null;
}
interface FakeState {
  loggedIn: boolean;
  r2Disabled?: boolean;
  calls: Call[];
  d1: { uuid: string; name: string }[];
  r2: string[];
  secrets: Record<string, Record<string, string>>;
}

let dir = "";
let config = "";
let stateFile = "";
const fakeBin = join(work, "bin");
mkdirSync(fakeBin);
writeFileSync(join(fakeBin, "wrangler"), FAKE_WRANGLER);
chmodSync(join(fakeBin, "wrangler"), 0o755);

beforeEach(() => {
  dir = mkdtempSync(join(work, "case-"));
  config = join(dir, "wrangler.toml");
  // The copy builds the same Worker: its relative paths point back into the repository.
  const copy = readFileSync(join(ROOT, "wrangler.toml"), "utf8")
    .replace('main = "worker/index.ts"', `main = "${join(ROOT, "worker", "index.ts")}"`)
    .replaceAll('migrations_dir = "migrations"', `migrations_dir = "${join(ROOT, "migrations")}"`);
  writeFileSync(config, copy);
  stateFile = join(dir, "account.json");
  writeFileSync(stateFile, JSON.stringify({ loggedIn: true, calls: [], d1: [], r2: [], secrets: {} }));
});

const state = (): FakeState => JSON.parse(readFileSync(stateFile, "utf8")) as FakeState;

/** Runs a script with the fake wrangler first on PATH and only the given secrets in its environment. */
function script(file: string, args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [file, "--config", config, ...args], {
    cwd: dir,
    encoding: "utf8",
    env: {
      PATH: `${fakeBin}${delimiter}${process.env.PATH ?? ""}`,
      HOME: dir,
      FAKE_WRANGLER_STATE: stateFile,
      ...env,
    },
  });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}
const setup = (args: string[], env: Record<string, string> = {}) => script(SETUP, args, env);
const deploy = (args: string[], env: Record<string, string> = {}) => script(DEPLOY, args, env);

const commands = (calls: Call[]) =>
  calls.map((c) => c.argv.filter((a) => a !== "--config" && a !== "wrangler.toml").join(" "));

const GIVEN = {
  SF_BOOTSTRAP_ADMIN_TOKEN: "sfp_given-admin-token-for-the-dry-run-0001",
  SF_JWT_SECRET: "given-jwt-secret-that-is-long-enough-for-the-worker-0002",
  R2_ACCESS_KEY_ID: "given-r2-access-key-id-0003",
  R2_SECRET_ACCESS_KEY: "given-r2-secret-access-key-0004",
  R2_ACCOUNT_ID: "0123456789abcdef0123456789abcdef",
};

describe("setup:cloudflare --dry-run", () => {
  it("prints each step and its commands in order, never a secret, and touches nothing", () => {
    const before = readFileSync(config);
    const { code, out } = setup(["--env", "production", "--dry-run", "--domain", "sf.example.com"], GIVEN);
    expect(code, out).toBe(0);
    const expected = [
      "step 1/6  check the Cloudflare login",
      "would run wrangler whoami --json --config wrangler.toml",
      'step 2/6  D1 database "starforge-production": find it, or create it',
      "would run wrangler d1 list --json --config wrangler.toml",
      "if it is not listed: wrangler d1 create starforge-production --config wrangler.toml",
      'step 3/6  R2 bucket "starforge-production-blobs": find it, or create it',
      "would run wrangler r2 bucket list --config wrangler.toml",
      "if it is not listed: wrangler r2 bucket create starforge-production-blobs --config wrangler.toml",
      "step 4/6  write wrangler.toml [env.production]",
      'database_id = "<the id of starforge-production>"',
      'SF_PUBLIC_URL = "https://sf.example.com"',
      'routes = [{ pattern = "sf.example.com", custom_domain = true }]',
      "step 5/6  secrets of the Worker starforge-production",
      "would run wrangler secret list --format json --env production --config wrangler.toml",
      "SF_JWT_SECRET: from $SF_JWT_SECRET",
      "SF_SECRETS_KEY: kept if the Worker has it, else generated",
      "SF_BOOTSTRAP_ADMIN_TOKEN: from $SF_BOOTSTRAP_ADMIN_TOKEN",
      "R2_ACCOUNT_ID, R2_ACCESS_KEY_ID, R2_SECRET_ACCESS_KEY: given; R2_BUCKET: starforge-production-blobs",
      "would run wrangler secret bulk --env production --config wrangler.toml",
      "step 6/6  apply the D1 migrations to starforge-production (remote)",
      "would run wrangler d1 migrations apply DB --remote --env production --config wrangler.toml",
      "dry run done; nothing was changed",
    ];
    let at = 0;
    for (const line of expected) {
      const found = out.indexOf(line, at);
      expect(found, `"${line}" after offset ${at} in:\n${out}`).toBeGreaterThanOrEqual(0);
      at = found + line.length;
    }
    for (const secret of Object.values(GIVEN).slice(0, 4)) expect(out).not.toContain(secret);
    expect(readFileSync(config).equals(before)).toBe(true);
    expect(state().calls).toEqual([]);
  });

  it("refuses a bad domain, an unknown environment and a short admin token with their codes", () => {
    const domain = setup(["--env", "production", "--dry-run", "--domain", "not a host"]);
    expect(domain.code).toBe(2);
    expect(domain.out).toContain(
      'error BAD_ARGUMENT: --domain takes a host name such as sf.example.com, got "not a host"',
    );
    const env = setup(["--env", "prod", "--dry-run"]);
    expect(env.code).toBe(2);
    expect(env.out).toContain("error ENV_UNKNOWN:");
    expect(env.out).toContain("the deployed environments are staging, production");
    const url = setup(["--env", "staging", "--dry-run", "--public-url", "https://sf.example.com/api"]);
    expect(url.code).toBe(2);
    expect(url.out).toContain(
      'error BAD_ARGUMENT: --public-url takes an https origin with no path, got "https://sf.example.com/api"',
    );
    const token = setup(["--env", "staging", "--dry-run"], { SF_BOOTSTRAP_ADMIN_TOKEN: "short" });
    expect(token.code).toBe(2);
    expect(token.out).toContain(
      "error BAD_SECRET: SF_BOOTSTRAP_ADMIN_TOKEN (from $SF_BOOTSTRAP_ADMIN_TOKEN) must be at least 16 printable characters",
    );
    expect(token.out).not.toContain("short\n");
  });
});

describe("setup:cloudflare against an account (a fake wrangler)", () => {
  it("creates what is missing, writes the ids into its own section only, and a second run creates nothing", () => {
    const before = readFileSync(config, "utf8");
    const url = "https://starforge-staging.acme.workers.dev";
    const first = setup(["--env", "staging", "--public-url", url]);
    expect(first.code, first.out).toBe(0);
    const s1 = state();
    expect(commands(s1.calls)).toEqual([
      "whoami --json",
      "d1 list --json",
      "d1 create starforge-staging",
      "d1 list --json",
      "r2 bucket list",
      "r2 bucket create starforge-staging-blobs",
      "secret list --format json --env staging",
      "secret bulk --env staging",
      "d1 migrations apply DB --remote --env staging",
    ]);
    const db = s1.d1.find((d) => d.name === "starforge-staging");
    expect(db).toBeDefined();
    expect(s1.r2).toEqual(["starforge-staging-blobs"]);

    // Only staging's database_id and SF_PUBLIC_URL lines changed; production and the top level did not.
    const after = readFileSync(config, "utf8");
    const changed = after.split("\n").filter((line, i) => line !== before.split("\n")[i]);
    expect(changed).toEqual([`SF_PUBLIC_URL = "${url}"`, `database_id = "${db?.uuid}"`]);
    const raw = readRaw(config);
    expect(raw.env?.staging?.d1_databases?.[0]?.database_id).toBe(db?.uuid);
    expect(raw.env?.staging?.vars?.SF_PUBLIC_URL).toBe(url);
    expect(raw.env?.production?.d1_databases?.[0]?.database_id).toBe("00000000-0000-0000-0000-000000000000");
    expect(raw.d1_databases?.[0]?.database_id).toBe("00000000-0000-0000-0000-000000000000");

    // Secrets: generated, on standard input only; the admin token printed once, the others never.
    const uploaded = s1.secrets.staging ?? {};
    expect(Object.keys(uploaded).sort()).toEqual([
      "SF_BOOTSTRAP_ADMIN_TOKEN",
      "SF_JWT_SECRET",
      "SF_SECRETS_KEY",
    ]);
    const admin = uploaded.SF_BOOTSTRAP_ADMIN_TOKEN ?? "";
    expect(admin).toMatch(/^sfp_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(uploaded.SF_SECRETS_KEY ?? "", "base64url")).toHaveLength(32);
    expect(first.out.split(admin)).toHaveLength(2);
    // Shown as soon as the Worker has it, before a later step could fail.
    expect(first.out.indexOf(admin)).toBeLessThan(first.out.indexOf("step 6/6"));
    expect(first.out).not.toContain(uploaded.SF_JWT_SECRET);
    expect(first.out).not.toContain(uploaded.SF_SECRETS_KEY);
    for (const call of s1.calls) for (const v of Object.values(uploaded)) expect(call.argv).not.toContain(v);
    expect(first.out).toContain("next: npm run deploy -- --env staging");

    const second = setup(["--env", "staging", "--public-url", url]);
    expect(second.code, second.out).toBe(0);
    const again = commands(state().calls.slice(s1.calls.length));
    expect(again).toEqual([
      "whoami --json",
      "d1 list --json",
      "r2 bucket list",
      "secret list --format json --env staging",
      "d1 migrations apply DB --remote --env staging",
    ]);
    expect(readFileSync(config, "utf8")).toBe(after);
    expect(state().secrets.staging).toEqual(uploaded);
    expect(second.out).toContain("already so; the file is unchanged");
    expect(second.out).not.toContain(admin);
  });

  it("adds the R2 S3 credentials and a custom domain later, keeping the secrets it has", () => {
    expect(setup(["--env", "production"]).code).toBe(0);
    const firstSecrets = state().secrets.production ?? {};
    const calls = state().calls.length;
    const r = setup(["--env", "production", "--domain", "sf.example.com"], {
      R2_ACCESS_KEY_ID: GIVEN.R2_ACCESS_KEY_ID,
      R2_SECRET_ACCESS_KEY: GIVEN.R2_SECRET_ACCESS_KEY,
      CLOUDFLARE_ACCOUNT_ID: GIVEN.R2_ACCOUNT_ID,
      SF_JWT_SECRET: GIVEN.SF_JWT_SECRET,
    });
    expect(r.code, r.out).toBe(0);
    const bulk = state()
      .calls.slice(calls)
      .filter((c) => c.argv[0] === "secret" && c.argv[1] === "bulk");
    expect(bulk).toHaveLength(1);
    expect(JSON.parse(bulk[0]?.stdin ?? "{}")).toEqual({
      SF_JWT_SECRET: GIVEN.SF_JWT_SECRET,
      R2_ACCESS_KEY_ID: GIVEN.R2_ACCESS_KEY_ID,
      R2_SECRET_ACCESS_KEY: GIVEN.R2_SECRET_ACCESS_KEY,
      R2_ACCOUNT_ID: GIVEN.R2_ACCOUNT_ID,
      R2_BUCKET: "starforge-production-blobs",
    });
    expect(state().secrets.production).toMatchObject({
      SF_SECRETS_KEY: firstSecrets.SF_SECRETS_KEY,
      SF_BOOTSTRAP_ADMIN_TOKEN: firstSecrets.SF_BOOTSTRAP_ADMIN_TOKEN,
      SF_JWT_SECRET: GIVEN.SF_JWT_SECRET,
    });
    expect(r.out).toContain("SF_JWT_SECRET: from $SF_JWT_SECRET (replaces the one set");
    expect(r.out).not.toContain(GIVEN.R2_SECRET_ACCESS_KEY);
    const raw = readRaw(config);
    expect(raw.env?.production?.routes).toEqual([{ pattern: "sf.example.com", custom_domain: true }]);
    expect(raw.env?.production?.vars?.SF_PUBLIC_URL).toBe("https://sf.example.com");
  });

  it("says to enable R2 in the dashboard when the account has never used it", () => {
    writeFileSync(
      stateFile,
      JSON.stringify({ loggedIn: true, r2Disabled: true, calls: [], d1: [], r2: [], secrets: {} }),
    );
    const r = setup(["--env", "staging"]);
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      "error R2_NOT_ENABLED: R2 is not enabled on this Cloudflare account: enable it once in the dashboard",
    );
    expect(commands(state().calls)).not.toContain("secret bulk --env staging");
  });

  it("stops before creating anything when wrangler is not logged in", () => {
    writeFileSync(stateFile, JSON.stringify({ loggedIn: false, calls: [], d1: [], r2: [], secrets: {} }));
    const r = setup(["--env", "staging"]);
    expect(r.code).toBe(1);
    expect(r.out).toContain("error NOT_LOGGED_IN: wrangler is not logged in: run `npx wrangler login`");
    expect(commands(state().calls)).toEqual(["whoami --json"]);
  });
});

describe("deploy", () => {
  it("refuses an environment setup:cloudflare has not prepared, pointing at it", () => {
    const r = deploy(["--env", "production"]);
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      "error DEPLOY_NOT_SET_UP: [env.production] is not set up: D1 DB database_id is the placeholder; SF_PUBLIC_URL is the placeholder https://run-setup-cloudflare.invalid. Run `npm run setup:cloudflare -- --env production",
    );
    expect(state().calls).toEqual([]);
  });

  it("after setup, checks the bundle and deploys it with SF_BUILD set to this checkout's commit", () => {
    expect(
      setup(["--env", "staging", "--public-url", "https://starforge-staging.acme.workers.dev"]).code,
    ).toBe(0);
    const calls = state().calls.length;
    const git = (args: string[]) => spawnSync("git", args, { cwd: ROOT, encoding: "utf8" }).stdout.trim();
    const dirty = git(["status", "--porcelain", "--untracked-files=no"]) === "" ? "" : "-dirty";
    const build = `${git(["rev-parse", "--short=12", "HEAD"])}${dirty}`;

    const dry = deploy(["--env", "staging", "--dry-run"]);
    expect(dry.code, dry.out).toBe(0);
    let at = 0;
    for (const line of [
      "would run npm run build",
      "would run node scripts/check-bundle.mjs --env staging --config",
      `would run wrangler deploy --env staging --var SF_BUILD:${build} --config wrangler.toml`,
    ]) {
      at = dry.out.indexOf(line, at);
      expect(at, `"${line}" in:\n${dry.out}`).toBeGreaterThanOrEqual(0);
    }
    expect(state().calls.length).toBe(calls);

    const r = deploy(["--env", "staging", "--skip-build"]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain("check-bundle: OK (staging)");
    expect(
      state()
        .calls.slice(calls)
        .map((c) => c.argv),
    ).toEqual([["deploy", "--env", "staging", "--var", `SF_BUILD:${build}`, "--config", "wrangler.toml"]]);
    expect(r.out).toContain("the job capsule was not published (no SF_ADMIN_TOKEN)");
    expect(r.out).toContain("done; check it with: curl https://starforge-staging.acme.workers.dev/v1/health");
  });

  it("publishes the build's job capsule on the deployed control plane with SF_ADMIN_TOKEN", async () => {
    const cp = await startControlPlane({ agent: false });
    try {
      expect(
        setup(["--env", "staging", "--public-url", "https://starforge-staging.acme.workers.dev"]).code,
      ).toBe(0);
      // Here the "deployed" control plane is a real local one: the environment points at it.
      const text = readFileSync(config, "utf8");
      writeFileSync(
        config,
        setTomlValue(text, {
          table: "env.staging.vars",
          key: "SF_PUBLIC_URL",
          literal: JSON.stringify(cp.url),
        }),
      );
      const refused = deploy(["--env", "staging", "--capsule-only"]);
      expect(refused.code).toBe(2);
      expect(refused.out).toContain(
        "error BAD_ARGUMENT: --capsule-only publishes with an admin token: set SF_ADMIN_TOKEN",
      );

      const published = async () =>
        ((await call(cp, cp.adminToken, "GET", "/v1/audit?action=capsule.publish")).body.entries as unknown[])
          .length;
      const before = await published();
      const r = deploy(["--env", "staging", "--capsule-only", "--skip-build"], {
        SF_ADMIN_TOKEN: cp.adminToken,
      });
      expect(r.code, r.out).toBe(0);
      const files = JSON.parse(readFileSync(join(ROOT, "dist", "capsule", "files.json"), "utf8")) as Record<
        string,
        string
      >;
      expect(r.out).toContain(`job capsule published: ${Object.values(files).join(", ")}`);
      expect(await published()).toBe(before + 1);
      expect((await call(cp, cp.adminToken, "GET", "/v1/capsule")).body).toEqual({ files });
      expect(state().calls.filter((c) => c.argv[0] === "deploy")).toEqual([]);
    } finally {
      await cp.stop();
    }
  });
});
