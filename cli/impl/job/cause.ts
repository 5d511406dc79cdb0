/**
 * `sf job logs ID --cause [--before N]`: the lines around the one a failed run's diagnosis rests on — its
 * rank's N lines before it and a few after, the cause marked — then the hint. A diagnosis without a line
 * (it rests on exits alone) shows the summary and the last N lines of its rank, or of every rank.
 */
import type { JobDetailResponse, LogLine, RunView } from "../../../contract/responses.schema.js";
import type { Api } from "../../api.js";
import { CliError, EXIT } from "../../errors.js";
import { c, info, isJson, print, printJson } from "../../output.js";
import {
  type Diagnosis,
  diagnosedRun,
  diagnosing,
  oneLine,
  outputWidth,
  whereOf,
  wrap,
} from "./diagnosis.js";
import { formatLogLine } from "./follow.js";
import { logsPage, readLogs } from "./log-pages.js";
import { getJob } from "./show.js";

/** Lines shown after the cause: what the process printed as it went down. */
const AFTER = 5;
/** Lines per page read around the cause. */
const PAGE = 1_000;

function noDiagnosis(message: string, hint: string, details: Record<string, unknown>): CliError {
  return new CliError(message, { code: "NO_DIAGNOSIS", exit: EXIT.NOT_FOUND, hint, details });
}

/** A run that failed a moment ago: its diagnosis follows within seconds. */
function notYet(id: string): CliError {
  return noDiagnosis(
    `${id} failed a moment ago and is not diagnosed yet`,
    `its diagnosis arrives within seconds: run this again (\`sf job status ${id}\` shows it too)`,
    { job_id: id, status: "FAILED", pending: true },
  );
}

/** The run whose diagnosis to show (`--run`, else the one `sf job status` shows), or why there is none. */
function pick(d: JobDetailResponse, runId: string | undefined): { run: RunView; diagnosis: Diagnosis } {
  const id = d.job.id;
  if (runId) {
    const run = d.runs.find((r) => r.id === runId);
    if (!run)
      throw new CliError(`${runId} is not a run of ${id}`, {
        code: "NOT_FOUND",
        exit: EXIT.NOT_FOUND,
        hint: `\`sf job status ${id}\` lists its runs`,
      });
    if (run.diagnosis) return { run, diagnosis: run.diagnosis };
    if (run === d.runs.at(-1) && diagnosing(d)) throw notYet(id);
    throw noDiagnosis(
      `run ${runId} of ${id} has no diagnosis: ${run.status === "FAILED" ? "it failed before failures were diagnosed" : `it did not fail (it is ${run.status})`}`,
      `\`sf job logs ${id} --run ${runId}\` shows its lines`,
      { job_id: id, run_id: runId, status: run.status, pending: false },
    );
  }
  const latest = d.runs.at(-1);
  if (latest?.diagnosis) return { run: latest, diagnosis: latest.diagnosis };
  if (diagnosing(d)) throw notYet(id);
  const earlier = diagnosedRun(d);
  if (earlier) {
    info(c.dim(`(attempt ${earlier.run.attempt}, ${earlier.run.id}: the job was retried since it failed)`));
    return earlier;
  }
  const why =
    d.job.status === "FAILED"
      ? "it failed without one (before it ran, or before this server diagnosed failures)"
      : `it has not failed (it is ${d.job.status})`;
  throw noDiagnosis(`${id} has no diagnosis: ${why}`, `\`sf job status ${id}\` shows where it is`, {
    job_id: id,
    status: d.job.status,
    pending: false,
  });
}

interface Around {
  before: LogLine[];
  cause: LogLine | null;
  after: LogLine[];
}

/**
 * The rank's lines from cursor `from` until `AFTER` lines past the cause (cursors are run-wide, so a rank's
 * lines are spread among the other ranks': `from` is a guess the caller widens).
 */
async function readFrom(api: Api, jobId: string, runId: string, rank: number, from: number, cursor: number) {
  const lines: LogLine[] = [];
  for (let offset = from; ; ) {
    const p = await logsPage(api, jobId, { run: runId, rank, offset, limit: PAGE });
    lines.push(...p.lines);
    if (p.lines.length === 0 || lines.filter((l) => l.cursor > cursor).length >= AFTER) return lines;
    offset = p.next_offset;
  }
}

/** The `before` lines of the cause's rank before it (at `cursor`), the cause and a few after. */
async function around(
  api: Api,
  jobId: string,
  runId: string,
  rank: number,
  cursor: number,
  before: number,
): Promise<Around> {
  for (let window = Math.max(256, before * 16); ; window *= 8) {
    const from = Math.max(0, cursor - window);
    const lines = await readFrom(api, jobId, runId, rank, from, cursor);
    const prior = lines.filter((l) => l.cursor < cursor);
    if (prior.length >= before || from === 0)
      return {
        before: before === 0 ? [] : prior.slice(-before),
        cause: lines.find((l) => l.cursor === cursor) ?? null,
        after: lines.filter((l) => l.cursor > cursor).slice(0, AFTER),
      };
  }
}

/** A line diagnosed while still held back (no cursor then): found in its rank's lines by stream and seq. */
function bySeq(lines: LogLine[], line: NonNullable<Diagnosis["line"]>, before: number): Around {
  const i = lines.findIndex((l) => l.stream === line.stream && l.seq === line.seq);
  if (i < 0) return { before: before === 0 ? [] : lines.slice(-before), cause: null, after: [] };
  return {
    before: lines.slice(Math.max(0, i - before), i),
    cause: lines[i]!,
    after: lines.slice(i + 1, i + 1 + AFTER),
  };
}

export async function cause(api: Api, jobId: string, o: { run?: string; before?: number }): Promise<void> {
  const before = o.before ?? 20;
  const d = await getJob(api, jobId);
  const { run, diagnosis: dg } = pick(d, o.run);
  const line = dg.line;
  let shown: Around;
  if (line && line.cursor !== null) shown = await around(api, jobId, run.id, line.rank, line.cursor, before);
  else if (line) shown = bySeq((await readLogs(api, jobId, run.id, line.rank)).lines, line, before);
  else {
    const all = (await readLogs(api, jobId, run.id, dg.rank ?? undefined)).lines;
    shown = { before: before === 0 ? [] : all.slice(-before), cause: null, after: [] };
  }
  if (isJson()) {
    printJson({ job_id: jobId, run_id: run.id, diagnosis: dg, ...shown });
    return;
  }
  const where = whereOf(dg);
  print(`${c.bold(c.red(`${dg.class}:`))} ${dg.summary}${where ? c.dim(` (${where})`) : ""}`);
  if (line && !shown.cause)
    info(c.dim(`(the line it rests on is no longer in the logs of ${run.id}: ${oneLine(line.text, 200)})`));
  else if (!line)
    info(
      c.dim(
        `(the diagnosis rests on exits, not on a line: the last ${before} lines of ${dg.rank === null ? "every rank" : `rank ${dg.rank}`})`,
      ),
    );
  print();
  const multiRank = !line && dg.rank === null && new Set(shown.before.map((l) => l.rank)).size > 1;
  for (const l of shown.before) print(`   ${formatLogLine(l, multiRank)}`);
  if (shown.cause) print(`${c.bold(c.red(">> "))}${c.bold(c.red(shown.cause.line))}`);
  for (const l of shown.after) print(`   ${formatLogLine(l, false)}`);
  print();
  const hint = wrap(dg.hint, Math.max(40, outputWidth() - 6));
  for (const [i, h] of hint.entries()) print(`${i === 0 ? c.dim("hint: ") : "      "}${h}`);
}
