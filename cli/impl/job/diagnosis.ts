/**
 * A failed run's diagnosis as sf shows it (issue 29): which run's diagnosis a job has, whether one is still
 * on its way, and the "Why it failed" block of `sf job status`. Pure: rendering takes the width it may use.
 */
import type { JobDetailResponse, RunView } from "../../../contract/responses.schema.js";
import { c } from "../../output.js";

export type Diagnosis = NonNullable<RunView["diagnosis"]>;

/** Columns the block may use: the terminal's, else $COLUMNS, else a width that suits a log or a pipe. */
export function outputWidth(): number {
  const tty = process.stdout.isTTY ? process.stdout.columns : undefined;
  const env = Number(process.env.COLUMNS);
  const w = tty ?? (Number.isInteger(env) && env > 0 ? env : 120);
  return Math.max(60, w);
}

/**
 * The diagnosis a person asking "why did it fail" means: the latest run's (the API's top-level
 * `diagnosis`); else, for a job retried since, the latest earlier run that has one. Null when no run has.
 */
export function diagnosedRun(d: JobDetailResponse): { run: RunView; diagnosis: Diagnosis } | null {
  for (const run of [...d.runs].reverse()) if (run.diagnosis) return { run, diagnosis: run.diagnosis };
  return null;
}

/**
 * The job is FAILED and its latest run's diagnosis is still on its way (it follows within seconds). Its
 * FAILED event names a `diagnosis` ("pending" until it is made) only where the server diagnoses failures,
 * so a job that failed before that, or without a run, is not "diagnosing" forever.
 */
export function diagnosing(d: JobDetailResponse): boolean {
  if (d.job.status !== "FAILED" || d.runs.length === 0 || d.runs.at(-1)?.diagnosis) return false;
  const detail = d.events.findLast((e) => e.to === "FAILED")?.detail;
  return Boolean(detail && typeof detail === "object" && "diagnosis" in detail);
}

/** A log line made safe for one row of a terminal: no tabs or control characters, at most `max` wide. */
export function oneLine(text: string, max: number): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
  const flat = text.replace(/\t/g, "  ").replace(/[\x00-\x1f\x7f]/g, "");
  return flat.length > max ? `${flat.slice(0, Math.max(1, max - 1))}…` : flat;
}

/** Words of `text` in lines of at most `width` (a word longer than that gets a line of its own). */
export function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  return out;
}

const LABEL = 8;

/** `label` then `text` wrapped under itself: the rows of the block. */
function row(label: string, text: string, width: number): string[] {
  const lines = wrap(text, Math.max(20, width - 2 - LABEL));
  return lines.map((l, i) => `  ${i === 0 ? c.dim(label.padEnd(LABEL)) : " ".repeat(LABEL)}${l}`);
}

/** Where the cause was: `rank 3 on node gpu-b`, or what is known of it. */
export function whereOf(x: Pick<Diagnosis, "rank" | "node">): string | null {
  if (x.rank === null) return x.node ? `node ${x.node}` : null;
  return `rank ${x.rank}${x.node ? ` on node ${x.node}` : ""}`;
}

/** What was done about it: the retry decision in words, and the node cordoned for a GPU failure. */
export function actionText(a: Diagnosis["action"]): string {
  return `${a.why}${a.cordoned ? `; node ${a.cordoned} cordoned` : ""}`;
}

/**
 * The "Why it failed" block: class and summary, the root-cause rank and node, the line it rests on (its
 * stream and cursor, its text cut to the width), the hint and what was done. `run` names the run when it
 * is not the job's latest (a retried job's earlier failure).
 */
export function whyItFailed(
  dg: Diagnosis,
  o: { jobId: string; width: number; run?: Pick<RunView, "id" | "attempt"> },
): string[] {
  const title = `${o.run ? `Why attempt ${o.run.attempt} failed (${o.run.id})` : "Why it failed"}:`;
  // The summary of a generic class quotes its line, which the `line` row shows whole: cut it to one row.
  const summary = oneLine(dg.summary, Math.max(20, o.width - title.length - dg.class.length - 4));
  const out = [`${c.bold(c.red(title))} ${c.bold(dg.class)} ${c.dim("—")} ${summary}`];
  const where = whereOf(dg);
  if (where) out.push(...row("where", where, o.width));
  if (dg.line) {
    const at = dg.line.cursor === null ? `seq ${dg.line.seq}` : `cursor ${dg.line.cursor}`;
    out.push(`  ${c.dim("line".padEnd(LABEL))}${c.dim(`${dg.line.stream}, ${at}`)}`);
    out.push(`  ${" ".repeat(LABEL)}${oneLine(dg.line.text, o.width - 2 - LABEL)}`);
  } else if (!dg.from_logs) out.push(...row("line", "none: its logs could not be read in time", o.width));
  out.push(...row("hint", dg.hint, o.width));
  out.push(...row("done", actionText(dg.action), o.width));
  const more = `sf job logs ${o.jobId} --cause${o.run ? ` --run ${o.run.id}` : ""}`;
  out.push(`  ${c.dim("more".padEnd(LABEL))}${c.dim(more)}`);
  return out;
}

/** What `sf job status` prints under the job's header about its failure, if anything. */
export function failureBlock(d: JobDetailResponse, width: number): string[] {
  const found = diagnosedRun(d);
  const latest = d.runs.at(-1);
  if (found && found.run === latest) return whyItFailed(found.diagnosis, { jobId: d.job.id, width });
  if (diagnosing(d))
    return [`${c.bold(c.red("Why it failed:"))} ${c.dim("diagnosing… (it arrives within seconds)")}`];
  if (found) {
    // Retried since: the earlier failure in one line; the job's current run has its own state.
    const { run, diagnosis: dg } = found;
    return [
      `${c.yellow(`attempt ${run.attempt} failed:`)} ${dg.class} ${c.dim("—")} ${dg.summary}; ${actionText(dg.action)} ${c.dim(`(sf job logs ${d.job.id} --cause --run ${run.id})`)}`,
    ];
  }
  return [];
}
