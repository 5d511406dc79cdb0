/**
 * The recipe catalog: published methods, their versions, content digests, the framework versions each
 * supports and typed hyperparameters. A recipe version's digest is the sha256 of its canonical JSON
 * (without the digest and publication fields), so client and server agree on it byte for byte.
 */
import { z } from "zod";
import { Digest, digestOfJson } from "./digest.js";

export const RECIPE_NAME_RE = /^[a-z0-9][a-z0-9_-]{0,31}\/[a-z0-9][a-z0-9_-]{0,63}$/;
export const RecipeName = z.string().regex(RECIPE_NAME_RE, "recipe names look like framework/method");
export const Version = z.string().regex(/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/, "expected semver X.Y.Z");

const doc = z.string().max(2000).default("").describe("What the parameter does, free text");
const DEFAULT = "Its value when a job sets none; omitted: every job must set it";
const MIN = "The smallest value a job may set";
const MAX = "The largest value a job may set";

export const ParamSpec = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("int").describe("The parameter takes an integer"),
    default: z.number().int().optional().describe(DEFAULT),
    min: z.number().int().optional().describe(MIN),
    max: z.number().int().optional().describe(MAX),
    doc,
  }),
  z.object({
    type: z.literal("float").describe("The parameter takes a number"),
    default: z.number().optional().describe(DEFAULT),
    min: z.number().optional().describe(MIN),
    max: z.number().optional().describe(MAX),
    doc,
  }),
  z.object({
    type: z.literal("bool").describe("The parameter takes `true` or `false`"),
    default: z.boolean().optional().describe(DEFAULT),
    doc,
  }),
  z.object({
    type: z.literal("string").describe("The parameter takes a string"),
    default: z.string().optional().describe(DEFAULT),
    choices: z.array(z.string()).min(1).optional().describe("The values a job may set; omitted: any string"),
    doc,
  }),
]);
export type ParamSpec = z.infer<typeof ParamSpec>;

export const FrameworkSupport = z.object({
  kind: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,31}$/)
    .describe("The framework, e.g. `python` or `torch`: a job's `framework.kind`"),
  /** Framework versions this recipe version is published for, e.g. ["3"] for python3, ["1.13", "2.4"]. */
  versions: z
    .array(z.string().min(1))
    .min(1)
    .describe("The framework versions it is published for, e.g. `3` or `1.13`: a job's `framework.version`"),
  /** Runtime identifier the capsule checks for (e.g. "python3-stdlib", "torch-cpu"). */
  runtime_id: z
    .string()
    .min(1)
    .describe("The runtime it runs on, e.g. `python3-stdlib` or `torch-cpu`: a job's `framework.runtime_id`"),
  /** Default image for this framework, or null when the user must bring one. */
  image: z
    .string()
    .nullable()
    .default(null)
    .describe("The image a job that names none runs (no allowlist applies to it); null: no default"),
});
export type FrameworkSupport = z.infer<typeof FrameworkSupport>;

/**
 * How a distributed recipe is started on each node (absent: not distributed, one process per node and
 * no rendezvous, as before). `per_node`: one process per node that starts its own workers (e.g. with
 * torchrun); `per_gpu`: the runner starts one process per GPU of the node (LOCAL_RANK 0…n-1, each with its
 * GPU). Either way the ranks meet through the control plane first (docs/multi-node.md).
 */
export const PROCESS_MODES = ["per_node", "per_gpu"] as const;
export const ProcessMode = z.enum(PROCESS_MODES);
export type ProcessMode = z.infer<typeof ProcessMode>;

const PROCESSES =
  "Distributed: `per_node` starts one process per node, `per_gpu` one per GPU; omitted: not distributed";

export type Entrypoint = z.infer<typeof Entrypoint>;
export const Entrypoint = z.discriminatedUnion("kind", [
  /** Custom jobs: a script in the user's experiment, run with bash. */
  z.object({
    kind: z.literal("script").describe("A script in the job's experiment, run with `bash`"),
    path: z.string().min(1).describe("The script's path in the experiment's folder, e.g. `train.sh`"),
    processes: ProcessMode.optional().describe(PROCESSES),
  }),
  /** First-class methods: a Python entry module shipped with the recipe. */
  z.object({
    kind: z.literal("python").describe("A Python module shipped with the recipe, run with `python -m`"),
    module: z.string().min(1).describe("The module to run, e.g. `charlm.train`"),
    processes: ProcessMode.optional().describe(PROCESSES),
  }),
]);

/** What a publisher sends; the digest is computed from exactly these fields. */
export const RecipeVersionBody = z.object({
  name: RecipeName.describe("The recipe's name, `framework/method`, e.g. `python/charlm`"),
  version: Version.describe("The version published (semver `X.Y.Z`); a published version never changes"),
  description: z.string().max(2000).default("").describe("What the method does, free text"),
  frameworks: z
    .array(FrameworkSupport)
    .min(1)
    .describe("The frameworks, versions and runtimes this version is published for"),
  params: z
    .record(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/), ParamSpec)
    .default({})
    .describe("The hyperparameters a job may set, by name: type, default and bounds"),
  entrypoint: Entrypoint.describe("How a run starts it: a `script` in the experiment or a `python` module"),
  /** Custom recipes run the user's image; first-class ones may default it from the framework. */
  requires_image: z
    .boolean()
    .default(false)
    .describe(
      "`true`: on `docker` and `kuberay` fleets a job needs an image, its own or the framework's default",
    ),
  /** Files the method scaffolds into a new experiment (`sf new`), path -> content. */
  template: z
    .record(z.string(), z.string())
    .default({})
    .describe("Files `sf new` writes into a new experiment: path → content"),
});
export type RecipeVersionBody = z.infer<typeof RecipeVersionBody>;

export const RecipeVersion = RecipeVersionBody.extend({
  digest: Digest,
  published_at: z.string().describe("When the version was published, ISO 8601 UTC"),
  published_by: z
    .string()
    .describe("Who published it: the admin's user name, or `system` for the built-in recipes"),
});
export type RecipeVersion = z.infer<typeof RecipeVersion>;

export const Catalog = z.object({
  digest: Digest,
  recipes: z
    .array(
      z.object({
        name: RecipeName.describe("The recipe's name, `framework/method`, e.g. `python/charlm`"),
        latest: Version.describe("Its highest published version by semver precedence"),
        versions: z
          .array(RecipeVersion)
          .describe("Its published versions, ascending by semver (pre-releases before their release)"),
      }),
    )
    .describe("Every published recipe, by name"),
});
export type Catalog = z.infer<typeof Catalog>;

export async function recipeDigest(body: RecipeVersionBody): Promise<string> {
  return digestOfJson(RecipeVersionBody.parse(body));
}

/** The catalog digest covers which (name, version, digest) triples are published, in a stable order. */
export function catalogDigest(
  entries: readonly { name: string; version: string; digest: string }[],
): Promise<string> {
  const triples = entries
    .map((e) => [e.name, e.version, e.digest])
    .sort((a, b) => cmp(a.join("@"), b.join("@")));
  return digestOfJson(triples);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Semver 2.0 precedence: numeric X.Y.Z, then pre-release identifiers; build metadata is ignored. */
export function compareVersions(a: string, b: string): number {
  const [coreA, preA] = splitVersion(a);
  const [coreB, preB] = splitVersion(b);
  for (let i = 0; i < 3; i++) {
    const d = (coreA[i] ?? 0) - (coreB[i] ?? 0);
    if (d !== 0) return d;
  }
  if (preA.length === 0 || preB.length === 0) return preB.length - preA.length;
  for (let i = 0; i < Math.max(preA.length, preB.length); i++) {
    const x = preA[i];
    const y = preB[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    if (nx && ny) {
      const d = Number(x) - Number(y);
      if (d !== 0) return d;
    } else if (nx !== ny) {
      return nx ? -1 : 1;
    } else if (x !== y) {
      return cmp(x, y);
    }
  }
  return 0;
}

function splitVersion(v: string): [number[], string[]] {
  const noBuild = v.split("+")[0]!;
  const dash = noBuild.indexOf("-");
  const core = (dash < 0 ? noBuild : noBuild.slice(0, dash)).split(".").map(Number);
  const pre = dash < 0 ? [] : noBuild.slice(dash + 1).split(".");
  return [core, pre];
}
