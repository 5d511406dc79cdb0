/** Which experiments a command acts on: a name, `--all`, or the experiment the shell is standing in. */
import { relative, sep } from "node:path";
import { CliError, EXIT } from "../../errors.js";
import { EXPERIMENTS_DIR, listExperiments } from "../../project.js";

/** The experiment whose directory contains `cwd`, if any. */
export function experimentAt(root: string, cwd: string = process.cwd()): string | null {
  const rel = relative(root, cwd).split(sep);
  return rel[0] === EXPERIMENTS_DIR && rel[1] ? rel[1] : null;
}

/**
 * `exp` and `--all` are exclusive. With neither, the experiment under the current directory; if there
 * is none, every experiment when `defaultAll`, else a usage error (commands that write never guess).
 */
export function resolveTargets(
  root: string,
  exp: string | undefined,
  all: boolean | undefined,
  defaultAll: boolean,
): string[] {
  if (exp && all)
    throw new CliError("name an experiment or pass --all, not both", { code: "USAGE", exit: EXIT.USAGE });
  if (exp) return [exp];
  const here = all ? null : experimentAt(root);
  if (here) return [here];
  if (all || defaultAll) {
    const names = listExperiments(root);
    if (names.length === 0) {
      throw new CliError("this project has no experiments yet", {
        code: "EXPERIMENT_NOT_FOUND",
        exit: EXIT.NOT_FOUND,
        hint: "create one with `sf new <name> --method <fw/method>`",
      });
    }
    return names;
  }
  throw new CliError("which experiment?", {
    code: "USAGE",
    exit: EXIT.USAGE,
    hint: "name one (e.g. `sf recipe upgrade exp1`) or pass --all",
  });
}
