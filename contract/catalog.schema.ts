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

const doc = z.string().max(2000).default("");

export const ParamSpec = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("int"),
    default: z.number().int().optional(),
    min: z.number().int().optional(),
    max: z.number().int().optional(),
    doc,
  }),
  z.object({
    type: z.literal("float"),
    default: z.number().optional(),
    min: z.number().optional(),
    max: z.number().optional(),
    doc,
  }),
  z.object({ type: z.literal("bool"), default: z.boolean().optional(), doc }),
  z.object({
    type: z.literal("string"),
    default: z.string().optional(),
    choices: z.array(z.string()).min(1).optional(),
    doc,
  }),
]);
export type ParamSpec = z.infer<typeof ParamSpec>;

export const FrameworkSupport = z.object({
  kind: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/),
  /** Framework versions this recipe version is published for, e.g. ["3"] for python3, ["1.13", "2.4"]. */
  versions: z.array(z.string().min(1)).min(1),
  /** Runtime identifier the capsule checks for (e.g. "python3-stdlib", "torch-cpu"). */
  runtime_id: z.string().min(1),
  /** Default image for this framework, or null when the user must bring one. */
  image: z.string().nullable().default(null),
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

export type Entrypoint = z.infer<typeof Entrypoint>;
export const Entrypoint = z.discriminatedUnion("kind", [
  /** Custom jobs: a script in the user's experiment, run with bash. */
  z.object({ kind: z.literal("script"), path: z.string().min(1), processes: ProcessMode.optional() }),
  /** First-class methods: a Python entry module shipped with the recipe. */
  z.object({ kind: z.literal("python"), module: z.string().min(1), processes: ProcessMode.optional() }),
]);

/** What a publisher sends; the digest is computed from exactly these fields. */
export const RecipeVersionBody = z.object({
  name: RecipeName,
  version: Version,
  description: z.string().max(2000).default(""),
  frameworks: z.array(FrameworkSupport).min(1),
  params: z.record(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/), ParamSpec).default({}),
  entrypoint: Entrypoint,
  /** Custom recipes run the user's image; first-class ones may default it from the framework. */
  requires_image: z.boolean().default(false),
  /** Files the method scaffolds into a new experiment (`sf new`), path -> content. */
  template: z.record(z.string(), z.string()).default({}),
});
export type RecipeVersionBody = z.infer<typeof RecipeVersionBody>;

export const RecipeVersion = RecipeVersionBody.extend({
  digest: Digest,
  published_at: z.string(),
  published_by: z.string(),
});
export type RecipeVersion = z.infer<typeof RecipeVersion>;

export const Catalog = z.object({
  digest: Digest,
  recipes: z.array(
    z.object({
      name: RecipeName,
      latest: Version,
      versions: z.array(RecipeVersion),
    }),
  ),
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
