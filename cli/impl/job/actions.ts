/** `sf job stop|pause|resume ID [--reason TEXT]`: ask the job's fleet to change its state. */
import type { Command } from "commander";
import { ACTION_TARGETS, type JobState } from "../../../contract/job-states.js";
import { JobAnswer } from "../../../contract/responses.schema.js";
import { parse, route } from "../../api.js";
import { authedApi } from "../../context.js";
import { CliError } from "../../errors.js";
import { c, emit, print, status } from "../../output.js";

export type JobAction = "stop" | "pause" | "resume";

/** What a person can do instead, given the state the server says the job is in. */
export function transitionHint(id: string, current: string | undefined): string {
  const possible = (["stop", "pause", "resume"] as const).filter(
    (a) => current && ACTION_TARGETS[a][current as JobState],
  );
  if (!current) return `\`sf job status ${id}\` shows what state it is in`;
  if (possible.length === 0) return `a ${current} job is finished; submit it again to run it again`;
  return `a ${current} job can be ${possible.map((a) => `${a === "stop" ? "stopped" : `${a}d`} (\`sf job ${a} ${id}\`)`).join(" or ")}`;
}

export async function act(
  cmd: Command,
  action: JobAction,
  id: string,
  o: { reason?: string },
): Promise<void> {
  const api = authedApi(cmd);
  let res: unknown;
  try {
    res = await api.post(
      route(`/v1/jobs/{id}/${action}`, { id }),
      JobAnswer,
      o.reason ? { reason: o.reason } : {},
    );
  } catch (err) {
    if (err instanceof CliError && err.code === "INVALID_TRANSITION") {
      const current = (err.details as { status?: string } | undefined)?.status;
      throw new CliError(err.message, {
        code: err.code,
        exit: err.exit,
        details: err.details,
        hint: transitionHint(id, current),
      });
    }
    throw err;
  }
  const { job } = parse(JobAnswer, res, "job");
  emit({ job }, () => {
    print(`${c.bold(job.id)} ${status(job.status)}`);
    if (job.status === "QUEUED" && job.pending_reasons[0])
      print(c.dim(`waiting: ${job.pending_reasons[0].message}`));
  });
}
