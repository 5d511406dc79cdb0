/**
 * The Slurm batch job of one run, rendered from what the agent prepared (pure). A run is ONE Slurm job
 * for all its ranks: `--nodes=N` pinned to exactly the nodes the Fleet DO chose, one task per node, the
 * GPUs per node as GRES, so Slurm starts every rank together and accounts the same GPUs as the DO. A run
 * of several pools is one heterogeneous job, a component per pool with its own nodes, GPUs, CPUs and
 * memory, and one step over every component (`srun --het-group=0-N`). Each
 * task finds its rank by the node it runs on, loads that rank's environment (written 0600 by the agent
 * into its run directory on the shared file system) and runs the capsule's bootstrap there; a small
 * wrapper records the exit status, so every rank's own exit code survives the job.
 */
import { RANK_ENV_FILE, shellQuote } from "../pull.js";
import type { SlurmSubmission } from "./api.js";

export interface SlurmRankPlan {
  rank: number;
  /** The Slurm node (NodeName) it runs on. */
  node: string;
  /** Its run directory, as the compute nodes see it. */
  runDir: string;
}

/** The ranks of one pool: one component of the Slurm job. */
export interface SlurmComponentPlan {
  /** The pool's name ("" when the launch named none). */
  pool: string;
  ranks: SlurmRankPlan[];
  gpusPerNode: number;
  /** CPUs and memory (MB) per node for the pool (its share of the node), or null for Slurm's defaults. */
  cpusPerTask?: number | null;
  memoryPerNodeMb?: number | null;
}

export interface SlurmRunPlan {
  runId: string;
  jobId: string;
  attempt: number;
  epoch: number;
  /** One per pool, the first holding rank 0; several make a heterogeneous job. */
  components: SlurmComponentPlan[];
  /** The job's max_runtime_seconds, rounded up to Slurm's minutes. */
  maxRuntimeSeconds: number | null;
  partition: string | null;
  account: string | null;
  qos: string | null;
  /** PATH of the batch job on the compute nodes. */
  path: string;
  /**
   * Pull mode (no shared directory): each rank's `runDir` is on its node's own disk, and the step builds
   * it first with the capsule's pull.py from `plan` (JSON, see capsule/pull.py), both handed to every
   * node with sbcast. Without it, the run directories are on a shared directory the agent prepared.
   */
  pull?: { plan: string; script: string; keep: boolean } | null;
  /**
   * The job's secrets: in the submission's environment (held by slurmctld, inherited by every task),
   * never in the rank environment files or the pull plan, which are files on the nodes.
   */
  secrets?: Record<string, string>;
}

/** The name every StarForge job carries in Slurm: the run id, so a restarted agent finds it again. */
export function slurmJobName(runId: string): string {
  return `sf-${runId}`;
}

export function runIdOfJobName(name: string): string | null {
  return /^sf-(run_[A-Za-z0-9]+)$/.exec(name)?.[1] ?? null;
}

export const EXIT_FILE = ".starforge/exit_code";

/** Where pull mode stages its files on every node (sbcast's destination; the job id keeps runs apart). */
const STAGED = "/tmp/sf-$SLURM_JOB_ID";
/**
 * Makes STAGED on every node, private: created 0700 by the job's user, or refused when someone else made
 * it first (job ids are predictable; a directory planted in a shared /tmp must not receive the tokens).
 */
const PRIVATE_STAGE = `d=${STAGED}; mkdir -p -m 700 "$d" && [ -O "$d" ] && [ ! -L "$d" ] && [ "$(stat -c %a "$d")" = 700 ]`;

/** Every rank of the run, in rank order. */
export function ranksOf(plan: Pick<SlurmRunPlan, "components">): SlurmRankPlan[] {
  return plan.components.flatMap((c) => c.ranks).sort((a, b) => a.rank - b.rank);
}

/** The batch script: the per-node step, then one srun task on every node of the allocation. */
export function batchScript(plan: SlurmRunPlan): string {
  const n = plan.components.length;
  const header = [
    "#!/bin/bash",
    `# StarForge run ${plan.runId} (job ${plan.jobId}, attempt ${plan.attempt}, epoch ${plan.epoch}):`,
    `# ${ranksOf(plan).length} node(s), one task per node; rendered by forgelet.`,
    ...(n > 1
      ? [
          `# A heterogeneous job: ${plan.components.map((c, i) => `component ${i} = pool ${c.pool} (${c.ranks.length} node(s) × ${c.gpusPerNode} GPU(s))`).join(", ")}.`,
        ]
      : []),
  ];
  // One step over every component: Slurm starts its tasks together and kills them all when one fails.
  const srun = `srun${n > 1 ? ` --het-group=0-${n - 1}` : ""} --ntasks-per-node=1 --kill-on-bad-exit=1`;
  // sbcast reaches the nodes of one component: a heterogeneous job's are named by each component's job id.
  const sbcastJobs = n > 1 ? plan.components.map((_, i) => `"$SLURM_JOB_ID_HET_GROUP_${i}"`).join(" ") : null;
  if (!plan.pull) {
    return [
      ...header,
      "read -r -d '' SF_STEP <<'SF_STEP_EOF'",
      ...step(plan),
      "SF_STEP_EOF",
      `exec ${srun} bash -c "$SF_STEP"`,
      "",
    ].join("\n");
  }
  // Pull mode: the plan (it holds the ranks' tokens), pull.py and the step go to every node's /tmp with
  // sbcast (0600, the job's user), since no directory is shared; each step removes its node's copies.
  return [
    ...header,
    "umask 077",
    'stage="$(mktemp -d)" || exit 71',
    "cat > \"$stage/plan.json\" <<'SF_PLAN_EOF'",
    plan.pull.plan,
    "SF_PLAN_EOF",
    "cat > \"$stage/pull.py\" <<'SF_PULL_EOF'",
    plan.pull.script.trimEnd(),
    "SF_PULL_EOF",
    "cat > \"$stage/step.sh\" <<'SF_STEP_EOF'",
    ...step(plan),
    "SF_STEP_EOF",
    `${srun} bash -c ${shellQuote(PRIVATE_STAGE)} || { echo "starforge: no private ${STAGED} on every node" >&2; exit 71; }`,
    ...(sbcastJobs
      ? [
          `for j in ${sbcastJobs}; do`,
          "  for f in plan.json pull.py step.sh; do",
          `    sbcast -j "$j" -f -p "$stage/$f" "${STAGED}/$f" || { echo "starforge: sbcast of $f to component $j failed" >&2; exit 71; }`,
          "  done",
          "done",
        ]
      : [
          "for f in plan.json pull.py step.sh; do",
          `  sbcast -f -p "$stage/$f" "${STAGED}/$f" || { echo "starforge: sbcast of $f failed" >&2; exit 71; }`,
          "done",
        ]),
    'rm -rf "$stage"',
    `exec ${srun} bash "${STAGED}/step.sh"`,
    "",
  ].join("\n");
}

/** What every node runs: find its rank by node name, (pull mode: build the run directory,) run the capsule. */
function step(plan: SlurmRunPlan): string[] {
  const cases = ranksOf(plan).map(
    (r) => `  ${shellQuote(r.node)}) rank=${r.rank}; root=${shellQuote(r.runDir)} ;;`,
  );
  const pull = plan.pull;
  const staged = `"${STAGED}"`;
  return [
    'case "$SLURMD_NODENAME" in',
    ...cases,
    '  *) echo "starforge: node $SLURMD_NODENAME is not in this run\'s placement" >&2; exit 70 ;;',
    "esac",
    ...(pull
      ? [
          `python3 "${STAGED}/pull.py" "$root" "$rank" "${STAGED}/plan.json"`,
          "code=$?",
          `if [ "$code" -ne 0 ]; then rm -rf ${staged} "$root"; exit "$code"; fi`,
        ]
      : []),
    `set -a; . "$root/${RANK_ENV_FILE}"; set +a`,
    // Slurm picks which GPUs of the node the job gets (the DO counts, Slurm chooses): say those.
    '[ -n "$CUDA_VISIBLE_DEVICES" ] && export FORGE_GPU_INDICES="$CUDA_VISIBLE_DEVICES"',
    'export FORGE_RUN_ROOT="$root"',
    // A handler (not an ignore) for TERM: bash keeps waiting; the capsule gets Slurm's TERM itself.
    "trap 'true' TERM INT",
    'bash "$root/.starforge/capsule/bootstrap.sh"',
    "code=$?",
    ...(pull
      ? // The node's copy goes with the run (checkpoints and logs were shipped by the runner).
        [`rm -rf ${staged}`, ...(pull.keep ? [] : ['rm -rf "$root"'])]
      : [
          `printf '%s' "$code" > "$root/${EXIT_FILE}.tmp" && mv "$root/${EXIT_FILE}.tmp" "$root/${EXIT_FILE}"`,
        ]),
    'exit "$code"',
  ];
}

export function renderSubmission(plan: SlurmRunPlan): SlurmSubmission {
  const ranks = ranksOf(plan);
  const nodes = ranks.map((r) => r.node);
  // Also across pools: Slurm never gives two components of a heterogeneous job the same node.
  if (new Set(nodes).size !== nodes.length) {
    throw new Error(`ranks of run ${plan.runId} share a Slurm node (${nodes.join(", ")}); one rank per node`);
  }
  if (plan.components.length === 0 || plan.components[0]!.ranks.every((r) => r.rank !== 0)) {
    throw new Error(`run ${plan.runId}: the first component must hold rank 0 (the batch script runs there)`);
  }
  // Pull mode: no run directory exists on the batch node before the step, so the batch output goes to
  // its /tmp (the training's own output streams to ingest either way).
  const log = plan.pull ? "/tmp/starforge-slurm-%j.out" : `${ranks[0]!.runDir}/.starforge/slurm-%j.out`;
  return {
    script: batchScript(plan),
    name: slurmJobName(plan.runId),
    comment: `starforge run=${plan.runId} job=${plan.jobId} epoch=${plan.epoch}`,
    environment: { ...(plan.secrets ?? {}), PATH: plan.path, SF_RUN_ID: plan.runId },
    cwd: plan.pull ? "/tmp" : ranks[0]!.runDir,
    stdout: log,
    stderr: log,
    components: plan.components.map((c) => ({
      nodelist: [...c.ranks].sort((a, b) => a.rank - b.rank).map((r) => r.node),
      gpusPerNode: c.gpusPerNode,
      cpusPerTask: c.cpusPerTask ?? null,
      memoryPerNodeMb: c.memoryPerNodeMb ?? null,
    })),
    timeLimitMinutes:
      plan.maxRuntimeSeconds === null ? null : Math.max(1, Math.ceil(plan.maxRuntimeSeconds / 60)),
    partition: plan.partition,
    account: plan.account,
    qos: plan.qos,
  };
}
