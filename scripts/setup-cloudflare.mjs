#!/usr/bin/env node
// `npm run setup:cloudflare -- --env production [--domain sf.example.com | --public-url URL] [--dry-run]`:
// prepares one deployed environment of wrangler.toml on a Cloudflare account, idempotently:
//   1. checks wrangler is logged in (`wrangler login`, or CLOUDFLARE_API_TOKEN in the environment)
//   2. finds the environment's D1 database by name, or creates it
//   3. finds its R2 bucket by name, or creates it
//   4. writes the database id (and SF_PUBLIC_URL, and a custom-domain route with --domain) into its
//      [env.*] section of wrangler.toml, editing only those lines
//   5. sets the Worker's secrets: a value in this process's environment is uploaded; one the Worker already
//      has is kept; otherwise SF_JWT_SECRET, SF_SECRETS_KEY and SF_BOOTSTRAP_ADMIN_TOKEN are generated (the
//      admin token is printed once) and the four R2 S3 values are asked for (on a terminal) or left unset
//   6. applies the D1 migrations to the remote database
// A second run creates nothing and changes nothing it already did. --dry-run prints every step and the
// commands it would run, runs none of them, writes nothing and needs neither an account nor the network.
// Secret values travel to wrangler on standard input, never on a command line, and are never printed
// except the generated admin token.
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, relative, resolve } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import {
  assertEnvParity,
  exitWith,
  isPlaceholderUrl,
  notSetUp,
  parseJsonOutput,
  parseTomlText,
  plain,
  ROOT,
  readRaw,
  requireEnv,
  ScriptError,
  setTomlValue,
  wrangler,
} from "./wrangler-envs.mjs";

const SCRIPT = "setup:cloudflare";
const STEPS = 6;

const { values: opts } = parseArgs({
  options: {
    env: { type: "string" },
    domain: { type: "string" },
    "public-url": { type: "string" },
    config: { type: "string", default: resolve(ROOT, "wrangler.toml") },
    "dry-run": { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  },
});

const USAGE = `usage: npm run setup:cloudflare -- --env NAME [--domain HOST | --public-url URL] [--dry-run]

Creates (or finds) the D1 database and R2 bucket of wrangler.toml's [env.NAME], writes their ids into that
section, sets the Worker's secrets and applies the D1 migrations remotely. Safe to run again.
  --domain HOST      serve the control plane on this custom domain (its zone must be on the account):
                     writes routes = [{ pattern = HOST, custom_domain = true }] and SF_PUBLIC_URL=https://HOST
  --public-url URL   SF_PUBLIC_URL without a custom domain, e.g. https://starforge-NAME.<subdomain>.workers.dev
  --dry-run          print every step and command; run, write and send nothing
Secrets come from the environment when set there (SF_JWT_SECRET, SF_SECRETS_KEY, SF_BOOTSTRAP_ADMIN_TOKEN,
R2_ACCOUNT_ID or CLOUDFLARE_ACCOUNT_ID, R2_ACCESS_KEY_ID, R2_SECRET_ACCESS_KEY); see docs/deploy.md.`;

const dry = opts["dry-run"];
let step = 0;
const heading = (text) => console.log(`\nstep ${++step}/${STEPS}  ${text}`);
const note = (text) => console.log(`  ${text}`);
/** Prints the command line (never a secret: those go on stdin) and, unless dry, runs it. */
function run(args, { input, describeInput, okCodes = [0] } = {}) {
  const shown = ["wrangler", ...args].join(" ");
  note(`${dry ? "would run" : "$"} ${shown}${describeInput ? `   (${describeInput})` : ""}`);
  if (dry) return null;
  const r = wrangler(args, { input, cwd: dirname(configPath) });
  if (r.error) throw new ScriptError("WRANGLER_FAILED", `could not run wrangler: ${r.error.message}`);
  if (!okCodes.includes(r.code)) {
    throw new ScriptError("WRANGLER_FAILED", `\`${shown}\` failed (exit ${r.code}):\n${r.stdout}${r.stderr}`);
  }
  return r;
}

// --- the secrets, their checks and how each is made when absent ------------------------------------------

const b64url = (n) => randomBytes(n).toString("base64url");
/** The same rules as worker/env.ts and d1/secret-box.ts, checked before any upload. */
const SECRET_RULES = {
  SF_BOOTSTRAP_ADMIN_TOKEN: {
    check: (v) => v.length >= 16 && /^[\x21-\x7e]+$/.test(v),
    rule: "at least 16 printable characters, no spaces",
    generate: () => `sfp_${b64url(32)}`,
  },
  SF_JWT_SECRET: {
    check: (v) => v.length >= 32,
    rule: "at least 32 characters",
    generate: () => b64url(48),
  },
  SF_SECRETS_KEY: {
    check: (v) => /^[A-Za-z0-9_-]{43}$/.test(v) && Buffer.from(v, "base64url").length === 32,
    rule: "32 random bytes, base64url (43 characters)",
    generate: () => b64url(32),
  },
  R2_ACCOUNT_ID: { check: (v) => /^[0-9a-f]{32}$/.test(v), rule: "the 32-character hex account id" },
  R2_ACCESS_KEY_ID: { check: (v) => v.length > 0, rule: "not empty" },
  R2_SECRET_ACCESS_KEY: { check: (v) => v.length > 0, rule: "not empty" },
  R2_BUCKET: { check: (v) => v.length >= 3, rule: "the bucket bound as BLOBS" },
};
const CORE = ["SF_JWT_SECRET", "SF_SECRETS_KEY", "SF_BOOTSTRAP_ADMIN_TOKEN"];
const R2 = ["R2_ACCOUNT_ID", "R2_ACCESS_KEY_ID", "R2_SECRET_ACCESS_KEY", "R2_BUCKET"];

function checked(name, value, from) {
  const rule = SECRET_RULES[name];
  if (!rule.check(value)) throw new ScriptError("BAD_SECRET", `${name} (${from}) must be ${rule.rule}`);
  return value;
}

/** Asks on the terminal; hidden input for secrets. Empty answer → "". */
function ask(question, { hidden = false } = {}) {
  return new Promise((done) => {
    const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
    if (hidden) {
      // Echo nothing of what is typed after the question.
      rl._writeToOutput = (s) => {
        if (s.startsWith(question)) process.stdout.write(question);
      };
    }
    rl.question(question, (answer) => {
      rl.close();
      if (hidden) process.stdout.write("\n");
      done(answer.trim());
    });
  });
}

// --- the run -------------------------------------------------------------------------------------------

if (opts.help) {
  console.log(USAGE);
  process.exit(0);
}
const configPath = resolve(opts.config);

async function main() {
  const raw = readRaw(configPath);
  const envName = opts.env;
  const env = requireEnv(raw, envName, configPath);
  assertEnvParity(raw, configPath);
  const db = (env.d1_databases ?? []).find((d) => d.binding === "DB");
  const bucket = (env.r2_buckets ?? []).find((b) => b.binding === "BLOBS");
  if (!db || !bucket)
    throw new ScriptError("CONFIG_INVALID", `[env.${envName}] needs the DB and BLOBS bindings`);
  const publicUrl = wantedPublicUrl();
  const shownConfig = relative(process.cwd(), configPath) || configPath;
  // wrangler runs in the config's directory, so the file's own name is enough (and shows no local path).
  const cfg = ["--config", basename(configPath)];
  const onEnv = ["--env", envName, ...cfg];

  console.log(
    `${SCRIPT} --env ${envName} (${shownConfig} [env.${envName}], Worker starforge-${envName})` +
      (dry ? "\nDRY RUN: nothing is created, written or sent; no account or network is needed." : ""),
  );

  heading("check the Cloudflare login");
  const who = run(["whoami", "--json", ...cfg], { okCodes: [0, 1] });
  if (who && who.code !== 0) {
    let loggedOut = false;
    try {
      loggedOut = parseJsonOutput(who.stdout).loggedIn === false;
    } catch {
      // not wrangler's answer: reported below with what it printed
    }
    if (!loggedOut)
      throw new ScriptError("WRANGLER_FAILED", `wrangler whoami failed:\n${who.stdout}${who.stderr}`);
    throw new ScriptError(
      "NOT_LOGGED_IN",
      "wrangler is not logged in: run `npx wrangler login`, or set CLOUDFLARE_API_TOKEN (and CLOUDFLARE_ACCOUNT_ID)",
    );
  }

  heading(`D1 database "${db.database_name}": find it, or create it`);
  let databaseId = null;
  const findDb = () => {
    const r = run(["d1", "list", "--json", ...cfg]);
    return r && parseJsonOutput(r.stdout).find((d) => d.name === db.database_name);
  };
  if (dry) {
    run(["d1", "list", "--json", ...cfg]);
    note(`if it is not listed: ${["wrangler", "d1", "create", db.database_name, ...cfg].join(" ")}`);
  } else {
    let found = findDb();
    if (found) note(`found ${db.database_name} (${found.uuid}); kept`);
    else {
      run(["d1", "create", db.database_name, ...cfg]);
      found = findDb();
      if (!found)
        throw new ScriptError("WRANGLER_FAILED", `${db.database_name} is not listed after its creation`);
      note(`created ${db.database_name} (${found.uuid})`);
    }
    databaseId = found.uuid;
  }

  heading(`R2 bucket "${bucket.bucket_name}": find it, or create it`);
  if (dry) {
    run(["r2", "bucket", "list", ...cfg]);
    note(
      `if it is not listed: ${["wrangler", "r2", "bucket", "create", bucket.bucket_name, ...cfg].join(" ")}`,
    );
  } else {
    const r2List = run(["r2", "bucket", "list", ...cfg], { okCodes: [0, 1] });
    if (r2List.code !== 0) {
      // Cloudflare's 10042: R2 was never enabled on this account; only the dashboard can do that.
      if (/10042|enable R2/i.test(`${r2List.stdout}${r2List.stderr}`)) {
        throw new ScriptError(
          "R2_NOT_ENABLED",
          "R2 is not enabled on this Cloudflare account: enable it once in the dashboard (R2 object storage), then run setup again",
        );
      }
      throw new ScriptError(
        "WRANGLER_FAILED",
        `wrangler r2 bucket list failed:\n${r2List.stdout}${r2List.stderr}`,
      );
    }
    const listed = plain(r2List.stdout);
    const names = [...listed.matchAll(/^name:\s+(\S+)\s*$/gm)].map((m) => m[1]);
    if (names.includes(bucket.bucket_name)) note(`found ${bucket.bucket_name}; kept`);
    else {
      run(["r2", "bucket", "create", bucket.bucket_name, ...cfg]);
      note(`created ${bucket.bucket_name}`);
    }
  }

  heading(`write ${shownConfig} [env.${envName}]`);
  writeConfig(envName, databaseId ?? `<the id of ${db.database_name}>`, publicUrl);

  heading(`secrets of the Worker starforge-${envName}`);
  const generatedToken = await setSecrets(onEnv, bucket.bucket_name);

  heading(`apply the D1 migrations to ${db.database_name} (remote)`);
  run(["d1", "migrations", "apply", db.binding, "--remote", ...onEnv]);

  console.log(`\n${SCRIPT}: ${dry ? "dry run done; nothing was changed" : `[env.${envName}] is set up`}`);
  const after = dry ? [] : notSetUp(readRaw(configPath).env[envName]);
  if (after.length > 0) {
    console.log(`  still to do before a deploy: ${after.join("; ")} (re-run with --domain or --public-url)`);
  } else if (!dry) {
    console.log(`  next: npm run deploy -- --env ${envName}`);
  }
  if (generatedToken) console.log("  (the bootstrap admin token is printed above, under step 5: keep it)");
}

function wantedPublicUrl() {
  const { domain } = opts;
  if (domain !== undefined) {
    const host = domain.toLowerCase();
    if (!/^(?=.{4,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/.test(host)) {
      throw new ScriptError(
        "BAD_ARGUMENT",
        `--domain takes a host name such as sf.example.com, got "${domain}"`,
      );
    }
    if (opts["public-url"] !== undefined && opts["public-url"] !== `https://${host}`) {
      throw new ScriptError("BAD_ARGUMENT", `--domain ${host} serves https://${host}; drop --public-url`);
    }
    return `https://${host}`;
  }
  const url = opts["public-url"];
  if (url === undefined) return null;
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw new ScriptError("BAD_ARGUMENT", `--public-url takes an https URL, got "${url}"`);
  }
  if (parsed.protocol !== "https:" || parsed.pathname !== "/" || parsed.search || parsed.hash) {
    throw new ScriptError("BAD_ARGUMENT", `--public-url takes an https origin with no path, got "${url}"`);
  }
  if (isPlaceholderUrl(url)) throw new ScriptError("BAD_ARGUMENT", `--public-url ${url} is a placeholder`);
  return parsed.origin;
}

function writeConfig(envName, databaseId, publicUrl) {
  const changes = [
    {
      table: `env.${envName}.d1_databases`,
      key: "database_id",
      value: databaseId,
      match: { key: "binding", value: "DB" },
    },
  ];
  if (publicUrl) changes.push({ table: `env.${envName}.vars`, key: "SF_PUBLIC_URL", value: publicUrl });
  if (opts.domain) {
    changes.push({
      table: `env.${envName}`,
      key: "routes",
      literal: `[{ pattern = ${JSON.stringify(new URL(publicUrl).host)}, custom_domain = true }]`,
    });
  }
  for (const c of changes) note(`${c.key} = ${c.literal ?? JSON.stringify(c.value)}`);
  if (dry) {
    note("(not written: dry run)");
    return;
  }
  const before = readFileSync(configPath, "utf8");
  let text = before;
  for (const c of changes) {
    text = setTomlValue(text, { ...c, literal: c.literal ?? JSON.stringify(c.value) });
  }
  if (text === before) {
    note("already so; the file is unchanged");
    return;
  }
  // Checked with wrangler's own parser before it replaces the file.
  const written = parseTomlText(text).env?.[envName];
  const landed = written?.d1_databases?.find((d) => d.binding === "DB")?.database_id === databaseId;
  if (!landed || (publicUrl && written.vars?.SF_PUBLIC_URL !== publicUrl)) {
    throw new ScriptError(
      "CONFIG_INVALID",
      `the edit of ${configPath} did not land where expected; nothing written`,
    );
  }
  writeFileSync(configPath, text);
  note("written (only these lines changed)");
}

/** Sets what is missing; returns the admin token when this run generated it (to print once). */
async function setSecrets(onEnv, bucketName) {
  const listed = run(["secret", "list", "--format", "json", ...onEnv], { okCodes: [0, 1] });
  let existing = [];
  if (listed && listed.code === 0) existing = parseJsonOutput(listed.stdout).map((s) => s.name);
  else if (listed && !/not found/i.test(`${listed.stdout}${listed.stderr}`)) {
    throw new ScriptError(
      "WRANGLER_FAILED",
      `wrangler secret list failed:\n${listed.stdout}${listed.stderr}`,
    );
  } // a Worker that does not exist yet has no secrets; `secret bulk` creates it
  const has = (name) => existing.includes(name);
  const upload = {};
  let generatedToken = null;

  for (const name of CORE) {
    const given = process.env[name];
    if (given) {
      upload[name] = checked(name, given, `from $${name}`);
      note(
        `${name}: from $${name}${has(name) ? " (replaces the one set; see docs/security.md on rotation)" : ""}`,
      );
    } else if (dry) note(`${name}: kept if the Worker has it, else generated`);
    else if (has(name)) note(`${name}: already set; kept`);
    else {
      upload[name] = SECRET_RULES[name].generate();
      if (name === "SF_BOOTSTRAP_ADMIN_TOKEN") generatedToken = upload[name];
      note(`${name}: generated`);
    }
  }

  // The R2 S3 API (presigned uploads straight from jobs): all four or none (worker/env.ts).
  const r2 = {
    R2_ACCESS_KEY_ID: process.env.R2_ACCESS_KEY_ID || "",
    R2_SECRET_ACCESS_KEY: process.env.R2_SECRET_ACCESS_KEY || "",
    R2_ACCOUNT_ID: process.env.R2_ACCOUNT_ID || process.env.CLOUDFLARE_ACCOUNT_ID || "",
  };
  if (process.env.R2_BUCKET && process.env.R2_BUCKET !== bucketName) {
    throw new ScriptError("BAD_SECRET", `R2_BUCKET must be ${bucketName}, the bucket bound as BLOBS`);
  }
  const interactive = !dry && process.stdin.isTTY && process.stdout.isTTY;
  if (!r2.R2_ACCESS_KEY_ID && !R2.every(has) && interactive) {
    console.log("  R2 S3 API credentials let jobs upload large artifacts straight to R2 (docs/deploy.md).");
    r2.R2_ACCESS_KEY_ID = await ask("  R2 access key id (empty: skip): ");
    if (r2.R2_ACCESS_KEY_ID) {
      r2.R2_SECRET_ACCESS_KEY ||= await ask("  R2 secret access key: ", { hidden: true });
      r2.R2_ACCOUNT_ID ||= await ask("  Cloudflare account id: ");
    }
  }
  const givenR2 = Object.entries(r2).filter(([, v]) => v);
  if (r2.R2_ACCESS_KEY_ID || r2.R2_SECRET_ACCESS_KEY) {
    for (const [name, v] of givenR2) upload[name] = checked(name, v, "given");
    const missing = ["R2_ACCESS_KEY_ID", "R2_SECRET_ACCESS_KEY", "R2_ACCOUNT_ID"].filter((n) => !upload[n]);
    if (missing.length > 0) {
      throw new ScriptError(
        "BAD_SECRET",
        `the R2 S3 API needs all of its values; missing ${missing.join(", ")}`,
      );
    }
    upload.R2_BUCKET = bucketName;
    note(`R2_ACCOUNT_ID, R2_ACCESS_KEY_ID, R2_SECRET_ACCESS_KEY: given; R2_BUCKET: ${bucketName}`);
  } else if (dry) {
    note(
      "R2 S3 API (R2_*): set if R2_ACCESS_KEY_ID and R2_SECRET_ACCESS_KEY are in the environment, else kept or left unset",
    );
  } else if (R2.every(has)) note("R2 S3 API (R2_*): already set; kept");
  else {
    note("R2 S3 API (R2_*): not set; artifact bytes go through the Worker (docs/deploy.md, large uploads)");
  }

  const names = Object.keys(upload);
  if (dry) {
    run(["secret", "bulk", ...onEnv], { describeInput: "the values as JSON on standard input, never shown" });
  } else if (names.length === 0) {
    note("nothing to upload");
  } else {
    run(["secret", "bulk", ...onEnv], {
      input: JSON.stringify(upload),
      describeInput: `${names.join(", ")} as JSON on standard input, not shown`,
    });
    // Printed as soon as the Worker has it, so a later step failing cannot lose it.
    if (generatedToken) {
      note(
        `the bootstrap admin token (shown once, stored only as a Worker secret; keep it in a password manager):\n    ${generatedToken}`,
      );
    }
  }
  return generatedToken;
}

main().catch((err) => exitWith(SCRIPT, err));
