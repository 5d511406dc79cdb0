import type { Command } from "commander";
import { Me } from "../../contract/responses.schema.js";
import { Api, route } from "../api.js";
import {
  checkContextName,
  readCredentials,
  removeCredentials,
  saveLogin,
  writeCredentials,
} from "../config.js";
import { authedApi, globals, target } from "../context.js";
import { CliError, EXIT } from "../errors.js";
import { c, emit, info, print } from "../output.js";

async function readStdin(): Promise<string> {
  let s = "";
  for await (const chunk of process.stdin) s += chunk;
  return s.trim();
}

/**
 * Saves a token after checking it against the server, under a context that becomes the current one.
 * The server's health is read first: a URL that is not a control plane, or one this sf does not fit,
 * is refused before any token is sent to it. The device flow lives in impl/device-login.ts.
 */
export async function login(cmd: Command, o: { token?: string; tokenStdin?: boolean }): Promise<void> {
  const name = globals(cmd).context;
  if (name !== undefined) checkContextName(name);
  // `sf login --context NEW --server URL` creates NEW; without --server the context must exist.
  const { server } = target(cmd);
  const probe = await new Api(server, null).probe();
  if (probe.incompatible) throw probe.incompatible;
  let token = o.token ?? (o.tokenStdin ? await readStdin() : undefined);
  if (!token) {
    const { deviceLogin } = await import("./device-login.js");
    token = await deviceLogin(server);
  }
  const me = await new Api(server, token).get(route("/v1/me"), Me).catch((err: unknown) => {
    if (err instanceof CliError && err.exit === EXIT.AUTH) {
      throw new CliError(`the server refused this token: ${err.message}`, {
        code: err.code,
        exit: EXIT.AUTH,
      });
    }
    throw err;
  });
  const creds = readCredentials();
  const saved = saveLogin(
    creds,
    server,
    { token, user: me.user.name, role: me.user.role, saved_at: new Date().toISOString() },
    name,
  );
  writeCredentials(creds);
  emit({ server, user: me.user.name, role: me.user.role }, () => {
    info(
      `${c.green("✓")} logged in to ${server} as ${c.bold(me.user.name)} (${me.user.role}); current context: ${c.bold(saved.context)}`,
    );
    if (saved.previous) info(c.dim(`(context ${saved.context} pointed to ${saved.previous} before)`));
  });
}

/** Forgets the saved token of the server; contexts naming it stay (log in again to use them). */
export async function logout(cmd: Command, o: { all?: boolean }): Promise<void> {
  if (o.all) {
    removeCredentials();
    emit({ logged_out: "all" }, () => info("forgot every saved server and context"));
    return;
  }
  const { server } = target(cmd);
  const creds = readCredentials();
  if (!creds.servers[server])
    throw new CliError(`not logged in to ${server}`, { code: "NOT_LOGGED_IN", exit: EXIT.AUTH });
  delete creds.servers[server];
  writeCredentials(creds);
  emit({ logged_out: server }, () => info(`logged out of ${server}`));
}

export async function whoami(cmd: Command): Promise<void> {
  const t = target(cmd);
  const api = authedApi(cmd);
  const me = await api.get(route("/v1/me"), Me);
  emit({ server: api.server, context: t.context, ...me }, () => {
    print(
      `${c.bold(me.user.name)} (${me.user.role}) on ${api.server}${t.context ? ` (context ${t.context})` : ""}`,
    );
    const q = me.quota;
    print(
      `quota: ${q.max_gpus} GPUs at once, ${q.max_jobs} active jobs, ${q.daily_gpu_hours} GPU-hours/day, priority ${q.priority}` +
        (q.allowed_profiles.length ? `, profiles ${q.allowed_profiles.join(", ")}` : ""),
    );
  });
}
