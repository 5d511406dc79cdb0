/**
 * Where sf keeps its credentials (`$SF_HOME`, default ~/.config/starforge) and how it picks a server:
 * `--server` > `SF_SERVER` > the default saved by `sf login`. Tokens: `SF_TOKEN` > the saved one.
 * The credentials file is created 0600, atomically (write a temp file, fsync, rename).
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "../contract/node-files.js";
import { CliError, EXIT } from "./errors.js";

const Credentials = z.object({
  version: z.literal(1),
  default: z.string().nullable(),
  servers: z.record(
    z.string(),
    z.object({ token: z.string(), user: z.string(), role: z.string(), saved_at: z.string() }),
  ),
});
export type Credentials = z.infer<typeof Credentials>;

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

export function readCredentials(): Credentials {
  const p = credentialsPath();
  if (!existsSync(p)) return { version: 1, default: null, servers: {} };
  const parsed = Credentials.safeParse(JSON.parse(readFileSync(p, "utf8")));
  if (!parsed.success)
    throw new CliError(`${p} is corrupt`, { hint: "run `sf logout --all` and log in again" });
  return parsed.data;
}

export function writeCredentials(c: Credentials): void {
  mkdirSync(sfHome(), { recursive: true, mode: 0o700 });
  writeFileAtomic(credentialsPath(), `${JSON.stringify(c, null, 2)}\n`, 0o600);
}

export function removeCredentials(): void {
  rmSync(credentialsPath(), { force: true });
}

/** The server to talk to, or a clear error; `--server` wins, then SF_SERVER, then the saved default. */
export function resolveServer(flag: string | undefined): string {
  const s = flag || process.env.SF_SERVER || readCredentials().default;
  if (!s)
    throw new CliError("no server configured", {
      code: "NO_SERVER",
      exit: EXIT.AUTH,
      hint: "run `sf login --server URL` (or pass --server / set SF_SERVER)",
    });
  return normalizeServer(s);
}

/** The token for a server: SF_TOKEN, else the one `sf login` saved. Never starts a login. */
export function resolveToken(server: string): string {
  if (process.env.SF_TOKEN) return process.env.SF_TOKEN;
  const saved = readCredentials().servers[server];
  if (!saved) {
    throw new CliError(`not logged in to ${server}`, {
      code: "NOT_LOGGED_IN",
      exit: EXIT.AUTH,
      hint: `run \`sf login --server ${server}\``,
    });
  }
  return saved.token;
}
