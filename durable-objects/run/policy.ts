/**
 * The Run DO's pure rules, tested without workerd: when a held-back log line is released to readers,
 * how a reported timestamp becomes epoch milliseconds, and when a run counts as over.
 *
 * Log order model: each (rank, stream) numbers its lines with `seq` (0, 1, 2, …). A stored line becomes
 * visible only when it is *released*, and release happens strictly in seq order per (rank, stream): a
 * line whose predecessor has not arrived yet is held back. Each released line gets the next value of one
 * run-wide `cursor` (0, 1, 2, … with no holes), so reading by cursor is gap-free and, within a
 * (rank, stream), in seq order — whatever order or how often the batches arrived. A hole that never
 * fills (a batch the client gave up on) must not stall its stream forever, so it is skipped after a
 * bounded wait or backlog, or at once when the run is over.
 */

export interface LogHoldLimits {
  /** Lines a (rank, stream) may hold behind one missing seq before the hole is skipped. */
  maxHeldLines: number;
  /** How long the oldest held line may wait for its missing predecessors. */
  maxWaitMs: number;
}

/**
 * 30 s covers a client's retry backoff (the capsule's caps at 5 s per attempt) with room to spare, yet is
 * short enough that a live tail does not look frozen; 5,000 lines bounds what one stuck stream pins.
 */
export const LOG_HOLD_LIMITS: LogHoldLimits = { maxHeldLines: 5000, maxWaitMs: 30_000 };

export interface HeldLine {
  seq: number;
  /** When the server stored it (epoch ms). */
  receivedAt: number;
}

export interface ReleaseInput {
  /** Every seq below this is released or was skipped. */
  nextSeq: number;
  /** Held lines of one (rank, stream) with seq ≥ nextSeq, ascending; may be a prefix of all of them. */
  held: HeldLine[];
  /** How many lines the stream holds in all (≥ held.length). */
  heldTotal: number;
  now: number;
  /** Release everything, skipping holes (the run is over). */
  force: boolean;
}

export interface ReleasePlan {
  /** Seqs to release now, in this order. */
  release: number[];
  nextSeq: number;
  /** Holes given up on: seqs in [from, to) never arrived in time. */
  skipped: Array<{ from: number; to: number }>;
}

export function planRelease(input: ReleaseInput, limits: LogHoldLimits = LOG_HOLD_LIMITS): ReleasePlan {
  const { held, now, force } = input;
  // oldestFrom[i]: the earliest arrival among held[i..], i.e. how long the stream has been stuck at i.
  const oldestFrom = new Array<number>(held.length + 1).fill(Number.POSITIVE_INFINITY);
  for (let i = held.length - 1; i >= 0; i--)
    oldestFrom[i] = Math.min(held[i]!.receivedAt, oldestFrom[i + 1]!);

  let next = input.nextSeq;
  let remaining = input.heldTotal;
  const release: number[] = [];
  const skipped: Array<{ from: number; to: number }> = [];
  for (let i = 0; i < held.length; i++) {
    const h = held[i]!;
    if (h.seq < next) continue;
    if (h.seq > next) {
      const giveUp = force || remaining > limits.maxHeldLines || now - oldestFrom[i]! >= limits.maxWaitMs;
      if (!giveUp) break;
      skipped.push({ from: next, to: h.seq });
      next = h.seq;
    }
    release.push(h.seq);
    next += 1;
    remaining -= 1;
  }
  return { release, nextSeq: next, skipped };
}

/**
 * A reported timestamp as epoch ms. The original client sends ISO-8601 strings; numbers are epoch
 * seconds (Python's `time.time()`) when below 1e11 (year 5138 in seconds, 1973 in ms), else epoch ms.
 * Anything unreadable becomes the receive time: a batch is never refused for its clock.
 */
/** The largest time a JavaScript Date can hold. */
const MAX_DATE_MS = 8.64e15;

export function normalizeTs(ts: string | number | null | undefined, receivedAt: number): number {
  if (ts === undefined || ts === null) return receivedAt;
  if (typeof ts === "number") {
    const ms = Math.round(ts < 1e11 ? ts * 1000 : ts);
    return Number.isFinite(ms) && ms >= 0 && ms <= MAX_DATE_MS ? ms : receivedAt;
  }
  const ms = Date.parse(ts);
  return Number.isFinite(ms) && ms >= 0 ? ms : receivedAt;
}

/**
 * Terminal text from an unsequenced writer (the original client's `/logs` chunks) as log lines. A chunk
 * holds several lines; it is split at "\n" ("\r\n" loses its "\r"), and a last piece without a newline
 * is a line of its own rather than being dropped or held back for a rest that may never come. A chunk's
 * final newline ends its last line; it does not start an empty one. A line longer than `maxLine` is cut
 * into pieces, so nothing is refused for its length.
 */
export function consoleLines(chunk: string, maxLine: number): string[] {
  if (chunk === "") return [];
  const pieces = chunk.split("\n");
  if (pieces[pieces.length - 1] === "") pieces.pop();
  const lines: string[] = [];
  for (const raw of pieces) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    let at = 0;
    while (line.length - at > maxLine) {
      let end = at + maxLine;
      // Never cut between the two halves of a surrogate pair (an emoji would become two broken halves).
      const code = line.charCodeAt(end - 1);
      if (code >= 0xd800 && code <= 0xdbff) end -= 1;
      lines.push(line.slice(at, end));
      at = end;
    }
    lines.push(line.slice(at));
  }
  return lines;
}

/** Lines per rank a failure's diagnosis reads (its last ones): a traceback and what led to it fit well within. */
export const DIAGNOSIS_LINES = 500;

/** Meta keys of the run's live watch (run/monitor.ts): its job's settings, its progress, what it raised. */
export const WATCH_KEY = "watch";
export const PROGRESS_KEY = "progress";
export const NAN_RAISED_KEY = "nan_raised";
/** An anomaly its fleet did not take (unreachable): the alarm tries again after ANOMALY_RETRY_MS. */
export const ANOMALY_PENDING_KEY = "anomaly_pending";
export const ANOMALY_RETRY_MS = 5_000;
