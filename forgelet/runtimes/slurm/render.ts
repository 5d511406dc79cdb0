/**
 * The Slurm batch job of one run, rendered from what the agent prepared (pure). A run is ONE Slurm job
 * for all its ranks: `--nodes=N` pinned to exactly the nodes the Fleet DO chose, one task per node, the
 * GPUs per node as GRES, so Slurm starts every rank together and accounts the same GPUs as the DO. Each
 * task finds its rank by the node it runs on, loads that rank's environment (written 0600 by the agent
 * into its run directory on the shared file system) and runs the capsule's bootstrap there; a small
 * wrapper records the exit status, so every rank's own exit code survives the job.
 */
import type { SlurmSubmission } from "./api.js";

export interface SlurmRankPlan {
  rank: number;
  /** The Slurm node (NodeName) it runs on. */
  node: string;
  /** Its run directory, as the compute nodes see it. */
  runDir: string;
}

export interface SlurmRunPlan {
  runId: string;
  jobId: string;
  attempt: number;
  epoch: number;
  ranks: SlurmRankPlan[];
  gpusPerNode: number;
  /** The job's max_runtime_seconds, rounded up to Slurm's minutes. */
  maxRuntimeSeconds: number | null;
  partition: string | null;
  account: string | null;
  qos: string | null;
  /** PATH of the batch job on the compute nodes. */
  path: string;
}

/** The name every StarForge job carries in Slurm: the run id, so a restarted agent finds it again. */
export function slurmJobName(runId: string): string {
  return `sf-${runId}`;
}

export function runIdOfJobName(name: string): string | null {
  return /^sf-(run_[A-Za-z0-9]+)$/.exec(name)?.[1] ?? null;
}

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

export const RANK_ENV_FILE = ".starforge/env.sh";
export const EXIT_FILE = ".starforge/exit_code";

/** The batch script: the per-node step, then one srun task on every node of the allocation. */
export function batchScript(plan: SlurmRunPlan): string {
  const cases = plan.ranks.map((r) => `  ${shellQuote(r.node)}) root=${shellQuote(r.runDir)} ;;`);
  return [
    "#!/bin/bash",
    `# StarForge run ${plan.runId} (job ${plan.jobId}, attempt ${plan.attempt}, epoch ${plan.epoch}):`,
    `# ${plan.ranks.length} node(s), one task per node; rendered by forgelet.`,
    "read -r -d '' SF_STEP <<'SF_STEP_EOF'",
    'case "$SLURMD_NODENAME" in',
    ...cases,
    '  *) echo "starforge: node $SLURMD_NODENAME is not in this run\'s placement" >&2; exit 70 ;;',
    "esac",
    `set -a; . "$root/${RANK_ENV_FILE}"; set +a`,
    // Slurm picks which GPUs of the node the job gets (the DO counts, Slurm chooses): say those.
    '[ -n "$CUDA_VISIBLE_DEVICES" ] && export FORGE_GPU_INDICES="$CUDA_VISIBLE_DEVICES"',
    'export FORGE_RUN_ROOT="$root"',
    // A handler (not an ignore) for TERM: bash keeps waiting; the capsule gets Slurm's TERM itself.
    "trap 'true' TERM INT",
    'bash "$root/.starforge/capsule/bootstrap.sh"',
    "code=$?",
    `printf '%s' "$code" > "$root/${EXIT_FILE}.tmp" && mv "$root/${EXIT_FILE}.tmp" "$root/${EXIT_FILE}"`,
    'exit "$code"',
    "SF_STEP_EOF",
    'exec srun --ntasks-per-node=1 --kill-on-bad-exit=1 bash -c "$SF_STEP"',
    "",
  ].join("\n");
}

export function renderSubmission(plan: SlurmRunPlan): SlurmSubmission {
  const ranks = [...plan.ranks].sort((a, b) => a.rank - b.rank);
  const nodes = ranks.map((r) => r.node);
  if (new Set(nodes).size !== nodes.length) {
    throw new Error(`ranks of run ${plan.runId} share a Slurm node (${nodes.join(", ")}); one rank per node`);
  }
  const log = `${ranks[0]!.runDir}/.starforge/slurm-%j.out`;
  return {
    script: batchScript({ ...plan, ranks }),
    name: slurmJobName(plan.runId),
    comment: `starforge run=${plan.runId} job=${plan.jobId} epoch=${plan.epoch}`,
    environment: { PATH: plan.path, SF_RUN_ID: plan.runId },
    cwd: ranks[0]!.runDir,
    stdout: log,
    stderr: log,
    nodelist: nodes,
    gpusPerNode: plan.gpusPerNode,
    timeLimitMinutes:
      plan.maxRuntimeSeconds === null ? null : Math.max(1, Math.ceil(plan.maxRuntimeSeconds / 60)),
    partition: plan.partition,
    account: plan.account,
    qos: plan.qos,
  };
}
