/** @jsxImportSource hono/jsx */
/**
 * The job page's tabs (issue 16): charts, logs, events, hardware, artifacts, config and samples. Each is
 * rendered on the server from the /v1 read routes of the selected run (`?run=`, else the latest), so it
 * says something useful without the script; client/charts.ts and client/logs.ts then draw the charts and
 * follow the live tail, finding their elements by data-* attribute. Every value a run reported goes into
 * the page as JSX text or an attribute, so it is escaped.
 */
import type { Child } from "hono/jsx";
import type { ConsoleCtx } from "../api.js";
import { type JobDetail, selectedRun, type TabName } from "../job-data.js";
import { chartsTab, logsTab } from "./job-tabs-live.js";
import { artifactsTab, configTab, eventsTab, hardwareTab, samplesTab } from "./job-tabs-records.js";

export { fmtNum, groupKeys } from "./job-tab-shared.js";

/** The body of `tab` for the job (rendered under the job page's header and tab bar). */
export async function tabContent(c: ConsoleCtx, detail: JobDetail, tab: TabName): Promise<Child> {
  const run = selectedRun(detail, c.req.query("run"));
  switch (tab) {
    case "charts":
      return chartsTab(c, detail, run);
    case "logs":
      return logsTab(c, detail, run);
    case "events":
      return eventsTab(detail);
    case "hardware":
      return hardwareTab(c, detail, run);
    case "artifacts":
      return artifactsTab(c, detail, run);
    case "config":
      return configTab(c, detail, run);
    case "samples":
      return samplesTab(c, detail, run);
  }
}
