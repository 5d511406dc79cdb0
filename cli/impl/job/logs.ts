/**
 * `sf job logs [ID] [-f] [--tail N]`: a run's log lines, or a live follow until the job ends; with `--cause`,
 * the lines around a failure's cause (cause.ts).
 */
import type { Command } from "commander";
import { authedApi } from "../../context.js";
import { CliError, EXIT } from "../../errors.js";
import { info, isJson, printJson } from "../../output.js";
import { cause } from "./cause.js";
import { followExitCode, followJob, formatLogLine } from "./follow.js";
import { latestJob } from "./list.js";
import { readLogs } from "./log-pages.js";

export interface LogsOptions {
  follow?: boolean;
  tail?: string;
  run?: string;
  quiet?: boolean;
  rank?: number;
  cause?: boolean;
  before?: number;
}

/** What `--cause` cannot be combined with: it picks the run's rank and lines itself. */
function checkCause(o: LogsOptions): void {
  if (!o.cause) {
    if (o.before !== undefined)
      throw new CliError("--before goes with --cause (the lines before a failure's cause)", {
        exit: EXIT.USAGE,
      });
    return;
  }
  const clash = o.follow
    ? "--follow"
    : o.tail !== undefined
      ? "--tail"
      : o.rank !== undefined
        ? "--rank"
        : null;
  if (clash)
    throw new CliError(
      `--cause cannot be combined with ${clash} (it shows the cause's rank, --before lines before it)`,
      { exit: EXIT.USAGE },
    );
}

function parseTail(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0)
    throw new CliError(`--tail must be a non-negative integer, got "${raw}"`, { exit: EXIT.USAGE });
  return n;
}

export async function logs(cmd: Command, id: string | undefined, o: LogsOptions): Promise<void> {
  const api = authedApi(cmd);
  checkCause(o);
  const tail = parseTail(o.tail);
  let jobId = id;
  if (!jobId) {
    const latest = await latestJob(api);
    jobId = latest.id;
    info(`(your most recent job: ${latest.id} ${latest.name})`);
  }
  if (o.cause) {
    await cause(api, jobId, {
      ...(o.run ? { run: o.run } : {}),
      ...(o.before !== undefined ? { before: o.before } : {}),
    });
    return;
  }
  if (o.follow) {
    if (o.run)
      throw new CliError("--run cannot be combined with --follow (a follow reads the job's current run)", {
        exit: EXIT.USAGE,
      });
    const result = await followJob(api, jobId, {
      ...(tail !== undefined ? { tail } : {}),
      quiet: Boolean(o.quiet),
      ...(o.rank !== undefined ? { rank: o.rank } : {}),
    });
    const code = followExitCode(result.status);
    if (code !== EXIT.OK) process.exit(code);
    return;
  }
  const { run_id, lines } = await readLogs(api, jobId, o.run, o.rank);
  const shown = tail === undefined ? lines : tail === 0 ? [] : lines.slice(-tail);
  if (isJson()) {
    printJson({ job_id: jobId, run_id, lines: shown });
    return;
  }
  const multiRank = o.rank === undefined && new Set(lines.map((l) => l.rank)).size > 1;
  for (const l of shown) process.stdout.write(`${formatLogLine(l, multiRank)}\n`);
  if (lines.length === 0) info(`(no log lines yet for ${run_id})`);
}
