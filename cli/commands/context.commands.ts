/** Which server sf talks to: named contexts (`sf context …`) and `sf version`. */
import type { Command } from "commander";

const PRECEDENCE =
  "\nWhich server a command talks to: --server URL, else --context NAME, else $SF_SERVER, else the current\n" +
  "context. A context is a name for a server; the login saved for that server goes with it.";

export function register(program: Command): void {
  const context = program
    .command("context")
    .description("named servers: list them, switch the current one, remove one")
    .addHelpText(
      "after",
      `${PRECEDENCE}\n\nExamples:\n  sf login --server https://sf.example.com --context prod\n  sf login --server http://127.0.0.1:8787 --context local\n  sf context ls\n  sf context use prod\n  sf --context local job ls            # one command against another context`,
    );
  context
    .command("ls")
    .description("list the saved contexts (* marks the current one)")
    .action(async () => (await import("../impl/context.js")).ls());
  context
    .command("use")
    .description("make a context the current one")
    .argument("<name>", "a context from `sf context ls`")
    .action(async (name: string) => (await import("../impl/context.js")).use(name));
  context
    .command("rm")
    .description("remove a context and the token saved for its server")
    .argument("<name>", "a context from `sf context ls`")
    .action(async (name: string) => (await import("../impl/context.js")).rm(name));
  context
    .command("current")
    .description("show the context and server a command would talk to now, and why")
    .action(async (_o: unknown, cmd: Command) => (await import("../impl/context.js")).current(cmd));
  program
    .command("version")
    .description("show this sf's version and the server's (API version, oldest sf it supports)")
    .addHelpText(
      "after",
      "\nsf sends its version on every request and checks the server's answer: a server that needs a newer\n" +
        "sf fails with CLI_TOO_OLD, a server older than this sf needs with SERVER_TOO_OLD (both exit 8).\n" +
        "`sf --version` prints this sf's version alone.",
    )
    .action(async (_o: unknown, cmd: Command) => (await import("../impl/context.js")).version(cmd));
}
