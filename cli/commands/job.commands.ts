/**
 * Following and inspecting jobs: `sf job …`, `sf status` and `sf usage`. Each action imports its
 * implementation only when it runs, so `sf --help` loads none of it.
 */
import { type Command, InvalidArgumentError, Option } from "commander";
import { examples, int } from "./options.js";

type Action = "stop" | "pause" | "resume";
const ACTIONS: Array<[Action, string, string]> = [
  [
    "stop",
    "stop a job (queued, launching, running or paused); its GPUs are released",
    "sf job stop job_01jv6… --reason 'wrong learning rate'",
  ],
  [
    "pause",
    "pause a queued or running job; a running one checkpoints and releases its GPUs",
    "sf job pause job_01jv6…",
  ],
  [
    "resume",
    "queue a paused, stopped or failed job again (from its last checkpoint)",
    "sf job resume job_01jv6…",
  ],
];

export function register(program: Command): void {
  const job = program
    .command("job")
    .description(
      "follow and inspect your jobs: list, status, logs, metrics, samples, artifacts, stop/pause/resume",
    )
    .addHelpText(
      "after",
      examples(["sf job ls", "sf job logs -f", "sf job metrics job_01jv6… --key train/loss"]),
    );

  job
    .command("ls")
    .description("list your jobs, newest first")
    .option("--all", "every user's jobs (admins only)")
    .option("--status <states>", "only these states, comma-separated (e.g. queued,running)")
    .option("--fleet <fleet>", "only jobs on this fleet (name or id)")
    .option("--limit <n>", "show at most N jobs (default 30; pages are followed)")
    .addHelpText(
      "after",
      examples([
        "sf job ls",
        "sf job ls --status queued,running --fleet local",
        "sf job ls --all --limit 200 --json",
      ]),
    )
    .action(async (o, cmd: Command) => (await import("../impl/job/list.js")).ls(cmd, o));

  job
    .command("status")
    .argument("<id>", "the job id (job_…)")
    .description(
      "show a job: why it failed (its diagnosis: class, rank, the log line, a hint, what was done) or why it waits while queued, its runs (exit code, reason, placement), the latest run's hyperparameters and environment, and recent events",
    )
    .option("--events <n>", "how many recent events to show (default 8)")
    .addHelpText(
      "after",
      examples([
        "sf job status job_01jv6…",
        "sf job status job_01jv6… --json | jq '.job.pending_reasons'",
        "sf job status job_01jv6… --json | jq '.diagnosis | {class, rank, hint}'",
      ]),
    )
    .action(async (id: string, o, cmd: Command) => (await import("../impl/job/show.js")).show(cmd, id, o));

  job
    .command("why")
    .argument("<id>", "the job id (job_…)")
    .description(
      "say why a job is where it is: what it waits for, and for a job placed over several fleets, every candidate fleet, its estimated start and why it was or was not chosen",
    )
    .addHelpText("after", examples(["sf job why job_01jv6…", "sf job why job_01jv6… --json | jq .placement"]))
    .action(async (id: string, _o, cmd: Command) => (await import("../impl/job/why.js")).why(cmd, id));

  job
    .command("logs")
    .argument("[id]", "the job id (default: your most recent job)")
    .description(
      "print a job's log lines, follow them live until the job ends, or show the lines around why it failed (--cause)",
    )
    .option(
      "-f, --follow",
      "stream new lines until the job ends, through the retries its failures' diagnoses decide; resumes after a dropped connection without gaps or repeats",
    )
    .option("--tail <n>", "only the last N lines (with -f: then follow)")
    .option("--run <run>", "a specific run (run_…) instead of the current one (not with -f)")
    .option(
      "--rank <n>",
      "only the lines of one rank of a distributed job (its process rank; otherwise its node rank)",
      (v: string) => {
        if (!/^\d+$/.test(v)) throw new InvalidArgumentError("--rank must be an integer ≥ 0");
        return Number(v);
      },
    )
    .option("-q, --quiet", "with -f: no waiting/reconnecting/final-status notes on stderr")
    .option(
      "--cause",
      "a failed job: the lines around the one its diagnosis rests on (that rank's, the cause marked >>), then the hint",
    )
    .option(
      "--before <n>",
      "with --cause: how many of the rank's lines to show before the cause (default 20)",
      int("--before", 0),
    )
    .addHelpText(
      "after",
      `${examples(["sf job logs                      # your most recent job", "sf job logs job_01jv6… --tail 50", "sf job logs job_01jv6… -f        # exits 0 on SUCCEEDED, 7 on FAILED/STOPPED", "sf job logs job_01jv6… --rank 3  # one rank of a distributed job", "sf job logs job_01jv6… --cause --before 40  # why it failed, in its log"])}

With -f, a run that fails while the job will be retried (its diagnosis says so) is not the end: sf
says why it failed and follows the next attempt. A job that ends FAILED shows its diagnosis on the way out.
With --json, lines are printed as one JSON object per line (with -f, ending with the job's final status
and diagnosis); with --cause, one object: the diagnosis, and the lines before, at and after the cause.
A job with no diagnosis (it has not failed, or failed a moment ago and is still being diagnosed)
exits 4 with NO_DIAGNOSIS.`,
    )
    .action(async (id: string | undefined, o, cmd: Command) =>
      (await import("../impl/job/logs.js")).logs(cmd, id, o),
    );

  job
    .command("metrics")
    .argument("<id>", "the job id")
    .description(
      "list a run's metric keys with their last value, or show one curve as a table and a sparkline",
    )
    .option("--key <key>", "the metric to show (e.g. train/loss)")
    .option("--rows <n>", "table rows for --key, evenly spaced (default 20; 0 = every point)")
    .option("--run <run>", "a specific run (run_…) instead of the current one")
    .addHelpText(
      "after",
      examples([
        "sf job metrics job_01jv6…",
        "sf job metrics job_01jv6… --key train/loss",
        "sf job metrics job_01jv6… --key train/loss --json",
      ]),
    )
    .action(async (id: string, o, cmd: Command) =>
      (await import("../impl/job/metrics.js")).metrics(cmd, id, o),
    );

  job
    .command("samples")
    .argument("<id>", "the job id")
    .description(
      "show the validation samples a run reported: each step's summary, or one step's prompts, answers and rewards",
    )
    .option("--step <n>", "the samples of this step (default: list the steps)")
    .option("--limit <n>", "with --step: at most N samples (default 20; pages are followed)")
    .option("--run <run>", "a specific run (run_…) instead of the current one")
    .addHelpText(
      "after",
      examples([
        "sf job samples job_01jv6…",
        "sf job samples job_01jv6… --step 500",
        "sf job samples job_01jv6… --step 500 --limit 200 --json | jq '.samples[].reward'",
      ]),
    )
    .action(async (id: string, o, cmd: Command) =>
      (await import("../impl/job/samples.js")).samples(cmd, id, o),
    );

  job
    .command("artifacts")
    .argument("<id>", "the job id")
    .description("list a run's artifacts (checkpoints, …), or download them with their sha256 verified")
    .option("--download [path]", "download one artifact (default: the latest checkpoint)")
    .option("--all", "download every artifact whose bytes were uploaded (implies --download)")
    .option("--out <dir>", "where to write (default: the current directory; artifact paths are kept)")
    .option("--run <run>", "a specific run (run_…) instead of the current one")
    .addHelpText(
      "after",
      examples([
        "sf job artifacts job_01jv6…",
        "sf job artifacts job_01jv6… --download                  # the latest checkpoint",
        "sf job artifacts job_01jv6… --download checkpoints/step-100/model.pt --out ./ckpt",
        "sf job artifacts job_01jv6… --download --all --out ./run1",
      ]),
    )
    .action(async (id: string, o, cmd: Command) =>
      (await import("../impl/job/artifacts.js")).artifacts(cmd, id, o),
    );

  for (const [action, description, example] of ACTIONS) {
    job
      .command(action)
      .argument("<id>", "the job id")
      .description(description)
      .option("--reason <text>", "why (recorded in the job's events)")
      .addHelpText(
        "after",
        `${examples([example])}\n\nA state that does not allow it exits 5 with INVALID_TRANSITION.`,
      )
      .action(async (id: string, o: { reason?: string }, cmd: Command) =>
        (await import("../impl/job/actions.js")).act(cmd, action, id, o),
      );
  }

  program
    .command("status")
    .description("my usage against my quota (jobs, GPUs, GPU-hours) and each fleet's GPU totals")
    .addHelpText("after", examples(["sf status", "sf status --json | jq '.fleets[] | {name, free, queued}'"]))
    .action(async (_o: unknown, cmd: Command) => (await import("../impl/job/usage.js")).statusCmd(cmd));

  program
    .command("usage")
    .description(
      "GPU-hours by team in a calendar month or ISO week (UTC): in each team's guarantee, borrowed, and against its budget",
    )
    .addOption(
      new Option("--by <what>", "what to add up by (team: per team; --csv: per team and fleet)")
        .choices(["team"])
        .default("team"),
    )
    .option(
      "--period <period>",
      "a calendar month (2026-12) or an ISO week (2026-W49), UTC (default: this month)",
    )
    .option(
      "--csv",
      "print the server's CSV (per team and fleet, in GPU-seconds) as it came, e.g. to redirect to a file",
    )
    .addHelpText(
      "after",
      `
A team's GPU-hours are those of every GPU its jobs' runs held in the period:
finished runs as the ledger recorded them, running ones up to now. "in
guarantee" ran on the team's guaranteed GPUs (or where no team holds any),
"borrowed" on GPUs other teams left idle; "lost to preemption" is the part
its preempted runs trained past their last checkpoint. The budget (\`sf admin team budget\`)
shows for the current month or week, with its policy and how much of it is
used. Admins see every team (and jobs of no team); others the teams they are
members of. The CSV has a row per team and fleet, under the header
  team,fleet,in_guarantee_gpu_seconds,borrowed_gpu_seconds,gpu_seconds,gpu_hours,
  lost_gpu_seconds
(team empty: jobs of no team); its rows add up to the ledger, to the millisecond.
Your own usage against your quota: \`sf status\`.
${examples([
  "sf usage --by team",
  "sf usage --by team --period 2026-W49",
  "sf usage --by team --period 2026-11 --csv > usage-2026-11.csv",
  "sf usage --by team --json | jq '.teams[] | {team, gpu_hours, budget_percent}'",
])}`,
    )
    .action(async (o, cmd: Command) => (await import("../impl/job/usage.js")).usageBy(cmd, o));
}
