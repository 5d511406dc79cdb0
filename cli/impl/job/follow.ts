/**
 * Following a job's logs live (`sf job logs -f`, `sf submit --follow`). The server's SSE tail gives each
 * line its run-wide cursor as the event id; after a dropped connection we reconnect with Last-Event-ID =
 * the last cursor printed, so every line is printed exactly once and in order. The run to read is pinned
 * by id, because cursors only mean something within one run. When the tail says `end`, the job's final
 * status is read from the ledger (which can trail the run by a moment), and a retry's new run is followed
 * in turn. A FAILED job is not over while its failure's diagnosis is on its way or says it is retried
 * (docs/operations.md "Failure diagnosis"): the control plane re-queues it after a backoff.
 */
import { type Backoff, backoffDelay, sleepBackoff } from "../../../contract/backoff.js";
import {
  type JobDetailResponse,
  LogLine,
  LogsPage,
  type RunView,
} from "../../../contract/responses.schema.js";
import { type Api, parse, readJson, route } from "../../api.js";
import { CliError, EXIT, type ExitCode } from "../../errors.js";
import { c, info, isJson, status as paintStatus } from "../../output.js";
import { actionText, type Diagnosis, diagnosing, oneLine } from "./diagnosis.js";
import { getJob as getJobOnce } from "./show.js";
import { SseParser } from "./sse.js";

export interface FollowOptions {
  /** Start with the last N lines already written instead of all of them. */
  tail?: number;
  /** No progress chatter on stderr (waiting, reconnecting, the final status line). */
  quiet?: boolean;
  /** Only the lines of this rank (a distributed run's process or node rank). */
  rank?: number;
}

export interface FollowResult {
  status: string;
  run_id: string | null;
  reason: string | null;
  exit_code: number | null;
  /** A FAILED job's last run's diagnosis (null: none, or not made yet). */
  diagnosis: Diagnosis | null;
}

const RESTING = new Set(["SUCCEEDED", "FAILED", "STOPPED", "PAUSED"]);
/** The server sends a keep-alive comment every 15 s; silence for longer means a dead connection. */
const IDLE_MS = 40_000;
/** Give up after this long without one successful connection. */
const GIVE_UP_MS = 120_000;
/** How long the ledger may trail the end of a run before we stop waiting for its final status. */
const SETTLE_MS = 60_000;
/** A summary quotes its log line at times: the retry notice keeps it to one line of a terminal. */
const SUMMARY_WIDTH = 160;

export function followExitCode(status: string): ExitCode {
  return status === "FAILED" || status === "STOPPED" ? EXIT.JOB_FAILED : EXIT.OK;
}

/**
 * What a FAILED job waits for, if anything: the diagnosis of its current run (due within seconds), or the
 * retry that diagnosis decided (due after a backoff). Null: it rests, as any other final status.
 */
export function awaitingRetry(
  d: JobDetailResponse,
): { kind: "diagnosing" } | { kind: "retrying"; run: RunView; diagnosis: Diagnosis } | null {
  if (d.job.status !== "FAILED") return null;
  const run = d.runs.find((r) => r.id === (d.job.current_run_id ?? d.runs.at(-1)?.id));
  if (run?.diagnosis)
    return run.diagnosis.action.retried ? { kind: "retrying", run, diagnosis: run.diagnosis } : null;
  return diagnosing(d) ? { kind: "diagnosing" } : null;
}

/** `attempt 1 failed: NETWORK — a network connection failed; retry 1 of 1 (NETWORK is retried); …`. */
export function retryNotice(run: Pick<RunView, "attempt">, dg: Diagnosis): string {
  return `${c.yellow(`attempt ${run.attempt} failed:`)} ${c.bold(dg.class)} — ${oneLine(dg.summary, SUMMARY_WIDTH)}; ${actionText(dg.action)}; attempt ${run.attempt + 1} follows after the retry backoff`;
}

export function formatLogLine(l: LogLine, multiRank: boolean): string {
  if (isJson()) return JSON.stringify(l);
  const prefix = multiRank ? c.dim(`[${l.rank}] `) : "";
  return prefix + (l.stream === "stderr" ? c.yellow(l.line) : l.line);
}

/**
 * The job, read again through a dropped connection: a follow must survive a network blip while it polls
 * as well as while it streams.
 */
async function getJob(api: Api, jobId: string): Promise<JobDetailResponse> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      return await getJobOnce(api, jobId);
    } catch (err) {
      if (!(err instanceof CliError) || err.exit !== EXIT.UNAVAILABLE || Date.now() - started > GIVE_UP_MS)
        throw err;
    }
    await sleepBackoff(attempt, FOLLOW_BACKOFF);
  }
}

/** Sleeps `ms`, or less when `signal` aborts; leaves no listener behind either way. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((ok) => {
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      ok();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Reconnects use full jitter (contract/backoff.ts), so many followers do not reconnect in step. */
const FOLLOW_BACKOFF: Backoff = { baseMs: 250, capMs: 5_000 };

export async function followJob(api: Api, jobId: string, opts: FollowOptions = {}): Promise<FollowResult> {
  const ac = new AbortController();
  const onSigint = () => {
    ac.abort();
    if (!opts.quiet)
      info(
        `\n${c.dim(`stopped following; ${jobId} keeps running (sf job logs ${jobId} -f to follow again)`)}`,
      );
    process.exit(EXIT.INTERRUPTED);
  };
  process.once("SIGINT", onSigint);
  try {
    return await followUntilEnd(api, jobId, opts, ac.signal);
  } finally {
    process.removeListener("SIGINT", onSigint);
  }
}

async function followUntilEnd(
  api: Api,
  jobId: string,
  opts: FollowOptions,
  signal: AbortSignal,
): Promise<FollowResult> {
  const say = (s: string) => {
    if (!opts.quiet) info(s);
  };
  let previous: string | null = null;
  let tail = opts.tail;
  for (;;) {
    const run = await waitForRun(api, jobId, previous, say, signal);
    if (!run) return finish(api, jobId, null, opts);
    if (previous) say(c.dim(`── attempt ${run.attempt} (${run.id}) ──`));
    const multiRank = run.placement.length > 1;
    const from = tail === undefined ? 0 : await tailStart(api, jobId, run.id, tail);
    tail = undefined;
    await streamRun(api, jobId, run.id, from, { multiRank, rank: opts.rank }, say, signal);
    const next = await settle(api, jobId, run.id, signal);
    if (next === "done") return finish(api, jobId, run.id, opts);
    previous = run.id;
  }
}

/** Waits until the job has a run other than `previous` (null: it ended without one). */
async function waitForRun(
  api: Api,
  jobId: string,
  previous: string | null,
  say: (s: string) => void,
  signal: AbortSignal,
): Promise<RunView | null> {
  let told = "";
  for (let i = 0; ; i++) {
    const d = await getJob(api, jobId);
    const current = d.job.current_run_id ?? d.runs.at(-1)?.id ?? null;
    const run = d.runs.find((r) => r.id === current);
    if (run && run.id !== previous) return run;
    const retry = awaitingRetry(d);
    if (RESTING.has(d.job.status) && !retry) return null;
    const why = d.job.pending_reasons.map((r) => r.message).join("; ");
    const line =
      retry?.kind === "retrying"
        ? retryNotice(retry.run, retry.diagnosis)
        : retry?.kind === "diagnosing"
          ? c.dim("waiting: the failure's diagnosis decides whether it is retried")
          : c.dim(
              d.job.status === "QUEUED" ? `waiting: ${why || "queued"}` : `waiting: job is ${d.job.status}`,
            );
    if (line !== told) say(line);
    told = line;
    await sleep(Math.min(3_000, 500 + i * 250), signal);
  }
}

/** The first cursor of the last `n` lines of a run. */
async function tailStart(api: Api, jobId: string, runId: string, n: number): Promise<number> {
  let offset = 0;
  for (;;) {
    const q = new URLSearchParams({ run: runId, offset: String(offset), limit: "5000" });
    const page = await api.get(route("/v1/jobs/{id}/logs", { id: jobId }, q), LogsPage);
    if (page.lines.length === 0) return Math.max(0, page.next_offset - n);
    offset = page.next_offset;
  }
}

/** Prints a run's lines from cursor `from` until the tail says `end`, reconnecting as often as it takes. */
async function streamRun(
  api: Api,
  jobId: string,
  runId: string,
  from: number,
  show: { multiRank: boolean; rank?: number },
  say: (s: string) => void,
  signal: AbortSignal,
): Promise<void> {
  let last = from - 1;
  let attempt = 0;
  let lastGood = Date.now();
  for (;;) {
    const conn = new AbortController();
    const abortConn = () => conn.abort();
    signal.addEventListener("abort", abortConn);
    let idle: NodeJS.Timeout | undefined;
    const resetIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(abortConn, IDLE_MS);
    };
    let why = "the connection closed";
    try {
      const q = new URLSearchParams({ follow: "1", run: runId, offset: String(from) });
      const headers: Record<string, string> = { accept: "text/event-stream" };
      if (last >= 0) headers["last-event-id"] = String(last);
      const res = await api.fetch("GET", route("/v1/jobs/{id}/logs", { id: jobId }, q), undefined, {
        headers,
        signal: conn.signal,
      });
      if (!res.ok) {
        const err = await readJson(res).then(
          () => new CliError(`HTTP ${res.status}`),
          (e: unknown) => e,
        );
        if (res.status < 500 && res.status !== 429) throw err;
        why = err instanceof Error ? err.message : `HTTP ${res.status}`;
      } else if (res.body) {
        lastGood = Date.now();
        resetIdle();
        const parser = new SseParser();
        const decoder = new TextDecoder();
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          resetIdle();
          for (const ev of parser.push(decoder.decode(chunk, { stream: true }))) {
            if (ev.event === "end") return;
            if (ev.event !== "message") continue;
            const line = parse(LogLine, jsonOf(ev.data), "log line");
            // A server replaying from an older cursor must not make us print a line twice.
            if (line.cursor <= last) continue;
            // Ranks beyond the placement's nodes (one process per GPU) turn the rank prefix on too.
            show.multiRank ||= line.rank > 0;
            if (show.rank === undefined || line.rank === show.rank)
              process.stdout.write(`${formatLogLine(line, show.multiRank)}\n`);
            last = line.cursor;
            attempt = 0;
            lastGood = Date.now();
          }
        }
      }
    } catch (err) {
      if (signal.aborted) throw err;
      if (err instanceof CliError && err.exit !== EXIT.UNAVAILABLE) throw err;
      why =
        err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    } finally {
      clearTimeout(idle);
      signal.removeEventListener("abort", abortConn);
      conn.abort();
    }
    if (Date.now() - lastGood > GIVE_UP_MS) {
      throw new CliError(`lost the log stream of ${jobId} and could not get it back: ${why}`, {
        code: "UNREACHABLE",
        exit: EXIT.UNAVAILABLE,
        hint: `the job keeps running; \`sf job logs ${jobId} -f\` picks up where you like`,
      });
    }
    const wait = backoffDelay(attempt++, FOLLOW_BACKOFF);
    say(c.dim(`(log stream interrupted: ${why}; reconnecting in ${(wait / 1000).toFixed(1)} s)`));
    await sleep(wait, signal);
  }
}

function jsonOf(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new CliError(`the log stream sent an event that is not JSON: ${data.slice(0, 120)}`, {
      code: "BAD_RESPONSE",
    });
  }
}

/**
 * After a run's end: "done" once the job rests, "next" when a retry gave it a new run or is going to (a
 * FAILED job whose diagnosis retries it; one whose diagnosis is still on its way is waited for).
 */
async function settle(api: Api, jobId: string, runId: string, signal: AbortSignal): Promise<"done" | "next"> {
  const deadline = Date.now() + SETTLE_MS;
  for (let i = 0; ; i++) {
    const d = await getJob(api, jobId);
    const current = d.job.current_run_id;
    // QUEUED again (a retry, a resume) or already on another run: there is a next run to follow.
    if (d.job.status === "QUEUED" || (current && current !== runId)) return "next";
    const retry = awaitingRetry(d);
    if (retry?.kind === "retrying") return "next";
    if (RESTING.has(d.job.status) && !retry) return "done";
    if (Date.now() > deadline) return "done";
    await sleep(Math.min(2_000, 200 * (i + 1)), signal);
  }
}

async function finish(
  api: Api,
  jobId: string,
  runId: string | null,
  opts: FollowOptions,
): Promise<FollowResult> {
  const d = await getJob(api, jobId);
  const run = d.runs.find((r) => r.id === runId) ?? d.runs.at(-1) ?? null;
  const result: FollowResult = {
    status: d.job.status,
    run_id: run?.id ?? null,
    reason: run?.reason ?? null,
    exit_code: run?.exit_code ?? null,
    diagnosis: d.job.status === "FAILED" ? (run?.diagnosis ?? null) : null,
  };
  if (isJson()) process.stdout.write(`${JSON.stringify({ job_id: jobId, ...result })}\n`);
  else if (!opts.quiet) {
    const failed = followExitCode(result.status) !== EXIT.OK;
    const mark = failed ? c.red("✗") : result.status === "SUCCEEDED" ? c.green("✓") : c.yellow("•");
    const why = failed && result.reason ? `: ${result.reason}` : "";
    const code =
      failed && result.exit_code !== null && !why.includes(String(result.exit_code))
        ? ` (exit code ${result.exit_code})`
        : "";
    info(`${mark} ${jobId} ${paintStatus(result.status)}${why}${code}`);
    const dg = result.diagnosis;
    if (dg) {
      info(`  ${c.bold(dg.class)} — ${oneLine(dg.summary, SUMMARY_WIDTH)}; ${actionText(dg.action)}`);
      info(c.dim(`  why: sf job logs ${jobId} --cause`));
    } else if (result.status === "FAILED" && awaitingRetry(d)?.kind === "diagnosing")
      info(c.dim(`  its diagnosis is on its way: sf job status ${jobId}`));
  }
  return result;
}
