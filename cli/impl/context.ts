/**
 * `sf context ls|use|rm|current` (the saved servers, by name) and `sf version` (this sf and the server's
 * versions, side by side).
 */
import type { Command } from "commander";
import { MIN_SERVER_API_VERSION } from "../../contract/version.js";
import { Api, CLI_VERSION } from "../api.js";
import { contextNotFound, readCredentials, type Target, writeCredentials } from "../config.js";
import { target } from "../context.js";
import { CliError } from "../errors.js";
import { c, emit, info, print, table } from "../output.js";

export interface ContextRow {
  name: string;
  server: string;
  user: string | null;
  role: string | null;
  current: boolean;
}

export function rows(): ContextRow[] {
  const creds = readCredentials();
  return Object.keys(creds.contexts)
    .sort()
    .map((name) => {
      const server = creds.contexts[name]!.server;
      const login = creds.servers[server];
      return {
        name,
        server,
        user: login?.user ?? null,
        role: login?.role ?? null,
        current: creds.current === name,
      };
    });
}

export async function ls(): Promise<void> {
  const all = rows();
  const current = all.find((r) => r.current)?.name ?? null;
  emit({ current, contexts: all }, () => {
    if (all.length === 0) {
      info("no contexts yet: `sf login --server URL [--context NAME]` saves one");
      return;
    }
    table(
      all.map((r) => ({
        current: r.current ? "*" : "",
        name: r.name,
        server: r.server,
        user: r.user ?? c.dim("(logged out)"),
        role: r.role,
      })),
      ["current", "name", "server", "user", "role"],
    );
  });
}

export async function use(name: string): Promise<void> {
  const creds = readCredentials();
  const ctx = creds.contexts[name];
  if (!ctx) throw contextNotFound(name, creds);
  creds.current = name;
  writeCredentials(creds);
  const login = creds.servers[ctx.server];
  emit({ current: name, server: ctx.server, user: login?.user ?? null }, () => {
    info(`${c.green("✓")} current context: ${c.bold(name)} (${ctx.server})`);
    if (!login) info(c.dim(`not logged in there yet: sf login --context ${name}`));
  });
}

/**
 * Removes a context and the token saved for its server, unless another context still names that server
 * (they share the login). Removing the current context leaves none current.
 */
export async function rm(name: string): Promise<void> {
  const creds = readCredentials();
  const ctx = creds.contexts[name];
  if (!ctx) throw contextNotFound(name, creds);
  delete creds.contexts[name];
  const shared = Object.values(creds.contexts).some((x) => x.server === ctx.server);
  const forgot = !shared && creds.servers[ctx.server] !== undefined;
  if (!shared) delete creds.servers[ctx.server];
  const wasCurrent = creds.current === name;
  if (wasCurrent) creds.current = null;
  writeCredentials(creds);
  emit({ removed: name, server: ctx.server, token_forgotten: forgot, current: creds.current }, () => {
    info(
      `removed context ${c.bold(name)} (${ctx.server})` +
        (forgot
          ? "; its saved token is forgotten"
          : shared
            ? "; the login stays for the other contexts of that server"
            : ""),
    );
    if (wasCurrent) info(c.dim("no context is current now: `sf context use NAME` picks one"));
  });
}

function describe(t: Target): string {
  return t.context ? `${t.context} (${t.server})` : t.server;
}

export async function current(cmd: Command): Promise<void> {
  const t = target(cmd);
  emit({ context: t.context, server: t.server, source: t.source }, () => {
    print(describe(t));
    if (t.source !== "current context") info(c.dim(`(chosen by ${t.source})`));
  });
}

/**
 * `sf version`: this sf's version and, when a server is configured, the versions the server states
 * (read from GET /v1/health); exits 8 when they do not fit, after printing both.
 */
export async function version(cmd: Command): Promise<void> {
  const client = { version: CLI_VERSION, min_server_api_version: MIN_SERVER_API_VERSION };
  let t: Target;
  try {
    t = target(cmd);
  } catch (err) {
    if (!(err instanceof CliError) || err.code !== "NO_SERVER") throw err;
    emit({ client, server: null }, () => {
      print(`sf ${CLI_VERSION}`);
      info(c.dim("no server configured: `sf version --server URL` also shows the server's"));
    });
    return;
  }
  const probe = await new Api(t.server, null).probe();
  const v = probe.versions;
  const server = {
    url: t.server,
    context: t.context,
    version: v.server,
    api_version: v.api,
    min_cli_version: v.minCli,
    compatible: probe.incompatible === null,
  };
  emit({ client, server }, () => {
    print(`sf ${CLI_VERSION} (needs server API v${MIN_SERVER_API_VERSION} or later)`);
    print(
      `server ${describe(t)}: ${v.server ?? "release not stated"}, API ${v.api === null ? "not stated" : `v${v.api}`}` +
        `, oldest sf it supports: ${v.minCli ?? "not stated"}`,
    );
  });
  if (probe.incompatible) throw probe.incompatible;
}
