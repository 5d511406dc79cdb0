/** Reading a run's log lines page by page (`sf job logs`, `sf job logs --cause`). */
import { type LogLine, LogsPage } from "../../../contract/responses.schema.js";
import { type Api, route } from "../../api.js";
import { CliError } from "../../errors.js";

/** Every released line of one run (the job's current or latest unless `run` is given), in cursor order. */
export async function readLogs(
  api: Api,
  jobId: string,
  run?: string,
  rank?: number,
): Promise<{ run_id: string; lines: LogLine[] }> {
  const lines: LogLine[] = [];
  let offset = 0;
  let runId = run;
  for (;;) {
    const q = new URLSearchParams({ offset: String(offset), limit: "5000" });
    // Pin the run the first page picked, so a retry starting mid-read cannot splice two runs together.
    if (runId) q.set("run", runId);
    if (rank !== undefined) q.set("rank", String(rank));
    const p = await api.get(route("/v1/jobs/{id}/logs", { id: jobId }, q), LogsPage).catch((err: unknown) => {
      if (err instanceof CliError && err.code === "NOT_FOUND" && !run) {
        throw new CliError(err.message, {
          code: err.code,
          exit: err.exit,
          hint: `\`sf job status ${jobId}\` shows why it waits; \`sf job logs ${jobId} -f\` waits for it`,
        });
      }
      throw err;
    });
    runId = p.run_id;
    lines.push(...p.lines);
    if (p.lines.length === 0) return { run_id: p.run_id, lines };
    offset = p.next_offset;
  }
}

/** One page of a run's lines of one rank, from cursor `offset` (GET /v1/jobs/:id/logs). */
export async function logsPage(
  api: Api,
  jobId: string,
  q: { run: string; rank: number; offset: number; limit: number },
): Promise<LogsPage> {
  const query = new URLSearchParams({
    run: q.run,
    rank: String(q.rank),
    offset: String(q.offset),
    limit: String(q.limit),
  });
  return await api.get(route("/v1/jobs/{id}/logs", { id: jobId }, query), LogsPage);
}
