/** Identity: login (token or device flow), logout, whoami. */
import type { Command } from "commander";

export function register(program: Command): void {
  program
    .command("login")
    .description(
      "log in to a control plane, save the credential (0600 in $SF_HOME) and make its context current",
    )
    .option("--token <token>", "a personal access token (for CI); omit for the device flow")
    .option("--token-stdin", "read the token from standard input")
    .addHelpText(
      "after",
      "\nThe login is saved under a context named by --context NAME (default: the server's host[:port]),\n" +
        "which becomes the current one; `sf login --context NAME` alone logs in to that context's server again.\n" +
        "sf reads the server's GET /v1/health first and sends no token to a URL that is not a control plane.\n" +
        "\nExamples:\n  sf login --server https://sf.example.com            # device flow: approve in a browser\n" +
        "  sf login --server https://sf.example.com --context prod --token-stdin\n" +
        "  echo $TOKEN | sf login --server URL --token-stdin     # CI",
    )
    .action(async (o: { token?: string; tokenStdin?: boolean }, cmd: Command) =>
      (await import("../impl/auth.js")).login(cmd, o),
    );
  program
    .command("logout")
    .description("forget the saved credential for the server (or every server and context with --all)")
    .option("--all", "forget every saved server")
    .action(async (o: { all?: boolean }, cmd: Command) => (await import("../impl/auth.js")).logout(cmd, o));
  program
    .command("whoami")
    .description("show who you are on the current server, your role and quota")
    .action(async (_o: unknown, cmd: Command) => (await import("../impl/auth.js")).whoami(cmd));
}
