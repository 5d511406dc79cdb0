/** Identity: login (token or device flow), logout, whoami. */
import type { Command } from "commander";

export function register(program: Command): void {
  program
    .command("login")
    .description("log in to a control plane and save the credential (0600 in $SF_HOME)")
    .option("--token <token>", "a personal access token (for CI); omit for the device flow")
    .option("--token-stdin", "read the token from standard input")
    .addHelpText(
      "after",
      "\nExamples:\n  sf login --server https://sf.example.com            # device flow: approve in a browser\n  echo $TOKEN | sf login --server URL --token-stdin     # CI",
    )
    .action(async (o: { token?: string; tokenStdin?: boolean }, cmd: Command) =>
      (await import("../impl/auth.js")).login(cmd, o),
    );
  program
    .command("logout")
    .description("forget the saved credential for the server (or every server with --all)")
    .option("--all", "forget every saved server")
    .action(async (o: { all?: boolean }, cmd: Command) => (await import("../impl/auth.js")).logout(cmd, o));
  program
    .command("whoami")
    .description("show who you are on the current server, your role and quota")
    .action(async (_o: unknown, cmd: Command) => (await import("../impl/auth.js")).whoami(cmd));
}
