/**
 * Live anomalies of a running run (issue 29; docs/operations.md "Failure diagnosis"), decided from what its
 * training reports while it goes on: a loss that became NaN or infinite (NAN_LOSS), and a hang (HANG): no new
 * step for `factor` × the median interval between its step reports, and at least `floor`. Pure: the Run DO
 * keeps the progress in its meta and asks this when metrics arrive and when its alarm fires.
 */
import type { MetricPoint } from "../../contract/ingest.schema.js";

/** A hang is judged only once this many intervals between step reports were seen (a median to stand on). */
export const MIN_INTERVALS = 3;
/** The intervals the median is taken over: the latest ones (a run's pace changes: eval, warm-up). */
const KEPT_INTERVALS = 20;
export const DEFAULT_HANG_FACTOR = 10;
export const DEFAULT_HANG_FLOOR_SECONDS = 300;

/** What the run's job asks of its watch (its spec's lifecycle) and where to report. */
export interface Watch {
  fleet_id: string;
  job_id: string;
  policy: "warn" | "stop";
  factor: number;
  floor_ms: number;
}

/**
 * What a Run DO asks of its run's Fleet DO (FleetDO implements it: watchOf, runAnomaly). Typed here so the
 * Run DO never imports the Fleet DO, which calls it (the objects' imports stay one-way).
 */
export interface FleetWatch {
  watchOf(runId: string): Promise<Watch | null>;
  runAnomaly(runId: string, anomaly: Anomaly & { policy: Watch["policy"]; at: number }): Promise<string>;
}

/** The newest step the run reported, when it arrived, and the intervals between new steps. */
export interface Progress {
  step: number;
  at: number;
  intervals: number[];
  /** The step a hang was raised at (none raised again until a newer step arrives), or null. */
  hang_raised_at_step: number | null;
}

export interface Anomaly {
  class: "NAN_LOSS" | "HANG";
  summary: string;
  step: number | null;
  /** NAN_LOSS: the metric and the value it took. */
  key?: string;
  value?: string;
  /** HANG: how long without a new step, and the bound it passed (seconds). */
  silent_seconds?: number;
  bound_seconds?: number;
}

/** The progress after a batch of points arrived at `now` (unchanged when no point is past its step). */
export function observe(p: Progress | null, points: readonly MetricPoint[], now: number): Progress | null {
  let newest = p?.step ?? -1;
  for (const x of points) if (x.step > newest) newest = x.step;
  if (p && newest <= p.step) return p;
  if (newest < 0) return p;
  if (!p) return { step: newest, at: now, intervals: [], hang_raised_at_step: null };
  const intervals = [...p.intervals, Math.max(0, now - p.at)].slice(-KEPT_INTERVALS);
  return { step: newest, at: now, intervals, hang_raised_at_step: null };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** How long without a new step is a hang for this run now (ms), or null while there is too little to judge. */
export function hangBound(p: Progress | null, w: Watch): number | null {
  if (!p || p.intervals.length < MIN_INTERVALS) return null;
  return Math.max(w.factor * median(p.intervals), w.floor_ms);
}

/** When the run is a hang if no new step arrives (epoch ms), or null (nothing to judge, or already raised). */
export function hangDue(p: Progress | null, w: Watch): number | null {
  const bound = hangBound(p, w);
  if (bound === null || !p || p.hang_raised_at_step === p.step) return null;
  return p.at + bound;
}

/** The run's hang at `now`, if it is one. */
export function hangAt(p: Progress | null, w: Watch, now: number): Anomaly | null {
  const due = hangDue(p, w);
  if (due === null || now < due || !p) return null;
  const silent = Math.round((now - p.at) / 1000);
  const bound = Math.round((due - p.at) / 1000);
  return {
    class: "HANG",
    summary: `no new step for ${silent} s after step ${p.step} (the bound: ${bound} s, ${w.factor}× its median step interval and at least ${Math.round(w.floor_ms / 1000)} s)`,
    step: p.step,
    silent_seconds: silent,
    bound_seconds: bound,
  };
}

/** A loss that became NaN or infinite in these points (the first), if any. */
export function nanLoss(points: readonly MetricPoint[]): Anomaly | null {
  const bad = points.find((x) => typeof x.value === "string" && /loss/i.test(x.key));
  if (!bad) return null;
  return {
    class: "NAN_LOSS",
    summary: `${bad.key} became ${bad.value} at step ${bad.step}`,
    step: bad.step,
    key: bad.key,
    value: String(bad.value),
  };
}
