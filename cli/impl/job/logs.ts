/** `sf job logs [ID] [-f] [--tail N]`: a run's log lines, or a live follow until the job ends. */
import type { Command } from "commander";
import { type LogLine, LogsPage } from "../../../contract/responses.schema.js";
import type { Api } from "../../api.js";
import { authedApi } from "../../context.js";
import { CliError, EXIT } from "../../errors.js";
import { info, isJson, printJson } from "../../output.js";
import { followExitCode, followJob, formatLogLine } from "./follow.js";
import { latestJob } from "./list.js";

export interface LogsOptions {
  follow?: boolean;
  tail?: string;
  run?: string;
  quiet?: boolean;
  rank?: number;
}

function parseTail(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0)
    throw new CliError(`--tail must be a non-negative integer, got "${raw}"`, { exit: EXIT.USAGE });
  return n;
}

/** Every released line of one run (the job's current or latest unless `run` is given), in cursor order. */
export async function readLogs(
  api: Api,
  jobId: string,
  run?: string,
  rank?: number,
): Promise<{ run_id: string; lines: LogLine[] }> {
  const lines: LogLine[] = [];
  let offset = 0;
  let runId = run;
  for (;;) {
    const q = new URLSearchParams({ offset: String(offset), limit: "5000" });
    // Pin the run the first page picked, so a retry starting mid-read cannot splice two runs together.
    if (runId) q.set("run", runId);
    if (rank !== undefined) q.set("rank", String(rank));
    const p = await api
      .get(`/v1/jobs/${encodeURIComponent(jobId)}/logs?${q}`, LogsPage)
      .catch((err: unknown) => {
        if (err instanceof CliError && err.code === "NOT_FOUND" && !run) {
          throw new CliError(err.message, {
            code: err.code,
            exit: err.exit,
            hint: `\`sf job status ${jobId}\` shows why it waits; \`sf job logs ${jobId} -f\` waits for it`,
          });
        }
        throw err;
      });
    runId = p.run_id;
    lines.push(...p.lines);
    if (p.lines.length === 0) return { run_id: p.run_id, lines };
    offset = p.next_offset;
  }
}

export async function logs(cmd: Command, id: string | undefined, o: LogsOptions): Promise<void> {
  const api = authedApi(cmd);
  const tail = parseTail(o.tail);
  let jobId = id;
  if (!jobId) {
    const latest = await latestJob(api);
    jobId = latest.id;
    info(`(your most recent job: ${latest.id} ${latest.name})`);
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
