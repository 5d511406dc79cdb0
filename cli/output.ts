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

/** A byte progress bar on stderr (TTY only); `done()` prints a final line either way. */
export function progress(
  label: string,
  total: number,
): { add: (n: number) => void; done: (summary: string) => void } {
  let sent = 0;
  const tty = Boolean(process.stderr.isTTY) && !opts.json;
  const draw = () => {
    const width = 24;
    const filled = total === 0 ? width : Math.round((sent / total) * width);
    process.stderr.write(
      `\r${label} [${"#".repeat(filled)}${" ".repeat(width - filled)}] ${humanBytes(sent)}/${humanBytes(total)}`,
    );
  };
  return {
    add(n) {
      sent += n;
      if (tty) draw();
    },
    done(summary) {
      if (tty) process.stderr.write("\r\x1b[2K");
      info(summary);
    },
  };
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
