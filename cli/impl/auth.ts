import type { Command } from "commander";
import { Me } from "../../contract/responses.schema.js";
import { Api } from "../api.js";
import { readCredentials, removeCredentials, resolveServer, writeCredentials } from "../config.js";
import { authedApi, globals } from "../context.js";
import { CliError, EXIT } from "../errors.js";
import { c, emit, info, print } from "../output.js";

async function readStdin(): Promise<string> {
  let s = "";
  for await (const chunk of process.stdin) s += chunk;
  return s.trim();
}

/** Saves a token after checking it against the server. The device flow lives in impl/device-login.ts. */
export async function login(cmd: Command, o: { token?: string; tokenStdin?: boolean }): Promise<void> {
  const server = resolveServer(globals(cmd).server);
  let token = o.token ?? (o.tokenStdin ? await readStdin() : undefined);
  if (!token) {
    const { deviceLogin } = await import("./device-login.js");
    token = await deviceLogin(server);
  }
  const me = await new Api(server, token).get("/v1/me", Me).catch((err: unknown) => {
    if (err instanceof CliError && err.exit === EXIT.AUTH) {
      throw new CliError(`the server refused this token: ${err.message}`, {
        code: err.code,
        exit: EXIT.AUTH,
      });
    }
    throw err;
  });
  const creds = readCredentials();
  creds.servers[server] = {
    token,
    user: me.user.name,
    role: me.user.role,
    saved_at: new Date().toISOString(),
  };
  creds.default = server;
  writeCredentials(creds);
  emit({ server, user: me.user.name, role: me.user.role }, () =>
    info(`${c.green("✓")} logged in to ${server} as ${c.bold(me.user.name)} (${me.user.role})`),
  );
}

export async function logout(cmd: Command, o: { all?: boolean }): Promise<void> {
  if (o.all) {
    removeCredentials();
    emit({ logged_out: "all" }, () => info("forgot every saved server"));
    return;
  }
  const server = resolveServer(globals(cmd).server);
  const creds = readCredentials();
  if (!creds.servers[server])
    throw new CliError(`not logged in to ${server}`, { code: "NOT_LOGGED_IN", exit: EXIT.AUTH });
  delete creds.servers[server];
  if (creds.default === server) creds.default = Object.keys(creds.servers)[0] ?? null;
  writeCredentials(creds);
  emit({ logged_out: server }, () => info(`logged out of ${server}`));
}

export async function whoami(cmd: Command): Promise<void> {
  const api = authedApi(cmd);
  const me = await api.get("/v1/me", Me);
  emit({ server: api.server, ...me }, () => {
    print(`${c.bold(me.user.name)} (${me.user.role}) on ${api.server}`);
    const q = me.quota;
    print(
      `quota: ${q.max_gpus} GPUs at once, ${q.max_jobs} active jobs, ${q.daily_gpu_hours} GPU-hours/day, priority ${q.priority}` +
        (q.allowed_profiles.length ? `, profiles ${q.allowed_profiles.join(", ")}` : ""),
    );
  });
}
