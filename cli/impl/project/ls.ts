/** `sf ls`: the project's experiments and what each lock pins, read offline. */
import type { Command } from "commander";
import { CliError } from "../../errors.js";
import { c, emit, info, table } from "../../output.js";
import { findProjectRoot, listExperiments, readExperiment, readProject } from "../../project.js";

export interface ExperimentRow {
  name: string;
  method: string | null;
  recipe: string | null;
  framework: string | null;
  lock: "present" | "malformed";
  problem?: string;
}

export function experimentRows(root: string): ExperimentRow[] {
  return listExperiments(root).map((name): ExperimentRow => {
    try {
      const exp = readExperiment(root, name);
      if (!exp.lock.ok)
        return {
          name,
          method: exp.config.method,
          recipe: null,
          framework: null,
          lock: "malformed",
          problem: exp.lock.problem,
        };
      const l = exp.lock.value;
      return {
        name,
        method: exp.config.method,
        recipe: `${l.recipe.name}@${l.recipe.version}`,
        framework: `${l.framework.kind} ${l.framework.version}`,
        lock: "present",
      };
    } catch (err) {
      const problem = err instanceof CliError ? err.message : String(err);
      return { name, method: null, recipe: null, framework: null, lock: "malformed", problem };
    }
  });
}

export async function ls(_cmd: Command): Promise<void> {
  const root = findProjectRoot();
  const project = readProject(root).project;
  const rows = experimentRows(root);
  emit({ project, root, experiments: rows }, () => {
    if (rows.length === 0) {
      info(`no experiments in ${project} yet; create one with \`sf new <name> --method <fw/method>\``);
      return;
    }
    table(
      rows.map((r) => ({ ...r, lock: r.lock === "present" ? "present" : c.red("malformed") })),
      ["name", "method", "recipe", "framework", "lock"],
    );
    for (const r of rows) if (r.problem) info(`${c.yellow("!")} ${r.name}: ${r.problem}`);
  });
}
