/** `sf job metrics ID [--key K]`: what a run reported, as a table and a one-line sparkline. */
import type { Command } from "commander";
import { MetricKeys, type MetricPoint, MetricSeries } from "../../../contract/responses.schema.js";
import { type Api, route } from "../../api.js";
import { authedApi } from "../../context.js";
import { CliError, EXIT } from "../../errors.js";
import { c, emit, info, print } from "../../output.js";
import { age, colorTable, formatNumber } from "./format.js";

const BARS = "▁▂▃▄▅▆▇█";

/**
 * The curve as one line of block characters, at most `width` wide: points are averaged into buckets
 * (so a long run keeps its shape) and scaled between the smallest and largest bucket.
 */
export function sparkline(values: number[], width = 60): string {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return "";
  const n = Math.min(width, finite.length);
  const buckets: number[] = [];
  for (let b = 0; b < n; b++) {
    const lo = Math.floor((b * finite.length) / n);
    const hi = Math.max(lo + 1, Math.floor(((b + 1) * finite.length) / n));
    const slice = finite.slice(lo, hi);
    buckets.push(slice.reduce((s, v) => s + v, 0) / slice.length);
  }
  const min = Math.min(...buckets);
  const max = Math.max(...buckets);
  if (max === min) return BARS[3]!.repeat(n);
  return buckets.map((v) => BARS[Math.min(7, Math.floor(((v - min) / (max - min)) * 8))]).join("");
}

/** "2.31 → 0.82 (−64.5%) over steps 0–199" */
export function summary(points: MetricPoint[]): string {
  const first = points[0]!;
  const last = points.at(-1)!;
  const pct =
    first.value !== 0
      ? ` (${last.value >= first.value ? "+" : "−"}${Math.abs(((last.value - first.value) / first.value) * 100).toFixed(1)}%)`
      : "";
  return `${formatNumber(first.value)} → ${formatNumber(last.value)}${pct} over steps ${first.step}–${last.step}`;
}

/** Every point of one series, following `next_after` across pages. */
export async function readSeries(
  api: Api,
  jobId: string,
  key: string,
  run?: string,
): Promise<{ run_id: string; points: MetricPoint[] }> {
  const points: MetricPoint[] = [];
  let after = -1;
  for (;;) {
    const q = new URLSearchParams({ key, after: String(after), limit: "10000" });
    if (run) q.set("run", run);
    const page = await api.get(route("/v1/jobs/{id}/metrics", { id: jobId }, q), MetricSeries);
    points.push(...page.points);
    if (page.next_after === null || page.points.length === 0) return { run_id: page.run_id, points };
    after = page.next_after;
  }
}

/** Evenly spaced rows (always the first and the last) so a long curve fits a screen. */
function sample<T>(xs: T[], rows: number): T[] {
  // A few extra rows are easier to read than a gap in an otherwise complete table.
  if (rows <= 0 || xs.length <= rows + rows / 2) return xs;
  const idx = new Set<number>();
  for (let i = 0; i < rows; i++) idx.add(Math.round((i * (xs.length - 1)) / (rows - 1)));
  return [...idx].sort((a, b) => a - b).map((i) => xs[i]!);
}

export async function metrics(
  cmd: Command,
  id: string,
  o: { key?: string; run?: string; rows?: string },
): Promise<void> {
  const api = authedApi(cmd);
  if (!o.key) {
    const q = new URLSearchParams(o.run ? { run: o.run } : {});
    const r = await api.get(route("/v1/jobs/{id}/metrics", { id }, q), MetricKeys);
    emit({ job_id: id, ...r }, () => {
      if (r.keys.length === 0) {
        info(`run ${r.run_id} has reported no metrics yet`);
        return;
      }
      colorTable(
        r.keys.map((k) => ({
          key: k.key,
          points: k.count,
          step: k.last.step,
          last: formatNumber(k.last.value),
          reported: `${age(k.last.ts)} ago`,
        })),
        ["key", "points", "step", "last", "reported"],
      );
      info(c.dim(`(sf job metrics ${id} --key KEY for the curve)`));
    });
    return;
  }
  const rows = o.rows === undefined ? 20 : Number(o.rows);
  if (!Number.isInteger(rows) || rows < 0)
    throw new CliError(`--rows must be a non-negative integer, got "${o.rows}"`, { exit: EXIT.USAGE });
  const { run_id, points } = await readSeries(api, id, o.key, o.run);
  emit({ job_id: id, run_id, key: o.key, points }, () => {
    if (points.length === 0) {
      info(`run ${run_id} has no points for "${o.key}" (sf job metrics ${id} lists the keys it has)`);
      return;
    }
    const shown = sample(points, rows);
    colorTable(
      shown.map((p) => ({ step: p.step, value: formatNumber(p.value) })),
      ["step", "value"],
    );
    if (shown.length < points.length)
      info(c.dim(`(${shown.length} of ${points.length} points; --rows 0 for all, --json for raw)`));
    print();
    print(`${o.key}  ${c.cyan(sparkline(points.map((p) => p.value)))}`);
    print(`${o.key}  ${summary(points)}`);
  });
}
