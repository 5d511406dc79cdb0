/**
 * The console's one script (bundled by scripts/build-console.mjs). Pages work without it; it adds what
 * needs a browser: times in the viewer's zone, live updates, charts, the log tail. Each feature finds its
 * elements by data-* attribute and does nothing on a page without them.
 */
import { initCharts } from "./charts.js";
import { initGpuGrid } from "./gpu-grid.js";
import { initLive } from "./live.js";
import { initLogs } from "./logs.js";
import { initLocalTimes } from "./time.js";
import { initUsageChart } from "./usage-chart.js";

const features: Array<(root: Document) => void> = [
  initLocalTimes,
  initLive,
  initCharts,
  initLogs,
  initGpuGrid,
  initUsageChart,
];

function start(): void {
  for (const init of features) {
    try {
      init(document);
    } catch (err) {
      console.error("console feature failed", err);
    }
  }
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
