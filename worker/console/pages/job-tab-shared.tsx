/** @jsxImportSource hono/jsx */
/** What the job page's tabs share: paths, run labels, number and JSON formatting, key grouping. */
import type { Json } from "../../../contract/readback.schema.js";
import type { ConsoleCtx } from "../api.js";
import type { JobDetail, RunSummary } from "../job-data.js";
import { Notice } from "../layout.js";

// -------------------------------------------------------------------------------------------

export const LOG_PAGE = 500;

export function jobPath(detail: JobDetail, rest: string): string {
  return `/v1/jobs/${encodeURIComponent(detail.job.id)}/${rest}`;
}

export function runQuery(run: RunSummary): string {
  return `run=${encodeURIComponent(run.id)}`;
}

/** This page's own path and query with `set` applied (a value of null removes the parameter). */
export function hereWith(c: ConsoleCtx, set: Record<string, string | null>): string {
  const url = new URL(c.req.url);
  for (const [k, v] of Object.entries(set)) {
    if (v === null) url.searchParams.delete(k);
    else url.searchParams.set(k, v);
  }
  const q = url.searchParams.toString();
  return q ? `${url.pathname}?${q}` : url.pathname;
}

/** The run is still going: its data may grow while the page is open. */
export function runIsLive(detail: JobDetail, run: RunSummary): boolean {
  return detail.job.status === "RUNNING" && run.ended_at === null && detail.job.current_run_id === run.id;
}

export function runLabel(run: RunSummary): string {
  return `attempt ${run.attempt} (${run.id}, ${run.status.toLowerCase()})`;
}

export const NoRun = ({ what }: { what: string }) => (
  <Notice kind="empty" title="This job has not run yet">
    <p>{`It has no ${what} until it is given GPUs and starts; this page shows them from then on.`}</p>
  </Notice>
);

/** A number as people read it: integers as they are, others to 6 significant digits. */
export function fmtNum(v: number | null | undefined): string {
  if (v === null || v === undefined) return "—";
  if (Number.isInteger(v)) return String(v);
  if (!Number.isFinite(v)) return String(v);
  return String(Number.parseFloat(v.toPrecision(6)));
}

export function fmtBytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return "—";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${n} B` : `${v.toFixed(1)} ${units[i]}`;
}

/** A JSON value on one line (strings as they are). */
export function jsonText(v: Json | unknown): string {
  if (typeof v === "string") return v;
  if (v === undefined) return "—";
  return JSON.stringify(v) ?? "—";
}

// charts -------------------------------------------------------------------------------------------

export const GROUP_ORDER = ["train", "eval"];

/** Metric keys by prefix (the part before the first `/` or `.`): train, eval, the other prefixes, then the rest. */
export function groupKeys<T extends { key: string }>(keys: T[]): Array<{ group: string; keys: T[] }> {
  const groups = new Map<string, T[]>();
  for (const k of keys) {
    const cut = k.key.search(/[/.]/);
    const g = cut > 0 ? k.key.slice(0, cut) : "";
    const list = groups.get(g) ?? [];
    list.push(k);
    groups.set(g, list);
  }
  const rank = (g: string) => {
    const i = GROUP_ORDER.indexOf(g);
    return i >= 0 ? i : g === "" ? GROUP_ORDER.length + 1 : GROUP_ORDER.length;
  };
  return [...groups.entries()]
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([group, list]) => ({ group, keys: list.sort((a, b) => a.key.localeCompare(b.key)) }));
}
