/**
 * The `--profile [ROLE=]NAME[:GPUS]` grammar and the original's shape rules:
 *   no count                 -> the registry's default count for that profile
 *   count <= gpus_per_node   -> one node with `count` GPUs
 *   count % gpus_per_node==0 -> count / gpus_per_node full nodes
 *   anything else            -> an error naming the allowed shapes
 */
import { z } from "zod";

export const ProfileEntry = z.object({
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, "profile names are lowercase [a-z0-9._-]")
    .describe("The profile's name, what `sf submit --profile` and a pool's `profile` give"),
  series: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/)
    .describe("The GPU series its jobs run on, e.g. `h100`"),
  gpus_per_node: z.number().int().min(1).max(64).describe("GPUs on one node of this profile"),
  default_gpus: z
    .number()
    .int()
    .min(1)
    .describe("The GPUs a job gets when it names none: at most `gpus_per_node`, or a multiple of it"),
  description: z.string().max(500).default("").describe("What the profile is, free text"),
});
export type ProfileEntry = z.infer<typeof ProfileEntry>;

export const Pool = z.object({
  name: z
    .string()
    .regex(/^[a-z][a-z0-9_-]{0,31}$/)
    .describe("The pool's name, unique in the job (roles name it)"),
  profile: z.string().min(1).describe("The hardware profile it asks for (GET /v1/profiles)"),
  series: z.string().min(1).describe("The GPU series, the profile's"),
  nodes: z.number().int().min(1).max(1024).describe("How many nodes"),
  gpus_per_node: z.number().int().min(1).max(64).describe("GPUs on each node"),
});
export type Pool = z.infer<typeof Pool>;

export interface ParsedProfileArg {
  role: string | undefined;
  name: string;
  gpus: number | undefined;
}

export class ProfileError extends Error {
  constructor(
    readonly code: "INVALID_PROFILE" | "PROFILE_NOT_FOUND",
    message: string,
  ) {
    super(message);
    this.name = "ProfileError";
  }
}

const ARG_RE = /^(?:([a-z][a-z0-9_-]{0,31})=)?([a-z0-9][a-z0-9._-]{0,62})(?::(\d{1,5}))?$/;

export function parseProfileArg(arg: string): ParsedProfileArg {
  const m = ARG_RE.exec(arg.trim());
  if (!m) {
    throw new ProfileError(
      "INVALID_PROFILE",
      `cannot parse profile "${arg}": expected [ROLE=]NAME[:GPUS], e.g. h200, h200:4, trainer=h200:16`,
    );
  }
  const gpus = m[3] === undefined ? undefined : Number(m[3]);
  if (gpus !== undefined && gpus < 1) {
    throw new ProfileError("INVALID_PROFILE", `profile "${arg}": GPU count must be at least 1`);
  }
  return { role: m[1], name: m[2]!, gpus };
}

/** Human description of the shapes a profile accepts, used in every shape error. */
export function allowedShapes(p: ProfileEntry): string {
  const g = p.gpus_per_node;
  const one = g === 1 ? "1 GPU on one node" : `1–${g} GPUs on one node`;
  return `${one}, or a multiple of ${g} (${g * 2}, ${g * 3}, …) across full nodes`;
}

export function shapeFor(
  p: ProfileEntry,
  gpus: number | undefined,
): { nodes: number; gpus_per_node: number } {
  const count = gpus ?? p.default_gpus;
  const g = p.gpus_per_node;
  if (!Number.isInteger(count) || count < 1) {
    throw new ProfileError("INVALID_PROFILE", `profile ${p.name}: GPU count must be a positive integer`);
  }
  if (count <= g) return { nodes: 1, gpus_per_node: count };
  if (count % g === 0) return { nodes: count / g, gpus_per_node: g };
  throw new ProfileError(
    "INVALID_PROFILE",
    `profile ${p.name} cannot take ${count} GPUs: allowed shapes are ${allowedShapes(p)}`,
  );
}

/** Expands `--profile` arguments against the registry into pools and a role map. */
export function expandProfiles(
  args: readonly string[],
  registry: readonly ProfileEntry[],
): { pools: Pool[]; roles: Record<string, string> } {
  if (args.length === 0) throw new ProfileError("INVALID_PROFILE", "at least one --profile is required");
  const byName = new Map(registry.map((p) => [p.name, p]));
  const parsedArgs = args.map(parseProfileArg);
  if (parsedArgs.length > 1 && parsedArgs.some((p) => p.role === undefined)) {
    throw new ProfileError(
      "INVALID_PROFILE",
      "with more than one --profile, each needs a ROLE= prefix (e.g. trainer=h200:8)",
    );
  }
  const pools: Pool[] = [];
  const roles: Record<string, string> = {};
  for (const parsed of parsedArgs) {
    const entry = byName.get(parsed.name);
    if (!entry) {
      const known = [...byName.keys()].sort().join(", ") || "(none)";
      throw new ProfileError(
        "PROFILE_NOT_FOUND",
        `unknown profile "${parsed.name}"; known profiles: ${known}`,
      );
    }
    const poolName = parsed.role ?? "default";
    if (pools.some((p) => p.name === poolName)) {
      throw new ProfileError("INVALID_PROFILE", `role "${poolName}" is given twice`);
    }
    pools.push({
      name: poolName,
      profile: entry.name,
      series: entry.series,
      ...shapeFor(entry, parsed.gpus),
    });
    roles[poolName] = poolName;
  }
  return { pools, roles };
}

export function poolGpus(pool: Pick<Pool, "nodes" | "gpus_per_node">): number {
  return pool.nodes * pool.gpus_per_node;
}
