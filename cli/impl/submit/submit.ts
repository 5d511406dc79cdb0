/** `sf submit EXP`: every check first (see prepare.ts for the order), then one JobSpec posted once. */
import type { Command } from "commander";
import { EXIT } from "../../errors.js";
import { c, emit, info, print } from "../../output.js";
import { followExitCode, followJob } from "../job/follow.js";
import { parseSets } from "../project/validate.js";
import type { SubmitFlags } from "./flags.js";
import { resolveHyperparams } from "./params.js";
import { describeDryRun, describeJob, dryRunJob, idempotencyKey, postJob } from "./post.js";
import { loadLocal, prepareRemote } from "./prepare.js";
import { buildSpec, jobName } from "./spec.js";

export async function submit(cmd: Command, expName: string, o: SubmitFlags): Promise<void> {
  const local = loadLocal(expName, o.profile);
  const hyperparams = resolveHyperparams(local.exp, local.lock, parseSets(o.set));
  // One key per invocation, made before anything else can fail halfway: a retried POST replays.
  const key = idempotencyKey();
  const remote = await prepareRemote(cmd, local, o);
  const spec = buildSpec({
    exp: local.exp,
    project: local.project,
    lock: local.lock,
    name: jobName(o.name ?? local.exp.name),
    image: o.image,
    // A selector stands in for the configured default fleet, not for one given on the command line.
    fleet:
      o.fleetSelector === undefined ? (o.fleet ?? local.exp.config.fleet ?? local.projectFleet) : o.fleet,
    fleetSelector: o.fleetSelector,
    pools: remote.pools,
    roles: remote.roles,
    hyperparams,
    secrets: o.secret,
    priorityClass: o.priorityClass,
    team: o.team,
    workspace: remote.workspace,
    provenance: remote.provenance,
  });
  if (o.dryRun) {
    const plan = await dryRunJob(remote.api, spec);
    emit({ dry_run: true, job: plan, upload: remote.upload }, () => {
      for (const line of describeDryRun(plan)) print(line);
    });
    return;
  }
  const job = await postJob(remote.api, spec, key);
  emit({ job, upload: remote.upload }, () => {
    for (const line of describeJob(job)) print(line);
  });
  if (!o.follow) return;
  info(c.dim(`following ${job.id} (Ctrl-C stops following, not the job)`));
  // followJob prints the final status itself (a JSON line with --json); only the exit code is left to set.
  const code = followExitCode((await followJob(remote.api, job.id)).status);
  if (code !== EXIT.OK) process.exit(code);
}
