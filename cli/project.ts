/**
 * The project on disk, shared by every command that touches it:
 *
 *   starforge.yaml                    marker (found by walking up, like git): {version, project, fleet?}
 *   experiments/<name>/config.yaml    {method, hyperparams, image?, fleet?, model?, data?, lifecycle?}
 *                                     (lifecycle: the JobSpec's, contract/jobspec.schema.ts)
 *   experiments/<name>/recipe.lock.json   the pinned recipe (contract/recipe-lock.schema.ts)
 *   experiments/<name>/…              the recipe's template files (e.g. train.sh) and your code
 *   common/, configs/                 shared code and configs, packed with every submit
 */
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { JobSpec } from "../contract/jobspec.schema.js";
import { writeFileAtomic } from "../contract/node-files.js";
import { RecipeLock } from "../contract/recipe-lock.schema.js";
import { CliError, EXIT } from "./errors.js";

export const PROJECT_MARKER = "starforge.yaml";
export const EXPERIMENTS_DIR = "experiments";
export const LOCK_FILE = "recipe.lock.json";
export const CONFIG_FILE = "config.yaml";
export const EXPERIMENT_NAME_RE = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export const ProjectConfig = z.object({
  version: z.literal(1),
  project: z.string().min(1),
  /** Default fleet for submits from this project. */
  fleet: z.string().optional(),
});
export type ProjectConfig = z.infer<typeof ProjectConfig>;

const Scalar = z.union([z.string(), z.number(), z.boolean()]);

const SpecLifecycle = JobSpec.shape.lifecycle.unwrap();
/**
 * config.yaml's `lifecycle`: the JobSpec's, key for key and with its limits, so a bad value is refused
 * naming the file before anything is packed. Strict: a misspelt key is an error, not a setting quietly
 * dropped. The JobSpec's defaults stay the JobSpec's: a key left out here is left out of the spec.
 */
const Lifecycle = SpecLifecycle.extend({
  max_retries: SpecLifecycle.shape.max_retries.unwrap().optional(),
  retry_on_user_failure: SpecLifecycle.shape.retry_on_user_failure.unwrap().optional(),
}).strict();
export const ExperimentConfig = z
  .object({
    method: z.string().min(1),
    hyperparams: z.record(z.string(), Scalar).default({}),
    image: z.string().nullable().optional(),
    fleet: z.string().optional(),
    model: z.object({ hf_repo: z.string().optional(), revision: z.string().optional() }).optional(),
    data: z.object({ hf_dataset: z.string().optional(), revision: z.string().optional() }).optional(),
    lifecycle: Lifecycle.optional(),
  })
  .strict();
export type ExperimentConfig = z.infer<typeof ExperimentConfig>;

export interface Experiment {
  name: string;
  /** Absolute directory. */
  dir: string;
  /** Relative to the project root, with forward slashes: experiments/<name>. */
  relDir: string;
  config: ExperimentConfig;
  /** The raw config.yaml text (its digest is the provenance's config_sha). */
  configText: string;
  /** The parsed lock, or why it is unusable. */
  lock: { ok: true; value: RecipeLock } | { ok: false; problem: string };
}

/** Walks up from `cwd` to the directory holding starforge.yaml. */
export function findProjectRoot(cwd: string = process.cwd()): string {
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, PROJECT_MARKER))) return dir;
    const up = dirname(dir);
    if (up === dir) {
      throw new CliError(`not inside a StarForge project (no ${PROJECT_MARKER} here or above)`, {
        code: "NOT_IN_PROJECT",
        exit: EXIT.USAGE,
        hint: "run `sf init <dir>` to create one",
      });
    }
    dir = up;
  }
}

export function readProject(root: string): ProjectConfig {
  return parseFile(join(root, PROJECT_MARKER), ProjectConfig, "project file");
}

export function listExperiments(root: string): string[] {
  const dir = join(root, EXPERIMENTS_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => statSync(join(dir, n)).isDirectory() && existsSync(join(dir, n, CONFIG_FILE)))
    .sort();
}

export function readExperiment(root: string, name: string): Experiment {
  if (!EXPERIMENT_NAME_RE.test(name)) {
    throw new CliError(`"${name}" is not an experiment name (lowercase letters, digits, - and _)`, {
      exit: EXIT.USAGE,
    });
  }
  const dir = join(root, EXPERIMENTS_DIR, name);
  const configPath = join(dir, CONFIG_FILE);
  if (!existsSync(configPath)) {
    const known = listExperiments(root);
    throw new CliError(`no experiment "${name}"`, {
      code: "EXPERIMENT_NOT_FOUND",
      exit: EXIT.NOT_FOUND,
      hint: known.length
        ? `experiments: ${known.join(", ")}`
        : "create one with `sf new <name> --method <fw/method>`",
    });
  }
  const configText = readFileSync(configPath, "utf8");
  const config = parseText(configText, ExperimentConfig, `${EXPERIMENTS_DIR}/${name}/${CONFIG_FILE}`);
  return {
    name,
    dir,
    relDir: `${EXPERIMENTS_DIR}/${name}`,
    config,
    configText,
    lock: readLock(join(dir, LOCK_FILE)),
  };
}

export function readLock(path: string): Experiment["lock"] {
  if (!existsSync(path)) return { ok: false, problem: `${LOCK_FILE} is missing` };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return { ok: false, problem: `${LOCK_FILE} is not JSON` };
  }
  const r = RecipeLock.safeParse(raw);
  return r.success
    ? { ok: true, value: r.data }
    : { ok: false, problem: r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") };
}

function parseText<S extends z.ZodType>(text: string, schema: S, what: string): z.infer<S> {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new CliError(`${what} is not valid YAML: ${err instanceof Error ? err.message : String(err)}`, {
      code: "BAD_CONFIG",
      exit: EXIT.REJECTED,
    });
  }
  const r = schema.safeParse(raw);
  if (!r.success) {
    const issues = r.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
    throw new CliError(`${what} is invalid: ${issues}`, { code: "BAD_CONFIG", exit: EXIT.REJECTED });
  }
  return r.data;
}

function parseFile<S extends z.ZodType>(path: string, schema: S, what: string): z.infer<S> {
  return parseText(readFileSync(path, "utf8"), schema, `${what} ${path}`);
}

/**
 * Writes several files all-or-nothing: every file goes to a temp name first; only when all are written
 * are they renamed into place. On any failure the temps are removed and nothing changed.
 */
export function writeFilesAtomically(files: Array<{ path: string; content: string; mode?: number }>): void {
  const staged: Array<{ tmp: string; path: string }> = [];
  try {
    for (const f of files) {
      const tmp = `${f.path}.sf-staged-${process.pid}`;
      writeFileAtomic(tmp, f.content, f.mode ?? 0o644);
      staged.push({ tmp, path: f.path });
    }
  } catch (err) {
    for (const s of staged) rmSync(s.tmp, { force: true });
    throw err;
  }
  for (const s of staged) renameSync(s.tmp, s.path);
}
