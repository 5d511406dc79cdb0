/**
 * sf: the command line a researcher lives in. This entry builds the command tree (program.ts), runs it,
 * and is the one place that renders errors and chooses exit codes.
 */
import { CommanderError } from "commander";
import { CliError, EXIT } from "./errors.js";
import { c, isJson, printJson } from "./output.js";
import { buildProgram } from "./program.js";

function render(err: CliError): never {
  if (isJson())
    printJson({ error: { code: err.code, message: err.message, ...(err.hint ? { hint: err.hint } : {}) } });
  else {
    process.stderr.write(
      `${c.red("error:")} ${err.message}${err.code !== "CLI_ERROR" ? c.dim(` [${err.code}]`) : ""}\n`,
    );
    if (err.hint) process.stderr.write(`${c.dim("hint:")} ${err.hint}\n`);
  }
  process.exit(err.exit);
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version "fail" with exit 0; usage errors were already printed by commander.
      process.exit(err.exitCode === 0 ? EXIT.OK : EXIT.USAGE);
    }
    if (err instanceof CliError) render(err);
    render(new CliError(err instanceof Error ? err.message : String(err), { code: "INTERNAL" }));
  }
}

void main(process.argv);
