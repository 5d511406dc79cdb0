/** What every command gets: the resolved server, an API client, and the global flags. */
import type { Command } from "commander";
import { Api } from "./api.js";
import { resolveServer, resolveToken } from "./config.js";

export interface GlobalFlags {
  server?: string;
  json?: boolean;
}

export function globals(cmd: Command): GlobalFlags {
  return cmd.optsWithGlobals() as GlobalFlags;
}

/** An API client for a logged-in user; fails clearly (never starts a login) when there is none. */
export function authedApi(cmd: Command): Api {
  const server = resolveServer(globals(cmd).server);
  return new Api(server, resolveToken(server));
}

/** An API client without credentials (login, health). */
export function anonymousApi(cmd: Command): Api {
  return new Api(resolveServer(globals(cmd).server), null);
}
