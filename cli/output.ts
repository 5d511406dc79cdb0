/**
 * Output: data to stdout (a table for people, `--json` for programs), everything else to stderr.
 * Colour, spinners and progress bars only on a TTY (and never with NO_COLOR or --json).
 */
import pc from "picocolors";

export interface OutputOptions {
  json: boolean;
  color: boolean;
}

let opts: OutputOptions = { json: false, color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR };

export function configureOutput(o: Partial<OutputOptions>): void {
  opts = { ...opts, ...o };
  if (opts.json) opts.color = false;
}

export function isJson(): boolean {
  return opts.json;
}

const paint = (f: (s: string) => string) => (s: string) => (opts.color ? f(s) : s);
export const c = {
  bold: paint(pc.bold),
  dim: paint(pc.dim),
  red: paint(pc.red),
  green: paint(pc.green),
  yellow: paint(pc.yellow),
  cyan: paint(pc.cyan),
};

export function print(line = ""): void {
  process.stdout.write(`${line}\n`);
}

export function info(line: string): void {
  if (!opts.json) process.stderr.write(`${line}\n`);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Prints `value` as JSON with --json, else calls `human()`. */
export function emit(value: unknown, human: () => void): void {
  if (opts.json) printJson(value);
  else human();
}

/** Visible width: colour codes take no room on screen. */
function visible(s: string): number {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escapes is the point
  return s.replace(/\x1b\[[0-9;]*m/g, "").length;
}

function pad(s: string, width: number): string {
  return s + " ".repeat(Math.max(0, width - visible(s)));
}

export function table(
  rows: Array<Record<string, string | number | null | undefined>>,
  columns: string[],
): void {
  if (rows.length === 0) return;
  const cell = (v: unknown) => (v === null || v === undefined ? "-" : String(v));
  const widths = columns.map((col) => Math.max(col.length, ...rows.map((r) => visible(cell(r[col])))));
  print(c.dim(columns.map((col, i) => pad(col.toUpperCase(), widths[i]!)).join("  ")).trimEnd());
  for (const r of rows)
    print(
      columns
        .map((col, i) => pad(cell(r[col]), widths[i]!))
        .join("  ")
        .trimEnd(),
    );
}

const STATUS_COLOR: Record<string, (s: string) => string> = {
  SUCCEEDED: c.green,
  RUNNING: c.cyan,
  FAILED: c.red,
  STOPPED: c.yellow,
  PAUSED: c.yellow,
};

export function status(s: string): string {
  return (STATUS_COLOR[s] ?? ((x: string) => x))(s);
}

/** A spinner on stderr while `work` runs (TTY only); returns what `work` returns. */
export async function withSpinner<T>(label: string, work: () => Promise<T>): Promise<T> {
  if (!process.stderr.isTTY || opts.json) return work();
  const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
  let i = 0;
  const timer = setInterval(() => process.stderr.write(`\r${frames[i++ % frames.length]} ${label}`), 80);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    process.stderr.write("\r\x1b[2K");
  }
}

/** How often a progress line is printed when stderr is not a terminal (a log, CI). */
const PLAIN_PROGRESS_MS = 5_000;

/**
 * A byte progress bar on stderr with throughput and time left: redrawn in place on a TTY, a plain line at
 * most every 5 s otherwise (so a long upload in a log still shows it moves); `done()` prints a final line
 * either way. `skip(n)` counts bytes that need not be sent (already stored) without making them throughput.
 */
export function progress(
  label: string,
  total: number,
  now: () => number = Date.now,
): { add: (n: number) => void; skip: (n: number) => void; done: (summary: string) => void } {
  let done = 0;
  let sent = 0;
  const started = now();
  let lastPlain = started;
  const tty = Boolean(process.stderr.isTTY) && !opts.json;
  const line = () => {
    const secs = Math.max((now() - started) / 1000, 0.001);
    const rate = sent / secs;
    const left = rate > 0 ? Math.ceil((total - done) / rate) : null;
    const pct = total === 0 ? 100 : Math.floor((done / total) * 100);
    const eta = left === null || done >= total ? "" : `, ${formatSeconds(left)} left`;
    return { pct, text: `${humanBytes(done)}/${humanBytes(total)} (${pct}%) ${humanBytes(rate)}/s${eta}` };
  };
  const draw = () => {
    const { pct, text } = line();
    if (tty) {
      const width = 24;
      const filled = Math.round((pct / 100) * width);
      process.stderr.write(`\r\x1b[2K${label} [${"#".repeat(filled)}${" ".repeat(width - filled)}] ${text}`);
    } else if (!opts.json && now() - lastPlain >= PLAIN_PROGRESS_MS) {
      lastPlain = now();
      process.stderr.write(`${label}: ${text}\n`);
    }
  };
  return {
    add(n) {
      done += n;
      sent += n;
      draw();
    },
    skip(n) {
      done += n;
      draw();
    },
    done(summary) {
      if (tty) process.stderr.write("\r\x1b[2K");
      info(summary);
    },
  };
}

function formatSeconds(s: number): string {
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

export function humanBytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB"];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v : v.toFixed(1)} ${units[u]}`;
}
