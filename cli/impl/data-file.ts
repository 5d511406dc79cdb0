/** A JSON or YAML file a command sends on (`sf admin recipe publish`, `sf admin fleet diagnosis --set`). */
import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { parse as parseYaml } from "yaml";
import { CliError, EXIT } from "../errors.js";

/** The file's value: by its extension, .json as JSON, .yaml/.yml as YAML (config.yaml's parser). */
export function readDataFile(file: string): unknown {
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
  try {
    return ext === ".json" ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new CliError(
      `${file} is not valid ${ext === ".json" ? "JSON" : "YAML"}: ${(err as Error).message}`,
      {
        exit: EXIT.REJECTED,
      },
    );
  }
}
