/**
 * `sf sweep EXP --set-grid k=v1,v2 …`: the cartesian product of the grid, bounded by --max. Every
 * combination is typed before anything leaves the machine, the workspace is packed and uploaded once,
 * and the jobs, which share one sweep id and differ only in their grid params, go in one request that the
 * server admits all or none (a job array).
 */
import type { Command } from "commander";
import { ulid } from "ulid";
import type { ParamValue } from "../../../contract/hyperparams.js";
import { CliError, EXIT } from "../../errors.js";
import { emit, info, table } from "../../output.js";
import { parseSets, validateExperiment } from "../project/validate.js";
import type { SweepFlags } from "./flags.js";
import { parseGrid } from "./params.js";
import { idempotencyKey, type JobDetail, postJobs } from "./post.js";
import { loadLocal, prepareRemote } from "./prepare.js";
import { buildSpec, jobName } from "./spec.js";

type Grid = ReturnType<typeof parseGrid>;

/** Every combination, the first key varying slowest. */
export function cartesian(grid: Grid): Array<Record<string, string>> {
  let out: Array<Record<string, string>> = [{}];
  for (const { key, values } of grid)
    out = out.flatMap((combo) => values.map((v) => ({ ...combo, [key]: v })));
  return out;
}

function parseMax(raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new CliError(`--max must be a positive integer, got "${raw}"`, { code: "USAGE", exit: EXIT.USAGE });
  return n;
}

export async function sweep(cmd: Command, expName: string, o: SweepFlags): Promise<void> {
  const max = parseMax(o.max);
  const local = loadLocal(expName, o.profile);
  const { exp, lock } = local;
  const grid = parseGrid(o.setGrid ?? []);
  if (grid.length === 0) {
    throw new CliError("a sweep needs at least one --set-grid", {
      code: "USAGE",
      exit: EXIT.USAGE,
      hint: "e.g. --set-grid learning_rate=0.05,0.1",
    });
  }
  const sets = parseSets(o.set);
  const both = grid.filter((g) => Object.hasOwn(sets, g.key)).map((g) => g.key);
  if (both.length > 0)
    throw new CliError(`${both.join(", ")} is given to both --set and --set-grid`, {
      code: "USAGE",
      exit: EXIT.USAGE,
    });
  const size = grid.reduce((n, g) => n * g.values.length, 1);
  if (size > max) {
    throw new CliError(`this sweep has ${size} combinations; the limit is ${max}`, {
      code: "SWEEP_TOO_LARGE",
      exit: EXIT.REJECTED,
      hint: "sweep fewer values, or raise the limit with --max",
    });
  }

  // All or none: type every combination before the server sees any of them.
  const combos = cartesian(grid).map((combo) => ({
    combo,
    result: validateExperiment(exp, { ...sets, ...combo }),
  }));
  const problems = [
    ...new Set(combos.flatMap((c) => c.result.issues.map((i) => `${i.source}: ${i.message}`))),
  ];
  if (problems.length > 0) {
    throw new CliError(
      `invalid hyperparameters for ${lock.recipe.name}@${lock.recipe.version}: ${problems.join("; ")}`,
      {
        code: "INVALID_HYPERPARAMS",
        exit: EXIT.REJECTED,
        hint: `nothing was submitted; see \`sf methods ${lock.recipe.name}\` for each parameter's type and range`,
      },
    );
  }

  const key = idempotencyKey();
  const remote = await prepareRemote(cmd, local, o);
  const sweepId = `swp_${ulid().toLowerCase()}`;
  const base = jobName(o.name ?? exp.name, 63 - `-s${size - 1}`.length);
  const specs = combos.map(({ combo, result }, index) => {
    const params = Object.fromEntries(Object.keys(combo).map((k) => [k, result.hyperparams[k]!]));
    const spec = buildSpec({
      exp,
      project: local.project,
      lock,
      name: `${base}-s${index}`,
      image: o.image,
      fleet: o.fleetSelector === undefined ? (o.fleet ?? exp.config.fleet ?? local.projectFleet) : o.fleet,
      fleetSelector: o.fleetSelector,
      pools: remote.pools,
      roles: remote.roles,
      hyperparams: result.hyperparams,
      secrets: o.secret,
      priorityClass: o.priorityClass,
      team: o.team,
      workspace: remote.workspace,
      provenance: remote.provenance,
      sweep: { id: sweepId, index, params },
    });
    return { spec, params };
  });
  // One request, admitted all or none: a refusal leaves no job of the sweep behind.
  const admitted = await postJobs(
    remote.api,
    specs.map((s) => s.spec),
    key,
  );
  const jobs: Array<{ job: JobDetail; params: Record<string, ParamValue> }> = admitted.map((job, i) => ({
    job,
    params: specs[i]!.params,
  }));

  emit({ sweep: { id: sweepId, size }, jobs, upload: remote.upload }, () => {
    info(`sweep ${sweepId}: ${size} job${size === 1 ? "" : "s"}`);
    const show = (p: Record<string, ParamValue>) =>
      Object.entries(p)
        .map(([k, v]) => `${k}=${v}`)
        .join(" ");
    table(
      jobs.map(({ job, params }) => ({
        job: job.id,
        name: job.name,
        state: job.status,
        params: show(params),
      })),
      ["job", "name", "state", "params"],
    );
  });
}
