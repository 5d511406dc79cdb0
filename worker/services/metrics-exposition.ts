/**
 * The Prometheus text exposition format, version 0.0.4, written by hand: prom-client needs Node's
 * process and timers and does not run in workerd. One family is a `# HELP` and a `# TYPE` line followed
 * by all of its samples; families never interleave. Label values escape `\`, `"` and newline, HELP text
 * escapes `\` and newline (the format's only escapes). Pure, so the unit test parses its output strictly.
 */

export const EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export type Labels = Readonly<Record<string, string>>;

export interface Sample {
  labels?: Labels;
  value: number;
}

/** One histogram series: `counts[i]` is how many observations were ≤ `buckets[i]` (cumulative). */
export interface HistogramSeries {
  labels?: Labels;
  counts: readonly number[];
  sum: number;
  count: number;
}

export type Family =
  | { name: string; help: string; type: "counter" | "gauge"; samples: readonly Sample[] }
  | {
      name: string;
      help: string;
      type: "histogram";
      /** Upper bounds, strictly increasing; the `+Inf` bucket is added (it equals `count`). */
      buckets: readonly number[];
      series: readonly HistogramSeries[];
    };

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** A bug in a caller (a bad name, a reserved label), never something a request can cause. */
export class ExpositionError extends Error {
  override name = "ExpositionError";
}

export function escapeLabelValue(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

export function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

/** Go's formatting of floats as Prometheus reads them: integers plain, and the three specials. */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Number.POSITIVE_INFINITY) return "+Inf";
  if (v === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(v);
}

function labelSet(labels: Labels | undefined, extra?: [string, string]): string {
  const pairs = Object.entries(labels ?? {});
  if (extra) pairs.push(extra);
  if (pairs.length === 0) return "";
  for (const [k] of pairs) {
    if (!LABEL_NAME.test(k) || k.startsWith("__")) throw new ExpositionError(`invalid label name ${k}`);
  }
  return `{${pairs.map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(",")}}`;
}

function header(f: Family): string[] {
  if (!METRIC_NAME.test(f.name)) throw new ExpositionError(`invalid metric name ${f.name}`);
  return [`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`];
}

function histogramLines(name: string, buckets: readonly number[], s: HistogramSeries): string[] {
  if (s.labels && "le" in s.labels) throw new ExpositionError(`${name}: "le" is the bucket label`);
  if (s.counts.length !== buckets.length) throw new ExpositionError(`${name}: one count per bucket`);
  const lines = buckets.map(
    (b, i) => `${name}_bucket${labelSet(s.labels, ["le", formatValue(b)])} ${formatValue(s.counts[i]!)}`,
  );
  lines.push(`${name}_bucket${labelSet(s.labels, ["le", "+Inf"])} ${formatValue(s.count)}`);
  lines.push(`${name}_sum${labelSet(s.labels)} ${formatValue(s.sum)}`);
  lines.push(`${name}_count${labelSet(s.labels)} ${formatValue(s.count)}`);
  return lines;
}

/** A series (name and label set) may appear once: Prometheus refuses a scrape with a duplicate. */
function once(name: string, labels: Labels | undefined, seen: Set<string>): void {
  const key = `${name}${JSON.stringify(Object.entries(labels ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)))}`;
  if (seen.has(key)) throw new ExpositionError(`series ${name}${labelSet(labels)} appears twice`);
  seen.add(key);
}

/** The whole exposition: every family in order, each line ended by a newline (the last one too). */
export function exposition(families: readonly Family[]): string {
  const seen = new Set<string>();
  const series = new Set<string>();
  const lines: string[] = [];
  for (const f of families) {
    if (seen.has(f.name)) throw new ExpositionError(`metric ${f.name} appears twice`);
    seen.add(f.name);
    lines.push(...header(f));
    if (f.type === "histogram") {
      for (let i = 1; i < f.buckets.length; i++) {
        if (!(f.buckets[i]! > f.buckets[i - 1]!))
          throw new ExpositionError(`${f.name}: buckets must increase`);
      }
      for (const s of f.series) {
        once(f.name, s.labels, series);
        lines.push(...histogramLines(f.name, f.buckets, s));
      }
    } else {
      for (const s of f.samples) {
        once(f.name, s.labels, series);
        lines.push(`${f.name}${labelSet(s.labels)} ${formatValue(s.value)}`);
      }
    }
  }
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}
