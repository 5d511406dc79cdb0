/** What every command gets: the resolved server, an API client, and the global flags. */
import type { Command } from "commander";
import { Api } from "./api.js";
import { resolveTarget, resolveToken, type Target } from "./config.js";

export interface GlobalFlags {
  server?: string;
  context?: string;
  json?: boolean;
}

export function globals(cmd: Command): GlobalFlags {
  return cmd.optsWithGlobals() as GlobalFlags;
}

/** The server this command talks to: --server > --context > SF_SERVER > the current context. */
export function target(cmd: Command): Target {
  const g = globals(cmd);
  return resolveTarget({
    ...(g.server ? { server: g.server } : {}),
    ...(g.context ? { context: g.context } : {}),
  });
}

/** An API client for a logged-in user; fails clearly (never starts a login) when there is none. */
export function authedApi(cmd: Command): Api {
  const { server } = target(cmd);
  return new Api(server, resolveToken(server));
}

/** An API client without credentials (login, health). */
export function anonymousApi(cmd: Command): Api {
  return new Api(target(cmd).server, null);
}
