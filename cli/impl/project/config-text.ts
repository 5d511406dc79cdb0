/**
 * config.yaml as text: `sf new` writes a commented file a person can edit; `sf recipe upgrade` adds new
 * parameters through the yaml Document API so the user's own comments and layout survive.
 */
import { isMap, parseDocument, Scalar, stringify, YAMLMap } from "yaml";
import type { ParamSpec, RecipeVersion } from "../../../contract/catalog.schema.js";
import type { ParamValue } from "../../../contract/hyperparams.js";
import type { ExperimentConfig } from "../../project.js";
import { describeParam, type LockedFramework } from "./catalog.js";

/** Keys YAML would read as something other than a string. */
const RESERVED_KEYS = new Set(["null", "true", "false", "y", "n", "yes", "no", "on", "off"]);

function key(k: string): string {
  return RESERVED_KEYS.has(k) ? JSON.stringify(k) : k;
}

function scalar(v: ParamValue): string {
  return stringify(v).trimEnd();
}

function comment(text: string, indent: string): string[] {
  return text.split("\n").map((l) => `${indent}# ${l}`.trimEnd());
}

export function paramComment(spec: ParamSpec): string {
  return spec.doc ? `${spec.doc} (${describeParam(spec)})` : describeParam(spec);
}

export interface ConfigInput {
  experiment: string;
  rv: RecipeVersion;
  framework: LockedFramework;
  /** Values to write, in the recipe's param order; params missing here are written as required comments. */
  values: Record<string, ParamValue>;
  /** Other keys carried over from `--from` (image, fleet, model, data, lifecycle). */
  extras?: Omit<ExperimentConfig, "method" | "hyperparams">;
}

export function renderConfig(o: ConfigInput): string {
  const { rv } = o;
  const lines: string[] = [
    `# Experiment ${o.experiment}. The exact recipe version and framework runtime are pinned in`,
    "# recipe.lock.json (see `sf recipe status --online`; move with `sf recipe upgrade`).",
    "# Edit the hyperparameters below, then check them offline with",
    `#   sf validate ${o.experiment}              (add --set key=value to try an override)`,
    `#   sf submit ${o.experiment} --profile <name>`,
    `method: ${scalar(rv.name)}`,
  ];
  const names = Object.keys(rv.params);
  if (names.length === 0) lines.push("# this method takes no hyperparameters", "hyperparams: {}");
  else {
    lines.push("hyperparams:");
    for (const name of names) {
      const spec = rv.params[name]!;
      lines.push(...comment(paramComment(spec), "  "));
      const v = o.values[name];
      if (v === undefined)
        lines.push(`  # ${key(name)}: <${spec.type}>   REQUIRED: set a value and uncomment`);
      else lines.push(`  ${key(name)}: ${scalar(v)}`);
    }
  }
  const extras = { ...o.extras };
  if (extras.image === undefined && rv.requires_image) {
    lines.push(
      "# This method runs your own image: set it before submitting, e.g. ghcr.io/acme/train:1",
      "image: null",
    );
  } else if (extras.image === undefined) {
    const dflt = rv.frameworks.find((f) => f.kind === o.framework.kind)?.image;
    if (dflt) lines.push(`# image: ${dflt}   # the ${o.framework.kind} default; set one to override`);
  }
  const rest = Object.fromEntries(Object.entries(extras).filter(([, v]) => v !== undefined));
  if (Object.keys(rest).length) lines.push(stringify(rest).trimEnd());
  if (extras.lifecycle === undefined) lines.push(...LIFECYCLE_HELP);
  return `${lines.join("\n")}\n`;
}

/**
 * config.yaml's `lifecycle` keys, commented out with their defaults: a new experiment shows what can be set
 * (every key and its limits: docs/api.md "JobSpec"; what a failure or an anomaly does: docs/operations.md).
 */
const LIFECYCLE_HELP = [
  "# How the job runs, all optional (uncomment to set; the values shown are the defaults or examples):",
  "# lifecycle:",
  "#   priority_class: normal        # `sf admin priority-class ls`",
  "#   priority: 50                  # 0-100 within the class (default and cap: your quota's)",
  "#   max_retries: 2                # automatic retries, of the failures their diagnosis retries",
  "#   retry_on_user_failure: false  # true: retry every failure but a time limit",
  "#   max_runtime_seconds: 86400    # a run's time limit (default: none)",
  "#   on_anomaly: warn              # a NaN loss or a hang: warn (an event), or stop (the job fails)",
  "#   hang_factor: 10               # a hang: no new step for 10x the median step interval,",
  "#   hang_floor_seconds: 300       #   and at least this long",
  "#   resumable: true               # it checkpoints on SIGTERM and resumes (default: catalog methods)",
  "#   placement_timeout_seconds: 3600  # fail it if it has not started by then (default: never)",
  "#   preemption_wait_seconds: 60   # placed over several fleets: wait this long before preempting",
];

/** Adds `added` to config.yaml's hyperparams, each with a comment, keeping everything else as written. */
export function addParamsToConfig(
  text: string,
  added: Array<{ name: string; value: ParamValue; spec: ParamSpec }>,
  since: string,
): string {
  if (added.length === 0) return text;
  const doc = parseDocument(text);
  let hp = doc.get("hyperparams", true);
  if (!isMap(hp)) {
    hp = new YAMLMap();
    doc.set("hyperparams", hp);
  }
  const map = hp as YAMLMap;
  map.flow = false;
  for (const a of added) {
    const k = new Scalar(a.name);
    k.commentBefore = ` new in ${since}: ${paramComment(a.spec)}`;
    map.set(k, a.value);
  }
  return doc.toString();
}
