/** The project and its experiments: init, ls, new, methods, validate, recipe status|upgrade. */
import type { Command } from "commander";
import { collect } from "./options.js";

export function register(program: Command): void {
  program
    .command("init")
    .argument("[dir]", "directory to turn into a project (created if missing)", ".")
    .description(
      "scaffold a StarForge project: starforge.yaml, experiments/, common/, configs/, .gitignore, README",
    )
    .addHelpText(
      "after",
      `
Runs \`git init\` unless the directory is already inside a git repository. Works offline.
Refuses (exit 5, nothing written) if the directory is already a project or a file it would
write exists with other content.

Examples:
  sf init my-project && cd my-project
  sf init                      # the current directory`,
    )
    .action(async (dir: string, _o: unknown, cmd: Command) =>
      (await import("../impl/project/init.js")).init(cmd, dir),
    );

  program
    .command("ls")
    .description("list the project's experiments: method, locked recipe and whether the lock is well-formed")
    .addHelpText(
      "after",
      "\nOffline. For how the locks compare with the server: sf recipe status --online\n\nExamples:\n  sf ls\n  sf ls --json | jq -r '.experiments[].name'",
    )
    .action(async (_o: unknown, cmd: Command) => (await import("../impl/project/ls.js")).ls(cmd));

  program
    .command("new")
    .argument("<name>", "experiment name: lowercase letters, digits, - and _")
    .description("create experiments/NAME from a method's template and lock the recipe (recipe.lock.json)")
    .option(
      "--method <fw/method>",
      "the method to run (see `sf methods`); with --from, defaults to the source's",
    )
    .option("--from <exp>", "copy another experiment's files and config, then lock to the method")
    .option(
      "--framework-version <version>",
      "framework version to lock (default: the last one the recipe lists)",
    )
    .addHelpText(
      "after",
      `
Locks the method's latest version. config.yaml gets every hyperparameter with its default and a
comment (type, range, doc), and the lifecycle keys commented out: priority_class, priority, max_retries,
retry_on_user_failure, max_runtime_seconds, on_anomaly (warn|stop), hang_factor, hang_floor_seconds,
resumable, placement_timeout_seconds, preemption_wait_seconds (limits: docs/api.md "JobSpec").
All-or-nothing: a failure leaves no directory behind. Needs a login.

Examples:
  sf new exp1 --method python/charlm
  sf new big --method torch/tinylm --framework-version 1.13
  sf new exp2 --from exp1                  # same method, same hyperparameters and code`,
    )
    .action(
      async (name: string, o: { method?: string; from?: string; frameworkVersion?: string }, cmd: Command) =>
        (await import("../impl/project/new.js")).newExperiment(cmd, name, o),
    );

  program
    .command("methods")
    .argument("[name]", "a method, e.g. python/charlm, for its parameters and versions")
    .description("show the server's catalog: methods, versions, frameworks and typed hyperparameters")
    .addHelpText(
      "after",
      "\nExamples:\n  sf methods\n  sf methods python/charlm\n  sf methods torch/tinylm --json",
    )
    .action(async (name: string | undefined, _o: unknown, cmd: Command) =>
      (await import("../impl/project/methods.js")).methods(cmd, name),
    );

  program
    .command("validate")
    .argument("<exp>", "the experiment to check")
    .description("check an experiment offline: config.yaml, the lock, and typed, ranged hyperparameters")
    .option("--set <key=value>", "override a hyperparameter (repeatable), as `sf submit` would", collect, [])
    .addHelpText(
      "after",
      `
Needs no server: the lock carries the recipe's parameter types. Unknown keys are rejected
with the list of known ones. Exit 5 when there are problems.

Examples:
  sf validate exp1
  sf validate exp1 --set learning_rate=0.05 --set max_steps=1000`,
    )
    .action(async (exp: string, o: { set?: string[] }, cmd: Command) =>
      (await import("../impl/project/validate.js")).validate(cmd, exp, o),
    );

  const recipe = program
    .command("recipe")
    .description("inspect and upgrade the recipe locks (recipe.lock.json)");
  recipe
    .command("status")
    .argument("[exp]", "one experiment (default: the one you are in, else all)")
    .description(
      "report each lock: offline ok/malformed, or with --online current/recipe_stale/runtime_removed/malformed",
    )
    .option("--all", "every experiment in the project")
    .option("--online", "compare with the server's catalog and show field-level differences")
    .option("--check", "exit 5 unless every lock is ok (offline) or current (--online)")
    .addHelpText(
      "after",
      `
Offline by default. --online (or naming a server: --server URL) compares with the catalog of
the server you are logged in to. Statuses then:
  current          pins the latest published version, digest and a listed runtime
  recipe_stale     a newer version (or a different digest for the locked one) is published
  runtime_removed  the locked recipe or framework runtime is no longer published
  malformed        recipe.lock.json is missing or does not parse

Examples:
  sf recipe status
  sf recipe status exp1 --online
  sf recipe status --all --online --check     # in CI: exit 5 if a lock is behind
  sf recipe status --server https://sf.example.com`,
    )
    .action(
      async (
        exp: string | undefined,
        o: { all?: boolean; online?: boolean; check?: boolean },
        cmd: Command,
      ) => (await import("../impl/project/recipe-status.js")).recipeStatus(cmd, exp, o),
    );
  recipe
    .command("upgrade")
    .argument("[exp]", "the experiment to upgrade (default: the one you are in)")
    .description("move locks to the latest published version, after validating config.yaml against it")
    .option("--all", "every experiment, all-or-nothing: if one cannot move, nothing is written")
    .option("--dry-run", "print what would change and write nothing")
    .option(
      "--framework-version <version>",
      "lock this framework version (must be listed by the new version)",
    )
    .addHelpText(
      "after",
      `
Keeps your hyperparameters; new ones are added to config.yaml with their defaults. If the new
version dropped a hyperparameter you set, the upgrade stops and names it. Prints every change.

Examples:
  sf recipe upgrade exp1 --dry-run
  sf recipe upgrade exp1
  sf recipe upgrade --all
  sf recipe upgrade exp1 --framework-version 2.4`,
    )
    .action(
      async (
        exp: string | undefined,
        o: { all?: boolean; dryRun?: boolean; frameworkVersion?: string },
        cmd: Command,
      ) => (await import("../impl/project/recipe-upgrade.js")).recipeUpgrade(cmd, exp, o),
    );
}
