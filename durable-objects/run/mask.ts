/**
 * Masking a run's secrets in what it prints (pure): every exact occurrence of a value becomes `***`
 * before a line is stored. A multi-line value (a PEM key) is also masked line by line, since a log line
 * holds at most one of its lines; lines too short to be told from ordinary text are left alone.
 */
import { SECRET_MIN_CHARS } from "../../contract/secrets.schema.js";

export const MASK = "***";

/** The strings to mask for these values, longest first (so a value containing another is masked whole). */
export function maskNeedles(values: Iterable<string>): string[] {
  const needles = new Set<string>();
  for (const v of values) {
    if (v.length >= SECRET_MIN_CHARS) needles.add(v);
    for (const line of v.split(/\r?\n/)) {
      const t = line.trim();
      if (t.length >= SECRET_MIN_CHARS) needles.add(t);
    }
  }
  return [...needles].sort((a, b) => b.length - a.length);
}

export function maskText(text: string, needles: readonly string[]): string {
  let out = text;
  for (const n of needles) if (out.includes(n)) out = out.split(n).join(MASK);
  return out;
}
