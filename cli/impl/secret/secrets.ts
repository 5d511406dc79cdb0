/**
 * `sf secret set|ls|rm`: job secrets, yours or (admins, `--fleet`) a fleet's. A value is read from a
 * file or standard input, never from the command line (where `ps` and shell history would keep it),
 * and is never printed back.
 */
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { SecretName } from "../../../contract/jobspec.schema.js";
import { DeletedSecret, SecretList, SecretOne } from "../../../contract/responses.schema.js";
import { route } from "../../api.js";
import { authedApi } from "../../context.js";
import { CliError, EXIT } from "../../errors.js";
import { c, emit, info, table } from "../../output.js";
import { age } from "../job/format.js";

export interface ScopeOptions {
  fleet?: string;
  user?: string;
}

function checkedName(name: string): string {
  const r = SecretName.safeParse(name);
  if (!r.success) {
    throw new CliError(`${JSON.stringify(name)} cannot be a secret's name: ${r.error.issues[0]?.message}`, {
      code: "BAD_SECRET_NAME",
      exit: EXIT.USAGE,
      hint: "a secret becomes an environment variable of your job: use a name like HF_TOKEN or WANDB_API_KEY",
    });
  }
  return name;
}

/** `?user=` (an admin acting on another user's secrets) applies to user secrets only. */
const userQuery = (o: ScopeOptions) => ({ user: o.user && !o.fleet ? o.user : undefined });

/** The scope's secrets: a fleet's (--fleet) or a user's. */
const secretsRoute = (o: ScopeOptions) =>
  o.fleet ? route("/v1/fleets/{fleet}/secrets", { fleet: o.fleet }) : route("/v1/secrets", {}, userQuery(o));

/** One secret of the scope; `query` (the user) where the operation takes it. */
const secretRoute = (o: ScopeOptions, name: string, query: { user?: string } = {}) =>
  o.fleet
    ? route("/v1/fleets/{fleet}/secrets/{name}", { fleet: o.fleet, name })
    : route("/v1/secrets/{name}", { name }, query);

/** One trailing newline (what `echo` and editors add) is not part of the value. */
const chomp = (s: string) => s.replace(/\r?\n$/, "");

async function readHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding("utf8");
  return new Promise((ok, ko) => {
    let value = "";
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off("data", onData);
      process.stderr.write("\n");
      if (err) ko(err);
      else ok(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === "\r" || ch === "\n") return done();
        if (ch === "\u0003")
          return done(new CliError("cancelled", { code: "CANCELLED", exit: EXIT.FAILURE }));
        if (ch === "\u007f" || ch === "\b") value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on("data", onData);
  });
}

async function readValue(name: string, file: string | undefined): Promise<string> {
  if (file) {
    try {
      return chomp(readFileSync(file, "utf8"));
    } catch (err) {
      throw new CliError(`cannot read ${file}: ${(err as Error).message}`, { code: "FILE_UNREADABLE" });
    }
  }
  if (process.stdin.isTTY) return readHidden(`value of ${name} (input hidden): `);
  let s = "";
  for await (const chunk of process.stdin) s += chunk;
  return chomp(s);
}

export async function set(
  cmd: Command,
  name: string,
  o: ScopeOptions & { fromFile?: string },
): Promise<void> {
  checkedName(name);
  const value = await readValue(name, o.fromFile);
  if (value === "") {
    throw new CliError(`no value for ${name}: standard input was empty`, {
      code: "EMPTY_SECRET",
      exit: EXIT.USAGE,
      hint: `pipe it in (printf %s "$VALUE" | sf secret set ${name}) or use --from-file FILE`,
    });
  }
  const r = await authedApi(cmd).put(secretRoute(o, name), SecretOne, { value });
  emit(r, () => {
    const where = o.fleet ? `fleet ${o.fleet}` : "you";
    info(`${c.green("✓")} set ${c.bold(name)} for ${where}`);
    info(
      c.dim(
        `jobs get it as $${name} when they name it: sf submit … --secret ${name} (or secrets: [${name}])`,
      ),
    );
  });
}

export async function ls(cmd: Command, o: ScopeOptions): Promise<void> {
  const { secrets } = await authedApi(cmd).get(secretsRoute(o), SecretList);
  emit({ secrets }, () => {
    if (secrets.length === 0) {
      info(
        o.fleet ? `fleet ${o.fleet} has no secrets` : "no secrets yet — add one with `sf secret set NAME`",
      );
      return;
    }
    table(
      secrets.map((s) => ({
        name: s.name,
        scope: s.scope === "fleet" ? `fleet ${s.fleet}` : "user",
        "set by": s.set_by,
        updated: age(s.updated_at),
      })),
      ["name", "scope", "set by", "updated"],
    );
  });
}

export async function rm(cmd: Command, name: string, o: ScopeOptions): Promise<void> {
  checkedName(name);
  const r = await authedApi(cmd).delete(secretRoute(o, name, userQuery(o)), DeletedSecret);
  emit(r, () =>
    info(`${c.green("✓")} removed ${r.name}; jobs already running keep the value they were given`),
  );
}
