/** `sf admin recipe publish FILE`: a recipe version from JSON or YAML, checked by the server's schema. */

import type { Command } from "commander";
import { PublishedRecipe } from "../../../contract/responses.schema.js";
import { route } from "../../api.js";
import { authedApi } from "../../context.js";
import { c, emit, info } from "../../output.js";
import { readDataFile } from "../data-file.js";

export async function publishRecipe(cmd: Command, file: string): Promise<void> {
  const body = readDataFile(file);
  const r = await authedApi(cmd).post(route("/v1/catalog/recipes"), PublishedRecipe, body);
  emit(r, () =>
    info(
      r.created
        ? `${c.green("✓")} published ${c.bold(`${r.recipe.name}@${r.recipe.version}`)} (${r.recipe.digest})`
        : `${r.recipe.name}@${r.recipe.version} is already published with identical content; nothing changed`,
    ),
  );
}
