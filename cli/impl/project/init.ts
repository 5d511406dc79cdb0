/**
 * `sf init [DIR]`: scaffolds a project offline. Every conflict is found before anything is written, so
 * a refusal leaves the directory exactly as it was; the files themselves go in all-or-nothing.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import type { Command } from "commander";
import { stringify } from "yaml";
import { CliError, EXIT } from "../../errors.js";
import { c, emit, info, print } from "../../output.js";
import { EXPERIMENTS_DIR, PROJECT_MARKER, writeFilesAtomically } from "../../project.js";

export const GITIGNORE = `# Secrets: never commit them (sf submit refuses to pack them anyway)
.env
.env.*
*.pem
*.key
id_rsa*
credentials.json
hf_token*

# Python
__pycache__/
*.pyc
.venv/
venv/
.ipynb_checkpoints/

# Node
node_modules/

# Local outputs (runs keep their artifacts on the server: sf job artifacts ID --download)
out/
outputs/
checkpoints/
wandb/
.DS_Store
`;

function readme(project: string): string {
  return `# ${project}

A StarForge project: experiments you submit to GPU fleets with \`sf\`.

## Layout

| Path | What it holds |
| --- | --- |
| \`${PROJECT_MARKER}\` | marks the project root (\`sf\` finds it by walking up, like git) |
| \`experiments/<name>/config.yaml\` | the method, its hyperparameters and how the job runs (\`lifecycle\`: retries, time limits, what a NaN loss or a hang does) |
| \`experiments/<name>/recipe.lock.json\` | the pinned recipe version and framework runtime (never edit by hand) |
| \`experiments/<name>/…\` | the recipe's template files and your code |
| \`common/\` | code shared by every experiment, packed with each submit |
| \`configs/\` | shared configuration files, packed with each submit |

A submit packs the experiment's directory, \`common/\` and \`configs/\`: files git tracks plus untracked
files that are not ignored. Secret-looking files (\`.env*\`, \`*.pem\`, \`*.key\`, …) are refused.

## Next steps

\`\`\`sh
sf methods                                   # what the server can run
sf new exp1 --method python/charlm           # scaffold an experiment and lock its recipe
sf validate exp1 --set learning_rate=0.05    # offline: typed, ranged hyperparameters
git add -A && git commit -m "exp1"           # submits record the commit (dirty trees are refused)
sf submit exp1 --profile h200:1 --follow     # run it and stream the logs
sf recipe status --server                    # is every lock still what the server publishes?
\`\`\`
`;
}

function isGitRepo(dir: string): boolean | null {
  const r = spawnSync("git", ["rev-parse", "--is-inside-work-tree"], { cwd: dir, encoding: "utf8" });
  if (r.error) return null; // git is not installed
  return r.status === 0 && r.stdout.trim() === "true";
}

export async function init(_cmd: Command, dirArg: string | undefined): Promise<void> {
  const dir = resolve(dirArg ?? ".");
  const project = basename(dir);
  if (existsSync(dir) && !statSync(dir).isDirectory()) {
    throw new CliError(`${dir} exists and is not a directory`, {
      code: "PROJECT_EXISTS",
      exit: EXIT.REJECTED,
    });
  }
  if (existsSync(join(dir, PROJECT_MARKER))) {
    throw new CliError(`${dir} is already a StarForge project (${PROJECT_MARKER} exists)`, {
      code: "PROJECT_EXISTS",
      exit: EXIT.REJECTED,
      hint: "use it as it is: `sf ls`, `sf new <name> --method <fw/method>`",
    });
  }
  const files = [
    { path: PROJECT_MARKER, content: stringify({ version: 1, project }) },
    { path: ".gitignore", content: GITIGNORE },
    { path: "README.md", content: readme(project) },
    { path: `${EXPERIMENTS_DIR}/.gitkeep`, content: "" },
    { path: "common/.gitkeep", content: "" },
    { path: "configs/.gitkeep", content: "" },
  ];
  const conflicts: string[] = [];
  for (const sub of [EXPERIMENTS_DIR, "common", "configs"]) {
    const p = join(dir, sub);
    if (existsSync(p) && !statSync(p).isDirectory()) conflicts.push(`${sub} (not a directory)`);
  }
  const toWrite = files.filter((f) => {
    const p = join(dir, f.path);
    if (!existsSync(p)) return true;
    if (!statSync(p).isFile()) {
      conflicts.push(f.path);
      return false;
    }
    const have = readFileSync(p, "utf8");
    if (have === f.content) return false;
    if (have.length > 0) conflicts.push(f.path);
    return true;
  });
  if (conflicts.length) {
    throw new CliError(`refusing to overwrite in ${dir}: ${conflicts.join(", ")}`, {
      code: "INIT_CONFLICT",
      exit: EXIT.REJECTED,
      hint: "move those files away (or init another directory); nothing was written",
    });
  }
  const created = !existsSync(dir);
  mkdirSync(dir, { recursive: true });
  try {
    writeFilesAtomically(toWrite.map((f) => ({ path: join(dir, f.path), content: f.content })));
  } catch (err) {
    if (created) rmSync(dir, { recursive: true, force: true });
    throw new CliError(`could not write the project: ${err instanceof Error ? err.message : String(err)}`, {
      code: "WRITE_FAILED",
      hint: "check the directory's permissions; nothing was left behind",
    });
  }
  let git: "initialized" | "existing" | "unavailable" = "existing";
  const repo = isGitRepo(dir);
  if (repo === null) git = "unavailable";
  else if (!repo) {
    const r = spawnSync("git", ["init", "--quiet"], { cwd: dir, encoding: "utf8" });
    git = r.status === 0 ? "initialized" : "unavailable";
  }
  const shown = relative(process.cwd(), dir) || ".";
  emit({ project, dir, git, files: toWrite.map((f) => f.path) }, () => {
    info(`${c.green("✓")} created StarForge project ${c.bold(project)} in ${shown}`);
    if (git === "initialized") info("  initialized a git repository");
    if (git === "unavailable")
      info(
        `  ${c.yellow("!")} could not run \`git init\`: submits need git; install it and run \`git init\``,
      );
    print("");
    print("Next:");
    if (shown !== ".") print(`  cd ${shown}`);
    print("  sf methods                            # what the server can run");
    print("  sf new exp1 --method python/charlm    # scaffold an experiment");
  });
}
