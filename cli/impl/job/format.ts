/** Small renderers the job commands share: ages, placements, digests, and a colour-safe table. */

import type { RunView } from "../../../contract/responses.schema.js";
import { c, print } from "../../output.js";

/** "42s", "7m", "3h", "2d" since `iso` (or until now from a future clock: "0s"). */
export function age(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return "-";
  const s = Math.max(0, Math.floor((now - Date.parse(iso)) / 1000));
  if (Number.isNaN(s)) return "-";
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

/** `nod_x[0,1]` per rank, or the number of nodes when there are many. */
export function placementSummary(run: Pick<RunView, "placement">): string {
  const p = run.placement;
  if (p.length === 0) return "-";
  const one = (x: RunView["placement"][number]) => `${x.node_id}[${x.gpu_indices.join(",")}]`;
  if (p.length <= 2) return p.map(one).join(" ");
  const nodes = new Set(p.map((x) => x.node_id)).size;
  return `${p.length} ranks on ${nodes} nodes (${one(p[0]!)} …)`;
}

/** `sha256:0123456789ab` — enough to compare by eye; --json has the whole digest. */
export function shortDigest(d: string | null): string {
  if (!d) return "-";
  return d.length > 19 ? d.slice(0, 19) : d;
}

export function formatNumber(v: number): string {
  if (Number.isInteger(v)) return String(v);
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return v.toExponential(3);
  return v.toPrecision(5).replace(/\.?0+$/, "");
}

/** GPU-hours with two decimals, but a small non-zero figure keeps three significant digits instead of 0. */
export function gpuHours(h: number): string {
  return h > 0 && h < 0.01 ? h.toPrecision(3) : formatNumber(Math.round(h * 100) / 100);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escapes is the point
const ANSI = /\x1b\[[0-9;]*m/g;

function visible(s: string): number {
  return s.replace(ANSI, "").length;
}

/**
 * Like output.table, but measures cells without their colour codes, so a coloured status column stays
 * aligned on a TTY. `color` maps a column's plain value to its painted form.
 */
export function colorTable(
  rows: Array<Record<string, string | number | null | undefined>>,
  columns: string[],
  color: Record<string, (v: string) => string> = {},
): void {
  if (rows.length === 0) return;
  const cell = (v: unknown) => (v === null || v === undefined ? "-" : String(v));
  const widths = columns.map((col) => Math.max(col.length, ...rows.map((r) => visible(cell(r[col])))));
  print(c.dim(columns.map((col, i) => col.toUpperCase().padEnd(widths[i]!)).join("  ")).trimEnd());
  for (const r of rows) {
    const cells = columns.map((col, i) => {
      const plain = cell(r[col]);
      const painted = color[col] ? color[col](plain) : plain;
      return painted + " ".repeat(Math.max(0, widths[i]! - visible(plain)));
    });
    print(cells.join("  ").trimEnd());
  }
}
