/** @jsxImportSource hono/jsx */
/** STUB (issue 16, in progress): the job page's tabs (charts, logs, events, hardware, artifacts, config, samples). */
import type { Child } from "hono/jsx";
import type { ConsoleCtx } from "../api.js";
import type { JobDetail, TabName } from "../job-data.js";

/** The body of `tab` for the job (rendered under the job page's header and tab bar). */
export async function tabContent(_c: ConsoleCtx, _detail: JobDetail, tab: TabName): Promise<Child> {
  return <p>{`The ${tab} tab is not built yet.`}</p>;
}
