/**
 * The job page's charts (Charts and Hardware tabs): every `figure[data-chart-key]` inside a
 * `[data-charts]` container is drawn with uPlot from /console/api (all pages of the series), and
 * `data-points` is set on the figure after every draw. The Charts tab's controls smooth (EMA), switch to a
 * log scale, put time instead of step on the x axis and add the job's other runs; while the run is going
 * (`data-live="1"`) the charts fetch only the new points every 2 s and redraw. Nothing is created per point:
 * uPlot draws on one canvas, so a 100k-point series stays smooth.
 */
import uPlot from "uplot";

const LIVE_MS = 2000;
/** Every this many live ticks, ask whether the job still runs (and stop polling once it does not). */
const STATUS_EVERY = 5;
const PAGE = 10_000;
const HEIGHT = 240;
const PALETTE = ["#e16f24", "#1a7f37", "#8250df", "#bf3989", "#9a6700", "#0a7ea4", "#cf222e"];

/** One line of a chart, stored by column. `x` is the step (metrics) or epoch seconds (hardware). */
interface Line {
  id: string;
  label: string;
  /** Run the line belongs to (metrics), for compare. */
  run: string;
  step: number[];
  t: number[];
  v: number[];
}

interface Settings {
  smoothing: number;
  log: boolean;
  x: "step" | "time";
  compare: string[];
}

interface Chart {
  fig: HTMLElement;
  key: string;
  job: string;
  run: string;
  source: "metrics" | "hardware";
  lines: Line[];
  /** Metrics: last step read of the primary run; hardware: last sample time (epoch ms). */
  after: number;
  plot: uPlot | null;
  holder: HTMLElement;
  summary: HTMLElement | null;
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { headers: { accept: "application/json" }, credentials: "same-origin" });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

const enc = encodeURIComponent;

interface MetricPage {
  points: Array<{ step: number; value: number; ts: string }>;
  next_after: number | null;
}

/** Every point of `key` in `run` after step `after`, appended to `line`; returns the last step read. */
async function readMetric(job: string, run: string, key: string, after: number, line: Line): Promise<number> {
  let cursor = after;
  for (;;) {
    const page = await getJson<MetricPage>(
      `/console/api/jobs/${enc(job)}/metrics?run=${enc(run)}&key=${enc(key)}&after=${cursor}&limit=${PAGE}`,
    );
    for (const p of page.points) {
      line.step.push(p.step);
      line.t.push(Date.parse(p.ts) / 1000);
      line.v.push(p.value);
      cursor = p.step;
    }
    if (page.next_after === null || page.points.length === 0) return cursor;
    cursor = page.next_after;
  }
}

interface HardwarePage {
  series: Array<{
    node_id: string | null;
    worker_id: string | null;
    gpu_idx: number | null;
    points: Array<{ ts: string; value: number }>;
  }>;
  next_after: number | null;
}

/** Every hardware sample of `key` after `after` (epoch ms), merged into `lines` by device. */
async function readHardware(c: Chart, after: number): Promise<number> {
  let cursor = after;
  for (;;) {
    const q = `run=${enc(c.run)}&key=${enc(c.key)}&limit=${PAGE}${cursor >= 0 ? `&after=${cursor}` : ""}`;
    const page = await getJson<HardwarePage>(`/console/api/jobs/${enc(c.job)}/hardware?${q}`);
    for (const s of page.series) {
      const host = s.worker_id ?? s.node_id ?? "";
      const id = JSON.stringify([host, s.gpu_idx]);
      let line = c.lines.find((l) => l.id === id);
      if (!line) {
        const label = [host, s.gpu_idx === null ? "" : `GPU ${s.gpu_idx}`].filter(Boolean).join(" ");
        line = { id, label: label || c.key, run: c.run, step: [], t: [], v: [] };
        c.lines.push(line);
      }
      for (const p of s.points) {
        const ms = Date.parse(p.ts);
        line.t.push(ms / 1000);
        line.step.push(line.step.length);
        line.v.push(p.value);
        if (ms > cursor) cursor = ms;
      }
    }
    if (page.next_after === null) return cursor;
    cursor = page.next_after;
  }
}

/** Exponential moving average, debiased so the first points are not pulled to 0 (as TensorBoard). */
function smooth(v: number[], a: number): Array<number | null> {
  if (a <= 0) return v;
  const out: Array<number | null> = new Array(v.length);
  let m = 0;
  let w = 0;
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    if (!Number.isFinite(x)) {
      out[i] = null;
      continue;
    }
    m = a * m + (1 - a) * x;
    w = a * w + (1 - a);
    out[i] = m / w;
  }
  return out;
}

/** The line as [x, y] for uPlot, x ascending. */
function table(line: Line, s: Settings, source: Chart["source"]): [number[], Array<number | null>] {
  const byTime = source === "hardware" || s.x === "time";
  let xs = byTime ? line.t : line.step;
  let vs = line.v;
  if (byTime && !ascending(xs)) {
    const order = xs.map((_, i) => i).sort((a, b) => xs[a]! - xs[b]!);
    xs = order.map((i) => line.t[i]!);
    vs = order.map((i) => line.v[i]!);
  }
  let ys = smooth(vs, source === "hardware" ? 0 : s.smoothing);
  if (s.log) ys = ys.map((y) => (y !== null && y > 0 ? y : null));
  return [xs, ys];
}

function ascending(xs: number[]): boolean {
  for (let i = 1; i < xs.length; i++) if (xs[i]! < xs[i - 1]!) return false;
  return true;
}

function data(c: Chart, s: Settings): uPlot.AlignedData {
  const tables = c.lines.map((l) => table(l, s, c.source));
  if (tables.length === 0) return [[], []];
  if (tables.length === 1) return tables[0] as uPlot.AlignedData;
  return uPlot.join(tables as uPlot.AlignedData[]);
}

function cssVar(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

function points(c: Chart): number {
  if (c.source === "hardware") return c.lines.reduce((n, l) => n + l.v.length, 0);
  return c.lines[0]?.v.length ?? 0;
}

function afterDraw(c: Chart): void {
  const n = points(c);
  c.fig.dataset.points = String(n);
  const primary = c.lines[0];
  if (c.summary) {
    const last = primary && primary.v.length > 0 ? primary.v[primary.v.length - 1] : undefined;
    c.summary.textContent =
      c.source === "hardware"
        ? `${n} sample${n === 1 ? "" : "s"} from ${c.lines.length} device${c.lines.length === 1 ? "" : "s"}`
        : `${n} point${n === 1 ? "" : "s"}${last === undefined ? "" : `; last ${fmt(last)} at step ${primary!.step[primary!.step.length - 1]}`}`;
  }
}

function fmt(v: number): string {
  return Number.isInteger(v) ? String(v) : String(Number.parseFloat(v.toPrecision(6)));
}

function width(c: Chart): number {
  return Math.max(240, Math.floor(c.holder.clientWidth || c.fig.clientWidth || 600));
}

/** (Re)creates the uPlot of `c`: series, scales or axes changed. */
function draw(c: Chart, s: Settings): void {
  c.plot?.destroy();
  const fg = cssVar("--fg-muted", "#59636e");
  const grid = cssVar("--border", "#d0d7de");
  const accent = cssVar("--accent", "#0969da");
  const byTime = c.source === "hardware" || s.x === "time";
  const axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
  const opts: uPlot.Options = {
    width: width(c),
    height: HEIGHT,
    scales: { x: { time: byTime }, y: { distr: s.log ? 3 : 1 } },
    series: [
      { label: byTime ? "Time" : "Step" },
      ...c.lines.map((l, i) => ({
        label: l.label,
        stroke: i === 0 ? accent : PALETTE[(i - 1) % PALETTE.length]!,
        width: 1.5,
        spanGaps: true,
      })),
    ],
    axes: [axis, { ...axis, size: 60 }],
    legend: { live: true },
  };
  c.plot = new uPlot(opts, data(c, s), c.holder);
  afterDraw(c);
}

/** New data, same series: redraw in place. */
function update(c: Chart, s: Settings): void {
  if (!c.plot || c.plot.series.length !== c.lines.length + 1) {
    draw(c, s);
    return;
  }
  c.plot.setData(data(c, s));
  afterDraw(c);
}

function readSettings(root: HTMLElement): Settings {
  const smoothing = root.querySelector<HTMLInputElement>("#chart-smoothing");
  const log = root.querySelector<HTMLInputElement>("#chart-log");
  const x = root.querySelector<HTMLSelectElement>("#chart-x");
  return {
    smoothing: smoothing ? Math.min(0.99, Math.max(0, Number(smoothing.value) || 0)) : 0,
    log: log?.checked ?? false,
    x: x?.value === "time" ? "time" : "step",
    compare: [...root.querySelectorAll<HTMLInputElement>("input[data-compare-run]")]
      .filter((i) => i.checked)
      .map((i) => i.dataset.compareRun!),
  };
}

/** Runs `tasks` at most `n` at a time. */
async function pool(tasks: Array<() => Promise<void>>, n: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const task = tasks[next++]!;
      try {
        await task();
      } catch (err) {
        console.error("chart failed", err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, tasks.length) }, worker));
}

function newChart(fig: HTMLElement): Chart {
  const holder = document.createElement("div");
  holder.className = "chart-plot";
  const caption = fig.querySelector("figcaption");
  if (caption) caption.after(holder);
  else fig.prepend(holder);
  return {
    fig,
    key: fig.dataset.chartKey!,
    job: fig.dataset.job!,
    run: fig.dataset.run!,
    source: fig.dataset.source === "hardware" ? "hardware" : "metrics",
    lines: [],
    after: -1,
    plot: null,
    holder,
    summary: fig.querySelector<HTMLElement>(".chart-summary"),
  };
}

async function load(c: Chart, s: Settings): Promise<void> {
  if (c.source === "hardware") {
    c.after = await readHardware(c, -1);
  } else {
    const line: Line = { id: c.run, label: c.run, run: c.run, step: [], t: [], v: [] };
    c.lines.push(line);
    c.after = await readMetric(c.job, c.run, c.key, -1, line);
  }
  draw(c, s);
}

/** New points since the last read; true when there were any. */
async function refresh(c: Chart): Promise<boolean> {
  if (c.source === "hardware") {
    const before = points(c);
    c.after = await readHardware(c, c.after);
    return points(c) !== before;
  }
  const line = c.lines[0];
  if (!line) return false;
  const before = line.v.length;
  c.after = await readMetric(c.job, c.run, c.key, c.after, line);
  return line.v.length !== before;
}

/** Adds or removes the lines of compared runs to every metrics chart, then redraws. */
async function syncCompare(charts: Chart[], s: Settings): Promise<void> {
  const tasks: Array<() => Promise<void>> = [];
  for (const c of charts) {
    if (c.source !== "metrics") continue;
    c.lines = c.lines.filter((l, i) => i === 0 || s.compare.includes(l.run));
    for (const run of s.compare) {
      if (c.lines.some((l) => l.run === run)) continue;
      const line: Line = { id: run, label: run, run, step: [], t: [], v: [] };
      c.lines.push(line);
      tasks.push(async () => {
        await readMetric(c.job, run, c.key, -1, line);
      });
    }
  }
  await pool(tasks, 4);
  for (const c of charts) draw(c, s);
}

function initContainer(root: HTMLElement): void {
  const figs = [...root.querySelectorAll<HTMLElement>("figure[data-chart-key]")];
  if (figs.length === 0) return;
  const charts = figs.map(newChart);
  let settings = readSettings(root);
  void pool(
    charts.map((c) => () => load(c, settings)),
    4,
  );

  const smoothing = root.querySelector<HTMLInputElement>("#chart-smoothing");
  const shown = root.querySelector<HTMLOutputElement>("#chart-smoothing-value");
  let frame = 0;
  smoothing?.addEventListener("input", () => {
    settings = readSettings(root);
    if (shown) shown.value = settings.smoothing.toFixed(2);
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(() => {
      for (const c of charts) if (c.plot) update(c, settings);
    });
  });
  for (const id of ["#chart-log", "#chart-x"]) {
    root.querySelector(id)?.addEventListener("change", () => {
      settings = readSettings(root);
      for (const c of charts) if (c.plot) draw(c, settings);
    });
  }
  for (const box of root.querySelectorAll<HTMLInputElement>("input[data-compare-run]")) {
    box.addEventListener("change", () => {
      settings = readSettings(root);
      void syncCompare(charts, settings);
    });
  }

  const resize = new ResizeObserver(() => {
    for (const c of charts) {
      const w = width(c);
      if (c.plot && Math.abs(c.plot.width - w) > 2) c.plot.setSize({ width: w, height: HEIGHT });
    }
  });
  resize.observe(root);

  if (root.dataset.live !== "1") return;
  const job = root.dataset.job!;
  let ticks = 0;
  let busy = false;
  const refreshAll = () =>
    pool(
      charts.map((c) => async () => {
        if (c.plot && (await refresh(c))) update(c, settings);
      }),
      4,
    );
  const timer = window.setInterval(async () => {
    if (busy) return;
    busy = true;
    try {
      await refreshAll();
      if (++ticks % STATUS_EVERY === 0) {
        const d = await getJson<{ job: { status: string } }>(`/console/api/jobs/${enc(job)}`);
        if (d.job.status !== "RUNNING") {
          window.clearInterval(timer);
          delete root.dataset.live;
          // What the run sent just before it ended.
          await refreshAll();
        }
      }
    } catch (err) {
      console.error("live charts", err);
    } finally {
      busy = false;
    }
  }, LIVE_MS);
}

/** A running job without metrics yet: look for its first keys every 2 s and show them when they come. */
function awaitFirstMetrics(el: HTMLElement): void {
  const job = el.dataset.job!;
  const run = el.dataset.run!;
  let ticks = 0;
  const timer = window.setInterval(async () => {
    try {
      const { keys } = await getJson<{ keys: unknown[] }>(
        `/console/api/jobs/${enc(job)}/metrics?run=${enc(run)}`,
      );
      if (keys.length > 0) {
        window.clearInterval(timer);
        window.location.reload();
        return;
      }
      if (++ticks % STATUS_EVERY === 0) {
        const d = await getJson<{ job: { status: string } }>(`/console/api/jobs/${enc(job)}`);
        if (d.job.status !== "RUNNING") window.clearInterval(timer);
      }
    } catch (err) {
      console.error("waiting for metrics", err);
    }
  }, LIVE_MS);
}

export function initCharts(root: Document): void {
  for (const el of root.querySelectorAll<HTMLElement>("[data-charts]")) initContainer(el);
  for (const el of root.querySelectorAll<HTMLElement>('[data-metrics-wait="1"]')) awaitFirstMetrics(el);
}
