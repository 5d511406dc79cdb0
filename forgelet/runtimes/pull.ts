/**
 * Pull mode, shared by the cluster runtimes whose workloads cannot see the agent's disk (Slurm without a
 * shared directory, Kubernetes pods): each rank builds its run directory on its own node with the
 * capsule's pull.py, fetching every input by digest from the control plane with the run's token. The
 * agent hands it a plan: the inputs, and per rank its token and the two files it writes itself.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CAPSULE_DIR } from "../materialize.js";
import type { RunSpec } from "../runtime.js";

/** Where a rank's environment lives in its run directory (sourced by the step: `set -a; . env.sh`). */
export const RANK_ENV_FILE = ".starforge/env.sh";

/** `'it''s'` for bash: single quotes, with embedded ones closed, escaped and reopened. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** A rank's environment as a file bash sources (`set -a; . env.sh`). */
export function envFile(env: Record<string, string>): string {
  return `${Object.entries(env)
    .filter(([k]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k))
    .map(([k, v]) => `${k}=${shellQuote(v)}`)
    .join("\n")}\n`;
}

/** Pull mode's default for where ranks build their run directories: each node's own disk. */
export const DEFAULT_NODE_DIR = "/tmp/starforge-runs";

/**
 * The plan capsule/pull.py follows on each node (one line of JSON): the run's inputs by digest, and per
 * rank its token and the two files the agent writes itself (capsule.json, the rank's environment).
 */
export function pullPlan(specs: readonly RunSpec[]): string {
  const first = specs[0]!;
  const ranks: Record<string, unknown> = {};
  for (const s of specs) {
    ranks[String(s.rank)] = {
      token: s.env.STARFORGE_TOKEN ?? "",
      inline: [
        {
          path: ".starforge/capsule/capsule.json",
          content: readFileSync(join(s.runDir, CAPSULE_DIR, "capsule.json"), "utf8"),
          mode: 0o644,
        },
        { path: RANK_ENV_FILE, content: envFile(s.env), mode: 0o600 },
      ],
    };
  }
  return JSON.stringify({ endpoint: first.env.STARFORGE_ENDPOINT ?? "", files: first.inputs ?? [], ranks });
}
