/**
 * GET /v1/admin/metrics writes Prometheus's text format 0.0.4 by hand (worker/services/metrics-exposition.ts).
 * A strict parser of that format, written here from the format's description, reads the output back: a
 * scrape Prometheus would refuse (a sample before its TYPE, a family split in two, a bad escape, a
 * histogram whose +Inf bucket is not its count, no final newline) fails these tests.
 */
import { describe, expect, it } from "vitest";
import {
  EXPOSITION_CONTENT_TYPE,
  ExpositionError,
  exposition,
  type Family,
} from "../../worker/services/metrics-exposition.js";

// --- a strict parser of the text format, version 0.0.4 -------------------------------------------------

interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}
interface ParsedFamily {
  name: string;
  help: string | null;
  type: string;
  samples: ParsedSample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);

class ParseError extends Error {}

function unescapeText(text: string, quoteAllowed: boolean, line: number): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch !== "\\") {
      out += ch;
      continue;
    }
    const next = text[++i];
    if (next === "\\") out += "\\";
    else if (next === "n") out += "\n";
    else if (next === '"' && quoteAllowed) out += '"';
    else throw new ParseError(`line ${line}: invalid escape \\${next ?? ""}`);
  }
  return out;
}

function parseValue(text: string, line: number): number {
  if (text === "NaN") return Number.NaN;
  if (text === "+Inf") return Number.POSITIVE_INFINITY;
  if (text === "-Inf") return Number.NEGATIVE_INFINITY;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text))
    throw new ParseError(`line ${line}: value ${text}`);
  return Number(text);
}

/** The family a sample name belongs to (a histogram's _bucket/_sum/_count belong to their base name). */
function familyOf(name: string, types: Map<string, string>): string {
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    const base = name.slice(0, -suffix.length);
    if (name.endsWith(suffix) && ["histogram", "summary"].includes(types.get(base) ?? "")) return base;
  }
  return name;
}

function parseSampleLine(text: string, line: number): ParsedSample {
  const name = NAME.exec(text)?.[0];
  if (!name) throw new ParseError(`line ${line}: no metric name`);
  let rest = text.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith("{")) {
    rest = rest.slice(1);
    while (!rest.startsWith("}")) {
      const label = LABEL.exec(rest)?.[0];
      if (!label) throw new ParseError(`line ${line}: bad label name at ${rest.slice(0, 20)}`);
      if (label in labels) throw new ParseError(`line ${line}: label ${label} twice`);
      rest = rest.slice(label.length);
      if (!rest.startsWith('="')) throw new ParseError(`line ${line}: expected =" after ${label}`);
      rest = rest.slice(2);
      let raw = "";
      for (;;) {
        if (rest.length === 0) throw new ParseError(`line ${line}: unterminated label value`);
        if (rest[0] === "\\") {
          raw += rest.slice(0, 2);
          rest = rest.slice(2);
        } else if (rest[0] === '"') {
          rest = rest.slice(1);
          break;
        } else {
          raw += rest[0];
          rest = rest.slice(1);
        }
      }
      labels[label] = unescapeText(raw, true, line);
      if (rest.startsWith(",")) rest = rest.slice(1);
      else if (!rest.startsWith("}")) throw new ParseError(`line ${line}: expected , or } after a label`);
    }
    rest = rest.slice(1);
  }
  const parts = rest.trim().split(/[ \t]+/);
  if (!/^[ \t]/.test(rest) || parts.length < 1 || parts.length > 2) {
    throw new ParseError(`line ${line}: expected a value (and an optional timestamp)`);
  }
  if (parts[1] !== undefined && !/^-?\d+$/.test(parts[1])) throw new ParseError(`line ${line}: timestamp`);
  return { name, labels, value: parseValue(parts[0]!, line) };
}

function checkHistogram(f: ParsedFamily): void {
  const series = new Map<string, { buckets: Array<[number, number]>; sum?: number; count?: number }>();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const entry = series.get(key) ?? { buckets: [] };
    series.set(key, entry);
    if (s.name === `${f.name}_bucket`) {
      if (le === undefined) throw new ParseError(`${f.name}: a bucket without le`);
      entry.buckets.push([parseValue(le, 0), s.value]);
    } else if (s.name === `${f.name}_sum`) entry.sum = s.value;
    else if (s.name === `${f.name}_count`) entry.count = s.value;
    else throw new ParseError(`${f.name}: unexpected sample ${s.name}`);
  }
  for (const [key, e] of series) {
    if (e.sum === undefined || e.count === undefined) throw new ParseError(`${f.name}${key}: no _sum/_count`);
    const last = e.buckets.at(-1);
    if (!last || last[0] !== Number.POSITIVE_INFINITY)
      throw new ParseError(`${f.name}${key}: no +Inf bucket`);
    if (last[1] !== e.count) throw new ParseError(`${f.name}${key}: +Inf bucket is not _count`);
    for (let i = 1; i < e.buckets.length; i++) {
      if (!(e.buckets[i]![0] > e.buckets[i - 1]![0])) throw new ParseError(`${f.name}: le out of order`);
      if (e.buckets[i]![1] < e.buckets[i - 1]![1]) throw new ParseError(`${f.name}: buckets not cumulative`);
    }
  }
}

/** Parses a whole exposition, refusing anything the format does not allow. */
function parseExposition(text: string): ParsedFamily[] {
  if (text.length > 0 && !text.endsWith("\n")) throw new ParseError("the last line has no line feed");
  const families: ParsedFamily[] = [];
  const byName = new Map<string, ParsedFamily>();
  const types = new Map<string, string>();
  const closed = new Set<string>();
  const series = new Set<string>();
  let current: ParsedFamily | null = null;
  const enter = (name: string): ParsedFamily => {
    if (current?.name === name) return current;
    if (closed.has(name) || byName.get(name)?.samples.length) throw new ParseError(`${name}: family split`);
    if (current) closed.add(current.name);
    let f = byName.get(name);
    if (!f) {
      f = { name, help: null, type: "untyped", samples: [] };
      byName.set(name, f);
      families.push(f);
    }
    current = f;
    return f;
  };
  const lines = text.split("\n").slice(0, -1);
  lines.forEach((raw, i) => {
    const n = i + 1;
    if (raw.trim() === "") return;
    if (raw.startsWith("#")) {
      const m = /^#[ \t]+(HELP|TYPE)[ \t]+(\S+)(?:[ \t]+(.*))?$/.exec(raw);
      if (!m) return; // a plain comment
      const [, kind, name, rest = ""] = m;
      if (!NAME.test(name!) || NAME.exec(name!)![0] !== name) throw new ParseError(`line ${n}: bad name`);
      const f = enter(name!);
      if (kind === "HELP") {
        if (f.help !== null) throw new ParseError(`line ${n}: second HELP for ${name}`);
        f.help = unescapeText(rest, false, n);
      } else {
        if (types.has(name!)) throw new ParseError(`line ${n}: second TYPE for ${name}`);
        if (f.samples.length > 0) throw new ParseError(`line ${n}: TYPE after samples of ${name}`);
        if (!TYPES.has(rest)) throw new ParseError(`line ${n}: unknown type ${rest}`);
        types.set(name!, rest);
        f.type = rest;
      }
      return;
    }
    const s = parseSampleLine(raw, n);
    const f = enter(familyOf(s.name, types));
    const key = `${s.name}${JSON.stringify(Object.entries(s.labels).sort())}`;
    if (series.has(key)) throw new ParseError(`line ${n}: duplicate series ${key}`);
    series.add(key);
    if ((f.type === "counter" || f.type === "gauge") && s.name !== f.name) {
      throw new ParseError(`line ${n}: ${s.name} in ${f.type} ${f.name}`);
    }
    if (f.type === "counter" && !(s.value >= 0)) throw new ParseError(`line ${n}: negative counter`);
    f.samples.push(s);
  });
  for (const f of families) if (f.type === "histogram") checkHistogram(f);
  return families;
}

// --- the parser itself is strict (otherwise the tests below could not fail) ---------------------------

describe("the strict parser", () => {
  it.each([
    ["no final line feed", "# TYPE a gauge\na 1"],
    ["a family split in two", '# TYPE a gauge\na 1\n# TYPE b gauge\nb 1\na{x="1"} 2\n'],
    ["a TYPE after samples", "a 1\n# TYPE a gauge\n"],
    ["an unknown escape", '# TYPE a gauge\na{x="\\t"} 1\n'],
    ["an unescaped quote", '# TYPE a gauge\na{x="""} 1\n'],
    ["a bad value", "# TYPE a gauge\na one\n"],
    ["a duplicate series", '# TYPE a gauge\na{x="1"} 1\na{x="1"} 2\n'],
    ["a +Inf bucket that is not the count", 'h_bucket{le="+Inf"} 2\nh_sum 1\nh_count 3\n'],
    [
      "buckets that are not cumulative",
      'h_bucket{le="1"} 2\nh_bucket{le="2"} 1\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 2\n',
    ],
  ])("refuses %s", (_why, text) => {
    const typed = text.startsWith("h_") ? `# TYPE h histogram\n${text}` : text;
    expect(() => parseExposition(typed)).toThrow(ParseError);
  });

  it("reads a valid exposition (comments, a timestamp, a trailing comma)", () => {
    const f = parseExposition(
      '# just a comment\n# HELP a An \\\\ a.\n# TYPE a counter\na{x="1",} 3 1700000000000\n',
    );
    expect(f).toEqual([
      {
        name: "a",
        help: "An \\ a.",
        type: "counter",
        samples: [{ name: "a", labels: { x: "1" }, value: 3 }],
      },
    ]);
  });
});

// --- what the Worker writes ---------------------------------------------------------------------------

const FAMILIES: Family[] = [
  {
    name: "starforge_fleet_jobs",
    help: "Jobs of a fleet by status.\nSecond line with a \\ backslash.",
    type: "gauge",
    samples: [
      { labels: { fleet: "gpu-a", status: "QUEUED" }, value: 3 },
      { labels: { fleet: 'we"ird\\name\nx', status: "RUNNING" }, value: 1 },
    ],
  },
  {
    name: "starforge_admission_rejections_total",
    help: "Refused submits by code.",
    type: "counter",
    samples: [{ labels: { code: "QUOTA_EXCEEDED" }, value: 7 }],
  },
  { name: "starforge_empty_total", help: "A family with no samples yet.", type: "counter", samples: [] },
  {
    name: "starforge_dispatch_latency_seconds",
    help: "Seconds from QUEUED to dispatch.",
    type: "histogram",
    buckets: [0.5, 1, 60],
    series: [
      { labels: { fleet: "gpu-a" }, counts: [1, 2, 2], sum: 30.25, count: 3 },
      { labels: { fleet: "gpu-b" }, counts: [0, 0, 0], sum: 0, count: 0 },
    ],
  },
  {
    name: "starforge_outbox_oldest_age_seconds",
    help: "Age of the oldest unflushed entry.",
    type: "gauge",
    samples: [{ value: Number.NaN }, { labels: { fleet: "x" }, value: Number.POSITIVE_INFINITY }],
  },
];

describe("exposition()", () => {
  it("writes what the strict parser reads back exactly: names, help, types, labels and values", () => {
    const text = exposition(FAMILIES);
    const parsed = parseExposition(text);
    expect(parsed.map((f) => [f.name, f.type, f.help])).toEqual(
      FAMILIES.map((f) => [f.name, f.type, f.help]),
    );
    expect(parsed[0]!.samples).toEqual([
      { name: "starforge_fleet_jobs", labels: { fleet: "gpu-a", status: "QUEUED" }, value: 3 },
      { name: "starforge_fleet_jobs", labels: { fleet: 'we"ird\\name\nx', status: "RUNNING" }, value: 1 },
    ]);
    expect(parsed[2]!.samples).toEqual([]);
    const outbox = parsed[4]!.samples;
    expect(Number.isNaN(outbox[0]!.value)).toBe(true);
    expect(outbox[1]!.value).toBe(Number.POSITIVE_INFINITY);
  });

  it("writes a histogram's cumulative buckets, its +Inf bucket equal to the count, its sum and count", () => {
    const h = parseExposition(exposition(FAMILIES)).find((f) => f.type === "histogram")!;
    const a = h.samples.filter((s) => s.labels.fleet === "gpu-a");
    expect(a.map((s) => [s.name, s.labels.le ?? null, s.value])).toEqual([
      ["starforge_dispatch_latency_seconds_bucket", "0.5", 1],
      ["starforge_dispatch_latency_seconds_bucket", "1", 2],
      ["starforge_dispatch_latency_seconds_bucket", "60", 2],
      ["starforge_dispatch_latency_seconds_bucket", "+Inf", 3],
      ["starforge_dispatch_latency_seconds_sum", null, 30.25],
      ["starforge_dispatch_latency_seconds_count", null, 3],
    ]);
  });

  it("ends every line, the last one included, with a line feed, and writes nothing for no families", () => {
    const text = exposition(FAMILIES);
    expect(text.endsWith("\n")).toBe(true);
    expect(text.endsWith("\n\n")).toBe(false);
    expect(exposition([])).toBe("");
  });

  it("announces the format version Prometheus expects", () => {
    expect(EXPOSITION_CONTENT_TYPE.startsWith("text/plain; version=0.0.4")).toBe(true);
  });

  it.each<[string, Family]>([
    ["a metric name with a dash", { name: "bad-name", help: "", type: "gauge", samples: [] }],
    [
      "a label name with a dash",
      { name: "a", help: "", type: "gauge", samples: [{ labels: { "x-y": "1" }, value: 1 }] },
    ],
    [
      "a reserved label name",
      { name: "a", help: "", type: "gauge", samples: [{ labels: { __x: "1" }, value: 1 }] },
    ],
    ["a duplicate series", { name: "a", help: "", type: "gauge", samples: [{ value: 1 }, { value: 2 }] }],
    [
      "an le label on a histogram",
      {
        name: "h",
        help: "",
        type: "histogram",
        buckets: [1],
        series: [{ labels: { le: "1" }, counts: [1], sum: 1, count: 1 }],
      },
    ],
    ["buckets out of order", { name: "h", help: "", type: "histogram", buckets: [2, 1], series: [] }],
    [
      "a count per bucket missing",
      {
        name: "h",
        help: "",
        type: "histogram",
        buckets: [1, 2],
        series: [{ counts: [1], sum: 1, count: 1 }],
      },
    ],
  ])("refuses to write %s", (_why, family) => {
    expect(() => exposition([family])).toThrow(ExpositionError);
  });

  it("refuses a family written twice", () => {
    const f: Family = { name: "a", help: "", type: "gauge", samples: [] };
    expect(() => exposition([f, f])).toThrow(ExpositionError);
  });
});
