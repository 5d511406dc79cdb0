/** Submitting work: one job (`sf submit`) or a bounded grid of them (`sf sweep`). */
import type { Command } from "commander";
import type { SubmitFlags, SweepFlags } from "../impl/submit/flags.js";
import { collect } from "./options.js";

// No default value: commander would print "(default: [])" in --help. Absent means none.

function submitOptions(cmd: Command): Command {
  return cmd
    .option(
      "--profile <[role=]name[:gpus]>",
      "GPUs to run on, e.g. h200, h200:4, h200:16 (repeatable with roles)",
      collect,
      [],
    )
    .option("--set <key=value>", "override a hyperparameter from config.yaml (repeatable)", collect)
    .option(
      "--allow-dirty",
      "submit even if packed files differ from the last commit (recorded as git_dirty)",
    )
    .option("--image <image>", "container image (default: config.yaml's image, then the recipe's)")
    .option(
      "--secret <name>",
      "give the job this secret (set with `sf secret set`) as an environment variable (repeatable)",
      collect,
    )
    .option(
      "--fleet <fleet[,fleet…]>",
      "fleet to run on, or several separated by commas: the job goes to the one that can start it soonest (default: config.yaml's, then starforge.yaml's, then the server's)",
    )
    .option(
      "--fleet-selector <key=value[,…]|any>",
      "run on whichever fleet with these labels (sf admin fleet ls shows them) can start it soonest; `any`: every fleet whose GPUs fit",
    )
    .option(
      "--priority-class <name>",
      "priority class (default: config.yaml's lifecycle.priority_class, then normal); `sf admin priority-class ls` lists them",
    )
    .option(
      "--team <name>",
      "the team the job runs for, one you are a member of (default: your primary team); `sf admin team ls` lists them",
    );
}

export function register(program: Command): void {
  submitOptions(
    program
      .command("submit")
      .description("pack the experiment, upload what the server lacks and submit it as a job")
      .argument("<experiment>", "experiment name (a directory under experiments/)"),
  )
    .option("--name <name>", "job name (default: the experiment's)")
    .option(
      "-f, --follow",
      "stream the job's logs until it ends, through its automatic retries (exit 7 if it ends FAILED or STOPPED)",
    )
    .option(
      "--dry-run",
      "run every check and say what would happen now (start, preempt which jobs, or wait and why); submit nothing",
    )
    .addHelpText(
      "after",
      `
Checks run before anything is uploaded: lock, hyperparameters (offline), profiles, the catalog handshake,
secret files by name (.env, *.pem, …) and credentials inside any packed text file up to 5 MiB
(HuggingFace, AWS and GitHub tokens, private keys, .netrc passwords), a clean git tree. Only blobs the
server lacks are uploaded, with a progress bar (bytes, throughput, time left). Files of 64 MiB or more go
straight to object storage in 16 MiB parts where the server offers it; if an upload is interrupted, run
the same command again: only the parts not yet stored are sent.
Environment: SF_DIRECT_UPLOAD_THRESHOLD_BYTES (default 67108864) changes that size.
config.yaml's lifecycle (retries, time limits, on_anomaly, hang_factor, hang_floor_seconds, …; see
\`sf new --help\`) becomes the job's; a value out of its limits is refused with BAD_CONFIG (exit 5).
With --follow, a failure its diagnosis retries is followed into the next attempt.

Examples:
  sf submit exp1 --profile h200:1
  sf submit exp1 --profile h200:16 --set learning_rate=0.05 --follow
  sf submit exp1 --profile trainer=h200:8 --profile eval=l40s:1 --allow-dirty
  sf submit exp1 --profile h200:8 --priority-class high   # may preempt lower classes (docs/scheduling.md)
  sf submit exp1 --profile h200:8 --priority-class high --dry-run   # which jobs it would preempt
  sf submit exp1 --profile h200:8 --team vision   # runs on (and may reclaim) team vision's guarantee`,
    )
    .action(async (exp: string, o: SubmitFlags, cmd: Command) =>
      (await import("../impl/submit/submit.js")).submit(cmd, exp, o),
    );

  submitOptions(
    program
      .command("sweep")
      .description("submit the cartesian product of --set-grid values as jobs sharing one sweep id")
      .argument("<experiment>", "experiment name (a directory under experiments/)"),
  )
    .option("--set-grid <key=v1,v2,...>", "values to sweep for one hyperparameter (repeatable)", collect)
    .option("--max <n>", "refuse a sweep with more combinations than this", "32")
    .option("--name <name>", "base job name (default: the experiment's); jobs are named <name>-s<index>")
    .addHelpText(
      "after",
      `
Every combination is validated before anything is uploaded (all or none); the workspace is packed and
uploaded once.

Examples:
  sf sweep exp1 --profile h200:1 --set-grid learning_rate=0.05,0.1,0.2 --set-grid seed=1,2
  sf sweep exp1 --profile h200:1 --set-grid seed=1,2,3 --team vision --priority-class low`,
    )
    .action(async (exp: string, o: SweepFlags, cmd: Command) =>
      (await import("../impl/submit/sweep.js")).sweep(cmd, exp, o),
    );
}
