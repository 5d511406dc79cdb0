/**
 * `sf new NAME --method fw/method`: an experiment from the recipe's template, locked to the latest
 * version. Everything is decided before the directory exists; then the directory is created and filled
 * in one go, and any failure removes it, so a failed `sf new` leaves nothing behind.
 */
import { copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Command } from "commander";
import type { ParamSpec } from "../../../contract/catalog.schema.js";
import { type ParamValue, validateHyperparams } from "../../../contract/hyperparams.js";
import { CliError, EXIT } from "../../errors.js";
import { c, emit, info, print } from "../../output.js";
import {
  CONFIG_FILE,
  EXPERIMENT_NAME_RE,
  EXPERIMENTS_DIR,
  type Experiment,
  findProjectRoot,
  LOCK_FILE,
  readExperiment,
  writeFilesAtomically,
} from "../../project.js";
import {
  buildLock,
  checkMethodName,
  chooseFramework,
  fetchCatalog,
  findRecipe,
  latestVersion,
  lockText,
  showFramework,
} from "./catalog.js";
import { renderConfig } from "./config-text.js";

export interface NewOptions {
  method?: string;
  from?: string;
  frameworkVersion?: string;
}

const SKIP_COPY = /(^|\/)(__pycache__|\.git)(\/|$)|\.pyc$|\.sf-staged-\d+$|\.tmp-\d+-\d+$/;

/** Regular files under an experiment, relative, except its config and lock (those are regenerated). */
function experimentFiles(dir: string, rel = ""): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(dir, rel)).sort()) {
    const r = rel ? `${rel}/${entry}` : entry;
    if (SKIP_COPY.test(r) || (!rel && (entry === CONFIG_FILE || entry === LOCK_FILE))) continue;
    const st = lstatSync(join(dir, r));
    if (st.isDirectory()) out.push(...experimentFiles(dir, r));
    else if (st.isFile()) out.push(r);
  }
  return out;
}

/** A template path must stay inside the experiment and not replace the files sf owns. */
function checkTemplatePath(recipe: string, p: string): void {
  const segs = p.split("/");
  const bad =
    p.startsWith("/") ||
    p.includes("\\") ||
    segs.some((s) => s === "" || s === "." || s === "..") ||
    p === CONFIG_FILE ||
    p === LOCK_FILE;
  if (bad) {
    throw new CliError(`${recipe}'s template has a file sf will not write: "${p}"`, {
      code: "BAD_RECIPE",
      exit: EXIT.REJECTED,
      hint: "ask the recipe's publisher to fix its template paths",
    });
  }
}

/** Values for the new config: the source's (with --from) where the method knows them, else defaults. */
function initialValues(
  params: Record<string, ParamSpec>,
  source: Experiment | null,
): { values: Record<string, ParamValue>; dropped: string[] } {
  const values: Record<string, ParamValue> = {};
  const from = source?.config.hyperparams ?? {};
  for (const [k, spec] of Object.entries(params)) {
    if (Object.hasOwn(from, k)) values[k] = from[k]!;
    else if (spec.default !== undefined) values[k] = spec.default;
  }
  return { values, dropped: Object.keys(from).filter((k) => !Object.hasOwn(params, k)) };
}

export async function newExperiment(cmd: Command, name: string, o: NewOptions): Promise<void> {
  if (!EXPERIMENT_NAME_RE.test(name)) {
    throw new CliError(`"${name}" is not an experiment name`, {
      code: "USAGE",
      exit: EXIT.USAGE,
      hint: "use lowercase letters, digits, - and _ (start with a letter or digit), e.g. exp1",
    });
  }
  const root = findProjectRoot();
  const rel = `${EXPERIMENTS_DIR}/${name}`;
  const dir = join(root, EXPERIMENTS_DIR, name);
  if (existsSync(dir)) {
    throw new CliError(`${rel} already exists`, {
      code: "EXPERIMENT_EXISTS",
      exit: EXIT.REJECTED,
      hint: `pick another name, or copy it: \`sf new <name> --from ${name}\``,
    });
  }
  const source = o.from ? readExperiment(root, o.from) : null;
  const method = o.method ?? source?.config.method;
  if (!method) {
    throw new CliError("which method?", {
      code: "USAGE",
      exit: EXIT.USAGE,
      hint: "pass --method fw/method (see `sf methods`)",
    });
  }
  checkMethodName(method);

  const catalog = await fetchCatalog(cmd);
  const rv = latestVersion(findRecipe(catalog, method));
  const keep =
    source?.lock.ok && source.lock.value.recipe.name === method ? source.lock.value.framework : undefined;
  const framework = chooseFramework(rv, o.frameworkVersion, keep);
  const { values, dropped } = initialValues(rv.params, source);
  const check = validateHyperparams(rv.params, values);
  const carried = check.ok ? [] : check.issues.filter((i) => Object.hasOwn(values, i.key));
  if (carried.length) {
    throw new CliError(
      `--from ${o.from}: its hyperparameters do not fit ${rv.name}@${rv.version}: ${carried.map((i) => i.message).join("; ")}`,
      {
        code: "VALIDATION_FAILED",
        exit: EXIT.REJECTED,
        hint: `fix ${o.from}'s config.yaml first, or start from the defaults without --from`,
      },
    );
  }
  const { method: _m, hyperparams: _h, ...extras } = source?.config ?? { method, hyperparams: {} };
  const copied = source ? experimentFiles(source.dir) : [];
  const files: Array<{ path: string; content: string; mode?: number }> = [
    { path: CONFIG_FILE, content: renderConfig({ experiment: name, rv, framework, values, extras }) },
    { path: LOCK_FILE, content: lockText(buildLock(rv, framework, catalog.digest)) },
  ];
  for (const [p, content] of Object.entries(rv.template)) {
    checkTemplatePath(rv.name, p);
    if (copied.includes(p)) continue; // --from: the source's version of a template file wins
    files.push({ path: p, content, mode: p.endsWith(".sh") || content.startsWith("#!") ? 0o755 : 0o644 });
  }

  const expRoot = join(root, EXPERIMENTS_DIR);
  const createdRoot = !existsSync(expRoot);
  const cleanup = () => {
    rmSync(dir, { recursive: true, force: true });
    if (createdRoot) rmSync(expRoot, { recursive: true, force: true });
  };
  try {
    mkdirSync(expRoot, { recursive: true });
    mkdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "EEXIST") cleanup();
    throw new CliError(
      code === "EEXIST" ? `${rel} already exists` : `cannot create ${rel}: ${(err as Error).message}`,
      {
        code: code === "EEXIST" ? "EXPERIMENT_EXISTS" : "WRITE_FAILED",
        exit: code === "EEXIST" ? EXIT.REJECTED : EXIT.FAILURE,
      },
    );
  }
  try {
    for (const p of copied) {
      mkdirSync(dirname(join(dir, p)), { recursive: true });
      copyFileSync(join(source!.dir, p), join(dir, p));
    }
    writeFilesAtomically(files.map((f) => ({ ...f, path: join(dir, f.path) })));
  } catch (err) {
    cleanup();
    throw new CliError(`could not write ${rel}: ${err instanceof Error ? err.message : String(err)}`, {
      code: "WRITE_FAILED",
      hint: "nothing was left behind; fix the cause and run `sf new` again",
    });
  }

  const written = [...files.map((f) => f.path), ...copied].sort();
  emit(
    {
      experiment: name,
      dir: rel,
      recipe: { name: rv.name, version: rv.version, digest: rv.digest },
      framework,
      from: o.from ?? null,
      files: written,
      dropped,
    },
    () => {
      info(
        `${c.green("✓")} created ${rel} from ${rv.name}@${rv.version} on ${showFramework(framework)}${o.from ? ` (copied from ${o.from})` : ""}`,
      );
      for (const f of written) info(`  ${f}`);
      if (dropped.length)
        info(
          `${c.yellow("!")} not carried over (${rv.name} has no such hyperparameters): ${dropped.join(", ")}`,
        );
      print("");
      print("Next:");
      print(`  $EDITOR ${rel}/${CONFIG_FILE}`);
      print(`  sf validate ${name}`);
      print(`  sf submit ${name} --profile <name> --follow`);
    },
  );
}
