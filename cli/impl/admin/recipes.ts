/** `sf admin recipe publish FILE`: a recipe version from JSON or YAML, checked by the server's schema. */

import { readFileSync } from "node:fs";
import { extname } from "node:path";
import type { Command } from "commander";
import { parse as parseYaml } from "yaml";
import { PublishedRecipe } from "../../../contract/responses.schema.js";
import { authedApi } from "../../context.js";
import { CliError, EXIT } from "../../errors.js";
import { c, emit, info } from "../../output.js";

function readRecipe(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, {
      exit: EXIT.NOT_FOUND,
    });
  }
  const ext = extname(file).toLowerCase();
  if (ext !== ".json" && ext !== ".yaml" && ext !== ".yml") {
    throw new CliError(`${file}: expected a .json, .yaml or .yml file`, { exit: EXIT.USAGE });
  }
  return ext === ".json" ? parseJson(file, text) : parseYamlText(file, text);
}

function parseJson(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError(`${file} is not valid JSON: ${(err as Error).message}`, { exit: EXIT.REJECTED });
  }
}

function parseYamlText(file: string, text: string): unknown {
  try {
    return parseYaml(text);
  } catch (err) {
    throw new CliError(`${file} is not valid YAML: ${(err as Error).message}`, { exit: EXIT.REJECTED });
  }
}

export async function publishRecipe(cmd: Command, file: string): Promise<void> {
  const body = readRecipe(file);
  const r = await authedApi(cmd).post("/v1/catalog/recipes", PublishedRecipe, body);
  emit(r, () =>
    info(
      r.created
        ? `${c.green("✓")} published ${c.bold(`${r.recipe.name}@${r.recipe.version}`)} (${r.recipe.digest})`
        : `${r.recipe.name}@${r.recipe.version} is already published with identical content; nothing changed`,
    ),
  );
}
