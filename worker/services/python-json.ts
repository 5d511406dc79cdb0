/**
 * JSON as Python writes it. `json.dumps` emits the bare tokens NaN, Infinity and -Infinity for
 * non-finite floats unless told otherwise, and a training loss that diverges is exactly such a float.
 * Standard JSON has no such tokens, so a strict parser refuses the whole batch, and the original client
 * (which retries a refused batch forever) would then never deliver anything after it. Here those tokens
 * become null outside strings; the item that carried one is then rejected on its own, not its batch.
 */

import { MAX_JSON_DEPTH, nestedDeeperThan } from "../../contract/json-depth.js";

const TOKENS = ["-Infinity", "Infinity", "NaN"] as const;

/**
 * Parses `text` as JSON, reading Python's non-finite tokens as null. Throws SyntaxError like JSON.parse,
 * also for JSON nested deeper than MAX_JSON_DEPTH (which later walks of the value could not survive).
 */
export function parsePythonJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const replaced = replaceNonFinite(text);
    if (replaced === text) throw err;
    value = JSON.parse(replaced);
  }
  if (nestedDeeperThan(value)) throw new SyntaxError(`JSON nests deeper than ${MAX_JSON_DEPTH} levels`);
  return value;
}

/** `text` with every NaN/Infinity/-Infinity token outside string literals replaced by null. */
export function replaceNonFinite(text: string): string {
  let out = "";
  let i = 0;
  let from = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"') {
      // Skip the string literal, escapes included.
      i += 1;
      while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
      i += 1;
      continue;
    }
    const token =
      ch === "-" || ch === "I" || ch === "N" ? TOKENS.find((t) => text.startsWith(t, i)) : undefined;
    if (token) {
      out += `${text.slice(from, i)}null`;
      i += token.length;
      from = i;
      continue;
    }
    i += 1;
  }
  return out + text.slice(from);
}
