/**
 * `sf admin fleet diagnosis NAME [--set FILE | --clear]`: a fleet's own failure rules, tried before the
 * built-in ones, and its per-class actions (docs/operations.md "A fleet's own rules"); shown, replaced from
 * a JSON or YAML file, or cleared. A file is checked with the contract's schema first, so a pattern that does
 * not compile is reported with its rule's index before anything is sent.
 */
import type { Command } from "commander";
import { z } from "zod";
import { CLASS_POLICY, classAction, FleetDiagnosis } from "../../../contract/diagnosis-policy.js";
import { FleetView } from "../../../contract/responses.schema.js";
import { route } from "../../api.js";
import { authedApi } from "../../context.js";
import { CliError, EXIT } from "../../errors.js";
import { c, emit, info, print, table } from "../../output.js";
import { readDataFile } from "../data-file.js";
import { oneLine } from "../job/diagnosis.js";

const NONE: FleetDiagnosis = { rules: [], actions: {} };
/** GET and PATCH /v1/fleets/:fleet: the fleet's view carries its `diagnosis` (absent from older servers). */
const FleetAnswer = z.looseObject({
  fleet: FleetView.extend({ diagnosis: FleetDiagnosis.default(NONE) }),
});
/** Hints are up to 500 characters: the table shows their start, --json all of them. */
const HINT_WIDTH = 60;

/** One schema issue of the file, as a person fixes it: `rule 2: pattern is not a valid regular expression…`. */
function issueText(i: z.core.$ZodIssue): string {
  const [head, index, ...rest] = i.path;
  if (head !== "rules" || typeof index !== "number")
    return `${i.path.join(".") || "(the file)"}: ${i.message}`;
  const field = rest.join(".");
  // The pattern's own checks (diagnosis-policy.ts patternProblem) read as a sentence about the pattern.
  const what =
    field === "pattern" && i.code === "custom"
      ? `pattern ${i.message}`
      : field
        ? `${field}: ${i.message}`
        : i.message;
  return `rule ${index}: ${what}`;
}

/** The file's rules and actions, checked as the server will check them; every problem at once. */
export function readRules(file: string): FleetDiagnosis {
  const r = FleetDiagnosis.safeParse(readDataFile(file));
  if (r.success) return r.data;
  throw new CliError(`${file}: ${r.error.issues.map(issueText).join("; ")}`, {
    code: "INVALID_RULES",
    exit: EXIT.REJECTED,
    hint: `nothing was sent; the file is { rules: [{ pattern | exit_code, class, hint?, action? }], actions: { CLASS: action } } (docs/operations.md "A fleet's own rules")`,
  });
}

function printRules(fleet: string, d: FleetDiagnosis): void {
  const overrides = Object.entries(d.actions);
  if (d.rules.length === 0 && overrides.length === 0) {
    print(
      `${c.bold(fleet)}: no rules of its own; the built-in table decides (docs/operations.md "Failure diagnosis")`,
    );
    return;
  }
  if (d.rules.length === 0) print(`${c.bold(fleet)}: no rules of its own`);
  else {
    print(
      `${c.bold(fleet)}: ${d.rules.length} rule${d.rules.length === 1 ? "" : "s"}, tried in order before the built-in ones`,
    );
    table(
      d.rules.map((r, i) => ({
        rule: i,
        match: r.pattern !== undefined ? `/${r.pattern}/` : `exit code ${r.exit_code}`,
        class: r.class,
        // A rule without an action takes its class's (the fleet's override, else the built-in one).
        action: r.action ?? `${classAction(r.class, d)} ${c.dim("(class)")}`,
        hint: r.hint === undefined ? c.dim("(class)") : oneLine(r.hint, HINT_WIDTH),
      })),
      ["rule", "match", "class", "action", "hint"],
    );
  }
  if (overrides.length === 0) return;
  print();
  print(c.bold("Actions on this fleet"));
  table(
    overrides.map(([cls, action]) => ({
      class: cls,
      action,
      "built-in": CLASS_POLICY[cls as keyof typeof CLASS_POLICY].action,
    })),
    ["class", "action", "built-in"],
  );
}

function counted(d: FleetDiagnosis): string {
  const n = d.rules.length;
  const a = Object.keys(d.actions).length;
  return `${n} rule${n === 1 ? "" : "s"}, ${a} class action${a === 1 ? "" : "s"}`;
}

export async function fleetDiagnosis(
  cmd: Command,
  name: string,
  o: { set?: string; clear?: boolean },
): Promise<void> {
  const api = authedApi(cmd);
  if (o.set === undefined && !o.clear) {
    const { fleet } = await api.get(route("/v1/fleets/{fleet}", { fleet: name }), FleetAnswer);
    emit({ diagnosis: fleet.diagnosis }, () => printRules(fleet.name, fleet.diagnosis));
    return;
  }
  // --clear sends `{}`: the server's defaults (no rules, no overrides) replace whatever was there.
  const diagnosis = o.set === undefined ? {} : readRules(o.set);
  const { fleet } = await api.patch(route("/v1/fleets/{fleet}", { fleet: name }), FleetAnswer, { diagnosis });
  if (o.clear)
    info(`${c.green("✓")} ${c.bold(fleet.name)}: rules cleared; the built-in table decides from now on`);
  else
    info(
      `${c.green("✓")} ${c.bold(fleet.name)}: ${counted(fleet.diagnosis)}; failures from now on are diagnosed with them`,
    );
  emit({ diagnosis: fleet.diagnosis }, () => {
    if (!o.clear) printRules(fleet.name, fleet.diagnosis);
  });
}
