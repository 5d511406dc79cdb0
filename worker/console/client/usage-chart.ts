/**
 * The usage page's GPU-hours per day: a uPlot bar chart of the `[data-usage-chart]` element's
 * `data-series` (JSON `[{date, gpu_hours}]`, UTC days, oldest first), or of /console/api/usage?days=30
 * when the page sent none. The page's table carries the same numbers for screen readers and no-JS.
 */
import uPlot from "uplot";

interface Day {
  date: string;
  gpu_hours: number;
}

/** The series as uPlot wants it: x = each UTC day's start in seconds, y = GPU-hours. */
export function toColumns(days: Day[]): [number[], number[]] {
  const xs: number[] = [];
  const ys: number[] = [];
  for (const d of days) {
    const t = Date.parse(`${d.date}T00:00:00Z`);
    if (Number.isNaN(t) || !Number.isFinite(d.gpu_hours)) continue;
    xs.push(t / 1000);
    ys.push(d.gpu_hours);
  }
  return [xs, ys];
}

function parseSeries(text: string | undefined): Day[] | null {
  if (!text) return null;
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? (v as Day[]) : null;
  } catch {
    return null;
  }
}

function cssVar(el: Element, name: string, fallback: string): string {
  return getComputedStyle(el).getPropertyValue(name).trim() || fallback;
}

function draw(el: HTMLElement, days: Day[]): void {
  const [xs, ys] = toColumns(days);
  if (xs.length === 0) return;
  const width = Math.max(280, el.clientWidth || 600);
  const accent = cssVar(el, "--accent", "#0969da");
  const fg = cssVar(el, "--fg-muted", "#59636e");
  const grid = cssVar(el, "--border", "#d0d7de");
  const bars = uPlot.paths.bars?.({ size: [0.7, 40], align: 0 });
  const axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
  const opts: uPlot.Options = {
    width,
    height: 240,
    // Days are UTC: show them as such, not shifted into the viewer's zone.
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
    scales: {
      // Half a day either side, so the first and last bars (centred on their day) are whole.
      x: { time: true, range: (_u, min, max) => [min - 43_200, max + 43_200] },
      y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] },
    },
    // The page's table is the legend: the chart is one picture (role=img) for screen readers.
    legend: { show: false },
    series: [
      {
        label: "Day (UTC)",
        value: (_u, v) => (v == null ? "—" : new Date(v * 1000).toISOString().slice(0, 10)),
      },
      {
        label: "GPU-hours",
        stroke: accent,
        fill: accent,
        width: 1,
        ...(bars ? { paths: bars } : {}),
        points: { show: false },
        value: (_u, v) => (v == null ? "—" : v.toFixed(2)),
      },
    ],
    axes: [
      {
        ...axis,
        // Ticks on whole days only, labelled as UTC dates (MM-DD).
        incrs: [86_400, 2 * 86_400, 7 * 86_400, 14 * 86_400],
        space: 48,
        values: (_u, splits) => splits.map((s) => new Date(s * 1000).toISOString().slice(5, 10)),
      },
      { ...axis, label: "GPU-hours" },
    ],
  };
  el.replaceChildren();
  const plot = new uPlot(opts, [xs, ys], el);
  el.dataset.chartPoints = String(xs.length);
  let last = width;
  new ResizeObserver(() => {
    const w = Math.max(280, el.clientWidth);
    if (Math.abs(w - last) > 4) {
      last = w;
      plot.setSize({ width: w, height: 240 });
    }
  }).observe(el);
}

export function initUsageChart(root: Document): void {
  for (const el of root.querySelectorAll<HTMLElement>("[data-usage-chart]")) {
    const days = parseSeries(el.dataset.series);
    if (days) {
      draw(el, days);
      continue;
    }
    void fetch("/console/api/usage?days=30", { headers: { accept: "application/json" } })
      .then((r) => (r.ok ? (r.json() as Promise<{ daily?: Day[] }>) : null))
      .then((body) => {
        if (body?.daily) draw(el, body.daily);
      })
      .catch(() => {});
  }
}
