/** `sf completion bash|zsh|fish`: shell completion generated from sf's own command tree. */
import { Argument, type Command } from "commander";

export function register(program: Command): void {
  program
    .command("completion")
    .description("print a shell completion script for bash, zsh or fish")
    .addArgument(new Argument("<shell>", "the shell").choices(["bash", "zsh", "fish"]))
    .addHelpText(
      "after",
      `
Examples:
  source <(sf completion bash)                                  # this bash session
  sf completion bash > ~/.local/share/bash-completion/completions/sf
  sf completion zsh > "\${fpath[1]}/_sf"                         # then restart zsh
  sf completion fish > ~/.config/fish/completions/sf.fish`,
    )
    .action(async (shell: string, _o: unknown, cmd: Command) =>
      (await import("../impl/completion.js")).completion(cmd, shell),
    );
}
