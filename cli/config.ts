/**
 * Where sf keeps its credentials (`$SF_HOME`, default ~/.config/starforge) and how it picks a server:
 * `--server` > `--context` > `SF_SERVER` > the current context. Tokens: `SF_TOKEN` > the one saved for
 * the server. The credentials file is created 0600, atomically (write a temp file, fsync, rename).
 *
 * A context is a name for a server (like a kubectl context or a gh host); the login saved for that server
 * goes with it. Version 1 of the file had no names (`default` + `servers`); it is still read, its servers
 * named by host[:port], and written back as version 2, which keeps both fields as they were (`default`
 * is the current context's server) so nothing saved is ever lost.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "../contract/node-files.js";
import { CliError, EXIT } from "./errors.js";

const SavedLogin = z.object({ token: z.string(), user: z.string(), role: z.string(), saved_at: z.string() });
export type SavedLogin = z.infer<typeof SavedLogin>;

const V1 = z.object({
  version: z.literal(1),
  default: z.string().nullable(),
  servers: z.record(z.string(), SavedLogin),
});

const V2 = z.object({
  version: z.literal(2),
  /** The current context's name. */
  current: z.string().nullable(),
  /** The current context's server (what version 1 called the default server). */
  default: z.string().nullable(),
  contexts: z.record(z.string(), z.object({ server: z.string() })),
  /** The login saved for each server. */
  servers: z.record(z.string(), SavedLogin),
});
export type Credentials = z.infer<typeof V2>;

export const CONTEXT_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,62}$/;

export function sfHome(): string {
  return process.env.SF_HOME || join(homedir(), ".config", "starforge");
}

export function credentialsPath(): string {
  return join(sfHome(), "credentials.json");
}

export function normalizeServer(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new CliError(`"${url}" is not a URL`, {
      exit: EXIT.USAGE,
      hint: "e.g. --server http://127.0.0.1:8787",
    });
  }
  if (u.protocol !== "http:" && u.protocol !== "https:")
    throw new CliError(`server must be http(s), got ${url}`, { exit: EXIT.USAGE });
  return u.toString().replace(/\/+$/, "");
}

/** A context's default name: the server's host[:port], made unique among `taken` with -2, -3, … */
export function contextNameFor(server: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  const base = new URL(server).host;
  if (!used.has(base)) return base;
  for (let i = 2; ; i++) if (!used.has(`${base}-${i}`)) return `${base}-${i}`;
}

/** Version 1 → 2: one context per saved server, the default one current. Pure. */
export function migrate(v1: z.infer<typeof V1>): Credentials {
  const contexts: Credentials["contexts"] = {};
  let current: string | null = null;
  for (const server of Object.keys(v1.servers)) {
    const name = contextNameFor(server, Object.keys(contexts));
    contexts[name] = { server };
    if (server === v1.default) current = name;
  }
  if (v1.default && current === null) {
    current = contextNameFor(v1.default, Object.keys(contexts));
    contexts[current] = { server: v1.default };
  }
  return { version: 2, current, default: v1.default, contexts, servers: v1.servers };
}

export function emptyCredentials(): Credentials {
  return { version: 2, current: null, default: null, contexts: {}, servers: {} };
}

export function readCredentials(): Credentials {
  const p = credentialsPath();
  if (!existsSync(p)) return emptyCredentials();
  const corrupt = () =>
    new CliError(`${p} is corrupt`, {
      code: "CREDENTIALS_CORRUPT",
      hint: "run `sf logout --all` and log in again",
    });
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(p, "utf8"));
  } catch {
    throw corrupt();
  }
  const v2 = V2.safeParse(raw);
  if (v2.success) return v2.data;
  const v1 = V1.safeParse(raw);
  if (v1.success) return migrate(v1.data);
  throw corrupt();
}

export function writeCredentials(c: Credentials): void {
  // `default` mirrors the current context, so a reader of version 1's fields finds the same server.
  const current = c.current === null ? undefined : c.contexts[c.current];
  const out: Credentials = { ...c, current: current ? c.current : null, default: current?.server ?? null };
  mkdirSync(sfHome(), { recursive: true, mode: 0o700 });
  writeFileAtomic(credentialsPath(), `${JSON.stringify(out, null, 2)}\n`, 0o600);
}

export function removeCredentials(): void {
  rmSync(credentialsPath(), { force: true });
}

export function contextNotFound(name: string, c: Credentials): CliError {
  const known = Object.keys(c.contexts).sort();
  return new CliError(`no context named "${name}"`, {
    code: "CONTEXT_NOT_FOUND",
    exit: EXIT.NOT_FOUND,
    hint: known.length
      ? `known contexts: ${known.join(", ")} (\`sf login --server URL --context ${name}\` creates it)`
      : `no contexts saved yet; \`sf login --server URL --context ${name}\` creates it`,
  });
}

export function checkContextName(name: string): void {
  if (!CONTEXT_NAME_RE.test(name))
    throw new CliError(`"${name}" is not a valid context name`, {
      code: "INVALID_CONTEXT_NAME",
      exit: EXIT.USAGE,
      hint: "letters, digits and . _ : @ - (at most 63), starting with a letter or digit",
    });
}

/** Where a command's server came from, for `sf context current` and messages. */
export type TargetSource = "--server" | "--context" | "SF_SERVER" | "current context";

export interface Target {
  server: string;
  /** The context that named it (for --server and SF_SERVER: a context of the same server, if any). */
  context: string | null;
  source: TargetSource;
}

/** The context of `server`: the current one when it matches, else the first by name. */
export function contextOf(c: Credentials, server: string): string | null {
  if (c.current && c.contexts[c.current]?.server === server) return c.current;
  return (
    Object.keys(c.contexts)
      .sort()
      .find((n) => c.contexts[n]?.server === server) ?? null
  );
}

/**
 * The server to talk to, or a clear error: `--server` > `--context` > SF_SERVER > the current context.
 * An unknown --context is CONTEXT_NOT_FOUND (exit 4) with the known names as the hint.
 */
export function resolveTarget(flags: { server?: string; context?: string }): Target {
  const c = readCredentials();
  if (flags.server) {
    const server = normalizeServer(flags.server);
    return { server, context: contextOf(c, server), source: "--server" };
  }
  if (flags.context) {
    const ctx = c.contexts[flags.context];
    if (!ctx) throw contextNotFound(flags.context, c);
    return { server: normalizeServer(ctx.server), context: flags.context, source: "--context" };
  }
  if (process.env.SF_SERVER) {
    const server = normalizeServer(process.env.SF_SERVER);
    return { server, context: contextOf(c, server), source: "SF_SERVER" };
  }
  const current = c.current ? c.contexts[c.current] : undefined;
  if (c.current && current)
    return { server: normalizeServer(current.server), context: c.current, source: "current context" };
  const known = Object.keys(c.contexts).sort();
  throw new CliError("no server configured", {
    code: "NO_SERVER",
    exit: EXIT.AUTH,
    hint: known.length
      ? `pick a saved context with \`sf context use NAME\` (${known.join(", ")}), or run \`sf login --server URL\``
      : "run `sf login --server URL` (or pass --server / set SF_SERVER)",
  });
}

/** The server alone (see resolveTarget). */
export function resolveServer(flags: { server?: string; context?: string }): string {
  return resolveTarget(flags).server;
}

/** The token for a server: SF_TOKEN, else the one `sf login` saved. Never starts a login. */
export function resolveToken(server: string): string {
  if (process.env.SF_TOKEN) return process.env.SF_TOKEN;
  const c = readCredentials();
  const saved = c.servers[server];
  if (!saved) {
    const ctx = contextOf(c, server);
    throw new CliError(`not logged in to ${server}`, {
      code: "NOT_LOGGED_IN",
      exit: EXIT.AUTH,
      hint: ctx
        ? `run \`sf login --server ${server}\` (context ${ctx})`
        : `run \`sf login --server ${server}\``,
    });
  }
  return saved.token;
}

/**
 * Records a login to `server` under a context and makes that context current. The name is `name` when
 * given (re-pointed to this server if it named another), else the server's existing context, else its
 * host[:port]. Returns the context's name.
 */
export function saveLogin(
  c: Credentials,
  server: string,
  login: SavedLogin,
  name: string | undefined,
): { context: string; previous: string | null } {
  if (name !== undefined) checkContextName(name);
  const context = name ?? contextOf(c, server) ?? contextNameFor(server, Object.keys(c.contexts));
  const previous = c.contexts[context]?.server ?? null;
  c.contexts[context] = { server };
  c.servers[server] = login;
  c.current = context;
  return { context, previous: previous === server ? null : previous };
}
