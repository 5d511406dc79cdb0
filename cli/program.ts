/**
 * The sf command tree, without running it: main.ts runs it, completion walks it. Command groups live in
 * `commands/*.commands.ts` and import their implementations lazily, so building the tree is cheap.
 */
import { Command } from "commander";
import { CLI_VERSION } from "./api.js";
import { register as admin } from "./commands/admin.commands.js";
import { register as auth } from "./commands/auth.commands.js";
import { register as completion } from "./commands/completion.commands.js";
import { register as context } from "./commands/context.commands.js";
import { register as job } from "./commands/job.commands.js";
import { register as project } from "./commands/project.commands.js";
import { register as secret } from "./commands/secret.commands.js";
import { register as submit } from "./commands/submit.commands.js";
import { register as webhook } from "./commands/webhook.commands.js";
import { configureOutput } from "./output.js";

/** sf's release (contract/version.ts): `sf --version` prints it alone; `sf version` adds the server's. */
export const VERSION = CLI_VERSION;

export function buildProgram(): Command {
  // exitOverride before the groups: commander copies it to subcommands only when they are created,
  // so every usage error anywhere reaches main() and exits 2.
  const program = new Command("sf")
    .exitOverride()
    .description("StarForge: submit and follow ML training jobs on GPU fleets behind firewalls")
    .version(VERSION, "-V, --version")
    .option("--server <url>", "control plane URL (beats --context, $SF_SERVER and the current context)")
    .option("--context <name>", "a saved context (`sf context ls`) for this command (beats $SF_SERVER)")
    .option("--json", "print machine-readable JSON instead of tables")
    .option("--no-color", "never use colour")
    .showHelpAfterError("(add --help for usage)")
    .configureHelp({ sortSubcommands: false, showGlobalOptions: true })
    .addHelpText(
      "after",
      `
Getting started:
  sf login --server http://127.0.0.1:8787 --token <token>
  sf init my-project && cd my-project
  sf new exp1 --method python/charlm
  sf submit exp1 --profile h200:1 --follow

Which server: --server URL, else --context NAME, else $SF_SERVER, else the current
context (the last \`sf login\`, or \`sf context use NAME\`). \`sf context ls\` lists them.

Environment: SF_SERVER, SF_TOKEN (beats the saved token), SF_HOME (default
~/.config/starforge), SF_HTTP_TIMEOUT_SECONDS (a request's whole answer, default 60),
SF_HTTP_IDLE_TIMEOUT_SECONDS (streams and uploads: longest silence, default 60),
NODE_EXTRA_CA_CERTS (a PEM file of extra CAs to trust, for a private CA).

Exit codes: 0 ok, 1 failure, 2 usage, 3 not logged in / not allowed, 4 not found,
5 refused (validation, admission, lock, dirty tree, secret file), 6 server unreachable,
no answer in time, TLS problem or not a StarForge URL, 7 a followed job ended FAILED or
STOPPED, 8 this sf is too old for the server (upgrade sf) or the server too old for it.`,
    )
    .hook("preAction", (thisCommand) => {
      const o = thisCommand.optsWithGlobals() as { json?: boolean; color?: boolean };
      configureOutput({ json: Boolean(o.json), ...(o.color === false ? { color: false } : {}) });
    });
  auth(program);
  context(program);
  project(program);
  submit(program);
  job(program);
  webhook(program);
  secret(program);
  admin(program);
  completion(program);
  return program;
}
