/**
 * Option parsers and help-text helpers shared by the `*.commands.ts` files.
 */
import { InvalidArgumentError } from "commander";

export const examples = (lines: string[]) => `\nExamples:\n${lines.map((l) => `  ${l}`).join("\n")}`;

export function int(name: string, min: number) {
  return (v: string): number => {
    if (!/^\d+$/.test(v) || Number(v) < min)
      throw new InvalidArgumentError(`${name} must be an integer ≥ ${min}`);
    return Number(v);
  };
}

/** A repeatable option's values, in the order given. */
export function collect(v: string, prev: string[] | undefined): string[] {
  return [...(prev ?? []), v];
}
